package main

import (
	"context"
	"flag"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/dragoman-dev/dragoman/backend/llamacpp"
)

// runEngine manages the embedded engine's libraries: `engine install`
// fetches llama.cpp's prebuilt libraries from npm, checks them against the
// hash this build pins, and puts them where serve -model finds them.
func runEngine(args []string, e *env) int {
	if len(args) == 0 || args[0] != "install" {
		fmt.Fprintln(e.stderr, "usage: dragoman engine install [-registry URL] [-dir DIR]")
		return 2
	}
	fs := flag.NewFlagSet("engine install", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	registry := fs.String("registry", "", "the npm registry (default $npm_config_registry, else https://registry.npmjs.org)")
	dir := fs.String("dir", "", "where to put the libraries (default ${DRAGOMAN_CACHE:-~/.cache/dragoman}/llama-lib, where serve looks)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: dragoman engine install [-registry URL] [-dir DIR]")
		fmt.Fprintf(e.stderr, "\nFetches llama.cpp's libraries (%s, llama.cpp %s, about 11 MB) over HTTPS,\n", llamacpp.NPMPackage, llamacpp.LlamaVersion)
		fmt.Fprintln(e.stderr, "checks the tarball against the integrity hash this build pins, and unpacks them for serve -model.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		if err == nil {
			fs.Usage()
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *registry == "" {
		*registry = e.getenv("npm_config_registry")
	}
	got, err := llamacpp.Install(ctx, llamacpp.InstallOptions{Registry: *registry, Dir: *dir,
		Progress: func(msg string) { fmt.Fprintln(e.stderr, "dragoman:", msg) }})
	if err != nil {
		fmt.Fprintln(e.stderr, "dragoman engine install:", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "dragoman: llama.cpp's libraries are in %s; dragoman serve -model FILE.gguf finds them there\n", got)
	fmt.Fprintln(e.stdout, got)
	return 0
}
