package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/ondisk"
	"github.com/dragoman-dev/dragoman/template"
)

// resolveModels turns each -model that is not a file into the GGUF of that
// name on this machine (ondisk.Resolve), served under that name: an Ollama
// model keeps its Ollama name ("qwen3:0.6b"), so that clients ask for it as
// they asked Ollama; a file elsewhere is served as its base name.
func resolveModels(eo *llamacpp.Options, onDisk []ondisk.Model) error {
	for i, arg := range eo.Models {
		if _, err := os.Stat(arg); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("-model %s: %w", arg, err)
		}
		m, err := ondisk.Resolve(arg, onDisk)
		if err != nil {
			return fmt.Errorf("-model %s: no such file, and %w", arg, err)
		}
		eo.Models[i] = m.Path
		if m.Source == "ollama" {
			if eo.Names == nil {
				eo.Names = map[string]string{}
			}
			eo.Names[m.Path] = m.Name
		}
	}
	return nil
}

// loadEngine loads the models, saying which and how large before it starts
// and how long it has taken every few seconds while it runs: a large model
// takes a while, and a silent terminal looks like a hung one.
func loadEngine(eo llamacpp.Options, w io.Writer) (*llamacpp.Engine, error) {
	for _, p := range eo.Models {
		size := ""
		if st, err := os.Stat(p); err == nil {
			size = ", " + humanSize(st.Size())
		}
		fmt.Fprintf(w, "dragoman: loading %s (%s%s)…\n", servedName(eo, p), p, size)
	}
	done := make(chan struct{})
	defer close(done)
	go func(start time.Time) {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(w, "dragoman: still loading (%s)\n", time.Since(start).Round(time.Second))
			}
		}
	}(time.Now())
	return llamacpp.New(eo)
}

func servedName(eo llamacpp.Options, path string) string {
	if n := eo.Names[path]; n != "" {
		return n
	}
	return llamacpp.ModelID(path)
}

// checkConfig is serve -check: the configuration validated as serve would
// (the gateway's checks, each model a readable GGUF, the engine's libraries
// found) and printed as resolved, with secrets masked; nothing is served or
// loaded. The exit status says whether serve would start.
func checkConfig(cfg gateway.Config, eo llamacpp.Options, e *env) int {
	srv, err := gateway.New(cfg, gateway.Hooks{})
	if err != nil {
		fmt.Fprintln(e.stderr, "dragoman serve -check:", err)
		return 2
	}
	defer srv.Close()
	resolved := srv.Config()
	if resolved.APIKey != "" {
		resolved.APIKey = "(set)"
	}
	for i := range resolved.Upstreams {
		u := &resolved.Upstreams[i]
		u.URL = gateway.RedactURL(u.URL)
		if u.APIKey != "" {
			u.APIKey = "(set)"
		}
	}
	type engineModel struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	var engine struct {
		Models         []engineModel `json:"models,omitempty"`
		LibDir         string        `json:"llama_lib,omitempty"`
		Context        int           `json:"context,omitempty"`
		KVBudget       int64         `json:"kv_budget,omitempty"`
		Threads        int           `json:"threads,omitempty"`
		Slots          int           `json:"slots,omitempty"`
		FlashAttention string        `json:"flash_attention,omitempty"`
		CacheType      string        `json:"cache_type,omitempty"`
		Batch          int           `json:"batch,omitempty"`
		Ubatch         int           `json:"ubatch,omitempty"`
		Seed           *int64        `json:"seed,omitempty"`
		IdleRelease    string        `json:"idle_release,omitempty"`
	}
	status := 0
	for _, p := range eo.Models {
		if _, err := template.ReadGGUFFile(p); err != nil {
			fmt.Fprintf(e.stderr, "dragoman serve -check: model %s: %v\n", p, err)
			status = 2
		}
		engine.Models = append(engine.Models, engineModel{servedName(eo, p), p})
	}
	if len(eo.Models) > 0 {
		engine.Context, engine.KVBudget, engine.Threads, engine.Slots = eo.ContextSize, eo.KVBudget, eo.Threads, eo.Slots
		engine.FlashAttention, engine.CacheType, engine.Batch, engine.Ubatch, engine.Seed = eo.FlashAttention, eo.CacheType, eo.Batch, eo.Ubatch, eo.Seed
		if eo.IdleRelease > 0 {
			engine.IdleRelease = eo.IdleRelease.String()
		}
		if engine.LibDir, err = llamacpp.FindLib(eo.LibDir); err != nil {
			fmt.Fprintln(e.stderr, "dragoman serve -check:", err)
			status = 2
		}
	}
	out := struct {
		Gateway gateway.Config `json:"gateway"`
		Engine  any            `json:"engine,omitempty"`
	}{Gateway: resolved}
	if len(engine.Models) > 0 {
		out.Engine = engine
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(e.stderr, "dragoman serve -check:", err)
		return 1
	}
	if status == 0 {
		fmt.Fprintln(e.stderr, "dragoman: the configuration is valid")
	}
	return status
}
