package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/ondisk"
	"github.com/dragoman-dev/dragoman/trace"
)

// modelFlags collects repeated -model flags: GGUF files for the embedded engine.
type modelFlags []string

func (m *modelFlags) String() string { return strings.Join(*m, ",") }

func (m *modelFlags) Set(v string) error {
	*m = append(*m, v)
	return nil
}

// upstreamFlags collects repeated -upstream flags: URL or KIND=URL.
type upstreamFlags []gateway.Upstream

func (u *upstreamFlags) String() string { return fmt.Sprint(len(*u), " upstreams") }

func (u *upstreamFlags) Set(v string) error {
	kind, url, found := strings.Cut(v, "=")
	if !found {
		kind, url = "", v
	}
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	*u = append(*u, gateway.Upstream{URL: url, Kind: kind})
	return nil
}

// survey prints, once the gateway has looked, every runtime it found and
// what it serves, and what to do when it found nothing to serve.
func survey(srv *gateway.Server, noDiscover bool, onDisk []ondisk.Model, w io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	found := srv.Survey(ctx)
	models := 0
	for _, f := range found {
		switch {
		case f.Kind == "":
			fmt.Fprintf(w, "dragoman: upstream not set up: %v\n", f.Err)
		case f.Err != nil:
			fmt.Fprintf(w, "dragoman: runtime %s at %s did not list its models: %v\n", f.Kind, f.URL, f.Err)
		default:
			models += len(f.Models)
			fmt.Fprintf(w, "dragoman: runtime %s at %s, %s mode, %d model(s): %s\n", f.Kind, f.URL, f.Mode, len(f.Models), listed(f.Models, 8))
		}
	}
	if models > 0 {
		return
	}
	probed := "no runtime answered on the default ports (Ollama 11434, llama-server and mlx_lm.server 8080, LM Studio 1234, vLLM 8000, SGLang 30000)"
	if noDiscover {
		probed = "no model is served (the default ports are not probed: -no-discover)"
	}
	fmt.Fprintf(w, "dragoman: %s. Start a runtime, give one with -upstream URL, or run a GGUF file in this process with -model FILE.gguf (llama.cpp's libraries from npm %s)\n", probed, llamacpp.NPMPackage)
	if len(onDisk) > 0 {
		names := make([]string, len(onDisk))
		for i, m := range onDisk {
			names[i] = fmt.Sprintf("%s (%s, %s)", m.Name, m.Source, humanSize(m.Size))
		}
		fmt.Fprintf(w, "dragoman: GGUF models on this machine, each served by -model NAME: %s\n", listed(names, 8))
	}
}

