package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/format/response"
)

const parseUsage = `usage: dragoman parse (--format NAME | --template FILE) [--tools FILE] [--reasoning open|closed]
       dragoman parse --response-template FILE [--tools FILE]
       dragoman parse --json

Reads raw model output on stdin and prints one JSON object:
{"content", "reasoning_content", "tool_calls": [{"id", "type", "function": {"name", "arguments"}}], "diagnostics"}.

--format NAME      a family of FORMATS.md (canonical id or alias)
--template FILE    a chat template: its family is detected, and whether its
                   generation prompt leaves reasoning open
--tools FILE       the request's tools (OpenAI shape): they type raw-text values
                   and flag calls to undeclared tools
--reasoning MODE   open: the prompt left reasoning open; closed: the request
                   turned reasoning off (default: from --template, else neither)
--response-template FILE
                   parse by a transformers response template (the object, or a
                   tokenizer_config.json holding "response_template") instead
                   of a family: docs/RESPONSE-TEMPLATES.md

With --json, stdin holds one request object instead:
{"format" | "template" | "response_template", "tools", "reasoning", "think", "prefill",
"prefix", "chunks": [...]}
where think and prefill mean what they mean in the conformance vectors' options;
the chunks are fed in order, then the end of the output.

flags:
`

// parseRequest is the --json input.
type parseRequest struct {
	Format    string      `json:"format"`
	Template  string      `json:"template"` // template source
	Tools     []chat.Tool `json:"tools"`
	Reasoning string      `json:"reasoning"`
	Think     *bool       `json:"think"`
	Prefill   *struct {
		Content  string `json:"content"`
		Thinking string `json:"thinking"`
	} `json:"prefill"`
	Chunks []string `json:"chunks"`
	// ResponseTemplate and Prefix: parse by a response template
	// (format/response) instead of a family.
	ResponseTemplate json.RawMessage `json:"response_template"`
	Prefix           string          `json:"prefix"`
}

func runParse(args []string, e *env) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	formatName := fs.String("format", "", "family `NAME`")
	tmplPath := fs.String("template", "", "chat template `FILE`")
	toolsPath := fs.String("tools", "", "tools JSON `FILE`")
	reasoning := fs.String("reasoning", "", "`MODE`: open or closed")
	jsonMode := fs.Bool("json", false, "read one request object on stdin")
	respPath := fs.String("response-template", "", "response template `FILE`")
	if status, ok := parseFlags(fs, parseUsage, args); !ok {
		return status
	}
	fail := failer("parse", e)
	input, err := io.ReadAll(e.stdin)
	if err != nil {
		return fail(1, "reading stdin: %v", err)
	}

	var req parseRequest
	if *jsonMode {
		if *formatName != "" || *tmplPath != "" || *toolsPath != "" || *reasoning != "" || *respPath != "" {
			return fail(2, "--json takes everything from the request object; give no other flags")
		}
		if err := json.Unmarshal(input, &req); err != nil {
			return fail(1, "the request is not valid JSON: %v", err)
		}
	} else {
		req = parseRequest{Format: *formatName, Reasoning: *reasoning, Chunks: []string{string(input)}}
		if *tmplPath != "" {
			src, err := os.ReadFile(*tmplPath)
			if err != nil {
				return fail(1, "%v", err)
			}
			req.Template = string(src)
		}
		if *respPath != "" {
			if req.ResponseTemplate, err = os.ReadFile(*respPath); err != nil {
				return fail(1, "%v", err)
			}
		}
		if *toolsPath != "" {
			data, err := os.ReadFile(*toolsPath)
			if err != nil {
				return fail(1, "%v", err)
			}
			if err := json.Unmarshal(data, &req.Tools); err != nil {
				return fail(1, "%s: not a JSON list of tools: %v", *toolsPath, err)
			}
		}
	}

	if req.ResponseTemplate != nil {
		if req.Format != "" || req.Template != "" || req.Reasoning != "" {
			return fail(2, "a response template replaces --format, --template and --reasoning; give none of them")
		}
		tpl, err := response.LoadFile(req.ResponseTemplate)
		if err != nil {
			return fail(2, "response template: %v", err)
		}
		for _, n := range tpl.Notes {
			fmt.Fprintf(e.stderr, "dragoman parse: note: %s\n", n)
		}
		res, err := response.Run(tpl, response.Options{Prefix: req.Prefix, Tools: req.Tools}, req.Chunks...)
		if err != nil {
			return fail(1, "%v", err)
		}
		out, _ := json.Marshal(res)
		fmt.Fprintf(e.stdout, "%s\n", out)
		return 0
	}
	fam, opts, err := parserFor(req)
	if err != nil {
		return fail(2, "%v", err)
	}
	out, _ := json.Marshal(format.Run(fam.New(opts), req.Chunks...))
	fmt.Fprintf(e.stdout, "%s\n", out)
	return 0
}

// parserFor picks the family and the parser options of a request.
func parserFor(req parseRequest) (*format.Family, format.Options, error) {
	opts := format.Options{Tools: req.Tools}
	var fam *format.Family
	switch {
	case req.Format != "" && req.Template != "":
		return nil, opts, errors.New("give a format or a template, not both")
	case req.Format != "":
		f, ok := format.Lookup(req.Format)
		if !ok {
			var ids []string
			for _, f := range format.Families() {
				ids = append(ids, f.ID)
			}
			return nil, opts, fmt.Errorf("unknown format %q; the formats are: %s", req.Format, strings.Join(ids, ", "))
		}
		fam = f
	case req.Template != "":
		f, ok := format.Detect(req.Template)
		if !ok {
			return nil, opts, errors.New("no tool-call family recognised in this template")
		}
		fam = f
		opts.ReasoningOpen = format.GenerationOpensReasoning(req.Template, f, "")
	default:
		return nil, opts, errors.New("give --format NAME or --template FILE (see dragoman parse -h)")
	}
	switch req.Reasoning {
	case "":
	case "open":
		opts.ReasoningOpen, opts.ReasoningDisabled = true, false
	case "closed":
		opts.ReasoningOpen, opts.ReasoningDisabled = false, true
	default:
		return nil, opts, fmt.Errorf("--reasoning takes open or closed, not %q", req.Reasoning)
	}
	if req.Think != nil {
		// The request turned reasoning on or off. On, the output starts inside
		// the reasoning when the template's prompt leaves it open; without a
		// template, as the vectors read it, it does.
		opts.ReasoningOpen, opts.ReasoningDisabled = *req.Think, !*req.Think
		if *req.Think && req.Template != "" {
			opts.ReasoningOpen = format.GenerationOpensReasoning(req.Template, fam, `{"enable_thinking": true}`)
		}
	}
	if p := req.Prefill; p != nil {
		opts.ReasoningOpen = p.Thinking != "" && p.Content == ""
		opts.ReasoningDisabled = p.Content != ""
	}
	return fam, opts, nil
}
