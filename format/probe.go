package format

import (
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

// probeName, probeArg and probeValue are the sentinels of the probe call:
// names no real conversation uses, so their place in a render shows the
// markup around them.
const (
	probeName  = "dragoman_probe"
	probeArg   = "probe_arg"
	probeValue = "probe_value"
)

// probeRequest is a conversation with one assistant call to the probe tool
// and its result, in the shape every tool-calling template accepts.
const probeRequest = `{
 "messages": [
  {"role": "user", "content": "Run the probe."},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "call00001", "type": "function",
   "function": {"name": "` + probeName + `", "arguments": {"` + probeArg + `": "` + probeValue + `"}}}]},
  {"role": "tool", "tool_call_id": "call00001", "name": "` + probeName + `", "content": "done"},
  {"role": "assistant", "content": "Finished."}
 ],
 "tools": [{"type": "function", "function": {"name": "` + probeName + `", "description": "Probe.",
   "parameters": {"type": "object", "properties": {"` + probeArg + `": {"type": "string"}}, "required": ["` + probeArg + `"]}}}],
 "add_generation_prompt": false, "bos_token": "<s>", "eos_token": "</s>"
}`

// renderProbe renders the probe conversation through a template source; ""
// when the template cannot render it (it raises, or does not compile).
func renderProbe(source string) string {
	tpl, err := jinja.Compile(source)
	if err != nil {
		return ""
	}
	req, err := template.ParseRequest([]byte(probeRequest))
	if err != nil {
		return ""
	}
	out, err := template.Render(tpl, req, nil)
	if err != nil {
		return ""
	}
	return out
}

// GenerationOpensReasoning renders a one-turn conversation with a generation
// prompt through the template and reports whether the prompt leaves the
// family's reasoning open (the template forces reasoning on). kwargs are extra
// template variables as a JSON object (e.g. {"enable_thinking": false}), or "".
func GenerationOpensReasoning(source string, f *Family, kwargs string) bool {
	tpl, err := jinja.Compile(source)
	if err != nil {
		return false
	}
	req := `{"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"`
	if kwargs != "" {
		req += `, "kwargs": ` + kwargs
	}
	r, err := template.ParseRequest([]byte(req + "}"))
	if err != nil {
		return false
	}
	prompt, err := template.Render(tpl, r, nil)
	return err == nil && ForcedOpen(f, prompt)
}
