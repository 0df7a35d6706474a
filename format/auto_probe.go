package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

// The sentinels of the derivation probes: tool names, argument names and
// values, text and reasoning that no template writes itself, so where they
// land in a render shows the markup around them. Each starts and ends with a
// letter that markup rarely has next to it, and no sentinel contains another.
const (
	autoUser      = "Qzvuserquestionq"
	autoContent   = "Zqvcontentsentinelq"
	autoReasoning = "Zqvreasoningsentinelq"
	autoCallID    = "qzv123456"
)

var (
	autoNames  = [2]string{"qzvfirsttoolq", "qzvsecondtoolq"}
	autoKeys   = [4]string{"qzvkeyaq", "qzvkeybq", "qzvkeycq", "qzvkeydq"}
	autoValues = [4]string{"Qzvvalueaq", "Qzvvaluebq", "Qzvvaluecq", "Qzvvaluedq"}
)

// autoTools declares the two probe tools, each with two string parameters.
func autoTools() []any {
	var tools []any
	for i, name := range autoNames {
		props := map[string]any{}
		for _, k := range autoKeys[2*i : 2*i+2] {
			props[k] = map[string]any{"type": "string"}
		}
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": name, "description": "Probe.",
			"parameters": map[string]any{"type": "object", "properties": props, "required": autoKeys[2*i : 2*i+2]},
		}})
	}
	return tools
}

// autoArgs returns the arguments of probe call i (0 or 1) as an ordered JSON
// object text.
func autoArgs(i int) string {
	return `{"` + autoKeys[2*i] + `": "` + autoValues[2*i] + `", "` + autoKeys[2*i+1] + `": "` + autoValues[2*i+1] + `"}`
}

// callShape says how the probe's assistant message carries its calls; some
// templates render calls only when the content is null, others expect the
// arguments as a JSON string.
type callShape struct {
	nullContent, stringArgs bool
}

var callShapes = []callShape{{}, {nullContent: true}, {stringArgs: true}, {nullContent: true, stringArgs: true}}

// assistantCalls is the assistant message with the first n probe calls.
func assistantCalls(n int, shape callShape) map[string]any {
	var calls []any
	for i := 0; i < n; i++ {
		var args any = json.RawMessage(autoArgs(i))
		if shape.stringArgs {
			args = autoArgs(i)
		}
		calls = append(calls, map[string]any{"id": autoCallID[:len(autoCallID)-1] + string(rune('1'+i)), "type": "function",
			"function": map[string]any{"name": autoNames[i], "arguments": args}})
	}
	msg := map[string]any{"role": "assistant", "tool_calls": calls}
	if shape.nullContent {
		msg["content"] = nil
	} else {
		msg["content"] = ""
	}
	return msg
}

// autoRenderer renders probe conversations through one template.
type autoRenderer struct {
	tpl *jinja.Template
}

func newAutoRenderer(src string) (*autoRenderer, error) {
	tpl, err := jinja.Compile(src)
	if err != nil {
		return nil, errors.New("the template does not compile: " + err.Error())
	}
	return &autoRenderer{tpl: tpl}, nil
}

// render renders a conversation ending with last (after a user message); with
// gen the conversation is the user message alone and a generation prompt.
func (r *autoRenderer) render(last map[string]any, gen bool, kwargs map[string]any) (string, error) {
	msgs := []any{map[string]any{"role": "user", "content": autoUser}}
	if last != nil {
		msgs = append(msgs, last)
	}
	req := map[string]any{"messages": msgs, "tools": autoTools(), "add_generation_prompt": gen,
		"bos_token": "<s>", "eos_token": "</s>"}
	if len(kwargs) > 0 {
		req["kwargs"] = kwargs
	}
	data, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	parsed, err := template.ParseRequest(data)
	if err != nil {
		return "", err
	}
	return template.Render(r.tpl, parsed, nil)
}

// output renders the conversation ending with msg and cuts out what the model
// would have written for msg: the render of a content-only message in the
// same place shows where the assistant's text starts (after the common
// prefix) and which text follows it (the turn end).
func (r *autoRenderer) output(msg map[string]any, kwargs map[string]any) (string, error) {
	plain, err := r.render(map[string]any{"role": "assistant", "content": autoContent}, false, kwargs)
	if err != nil {
		return "", err
	}
	full, err := r.render(msg, false, kwargs)
	if err != nil {
		return "", err
	}
	at := strings.LastIndex(plain, autoContent)
	if at < 0 {
		return "", errors.New("the template does not render the content of an assistant message")
	}
	// The output starts where the two renders part, at most where the
	// content would start.
	start := min(commonPrefix(full, plain), at)
	floor := 0
	if u := strings.LastIndex(full[:start], autoUser); u >= 0 {
		floor = u + len(autoUser) // the output starts after the user's message
	}
	start = max(snapBack(full, start), floor)
	// It ends where the text after the content (the turn end) starts, or
	// where the two renders meet again.
	tail := plain[at+len(autoContent):]
	end := len(full) - len(tail)
	if !strings.HasSuffix(full, tail) || end < start {
		end = len(full) - min(commonSuffix(full, plain), len(tail))
		end = snapForward(full, max(end, start))
	}
	return full[start:end], nil
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// opener and closer are the characters that start and end markup tokens
// (tags, special tokens, bracketed keywords).
func isOpener(c byte) bool { return c == '<' || c == '[' }
func isCloser(c byte) bool { return c == '>' || c == ']' }

// boundary reports whether position i of s can separate two markup tokens:
// at either end, next to whitespace, after a closing or before an opening
// character.
func boundary(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return true
	}
	return isCloser(s[i-1]) || isOpener(s[i]) || isJSONSpace(s[i-1]) || isJSONSpace(s[i])
}

// snapBack moves i back to the nearest token boundary of s.
func snapBack(s string, i int) int {
	for i > 0 && !boundary(s, i) {
		i--
	}
	return i
}

// snapForward moves i forward to the nearest token boundary of s.
func snapForward(s string, i int) int {
	for i < len(s) && !boundary(s, i) {
		i++
	}
	return i
}
