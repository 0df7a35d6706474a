package format

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// ResponseTemplate is a family's markup written as a transformers response
// template (spec version 1, ../shared/response-templates/README.md): plain
// data that marshals to the JSON object a checkpoint's tokenizer_config.json
// would hold under "response_template". Each family that the spec can
// express builds its own from its marker constants, in its own file, so a
// marker is written once. This package only describes the template: package
// format/response, which imports format, loads and runs it, and its tests
// check that it reads the family's vectors as the family's parser does.
type ResponseTemplate struct {
	Defaults map[string]string `json:"defaults"`
	// StartAnchor are the headers that start an assistant turn in the
	// family's prompts: the prompt before the last one is not read.
	StartAnchor []string                  `json:"start_anchor"`
	Fields      map[string]*ResponseField `json:"fields"`
}

// ResponseField is one output key of a ResponseTemplate. Literal delimiters
// are lists (the longest that matches wins); patterns are Python regular
// expressions (dot matches newline).
type ResponseField struct {
	Open          []string       `json:"open,omitempty"`
	OpenPattern   string         `json:"open_pattern,omitempty"`
	Close         []string       `json:"close,omitempty"`
	ClosePattern  string         `json:"close_pattern,omitempty"`
	Content       string         `json:"content,omitempty"`
	ContentArgs   map[string]any `json:"content_args,omitempty"`
	Repeats       bool           `json:"repeats,omitempty"`
	Join          *string        `json:"join,omitempty"`
	Transform     any            `json:"transform,omitempty"`
	TransformEach bool           `json:"transform_each,omitempty"`
}

// JSON returns the template as indented JSON, markers unescaped, as it
// would sit in a tokenizer_config.json.
func (t *ResponseTemplate) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// patternOf makes a marker a literal inside a pattern. Go's escapes are valid
// Python ones.
func patternOf(marker string) string { return regexp.QuoteMeta(marker) }

// newResponseTemplate starts a template with the assistant role and the
// content field every family has: the text outside the other fields, its
// stretches joined as written, with nothing stripped, as the family
// parsers keep it.
func newResponseTemplate(anchors ...string) *ResponseTemplate {
	join := ""
	return &ResponseTemplate{
		Defaults:    map[string]string{"role": "assistant"},
		StartAnchor: anchors,
		Fields: map[string]*ResponseField{
			"content": {Content: "text", ContentArgs: map[string]any{"strip": false}, Repeats: true, Join: &join},
		},
	}
}

// withReasoning adds the reasoning field as the shared engine reads it
// (stream.go): it opens only at the start of the output (an opener the
// model repeats after the prompt's is markup too), whitespace after
// its close is layout, and a call opener among endedBy ends it too
// (markup.callEndsThinking).
func (t *ResponseTemplate) withReasoning(open, close string, endedBy ...string) *ResponseTemplate {
	closes := patternOf(close) + `\s*`
	for _, e := range endedBy {
		closes += "|(?=" + patternOf(e) + ")"
	}
	t.Fields["reasoning_content"] = &ResponseField{OpenPattern: `^\s*` + patternOf(open) + "(?:" + patternOf(open) + ")?", ClosePattern: closes, Content: "text"}
	return t
}

// withDroppedMarkup adds a field that opens at markup the family parser
// removes and closes at once: the markup is in no field, and the empty field
// is not in the message.
func (t *ResponseTemplate) withDroppedMarkup(name, pattern string) *ResponseTemplate {
	t.Fields[name] = &ResponseField{OpenPattern: pattern, ClosePattern: "(?:)"}
	return t
}

// spacedClose closes a call section of a family whose templates put
// whitespace between sections (markup.spacedCalls): the whitespace between
// it and the next section's opener is layout.
func spacedClose(close, nextOpen string) string {
	return patternOf(close) + `\s+(?=` + patternOf(nextOpen) + ")|" + patternOf(close)
}

// blockCallClose closes one call of a block of calls (patterns, not
// markers): callEnd followed by the block's end, or by whitespace before
// the next call's opener nextCall, or alone (the block's end missing, or
// text after the call).
func blockCallClose(callEnd, blockEnd, nextCall string) string {
	return callEnd + `\s*` + blockEnd + "|" + callEnd + `\s*(?=` + nextCall + ")|" + callEnd
}

// withCalls adds the tool_calls field, one call per match of f, which must
// name the parsed body and the opener's groups in its transform.
func (t *ResponseTemplate) withCalls(f *ResponseField) *ResponseTemplate {
	f.Repeats = true
	t.Fields["tool_calls"] = f
	return t
}

// callTransform makes a call of the opener's name group and the body as
// the arguments.
func callTransform() map[string]any {
	return map[string]any{"type": "function", "function": map[string]any{"name": "{name}", "arguments": "{content}"}}
}

// objectCallTransform makes a call of a body that is itself the
// {"name", "arguments"} object.
func objectCallTransform() map[string]any {
	return map[string]any{"type": "function", "function": "{content}"}
}

// withID gives a call transform the id the opener's group "id" holds.
func withID(transform map[string]any) map[string]any {
	transform["id"] = "{id}"
	return transform
}

// withCallList adds the tool_calls field for a family that writes its calls
// as one JSON list between open and close: each element's nameKey and
// argsKey (and idKey, unless empty) make a call.
func (t *ResponseTemplate) withCallList(open, close, nameKey, argsKey, idKey string) *ResponseTemplate {
	return t.withCallListField(&ResponseField{Open: []string{open}, Close: []string{close}}, nameKey, argsKey, idKey)
}

// withCallListField is withCallList with f's delimiters.
func (t *ResponseTemplate) withCallListField(f *ResponseField, nameKey, argsKey, idKey string) *ResponseTemplate {
	tr := map[string]any{"type": "function", "function": map[string]any{"name": "{" + nameKey + "}", "arguments": "{" + argsKey + "}"}}
	if idKey != "" {
		tr["id"] = "{" + idKey + "}"
	}
	f.Content, f.Transform, f.TransformEach = "json", tr, true
	t.Fields["tool_calls"] = f
	return t
}

// alternatives is a pattern matching any of the markers.
func alternatives(markers ...string) string {
	quoted := make([]string, len(markers))
	for i, m := range markers {
		quoted[i] = patternOf(m)
	}
	return strings.Join(quoted, "|")
}
