package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/grammar"
)

// cohere-command: Cohere Command R7B, Command A, Cohere2 MoE. The tool plan is
// reasoning, the calls are a JSON list between <|START_ACTION|> and
// <|END_ACTION|>, with their ids:
//
//	<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[
//	    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"location": "Paris"}}
//	]<|END_ACTION|>
//
// The answer wrappers (<|START_RESPONSE|>…<|END_RESPONSE|>,
// <|START_TEXT|>…<|END_TEXT|>) and <|END_OF_TURN_TOKEN|> are markup; an answer
// or action marker inside open reasoning ends it.
func init() {
	register(&Family{
		ID:        "cohere-command",
		Calls:     cohereCalls(),
		Aliases:   []string{"cohere", "cohere_command3", "cohere_command4"},
		ThinkOpen: cohereThinkOpen,
		// The tool plan is reasoning, the action a JSON list of calls with
		// their ids; the answer wrappers are dropped.
		ResponseTemplate: func() *ResponseTemplate {
			t := newResponseTemplate(cohereAssistant).withReasoning(cohereThinkOpen, cohereThinkClose, append([]string{cohereActionOpen}, cohereWrappers...)...)
			t.Fields["content"].ClosePattern = alternatives(cohereWrappers...)
			return t.withCallList(cohereActionOpen, cohereActionClose, "tool_name", "parameters", "tool_call_id")
		},
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: cohereThinkOpen, thinkClose: cohereThinkClose,
				callOpen:         append([]string{cohereActionOpen}, cohereWrappers...),
				callEndsThinking: true,
				section:          cohereSection,
			}, o)
		},
		Detect: func(t string) bool { return strings.Contains(t, cohereActionOpen) },
	})
}

const (
	cohereAssistant   = "<|CHATBOT_TOKEN|>" // starts an assistant turn in Cohere's prompts
	cohereThinkOpen   = "<|START_THINKING|>"
	cohereThinkClose  = "<|END_THINKING|>"
	cohereActionOpen  = "<|START_ACTION|>"
	cohereActionClose = "<|END_ACTION|>"
)

// cohereWrappers are the answer markers, removed from the content.
var cohereWrappers = []string{
	"<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", "<|END_OF_TURN_TOKEN|>",
}

func cohereSection(buf string, final bool) (int, []call, bool, error) {
	for _, w := range cohereWrappers {
		if strings.HasPrefix(buf, w) {
			return len(w), nil, false, nil
		}
	}
	return jlSection(buf, final, cohereActionOpen, cohereActionClose, false, cohereCall)
}

// cohereCall decodes {"tool_call_id", "tool_name", "parameters"}; the id is
// optional (Command R+ writes none).
func cohereCall(body string) (call, error) {
	var v [3]string // tool_call_id, tool_name, parameters
	if objectFields(body, cohereFields[:], 0, v[:]) {
		if c, err, ok := cohereCallFast(v); ok {
			return c, err
		}
	}
	return cohereCallDecoded(body)
}

// cohereCallDecoded is cohereCall by encoding/json, for the bodies
// cohereCallFast leaves undecided.
func cohereCallDecoded(body string) (call, error) {
	raw := []byte(body)
	var obj struct {
		ID         json.RawMessage `json:"tool_call_id"`
		Name       *string         `json:"tool_name"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return call{}, errors.New("the call is not a JSON object: " + err.Error())
	}
	if obj.Name == nil || *obj.Name == "" {
		return call{}, errors.New(`the call has no "tool_name"`)
	}
	args, err := argumentsText(obj.Parameters)
	if err != nil {
		return call{}, err
	}
	c := call{name: *obj.Name, args: args}
	if id := strings.TrimSpace(string(obj.ID)); id != "" && id != "null" {
		var s string
		if json.Unmarshal(obj.ID, &s) == nil {
			c.id = s
		} else {
			c.id = id // a number
		}
	}
	return c, nil
}

var cohereFields = [...]string{"tool_call_id", "tool_name", "parameters"}

// cohereCallFast is cohereCall on the members objectFields found, where it
// can decide without decoding (ok).
func cohereCallFast(v [3]string) (c call, err error, ok bool) {
	if v[1] == "" || v[1] == "null" {
		return call{}, errors.New(`the call has no "tool_name"`), true
	}
	if c.name, ok = plainJSONString(v[1], strings.IndexByte(v[1], '\\') >= 0); !ok {
		return call{}, nil, false
	}
	if c.name == "" {
		return call{}, errors.New(`the call has no "tool_name"`), true
	}
	if c.args, err, ok = argumentsTextFast(v[2]); !ok || err != nil {
		return call{}, err, ok
	}
	switch id := v[0]; {
	case id == "" || id == "null":
	case id[0] == '"':
		if c.id, ok = plainJSONString(id, strings.IndexByte(id, '\\') >= 0); !ok {
			return call{}, nil, false
		}
	default:
		c.id = id // a number
	}
	return c, nil, true
}

// cohereCalls: a JSON array of tool_call_id, tool_name and parameters in
// one action, over several lines.
func cohereCalls() *CallSyntax {
	id := seqOf(lit(`"`), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 4), lit(`"`))
	litToolCallID, litToolName, litParameters := lit(`"tool_call_id"`), lit(`"tool_name"`), lit(`"parameters"`)
	cs := jsonArray(cohereActionOpen, lit(cohereActionOpen), lit(cohereActionClose), func(b *Builder, i int) (string, error) {
		ws := b.WS()
		args, err := b.Args(i)
		if err != nil {
			return "", err
		}
		return seqOf(`"{"`, ws, litToolCallID, ws, `":"`, ws, id, ws, `","`, ws,
			litToolName, ws, `":"`, ws, b.JSONName(i), ws, `","`, ws,
			litParameters, ws, `":"`, ws, args, ws, `"}"`), nil
	})
	cs.Tag = jsonTag(func(n string) string {
		return cohereActionOpen + `[{"tool_call_id": "0", "tool_name": ` + jsonName(n) + `, "parameters": `
	}, "}]"+cohereActionClose)
	cs.PrettyJSON = true // the action list spans lines
	return withThinking(cs, cohereThinkOpen, cohereThinkClose)
}
