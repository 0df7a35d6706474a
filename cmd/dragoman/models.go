package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/ondisk"
	"github.com/dragoman-dev/dragoman/template"
)

// runModels lists the GGUF models already on this machine, in the stores of
// Ollama, LM Studio, the Hugging Face cache and llama.cpp: any of them is
// served with `dragoman serve -model NAME`.
func runModels(args []string, e *env) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	asJSON := fs.Bool("json", false, "print the list as JSON")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: dragoman models [-json]")
		fmt.Fprintln(e.stderr, "\nLists the GGUF models on this machine: Ollama's store ($OLLAMA_MODELS, ~/.ollama/models), LM Studio's")
		fmt.Fprintln(e.stderr, "(~/.lmstudio/models), the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub) and llama.cpp's ($LLAMA_CACHE).")
		fmt.Fprintln(e.stderr, "`dragoman serve -model NAME` serves one of them in this process.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fs.Usage()
		}
		return 2
	}
	ms := ondisk.Find(localStores(e))
	about := make([]modelFacts, len(ms))
	for i, m := range ms {
		about[i] = factsOf(m.Path)
	}
	if *asJSON {
		type entry struct {
			Name    string `json:"name"`
			Source  string `json:"source"`
			Path    string `json:"path"`
			Size    int64  `json:"size"`
			Family  string `json:"family,omitempty"`
			Context int    `json:"context_length,omitempty"`
			Format  string `json:"tool_call_format,omitempty"`
		}
		out := make([]entry, len(ms))
		for i, m := range ms {
			out[i] = entry{m.Name, m.Source, m.Path, m.Size, about[i].family, about[i].context, about[i].format}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(e.stderr, "dragoman models:", err)
			return 1
		}
		return 0
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stderr, "dragoman: no GGUF models found in the stores of Ollama, LM Studio, the Hugging Face cache or llama.cpp")
		return 0
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tSIZE\tFAMILY\tCONTEXT\tTOOL CALLS\tPATH")
	for i, m := range ms {
		a := about[i]
		ctx := "?"
		if a.context > 0 {
			ctx = strconv.Itoa(a.context)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Source, humanSize(m.Size), or(a.family, "?"), ctx, or(a.format, "-"), m.Path)
	}
	tw.Flush()
	return 0
}

// modelFacts is what a model's GGUF header says of it: its architecture, the
// context it was trained for, and the tool-call format its chat template
// writes (format.Detect), which says how Dragoman will parse its calls.
type modelFacts struct {
	family  string
	context int
	format  string
}

func factsOf(path string) modelFacts {
	g, err := template.ReadGGUFFile(path)
	if err != nil {
		return modelFacts{}
	}
	var f modelFacts
	f.family, _ = g.Values["general.architecture"].(string)
	switch n := g.Values[f.family+".context_length"].(type) {
	case uint32:
		f.context = int(n)
	case uint64:
		f.context = int(n)
	case int32:
		f.context = int(n)
	}
	if tpl, ok := g.Values["tokenizer.chat_template"].(string); ok {
		if fam, ok := format.Detect(tpl); ok {
			f.format = fam.ID
		}
	}
	return f
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// localStores are the model stores as the tools find them, from the
// command's environment.
func localStores(e *env) ondisk.Stores {
	home := e.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return ondisk.Default(e.getenv, home)
}

// humanSize writes a byte count as ollama list does: "522 MB", "4.7 GB".
func humanSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 100 {
		return fmt.Sprintf("%.0f %cB", v, "KMGT"[exp])
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGT"[exp])
}
