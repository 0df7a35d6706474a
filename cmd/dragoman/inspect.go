package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/plan"
	"github.com/dragoman-dev/dragoman/template"
)

const inspectUsage = `usage: dragoman inspect (--model PATH | --template FILE)
       dragoman inspect (--template FILE | --model PATH) --tools FILE [--tool-choice auto|required|none|NAME]
                        [--parallel-tool-calls=false] --runtime RUNTIME
       dragoman inspect --response-template (--model PATH | --template FILE | --family NAME|all)

The first form prints, as one JSON object, everything Dragoman knows of a
model's prompt and calls: where its chat template came from and every copy found
(Hugging Face .jinja, tokenizer_config.json, GGUF metadata), with a diff when
copies disagree; its tool-call format (or the markup derived from the template);
its capabilities (tools, tool results, reasoning and whether the prompt forces it
open, parallel calls); how each runtime's calls would be constrained; its special
tokens.

The second form prints, as one JSON object, what "dragoman serve" would send a runtime in its
own mode for a request offering these tools: the model's tool-call format, how
the calls are constrained there and why, and the raw-completion request itself
(path and body). The prompt is the template's render of one user message with
the tools. RUNTIME is llama-server (or llamacpp), vllm, sglang, ollama, lmstudio
or mlx-lm. A tool_choice the runtime cannot enforce is printed as "error", and
the exit status is 1.

The third form prints Dragoman's own response template (transformers'
response_template, docs/RESPONSE-TEMPLATES.md) for the tool-call family of the
model's chat template, or of the family NAME: indented JSON that
"dragoman parse --response-template" and a tokenizer_config.json's
"response_template" take. A family the spec cannot express is an error (exit
status 1) that says why. --family all prints every family, as a JSON list of
{"family", "response_template": true|false, "reason"}.

flags:
`

// inspectReport is what inspect prints.
type inspectReport struct {
	Format     string   `json:"format"`
	Template   string   `json:"template"`
	Runtime    string   `json:"runtime"`
	ToolChoice string   `json:"tool_choice"`
	Decisions  []string `json:"decisions"`
	Error      string   `json:"error,omitempty"`
	Request    *struct {
		Path string `json:"path"`
		Body any    `json:"body"`
	} `json:"request,omitempty"`
}

