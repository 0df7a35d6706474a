// Command dragoman is a gateway between coding agents and local model runtimes.
// This file only dispatches subcommands; each lives in its own file.
package main

import (
	"fmt"
	"io"
	"os"
)

// command is one subcommand: it gets its arguments and the process's streams and
// environment, and returns the exit status.
type command struct {
	name, summary string
	run           func(args []string, env *env) int
}

// env is what a subcommand may touch of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

var commands = []command{
	{"render", "render a request with a chat template, as transformers' apply_chat_template does", runRender},
	{"parse", "parse raw model output into content, reasoning and tool calls", runParse},
	{"count", "a prompt's make-up in tokens: system prompt, each tool, each message, the template's scaffolding", runCount},
	{"inspect", "show what would be sent to a runtime for a model and tools: format, constraint, request", runInspect},
	{"diff", "send one request to two runtimes, models or modes and compare prompt, completion and parsed calls", runDiff},
	{"bench", "ask two or more sides the same tool-call questions (BFCL, probes, a suite) and compare them with paired statistics", runBench},
	{"models", "list the GGUF models on this machine (Ollama, LM Studio, Hugging Face and llama.cpp stores)", runModels},
	{"engine", "engine install: fetch the embedded engine's llama.cpp libraries from npm, checked against a pinned hash", runEngine},
	{"serve", "the gateway: OpenAI, Anthropic and Ollama APIs over the local runtimes and GGUF files", runServe},
	{"traces", "list, show and export (JSON Lines) the requests' traces dragoman serve keeps", runTraces},
	{"version", "the module version and the revision this binary was built from", runVersion},
}

func main() {
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}

func run(args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(e.stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], e)
		}
	}
	fmt.Fprintf(e.stderr, "dragoman: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dragoman <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `"dragoman <command> -h" describes a command's flags.`)
}
