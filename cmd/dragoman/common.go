package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/dragoman-dev/dragoman/template"
)

// The plumbing every subcommand shares: parsing its flags, failing with its
// own prefix, reading its input, finding the template.

// parseFlags parses args with usage as the help text; ok is false when the
// command should end with status (0 for -h, 2 for a bad flag).
func parseFlags(fs *flag.FlagSet, usage string, args []string) (status int, ok bool) {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

// failer returns the command's error printer: "dragoman NAME: message" on
// stderr, and the status to exit with.
func failer(name string, e *env) func(status int, format string, a ...any) int {
	return func(status int, format string, a ...any) int {
		fmt.Fprintf(e.stderr, "dragoman "+name+": "+format+"\n", a...)
		return status
	}
}

// readInput reads the file at path, or stdin when path is "" or "-".
func readInput(path string, e *env) ([]byte, error) {
	if path == "" || path == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(path)
}

// findSource reads the template from --template FILE or --model PATH (a
// Hugging Face folder, a GGUF or a template file); exactly one is given.
func findSource(tmplPath, modelPath string) (*template.Source, error) {
	switch {
	case tmplPath != "" && modelPath != "":
		return nil, errors.New("give --template or --model, not both")
	case tmplPath != "":
		return template.FromFile(tmplPath)
	case modelPath != "":
		return template.Find(modelPath)
	}
	return nil, errors.New("no template: give --template FILE or --model PATH")
}
