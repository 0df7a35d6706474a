package format

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
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
// whitespace between sections: the whitespace between it and the next
// section's opener is layout (withCalls's delimiters now take the whitespace
// around every call as well).
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
// name the parsed body and the opener's groups in its transform. The
// whitespace around a call is its layout, as the parsers read it
// (docs/DECISIONS.md, 2026-12-04): the field's delimiters take it.
func (t *ResponseTemplate) withCalls(f *ResponseField) *ResponseTemplate {
	return t.withCallsAsWritten(spaceAround(f))
}

// withCallsAsWritten is withCalls for a family whose parser keeps the
// whitespace next to a call as content (markup.callSpaceKept), or whose
// calls are messages of their own (Harmony).
func (t *ResponseTemplate) withCallsAsWritten(f *ResponseField) *ResponseTemplate {
	f.Repeats = true
	t.Fields["tool_calls"] = f
	return t
}

// spaceAround makes f's delimiters take the whitespace before its opener
// and after its closer (literal delimiters become patterns). The parsers'
// bound on the whitespace held before a call (a run over 4 KiB is content)
// is not expressed.
func spaceAround(f *ResponseField) *ResponseField {
	if len(f.Open) > 0 {
		f.OpenPattern, f.Open = longestFirst(f.Open), nil
	}
	if f.OpenPattern != "" {
		f.OpenPattern = `\s*(?:` + f.OpenPattern + ")"
	}
	if len(f.Close) > 0 {
		f.ClosePattern, f.Close = longestFirst(f.Close), nil
	}
	if f.ClosePattern != "" {
		// After each alternative but one that ends looking ahead or at the
		// end of the output (the spec allows neither before more pattern):
		// the whitespace before what it looks for is the next delimiter's.
		alts := topLevelAlternatives(f.ClosePattern)
		for i, a := range alts {
			if !endsWithLookahead(a) && !(strings.HasSuffix(a, "$") && !strings.HasSuffix(a, `\$`)) {
				alts[i] = "(?:" + a + `)\s*`
			}
		}
		f.ClosePattern = strings.Join(alts, "|")
	}
	return f
}

// topLevelAlternatives splits a pattern at its top-level |.
func topLevelAlternatives(p string) []string {
	var out []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// endsWithLookahead reports whether an alternative ends with a lookahead
// group.
func endsWithLookahead(a string) bool {
	if !strings.HasSuffix(a, ")") {
		return false
	}
	depth := 0
	for i := len(a) - 1; i >= 0; i-- {
		switch a[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return strings.HasPrefix(a[i:], "(?=") && (i == 0 || a[i-1] != '\\')
			}
		}
	}
	return false
}

// longestFirst is a pattern matching any of the literal delimiters, the
// longest first (as a list of literals matches).
func longestFirst(markers []string) string {
	sorted := append([]string(nil), markers...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	return alternatives(sorted...)
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

// withCallListField is withCallList with f's delimiters (which take the
// whitespace around the list, as withCalls's do).
func (t *ResponseTemplate) withCallListField(f *ResponseField, nameKey, argsKey, idKey string) *ResponseTemplate {
	f = spaceAround(f)
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
