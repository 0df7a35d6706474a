package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
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

// startEngine starts the embedded engine: each model's file checked (its
// header and vocabulary read), its weights loaded at once with -preload or
// by its first request; then a line per model saying what a load makes and
// why (context, threads, slots), and one saying the lifecycle's policy.
// Every load says so when it starts, every 5 seconds while it runs, with
// llama.cpp's progress, and when it ends, with the time and the memory; and
// every unload why: a large model takes a while, and a silent terminal
// looks like a hung one.
func startEngine(eo llamacpp.Options, w io.Writer) (*llamacpp.Engine, error) {
	start := time.Now()
	eo.OnLoad = loadReporter(eo, w)
	eng, err := llamacpp.New(eo)
	if err != nil {
		return nil, err
	}
	for _, z := range eng.Sizings() {
		how := "loaded in this process"
		if !eo.Preload {
			how = "checked, loaded in this process on its first request"
		}
		fmt.Fprintf(w, "dragoman: model %s %s (context %d tokens: %s; %d threads: %s; %d slots, each a cached conversation and a request decoded at once; n_batch %d, n_ubatch %d, flash attention %s, KV cache %s)\n",
			z.ID, how, z.Context, z.ContextWhy, eng.Threads(), eng.ThreadsWhy(), eng.Slots(), z.Batch, z.Ubatch, z.FlashAttn, z.CacheType)
	}
	fmt.Fprintln(w, "dragoman:", lifecyclePolicy(eo))
	if eo.IdleRelease > 0 {
		fmt.Fprintf(w, "dragoman: each model's KV cache is freed after %s without a request, and made again by the next\n", eo.IdleRelease)
		if eo.KeepAlive > 0 && eo.IdleRelease >= eo.KeepAlive {
			fmt.Fprintf(w, "dragoman: warning: -idle-release %s is not shorter than -keep-alive %s: the model unloads first, KV cache and all, so -idle-release does nothing\n", eo.IdleRelease, eo.KeepAlive)
		}
	}
	if eo.SlotSaveDir != "" && !eo.NoPromptReuse {
		fmt.Fprintf(w, "dragoman: each model's cached conversations are saved in %s when its KV cache is freed, and read back by its next load\n", eo.SlotSaveDir)
	} else if eo.SlotSaveDir != "" {
		fmt.Fprintf(w, "dragoman: warning: -slot-save-dir %s does nothing with -no-prompt-reuse (no conversation is kept cached)\n", eo.SlotSaveDir)
	}
	fmt.Fprintf(w, "dragoman: llama.cpp ready in %s\n", time.Since(start).Round(time.Millisecond))
	return eng, nil
}

// lifecyclePolicy says when models are loaded and unloaded.
func lifecyclePolicy(eo llamacpp.Options) string {
	load := "models are loaded on their first request (-preload loads them at start)"
	if eo.Preload {
		load = "models are loaded at start (-preload)"
	}
	keep := "stay loaded until serve stops (-keep-alive unloads an idle one)"
	if eo.KeepAlive > 0 {
		keep = fmt.Sprintf("are unloaded after %s without a request (-keep-alive), and loaded again by the next", eo.KeepAlive)
	}
	budget := "no memory budget (-memory-budget)"
	if eo.MemoryBudget > 0 {
		budget = fmt.Sprintf("under a memory budget of %s for the weights, KV caches and compute buffers of the loaded models, loading one unloads the least recently used idle ones first; a model running requests is never unloaded, a load waits for it", humanSize(eo.MemoryBudget))
	}
	return load + " and " + keep + "; " + budget
}

// loadReporter prints the engine's lifecycle events (llamacpp.LoadEvent).
// It runs on the loading goroutine and must not block it: the lines of a
// load in progress come from a ticker of their own.
func loadReporter(eo llamacpp.Options, w io.Writer) func(llamacpp.LoadEvent) {
	var mu sync.Mutex
	type running struct {
		done     chan struct{}
		progress atomic.Uint64 // math.Float64bits of the fraction
	}
	loads := map[string]*running{}
	return func(ev llamacpp.LoadEvent) {
		mu.Lock()
		defer mu.Unlock()
		r := loads[ev.Model]
		switch ev.Kind {
		case llamacpp.LoadStart:
			size := ""
			if st, err := os.Stat(ev.Path); err == nil {
				size = humanSize(st.Size()) + " file, "
			}
			fmt.Fprintf(w, "dragoman: loading %s (%s, %s%s with its KV cache and compute buffers)…\n", ev.Model, ev.Path, size, humanSize(ev.Size))
			r = &running{done: make(chan struct{})}
			loads[ev.Model] = r
			go func(start time.Time) {
				tick := time.NewTicker(5 * time.Second)
				defer tick.Stop()
				for {
					select {
					case <-r.done:
						return
					case <-tick.C:
						fmt.Fprintf(w, "dragoman: still loading %s: %.0f%% after %s\n", ev.Model, 100*math.Float64frombits(r.progress.Load()), time.Since(start).Round(time.Second))
					}
				}
			}(time.Now())
		case llamacpp.LoadProgress:
			if r != nil {
				r.progress.Store(math.Float64bits(ev.Progress))
			}
		case llamacpp.Loaded, llamacpp.LoadFailed:
			if r != nil {
				close(r.done)
				delete(loads, ev.Model)
			}
			if ev.Kind == llamacpp.LoadFailed {
				fmt.Fprintf(w, "dragoman: model %s failed to load after %s: %v\n", ev.Model, ev.Took.Round(time.Millisecond), ev.Err)
				return
			}
			fmt.Fprintf(w, "dragoman: model %s loaded in %s (%s with its KV cache and compute buffers)\n", ev.Model, ev.Took.Round(time.Millisecond), humanSize(ev.Size))
		case llamacpp.Unloaded:
			fmt.Fprintf(w, "dragoman: model %s unloaded (%s); its next request loads it again\n", ev.Model, ev.Why)
		case llamacpp.SlotsSaved:
			fmt.Fprintf(w, "dragoman: model %s: %s\n", ev.Model, ev.Why)
		case llamacpp.SlotsRestored:
			fmt.Fprintf(w, "dragoman: model %s: %s\n", ev.Model, ev.Why)
		case llamacpp.SlotStateIgnored:
			fmt.Fprintf(w, "dragoman: warning: model %s: %v\n", ev.Model, ev.Err)
		}
	}
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
	if h := resolved.OTel.Headers; len(h) > 0 { // an OTLP backend's key
		masked := make(map[string]string, len(h))
		for k := range h {
			masked[k] = "(set)"
		}
		resolved.OTel.Headers = masked
	}
	resolved.OTel.Endpoint, resolved.OTel.TracesEndpoint = gateway.RedactURL(resolved.OTel.Endpoint), gateway.RedactURL(resolved.OTel.TracesEndpoint)
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
		SlotSaveDir    string        `json:"slot_save_dir,omitempty"`
		Preload        bool          `json:"preload,omitempty"`
		KeepAlive      string        `json:"keep_alive,omitempty"`
		MemoryBudget   int64         `json:"memory_budget,omitempty"`
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
		if eo.KeepAlive > 0 {
			engine.KeepAlive = eo.KeepAlive.String()
		}
		engine.Preload, engine.MemoryBudget, engine.SlotSaveDir = eo.Preload, eo.MemoryBudget, eo.SlotSaveDir
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