// loopbackAddr reports whether a listening address is loopback only.
func loopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// listed is up to n names, then how many more.
func listed(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func runServe(args []string, e *env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	listen := fs.String("listen", "", "address to listen on (default 127.0.0.1:4000; $DRAGOMAN_LISTEN)")
	configPath := fs.String("config", "", "JSON config file (see docs/GATEWAY.md)")
	var ups upstreamFlags
	fs.Var(&ups, "upstream", "a runtime to use, as URL or KIND=URL (ollama, llama-server, lmstudio, vllm, sglang, mlx-lm, openai); repeatable")
	mode := fs.String("mode", "", "own or relay, for the -upstream runtimes (default: own where the runtime takes raw prompts)")
	noDiscover := fs.Bool("no-discover", false, "do not probe the default local ports for runtimes")
	now := fs.String("now", "", "pin the clock templates see, as an ISO-8601 time (for reproducible prompts)")
	logFormat := fs.String("log-format", "text", "the request log's format on stderr: text, json, or off")
	maxOutput := fs.Int("max-output-tokens", 0, "the output limit of requests that set none (agents such as Codex never do); 0 leaves it to the runtime")
	var models modelFlags
	fs.Var(&models, "model", "a GGUF file, or the name of a model on this machine (dragoman models), to run in this process with the embedded llama.cpp engine; repeatable")
	ctxSize := fs.Int("ctx", 0, "context size in tokens for each -model (default: what the model was trained for, or what -kv-budget holds where less; at most what it was trained for)")
	kvBudget := fs.String("kv-budget", "", "the most memory each -model's KV cache may take when -ctx is not given, e.g. 8GiB (default: a quarter of the machine's memory)")
	threads := fs.Int("threads", 0, "threads for each -model (default: the physical cores)")
	slots := fs.Int("slots", llamacpp.DefaultSlots, "conversations each -model keeps cached, and how many of its requests are decoded together (further ones wait); they share the -ctx cells, so an agent's side requests leave its main conversation cached")
	flashAttn := fs.String("flash-attn", "", "flash attention for each -model: auto, on or off (default auto, llama.cpp's)")
	cacheType := fs.String("cache-type", "", "KV cache type for each -model: f16 or q8_0 (default f16, llama.cpp's; q8_0 takes about half the memory a token)")
	nBatch := fs.Int("batch", 0, "llama.cpp's n_batch for each -model: the most tokens one decode takes (default 2048)")
	nUbatch := fs.Int("ubatch", 0, "llama.cpp's n_ubatch for each -model: the compute batch (default 512)")
	idleRelease := fs.Duration("idle-release", 0, "free each -model's context (its KV cache) after this long without a request, made again by the next (e.g. 15m; default never)")
	slotSaveDir := fs.String("slot-save-dir", "", "save each -model's cached conversations (its slots' tokens and KV cache) in this folder when serve stops, the model unloads or -idle-release frees them, and read them back at the next load, so that a restarted gateway resumes an agent's long prompt from the cache (default: not saved)")
	preload := fs.Bool("preload", false, "load each -model at start (default: on its first request; the file is checked at start either way)")
	keepAlive := fs.Duration("keep-alive", 0, "unload each -model (weights and KV cache) after this long without a request, loaded again by the next (e.g. 30m; default never)")
	memBudget := fs.String("memory-budget", "", "the most memory the loaded -models may hold together, weights, KV caches and compute buffers, e.g. 24GiB: loading one beyond it unloads the least recently used idle ones (default no bound)")
	seed := fs.Int64("seed", 0, "the sampling seed of requests to a -model that set none (default: a random one each), so that a session repeats")
	noReuse := fs.Bool("no-prompt-reuse", false, "start every request to a -model from an empty KV cache (reproducible seeded sampling; slower on resent conversations)")
	llamaLib := fs.String("llama-lib", "", "directory holding llama.cpp's libraries for -model (default $"+llamacpp.EnvLib+", then ~/.cache/dragoman/llama-lib, then beside the executable)")
	traceDB := fs.String("trace-db", "", "where the traces are kept: an SQLite file (default $XDG_STATE_HOME/dragoman/traces.db, else ~/.local/state/dragoman/traces.db), or a PostgreSQL database that several gateways share, postgres://user:password@host:5432/database")
	noStore := fs.Bool("no-store", false, "keep the traces in memory only (the last trace_size, 256), in no file")
	check := fs.Bool("check", false, "check the configuration, print it as resolved (secrets masked) and exit, serving nothing")
	otelEndpoint := fs.String("otel-endpoint", "", "export each request as OpenTelemetry spans (the GenAI conventions) to this OTLP endpoint, e.g. http://127.0.0.1:4318 (default $OTEL_EXPORTER_OTLP_ENDPOINT; none: no export; docs/OBSERVABILITY.md)")
	otelContent := fs.Bool("otel-capture-content", false, "put the conversation, the answer, the rendered prompt and the raw completion on the exported spans (also $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; default off)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: dragoman serve [-listen ADDR] [-config FILE] [-upstream [KIND=]URL]... [-mode own|relay] [-no-discover] [-max-output-tokens N]")
		fmt.Fprintln(e.stderr, "                      [-model FILE.gguf|NAME]... [-preload] [-keep-alive D] [-memory-budget SIZE] [-ctx N] [-kv-budget SIZE] [-threads N] [-slots N]")
		fmt.Fprintln(e.stderr, "                      [-flash-attn auto|on|off] [-cache-type f16|q8_0] [-batch N] [-ubatch N] [-seed N] [-idle-release D] [-slot-save-dir DIR] [-no-prompt-reuse] [-llama-lib DIR]")
		fmt.Fprintln(e.stderr, "                      [-trace-db FILE|URL] [-no-store] [-check] [-otel-endpoint URL] [-otel-capture-content]")
		fmt.Fprintln(e.stderr, "\nServes OpenAI Chat Completions (/v1/chat/completions), OpenAI Responses (/v1/responses), Anthropic")
		fmt.Fprintln(e.stderr, "Messages (/v1/messages) and Ollama's API (/api/chat, /api/generate, /api/tags, …) over")
		fmt.Fprintln(e.stderr, "the local runtimes it finds on their default ports, or the ones given, and over GGUF files run in")
		fmt.Fprintln(e.stderr, "this process (-model; llama.cpp's libraries from npm "+llamacpp.NPMPackage+"). The client key, if")
		fmt.Fprintln(e.stderr, "any, is read from $DRAGOMAN_API_KEY.")
		fmt.Fprintln(e.stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var cfg gateway.Config
	if *configPath != "" {
		c, err := gateway.LoadConfig(*configPath)
		if err != nil {
			fmt.Fprintln(e.stderr, "dragoman serve:", err)
			return 2
		}
		cfg = c
	}
	switch {
	case *mode != "" && *mode != "own" && *mode != "relay":
		fmt.Fprintf(e.stderr, "dragoman serve: -mode %q: want own or relay\n", *mode)
		return 2
	case *mode != "" && len(ups) == 0:
		fmt.Fprintln(e.stderr, "dragoman serve: -mode applies to the -upstream runtimes, and none is given (set a mode per upstream in the config file)")
		return 2
	}
	for _, u := range ups {
		u.Mode = *mode
		cfg.Upstreams = append(cfg.Upstreams, u)
	}
	if v := e.getenv("DRAGOMAN_LISTEN"); v != "" && *listen == "" {
		*listen = v
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	if k := e.getenv("DRAGOMAN_API_KEY"); k != "" {
		cfg.APIKey = k
	}
	cfg.NoDiscover = cfg.NoDiscover || *noDiscover
	if *now != "" {
		cfg.Now = *now
	}
	if *maxOutput != 0 {
		cfg.MaxOutputTokens = *maxOutput
	}
	if *traceDB != "" {
		cfg.Traces.DB = *traceDB
	}
	cfg.Traces.Memory = cfg.Traces.Memory || *noStore
	// The OpenTelemetry export: the file's, the standard OTEL_* variables
	// over it, the flags over both.
	cfg.OTel = gateway.OTelFromEnv(cfg.OTel, e.getenv)
	if *otelEndpoint != "" {
		cfg.OTel.Endpoint, cfg.OTel.TracesEndpoint = *otelEndpoint, ""
	}
	cfg.OTel.CaptureContent = cfg.OTel.CaptureContent || *otelContent
	if cfg.Traces.DB == "" && !cfg.Traces.Memory {
		cfg.Traces.DB = trace.DefaultPath(e.getenv)
	}
	// The engine: the config file's, flags adding models and overriding the rest.
	eo := llamacpp.Options{LibDir: cfg.Engine.LlamaLib, Models: append(cfg.Engine.Models, models...), ContextSize: cfg.Engine.Context,
		Threads: cfg.Engine.Threads, Slots: cfg.Engine.Slots, NoPromptReuse: cfg.Engine.NoPromptReuse || *noReuse,
		FlashAttention: cfg.Engine.FlashAttention, CacheType: cfg.Engine.CacheType, Batch: cfg.Engine.Batch, Ubatch: cfg.Engine.Ubatch,
		Seed: cfg.Engine.Seed, IdleRelease: time.Duration(cfg.Engine.IdleRelease), SlotSaveDir: cfg.Engine.SlotSaveDir,
		Preload: cfg.Engine.Preload, KeepAlive: time.Duration(cfg.Engine.KeepAlive)}
	budget, memoryBudget := cfg.Engine.KVBudget, cfg.Engine.MemoryBudget
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "ctx":
			eo.ContextSize = *ctxSize
		case "kv-budget":
			budget = *kvBudget
		case "flash-attn":
			eo.FlashAttention = *flashAttn
		case "cache-type":
			eo.CacheType = *cacheType
		case "batch":
			eo.Batch = *nBatch
		case "ubatch":
			eo.Ubatch = *nUbatch
		case "idle-release":
			eo.IdleRelease = *idleRelease
		case "slot-save-dir":
			eo.SlotSaveDir = *slotSaveDir
		case "preload":
			eo.Preload = *preload
		case "keep-alive":
			eo.KeepAlive = *keepAlive
		case "memory-budget":
			memoryBudget = *memBudget
		case "seed":
			eo.Seed = seed
		case "threads":
			eo.Threads = *threads
		case "slots":
			eo.Slots = *slots
		case "llama-lib":
			eo.LibDir = *llamaLib
		}
	})
	if budget != "" {
		n, err := llamacpp.ParseBytes(budget)
		if err != nil || n == 0 {
			fmt.Fprintf(e.stderr, "dragoman serve: -kv-budget %q: want a size such as 8GiB, 512MiB or a number of bytes\n", budget)
			return 2
		}
		eo.KVBudget = n
	}
	if memoryBudget != "" {
		n, err := llamacpp.ParseBytes(memoryBudget)
		if err != nil || n == 0 {
			fmt.Fprintf(e.stderr, "dragoman serve: -memory-budget %q: want a size such as 24GiB, 512MiB or a number of bytes\n", memoryBudget)
			return 2
		}
		eo.MemoryBudget = n
	}
	if n := runtime.NumCPU(); eo.Threads > n {
		fmt.Fprintf(e.stderr, "dragoman: warning: %d threads for each model on %d CPUs: threads beyond the CPUs wait for each other (one run here went 50 times slower); give -threads %d or less\n", eo.Threads, n, n)
	}
	onDisk := ondisk.Find(localStores(e))
	if err := resolveModels(&eo, onDisk); err != nil {
		fmt.Fprintln(e.stderr, "dragoman serve:", err)
		return 2
	}
	var hooks gateway.Hooks
	switch *logFormat {
	case "text":
		hooks.Log = slog.New(slog.NewTextHandler(e.stderr, nil))
	case "json":
		hooks.Log = slog.New(slog.NewJSONHandler(e.stderr, nil))
	case "off":
	default:
		fmt.Fprintf(e.stderr, "dragoman serve: -log-format %q: want text, json or off\n", *logFormat)
		return 2
	}
	if *check {
		return checkConfig(cfg, eo, e)
	}
	if len(eo.Models) > 0 {
		eng, err := startEngine(eo, e.stderr)
		if err != nil {
			fmt.Fprintln(e.stderr, "dragoman serve:", err)
			return 1
		}
		defer eng.Close()
		hooks.Backends = []backend.Backend{eng}
	}
	srv, err := gateway.New(cfg, hooks)
	if err != nil {
		fmt.Fprintln(e.stderr, "dragoman serve:", err)
		return 2
	}
	defer srv.Close() // after hs.Shutdown: stops refreshing the runtimes found
	ln, err := net.Listen("tcp", srv.Config().Listen)
	if err != nil {
		fmt.Fprintln(e.stderr, "dragoman serve:", err)
		return 1
	}
	// A slow client must not hold a connection and a goroutine for ever:
	// its headers, its whole request and a kept-alive connection's wait
	// for the next one are bounded (limits, 10 s, 1 min, 2 min by default).
	lim := srv.Config().Limits
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: time.Duration(lim.RequestHeaderTimeout),
		ReadTimeout: time.Duration(lim.RequestTimeout), IdleTimeout: time.Duration(lim.ClientIdleTimeout)}
	if !loopbackAddr(ln.Addr()) && srv.Config().APIKey == "" {
		fmt.Fprintf(e.stderr, "dragoman: warning: listening on %s, beyond this machine, with no client key: anyone who can reach it can run the models and read every trace (set DRAGOMAN_API_KEY)\n", ln.Addr())
	}
	fmt.Fprintf(e.stderr, "dragoman: serving OpenAI, Anthropic and Ollama APIs on http://%s (/v1/chat/completions, /v1/responses, /v1/messages, /api/chat, /v1/models)\n", ln.Addr())
	where, _ := srv.TraceStore()
	fmt.Fprintf(e.stderr, "dragoman: traces of each request at http://%s/dragoman/ (kept in %s; dragoman traces reads them)\n", ln.Addr(), where)
	if to, content := srv.OTel(); to != "" {
		what := "no content: -otel-capture-content adds it"
		if content {
			what = "with the conversations' content"
		}
		fmt.Fprintf(e.stderr, "dragoman: OpenTelemetry spans of each request exported over OTLP %s (%s)\n", to, what)
	}
	go survey(srv, cfg.NoDiscover, onDisk, e.stderr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(e.stderr, "dragoman serve:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintln(e.stderr, "dragoman serve:", err)
	}
	return 0
}