func runInspect(args []string, e *env) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	tmplPath := fs.String("template", "", "a template `FILE`")
	modelPath := fs.String("model", "", "model `PATH`: a Hugging Face folder, a GGUF file or a template file")
	toolsPath := fs.String("tools", "", "tools JSON `FILE` (a list of OpenAI tools)")
	toolChoice := fs.String("tool-choice", "auto", "auto, required, none, or a function's `NAME`")
	parallel := fs.Bool("parallel-tool-calls", true, "false allows at most one call")
	runtime := fs.String("runtime", "", "the runtime: llama-server, vllm, sglang, ollama, lmstudio or mlx-lm")
	respTemplate := fs.Bool("response-template", false, "print the family's response template (the third form)")
	family := fs.String("family", "", "with --response-template: a family `NAME`, or all")
	if status, ok := parseFlags(fs, inspectUsage, args); !ok {
		return status
	}
	fail := failer("inspect", e)
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q (see dragoman inspect -h)", fs.Arg(0))
	}
	if *respTemplate {
		if *runtime != "" || *toolsPath != "" {
			return fail(2, "--response-template takes no --runtime or --tools")
		}
		return inspectResponseTemplate(*tmplPath, *modelPath, *family, e, fail)
	}
	if *family != "" {
		return fail(2, "--family goes with --response-template")
	}
	if *runtime == "" && *toolsPath == "" {
		return inspectModelCommand(*tmplPath, *modelPath, e, fail)
	}
	kind, ok := runtimeKind(*runtime)
	if !ok {
		return fail(2, "--runtime %q: want llama-server, vllm, sglang, ollama, lmstudio or mlx-lm", *runtime)
	}
	if (*tmplPath == "") == (*modelPath == "") {
		return fail(2, "give --template FILE or --model PATH")
	}
	if *toolsPath == "" {
		return fail(2, "give --tools FILE")
	}
	data, err := os.ReadFile(*toolsPath)
	if err != nil {
		return fail(1, "%v", err)
	}
	var tools []chat.Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		return fail(1, "%s: not a JSON list of tools: %v", *toolsPath, err)
	}
	src, err := findSource(*tmplPath, *modelPath)
	if err != nil {
		return fail(1, "%v", err)
	}
	tc := chat.ToolChoice{Mode: chat.ToolChoiceMode(*toolChoice)}
	switch *toolChoice {
	case "auto", "required", "none":
	default:
		tc = chat.ToolChoice{Mode: chat.ToolNamed, Name: *toolChoice}
	}

	prompt, err := inspectPrompt(src, tools, e)
	if err != nil {
		return fail(1, "the template does not render a request with these tools: %v", err)
	}
	rep := inspectReport{Template: src.Path, Runtime: string(kind), ToolChoice: *toolChoice}
	fam, found := format.Detect(src.Text)
	reasoningOpen := false
	if found {
		rep.Format = fam.ID
		reasoningOpen = format.ForcedOpen(fam, prompt)
	} else {
		rep.Format = "unknown"
		fam = nil
	}
	var par *bool
	if !*parallel {
		par = parallel
	}
	creq := backend.CompleteRequest{Model: "MODEL", Prompt: prompt}
	cp, err := plan.Calls(context.Background(), plan.CallFacts{Family: fam, Runtime: plan.RuntimeOf(kind), Tools: tools,
		Choice: tc, Parallel: par, ReasoningOpen: reasoningOpen}, &creq)
	rep.Decisions = cp.Decisions
	if reasoningOpen {
		rep.Decisions = append([]string{"the prompt leaves reasoning open: the output starts as reasoning"}, rep.Decisions...)
	}
	status := 0
	if err != nil {
		rep.Error, status = err.Error(), 1
	} else {
		path, body, err := backend.CompleteBody(kind, creq)
		if err != nil {
			return fail(1, "%s: %v", kind, err)
		}
		rep.Request = &struct {
			Path string `json:"path"`
			Body any    `json:"body"`
		}{path, body}
	}
	if rep.Decisions == nil {
		rep.Decisions = []string{}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false) // the markup is the point: <tool_call>, not \u003ctool_call\u003e
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fail(1, "%v", err)
	}
	return status
}

// runtimeKind reads --runtime.
func runtimeKind(name string) (backend.Kind, bool) {
	k, ok := backend.ParseKind(name)
	if !ok || !k.Caps().Configurable || k.Caps().Generic {
		return "", false
	}
	return k, true
}

// inspectPrompt renders one user message with the tools and a generation
// prompt, with the model's special tokens.
func inspectPrompt(src *template.Source, tools []chat.Tool, e *env) (string, error) {
	tj, err := json.Marshal(tools)
	if err != nil {
		return "", err
	}
	req, err := template.ParseRequest([]byte(`{"messages": [{"role": "user", "content": "What is the weather in Paris?"}], "tools": ` +
		string(tj) + `, "add_generation_prompt": true}`))
	if err != nil {
		return "", err
	}
	now, err := template.NowFunc(e.getenv("DRAGOMAN_NOW"))
	if err != nil {
		return "", err
	}
	out, _, err := template.RenderSource(src, req, "", nil, &jinja.Options{Now: now})
	return out, err
}

// inspectModelCommand prints the model report (the first form).
func inspectModelCommand(tmplPath, modelPath string, e *env, fail func(int, string, ...any) int) int {
	if (tmplPath == "") == (modelPath == "") {
		return fail(2, "give --model PATH or --template FILE")
	}
	src, err := findSource(tmplPath, modelPath)
	if err != nil {
		return fail(1, "%v", err)
	}
	rep, err := inspectModel(src, e)
	if err != nil {
		return fail(1, "%v", err)
	}
	if err := printJSON(e, rep); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
