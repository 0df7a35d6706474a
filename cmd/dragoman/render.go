package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

const renderUsage = `usage: dragoman render (--template FILE | --model PATH) [--request FILE] [--name NAME]

Reads a request JSON object (the shape ../shared/tools/oracle/render.py reads:
messages, tools, documents, add_generation_prompt, bos_token, eos_token,
special_tokens, kwargs) from --request or stdin, and writes the prompt the chat
template renders to stdout, byte for byte.

--template FILE   a template file
--model PATH      a Hugging Face model folder, a GGUF file or a template file
                  (its special tokens are used unless the request sets them)
With neither, the request's own "template" field is used.

A template error exits with status 1 and "dragoman render: <Kind>: <Message>" on
stderr. DRAGOMAN_NOW (ISO-8601, e.g. 2026-01-15T12:00:00) pins strftime_now.

flags:
`

func runRender(args []string, e *env) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	tmplPath := fs.String("template", "", "a template `FILE`")
	modelPath := fs.String("model", "", "model `PATH`: a Hugging Face folder, a GGUF file or a template file")
	reqPath := fs.String("request", "", "request JSON `FILE` (default stdin; - is stdin)")
	name := fs.String("name", "", "named template to use (default: \"tool_use\" when the request has tools and the model has one, else \"default\")")
	if status, ok := parseFlags(fs, renderUsage, args); !ok {
		return status
	}
	fail := failer("render", e)
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q (see dragoman render -h)", fs.Arg(0))
	}
	if *tmplPath != "" && *modelPath != "" {
		return fail(2, "give --template or --model, not both")
	}

	data, err := readInput(*reqPath, e)
	if err != nil {
		return fail(1, "%v", err)
	}
	req, err := template.ParseRequest(data)
	if err != nil {
		return fail(1, "%v", err)
	}

	var src *template.Source
	switch {
	case *tmplPath != "":
		src, err = template.FromFile(*tmplPath)
	case *modelPath != "":
		src, err = template.Find(*modelPath)
	case req.Template != nil:
		src = template.FromText(*req.Template, "the request's \"template\"")
	default:
		return fail(2, "no template: give --template FILE or --model PATH, or a \"template\" in the request")
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	for _, c := range src.Conflicts {
		fmt.Fprintf(e.stderr, "dragoman render: note: %s\n", c)
	}
	for _, n := range src.Notes {
		fmt.Fprintf(e.stderr, "dragoman render: note: %s\n", n)
	}

	now, err := template.NowFunc(e.getenv("DRAGOMAN_NOW"))
	if err != nil {
		return fail(1, "DRAGOMAN_NOW: %v", err)
	}
	out, _, err := template.RenderSource(src, req, *name, nil, &jinja.Options{Now: now})
	if err != nil {
		var je *jinja.Error
		if errors.As(err, &je) {
			return fail(1, "%s: %s", je.Kind, je.Message)
		}
		return fail(1, "%v", err)
	}
	if _, err := io.WriteString(e.stdout, out); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}
