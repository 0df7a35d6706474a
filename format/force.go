package format

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/dragoman-dev/dragoman/chat"
)

// ForcedCall says how a family's call can be forced on a runtime that can
// constrain its output to a JSON Schema but takes no grammar (Ollama's
// `format`, llama-server's `json_schema`): the prompt is made to end with
// Open, the output is then one JSON body matching the schema, and the parser
// reads Open, the output and Close as if the model had written all three.
// This gives tool_choice "required" and named functions to runtimes that
// lack them. Families whose call body is not one JSON value have none.
type ForcedCall struct {
	Open, Close string
	// Body is the schema of the call's JSON body for the tools offered; only,
	// when not empty, restricts it to that one function.
	Body func(tools []chat.Tool, only string) (json.RawMessage, error)
}

// nameArgumentsBody is the schema of a {"name": ..., "arguments": {...}}
// body: one alternative per tool, each with its name as a constant and its
// parameters as the arguments' schema. Written by hand because the member
// order matters: constrained decoders follow the schema's order, and the
// templates put the name first.
func nameArgumentsBody(tools []chat.Tool, only string) (json.RawMessage, error) {
	var alts [][]byte
	for _, t := range tools {
		if only != "" && t.Function.Name != only {
			continue
		}
		params := []byte(`{"type":"object"}`)
		if p := bytes.TrimSpace(t.Function.Parameters); len(p) > 0 && string(p) != "null" {
			if !json.Valid(p) {
				return nil, fmt.Errorf("tool %q: parameters are not valid JSON", t.Function.Name)
			}
			params = p
		}
		name, err := json.Marshal(t.Function.Name)
		if err != nil {
			return nil, err
		}
		alt := []byte(`{"type":"object","properties":{"name":{"const":`)
		alt = append(alt, name...)
		alt = append(alt, `},"arguments":`...)
		alt = append(alt, params...)
		alt = append(alt, `},"required":["name","arguments"],"additionalProperties":false}`...)
		alts = append(alts, alt)
	}
	switch len(alts) {
	case 0:
		if only != "" {
			return nil, fmt.Errorf("no tool named %q", only)
		}
		return nil, fmt.Errorf("no tools")
	case 1:
		return alts[0], nil
	}
	return append(append([]byte(`{"anyOf":[`), bytes.Join(alts, []byte(","))...), "]}"...), nil
}

// ForceNamed says how to force one call to tool on a runtime that constrains
// output only to a JSON Schema, for a family whose arguments are one JSON
// object (CallSyntax.Tag): the prompt ends with open, the output is the
// arguments, matching schema, and close follows. ok is false when the family
// cannot be forced so.
func (f *Family) ForceNamed(tool chat.Tool) (open, close string, schema json.RawMessage, ok bool) {
	if f.Calls == nil || f.Calls.Tag == nil {
		return "", "", nil, false
	}
	open, close = f.Calls.Tag(tool.Function.Name)
	return open, close, argumentsSchema(tool), true
}
