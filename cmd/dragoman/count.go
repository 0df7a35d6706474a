package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/makeup"
	"github.com/dragoman-dev/dragoman/template"
	"github.com/dragoman-dev/dragoman/tokenize"
)

const countUsage = `usage: dragoman count (--template FILE | --model PATH) [--tokenizer FILE] [--request FILE] [--json]

Reads a request JSON object (the shape dragoman render reads) from --request or
stdin, renders it with the chat template and prints the prompt's make-up: its
tokens in all and per part — the system prompt, each tool's definition, the
tool section's own instructions, each message and tool result, and the
template's scaffolding — largest first, with a warning when the tools take
more than half of the prompt.

A part's tokens are what the prompt loses without it (rendered again without
that tool or message and counted). Where removing a message makes the template
raise, the message is measured by emptying its content instead. The parts need
not add up exactly: tokens merge across their edges, and what they do not
account for is counted as the template's.

--template FILE   a template file
--model PATH      a Hugging Face model folder, a GGUF file or a template file
--tokenizer FILE  a tokenizer.json or a GGUF file to count with; by default the
                  GGUF given as --model, or the tokenizer.json in its folder
--runtime NAME    whose reading of a GGUF vocabulary to follow: ollama (the
                  default: token types as the file writes them) or llamacpp
                  (llama-server and serve --model: llama.cpp makes known
                  end-of-generation and fill-in-the-middle markers control
                  tokens, so "</s>" in a Qwen3 prompt is one token, not four)

flags:
`

func runCount(args []string, e *env) int {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	tmplPath := fs.String("template", "", "a template `FILE`")
	modelPath := fs.String("model", "", "model `PATH`: a Hugging Face folder, a GGUF file or a template file")
	tokPath := fs.String("tokenizer", "", "a tokenizer.json or GGUF `FILE` to count with")
	runtimeName := fs.String("runtime", "ollama", "read a GGUF vocabulary as `NAME` reads it: ollama or llamacpp")
	reqPath := fs.String("request", "", "request JSON `FILE` (default stdin; - is stdin)")
	name := fs.String("name", "", "named template to use (as dragoman render)")
	asJSON := fs.Bool("json", false, "print the make-up as JSON")
	maxRenders := fs.Int("max-renders", 256, "at most `N` renders; beyond, tools and messages are measured in groups")
	if status, ok := parseFlags(fs, countUsage, args); !ok {
		return status
	}
	fail := failer("count", e)
	switch {
	case fs.NArg() > 0:
		return fail(2, "unexpected argument %q (see dragoman count -h)", fs.Arg(0))
	case *tmplPath != "" && *modelPath != "":
		return fail(2, "give --template or --model, not both")
	case *tmplPath == "" && *modelPath == "":
		return fail(2, "no template: give --template FILE or --model PATH")
	case *tokPath == "" && *modelPath == "":
		return fail(2, "no tokenizer: give --tokenizer FILE (a tokenizer.json or a GGUF) or --model PATH")
	}
	rt, err := tokenize.ParseRuntime(*runtimeName)
	if err != nil {
		return fail(2, "--runtime: %v", err)
	}

	data, err := readInput(*reqPath, e)
	if err != nil {
		return fail(1, "%v", err)
	}
	req, err := template.ParseRequest(data)
	if err != nil {
		return fail(1, "%v", err)
	}

	src, err := findSource(*tmplPath, *modelPath)
	if err != nil {
		return fail(1, "%v", err)
	}
	for _, c := range src.Conflicts {
		fmt.Fprintf(e.stderr, "dragoman count: note: %s\n", c)
	}
	tok, err := countTokenizer(*tokPath, *modelPath, src, rt)
	if err != nil {
		return fail(1, "%v", err)
	}

	c, err := src.Select(*name, req.HasTools())
	if err != nil {
		return fail(1, "%v", err)
	}
	tpl, err := jinja.Compile(c.Text)
	if err != nil {
		return fail(1, "%v", err)
	}
	if req, err = req.WithSpecialTokens(src.SpecialTokens); err != nil {
		return fail(1, "%v", err)
	}
	now, err := template.NowFunc(e.getenv("DRAGOMAN_NOW"))
	if err != nil {
		return fail(1, "DRAGOMAN_NOW: %v", err)
	}
	if *maxRenders < 1 {
		*maxRenders = 1
	}
	m, err := makeup.Analyze(tpl, req, tok, makeup.Options{Exact: true, MaxRenders: *maxRenders, Render: &jinja.Options{Now: now}})
	if err != nil {
		var je *jinja.Error
		if errors.As(err, &je) {
			return fail(1, "%s: %s", je.Kind, je.Message)
		}
		return fail(1, "%v", err)
	}
	if *asJSON {
		out := struct {
			*makeup.Makeup
			Warning string `json:"warning,omitempty"`
		}{m, m.Warning()}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	if err := printMakeup(e.stdout, m); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// countTokenizer loads the tokenizer: --tokenizer (GGUF or tokenizer.json),
// else the model's GGUF, else the tokenizer.json beside the model's template.
func countTokenizer(tokPath, modelPath string, src *template.Source, rt tokenize.Runtime) (*tokenize.Tokenizer, error) {
	if tokPath != "" {
		if isGGUF(tokPath) {
			return tokenize.FromGGUFFor(tokPath, rt)
		}
		return tokenize.FromTokenizerJSON(tokPath)
	}
	if src.Kind == template.KindGGUF {
		return tokenize.FromGGUFFor(src.Path, rt)
	}
	dir := modelPath
	if src.Kind != template.KindHF {
		dir = filepath.Dir(modelPath)
	}
	p := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("no tokenizer: %s has no tokenizer.json; give --tokenizer FILE", dir)
	}
	return tokenize.FromTokenizerJSON(p)
}

func isGGUF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && bytes.Equal(magic[:], []byte("GGUF"))
}

// printMakeup writes the make-up as a table, largest part first.
func printMakeup(w io.Writer, m *makeup.Makeup) error {
	var msgs int
	for _, p := range m.Parts {
		msgs += len(p.Messages)
	}
	fmt.Fprintf(w, "prompt: %s tokens (%d tools, %d messages; %d renders)\n\n", makeup.Thousands(m.Total), m.ToolCount, msgs, m.Renders)
	parts := append([]makeup.Part(nil), m.Parts...)
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Tokens > parts[j].Tokens })
	width := len("tokens")
	for _, p := range parts {
		width = max(width, len(makeup.Thousands(p.Tokens)))
	}
	fmt.Fprintf(w, "%*s  %6s  %s\n", width, "tokens", "%", "part")
	for _, p := range parts {
		pct := 0.0
		if m.Total > 0 {
			pct = 100 * float64(p.Tokens) / float64(m.Total)
		}
		label := p.Name
		switch {
		case p.Kind == makeup.KindTool:
			label = "tool " + p.Name
		case p.Kind == makeup.KindTools && len(p.Tools) > 0:
			label = fmt.Sprintf("%s (%d tools)", p.Name, len(p.Tools))
		}
		if p.ContentOnly {
			label += " [content only]"
		}
		if p.Unmeasured {
			label += " [not measured]"
		}
		fmt.Fprintf(w, "%*s  %5.1f%%  %s\n", width, makeup.Thousands(p.Tokens), pct, label)
	}
	if len(m.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range m.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	if warn := m.Warning(); warn != "" {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
	_, err := fmt.Fprintln(w)
	return err
}
