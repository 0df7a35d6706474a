package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/trace"
)

// Config is the gateway's whole configuration. The zero value is usable:
// listen on 127.0.0.1:4000, discover runtimes on their default local ports,
// no client key. A config file holds the same fields as JSON.
type Config struct {
	// Listen is the address to serve on; default 127.0.0.1:4000. Listening
	// beyond loopback is the user's explicit choice.
	Listen string `json:"listen,omitempty"`
	// APIKey, when set, is required from clients as "Authorization: Bearer
	// KEY" or "x-api-key: KEY".
	APIKey string `json:"api_key,omitempty"`
	// ExposeAddresses lets errors a client sees name the runtimes'
	// addresses, which are otherwise replaced by the runtimes' names: for a
	// gateway whose only client is its user (dragoman diff).
	ExposeAddresses bool `json:"expose_addresses,omitempty"`
	// AllowedHosts are the host names clients reach the gateway by, beyond
	// loopback names and the listen address (a request for another Host, or
	// from a page of another Origin, is refused: DNS rebinding). Empty on a
	// gateway listening beyond loopback accepts any host.
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// Upstreams are explicit runtimes; they come before discovered ones.
	Upstreams []Upstream `json:"upstreams,omitempty"`
	// NoDiscover turns off probing the default local ports.
	NoDiscover bool `json:"no_discover,omitempty"`
	// Aliases map a client-facing model name to an upstream model name.
	Aliases map[string]string `json:"aliases,omitempty"`
	// TraceSize is how many recent requests keep their trace in memory;
	// default 256. With a trace store (Traces.DB) these are the ones it has
	// not written yet, or all it keeps once it cannot write.
	TraceSize int `json:"trace_size,omitempty"`
	// Traces is where the traces are kept beyond the last TraceSize.
	Traces Traces `json:"traces,omitzero"`
	// ModelsTTL is how long the runtimes found and their model lists are
	// trusted; default 10s. Older ones are still served while they are
	// refreshed in the background.
	ModelsTTL Duration `json:"models_ttl,omitempty"`
	// Now pins the clock templates see (strftime_now), as an ISO-8601 time;
	// empty means the real clock. For reproducible prompts in tests.
	Now string `json:"now,omitempty"`
	// MaxOutputTokens is the output limit of a request that sets none; 0
	// leaves it to the runtime, which may generate until the context ends.
	// Agents that never send a limit (Codex CLI) then cannot hold a runtime
	// with a model that does not stop.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// Limits bound what a runtime can make the gateway wait for and hold.
	Limits Limits `json:"limits,omitzero"`
	// Responses bounds the store of Responses API answers kept for
	// previous_response_id and GET /v1/responses/{id}.
	Responses ResponsesStore `json:"responses,omitzero"`
	// Engine runs GGUF files in this process (dragoman serve builds the
	// engine from it; its flags -model, -ctx, -threads, -no-prompt-reuse and
	// -llama-lib add to it or override it).
	Engine Engine `json:"engine,omitzero"`
	// OTel exports every request as OpenTelemetry spans; off unless an
	// endpoint is set.
	OTel OTel `json:"otel,omitzero"`
}

// OTel configures the OpenTelemetry export (docs/OBSERVABILITY.md): each
// request a span "chat {model}" with the GenAI semantic conventions'
// attributes, its steps as child spans, sent over OTLP in the background.
// Off unless Endpoint or TracesEndpoint is set. dragoman serve fills the
// fields from the standard variables where they are set, over the file's:
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, OTEL_EXPORTER_OTLP_(TRACES_)HEADERS,
// OTEL_EXPORTER_OTLP_(TRACES_)INSECURE, OTEL_SERVICE_NAME and
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT; OTEL_SDK_DISABLED=true
// or OTEL_TRACES_EXPORTER=none turn it off. The Go SDK reads the rest
// itself (OTEL_EXPORTER_OTLP_TIMEOUT, …_COMPRESSION, …_CERTIFICATE,
// OTEL_BSP_*, OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES).
type OTel struct {
	// Endpoint is the collector's OTLP address, as
	// OTEL_EXPORTER_OTLP_ENDPOINT reads: a base URL, to which HTTP adds
	// /v1/traces (http://127.0.0.1:4318), or for gRPC a URL or host:port
	// (http://127.0.0.1:4317). dragoman serve's -otel-endpoint sets it.
	Endpoint string `json:"endpoint,omitempty"`
	// TracesEndpoint is the traces' own address, used as it is (HTTP: the
	// whole URL, path included); it wins over Endpoint.
	TracesEndpoint string `json:"traces_endpoint,omitempty"`
	// Protocol is http/protobuf (the default) or grpc.
	Protocol string `json:"protocol,omitempty"`
	// Headers go with every export: a backend's key (Authorization,
	// x-honeycomb-team, …). OTEL_EXPORTER_OTLP_HEADERS reads
	// "key=value,key2=value2".
	Headers map[string]string `json:"headers,omitempty"`
	// Insecure: gRPC to an address given without a scheme goes without
	// TLS. An http:// address never uses TLS, an https:// one always.
	Insecure bool `json:"insecure,omitempty"`
	// ServiceName is the resource's service.name; default "dragoman".
	ServiceName string `json:"service_name,omitempty"`
	// CaptureContent puts what was said on the spans: the client's messages
	// and tools (gen_ai.input.messages, gen_ai.tool.definitions), the answer
	// (gen_ai.output.messages, calls' arguments), the rendered prompt and
	// the raw completion. Off by default, as the conventions require: they
	// hold whatever users and tools wrote. dragoman serve's
	// -otel-capture-content sets it, and so does
	// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
	CaptureContent bool `json:"capture_content,omitempty"`
}

// Limits bound each request's wait for its runtime and what it keeps of
// the answer. Zero fields take the defaults.
type Limits struct {
	// ResponseHeaderTimeout is how long a runtime may take to begin its
	// answer (rendering, a model loading, the prompt's processing where the
	// runtime does that first); default 5m. Past it the client gets a 504.
	ResponseHeaderTimeout Duration `json:"response_header_timeout,omitempty"`
	// IdleTimeout is how long a runtime may send nothing once its answer has
	// begun; default 2m. Past it the answer ends as a break-off.
	IdleTimeout Duration `json:"idle_timeout,omitempty"`
	// AnswerTimeout is how long a runtime's whole answer may take, from the
	// request sent to its last chunk; default 1h (a long answer of a slow
	// model on a CPU fits; a runtime that drips forever does not). Past it
	// the answer ends as a break-off, with everything up to there delivered,
	// or a 504 if it had not begun.
	AnswerTimeout Duration `json:"answer_timeout,omitempty"`
	// ConnectTimeout is how long connecting to a runtime may take, TLS
	// included; default 10s. Past it the next upstream serving the model is
	// tried, or the client gets a 502.
	ConnectTimeout Duration `json:"connect_timeout,omitempty"`
	// MaxAnswerBytes bounds an answer's text and reasoning; default 64 MiB.
	// Past it the runtime is cut off and the answer ends as a break-off,
	// with everything up to there delivered.
	MaxAnswerBytes int `json:"max_answer_bytes,omitempty"`
	// MaxTraceBytes bounds the raw completion, and the client's request, a
	// trace keeps; default 8 MiB (the rest is counted, not kept).
	MaxTraceBytes int `json:"max_trace_bytes,omitempty"`

	// The clients' side, applied by dragoman serve's HTTP server:
	// RequestHeaderTimeout is how long a client may take to send its
	// request's headers (default 10s), RequestTimeout its whole request,
	// body included (default 1m; past it a 408), and ClientIdleTimeout how
	// long a kept-alive connection may wait for its next request (2m).
	RequestHeaderTimeout Duration `json:"request_header_timeout,omitempty"`
	RequestTimeout       Duration `json:"request_timeout,omitempty"`
	ClientIdleTimeout    Duration `json:"client_idle_timeout,omitempty"`

	// The gateway's own waits and retries for its runtimes, each read
	// against Hooks.Clock where it is a deadline rather than a timeout:
	//
	// ListTimeout bounds a remote runtime's model listing (default 2s),
	// LocalListTimeout one on this machine (10s: a local runtime may be
	// loading a model).
	ListTimeout      Duration `json:"list_timeout,omitempty"`
	LocalListTimeout Duration `json:"local_list_timeout,omitempty"`
	// MarkDown is how long an upstream that could not be reached is passed
	// over while another serves the same model (default 10s).
	MarkDown Duration `json:"mark_down,omitempty"`
	// PrepareTimeout bounds a model's preparation: the runtime describing
	// it, its template and tokenizer read (default 1m).
	PrepareTimeout Duration `json:"prepare_timeout,omitempty"`
	// PrepareTTL is how long a model's preparation stands: after it, the
	// next request starts a new one in the background (served by the old
	// one meanwhile), so that a model pulled again with a new template is
	// read again without a restart (default 10m; -1 never).
	PrepareTTL Duration `json:"prepare_ttl,omitempty"`
	// RetryFirst and RetryMax bound the delay before what could not be set
	// up is tried again (a configured upstream, a model the runtime did not
	// describe, a failed listing): it doubles from RetryFirst (default 1s)
	// to RetryMax (default 1m) with each failure in a row.
	RetryFirst Duration `json:"retry_first,omitempty"`
	RetryMax   Duration `json:"retry_max,omitempty"`
	// ConnectRetryTimeout bounds each background attempt at setting up a
	// configured upstream (default 30s); DetectTimeout the probe that
	// recognises an upstream configured without a kind (default 5s).
	ConnectRetryTimeout Duration `json:"connect_retry_timeout,omitempty"`
	DetectTimeout       Duration `json:"detect_timeout,omitempty"`
	// LostFor is how long a runtime found on the default ports and then
	// gone still answers for its models, with a 503 and Retry-After rather
	// than a 404 (default 10m).
	LostFor Duration `json:"lost_for,omitempty"`
	// CatalogWait bounds how long Codex CLI's model listing waits for the
	// models' preparations (default 10s); a model not prepared by then is
	// listed with what its runtime said.
	CatalogWait Duration `json:"catalog_wait,omitempty"`
}

// Traces configures the trace store: an SQLite file, or a PostgreSQL
// database that several gateways share, that keeps every request's trace
// across restarts, within the retention limits (the oldest go first),
// written in the background. Zero fields take the defaults.
type Traces struct {
	// DB is the store: an SQLite file's path, or a PostgreSQL server's URL
	// (postgres://user:password@host:5432/database, or postgresql://; a
	// search_path parameter picks the schema, sslmode and the other libpq
	// parameters apply; the tables are made when absent). Empty keeps the
	// traces in memory only (the last TraceSize). dragoman serve's default
	// is $XDG_STATE_HOME/dragoman/traces.db, else
	// ~/.local/state/dragoman/traces.db (its -trace-db sets it). A path is
	// relative to the config file's folder.
	DB string `json:"db,omitempty"`
	// Memory keeps the traces in memory only, whatever DB says
	// (dragoman serve -no-store).
	Memory bool `json:"memory,omitempty"`
	// MaxCount is how many traces the store keeps; default 100000, -1 no
	// limit. On PostgreSQL the limits are the table's, all replicas'
	// traces together (give every replica the same).
	MaxCount int `json:"max_count,omitempty"`
	// MaxAge is how long it keeps one; default 720h (30 days), -1s none.
	MaxAge Duration `json:"max_age,omitempty"`
	// MaxBytes bounds the traces' stored size (their JSON); default 256
	// MiB, -1 none.
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// Queue is how many traces may wait to be written; default 1024. A
	// trace that finds it full is not written (counted, with a warning);
	// no request ever waits for the disk or the server.
	Queue int `json:"queue,omitempty"`
	// Timeout is how long the store waits for its database: a lock another
	// process holds on the SQLite file; connecting to, writing to and
	// reading from PostgreSQL. Default 5s; a write that takes longer turns
	// the store to memory (with a warning), a read lists what is in memory.
	Timeout Duration `json:"timeout,omitempty"`
}

// ResponsesStore bounds the Responses API's store (in memory only). An
// answer asked for with store false is never kept.
type ResponsesStore struct {
	// Max is how many responses are kept, the oldest dropped first;
	// default 256, -1 keeps none.
	Max int `json:"max,omitempty"`
	// MaxAge is how long one is kept; default 1h.
	MaxAge Duration `json:"max_age,omitempty"`
}

// Engine is the embedded llama.cpp engine's part of the configuration.
type Engine struct {
	// Models are GGUF files, each served under its base name without
	// ".gguf"; a relative path is relative to the config file's folder.
	Models []string `json:"models,omitempty"`
	// Context is each model's context in tokens; 0 is what the model was
	// trained for, or as many tokens as KVBudget holds where that is less;
	// never more than a model was trained for.
	Context int `json:"context,omitempty"`
	// KVBudget bounds each model's KV cache when Context is 0, as bytes or
	// with a unit ("8GiB", "512MiB"); empty is a quarter of the machine's
	// memory.
	KVBudget string `json:"kv_budget,omitempty"`
	// Threads for each model; 0 is the physical cores (half the CPUs where
	// the topology is unknown).
	Threads int `json:"threads,omitempty"`
	// Slots is how many conversations each model keeps cached, sharing
	// its context's cells; 0 is the engine's default (4).
	Slots int `json:"slots,omitempty"`
	// NoPromptReuse starts every request from an empty KV cache.
	NoPromptReuse bool `json:"no_prompt_reuse,omitempty"`
	// FlashAttention is auto (llama.cpp's default, also empty), on or off.
	FlashAttention string `json:"flash_attention,omitempty"`
	// CacheType is the KV cache's type: f16 (llama.cpp's default, also
	// empty) or q8_0.
	CacheType string `json:"cache_type,omitempty"`
	// Batch and Ubatch are llama.cpp's n_batch and n_ubatch; 0 is its
	// default (2048 and 512).
	Batch  int `json:"batch,omitempty"`
	Ubatch int `json:"ubatch,omitempty"`
	// Seed is the seed of the requests that set none; absent, they draw a
	// random one.
	Seed *int64 `json:"seed,omitempty"`
	// IdleRelease frees a model's context (its KV cache) after that long
	// without a request; the next request makes it again. 0 never does.
	IdleRelease Duration `json:"idle_release,omitempty"`
	// SlotSaveDir is a folder where each model's cached conversations (its
	// slots' tokens and KV cells) are saved when its context is freed (serve
	// stops, the model is unloaded, idle_release), and read back when the
	// context is made again; empty saves nothing. Relative to the config
	// file's folder.
	SlotSaveDir string `json:"slot_save_dir,omitempty"`
	// Preload loads every model at start; without it each is loaded by
	// its first request (its header and vocabulary are read at start).
	Preload bool `json:"preload,omitempty"`
	// KeepAlive unloads a model (weights and context) after that long
	// without a request; the next request loads it again. 0 never does.
	KeepAlive Duration `json:"keep_alive,omitempty"`
	// MemoryBudget bounds what the loaded models hold together (weights
	// and KV caches), as bytes or with a unit ("24GiB"): loading one that
	// would exceed it unloads the least recently used idle ones first.
	// Empty sets no bound.
	MemoryBudget string `json:"memory_budget,omitempty"`
	// LlamaLib is the folder holding llama.cpp's libraries; empty searches
	// the usual places. Relative to the config file's folder.
	LlamaLib string `json:"llama_lib,omitempty"`
}

// Upstream is one runtime the gateway may send requests to.
type Upstream struct {
	// Name identifies it in traces and metrics; default: its kind and address.
	Name string `json:"name,omitempty"`
	// URL is its base address, e.g. http://127.0.0.1:11434.
	URL string `json:"url"`
	// Kind is the runtime (ollama, llama-server, lmstudio, vllm, sglang,
	// mlx-lm, openai); empty means recognise it by probing.
	Kind string `json:"kind,omitempty"`
	// APIKey is sent to this upstream only; empty sends no Authorization.
	APIKey string `json:"api_key,omitempty"`
	// Mode is "own" (render, constrain and parse here; the default where the
	// runtime takes raw prompts and the model's template is known) or
	// "relay" (the runtime's own chat API, with its answers repaired).
	Mode string `json:"mode,omitempty"`
	// NoTools: never send tools to this upstream (for runtimes that reject
	// them); calls are then neither offered nor parsed.
	NoTools bool `json:"no_tools,omitempty"`
	// Templates maps a model name to a chat template file, HF folder or GGUF,
	// for runtimes that do not expose the template.
	Templates map[string]string `json:"templates,omitempty"`
	// Parser chooses what reads the model's raw output in own mode: "auto"
	// (the default) is the model's response_template where it ships one
	// (transformers' parse_response spec, docs/RESPONSE-TEMPLATES.md) and
	// its family's parser otherwise; "family" is always the family's.
	Parser string `json:"parser,omitempty"`
}

// Duration is a time.Duration that reads "10s" in JSON.
type Duration time.Duration

// UnmarshalJSON reads a Go duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want a string such as \"10s\" or seconds: %s", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes d as UnmarshalJSON reads it: "1m30s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// LoadConfig reads a JSON config file; unknown fields are an error, so that a
// typo does not silently do nothing.
func LoadConfig(path string) (Config, error) {
	var c Config
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(path)
	for i, m := range c.Engine.Models {
		c.Engine.Models[i] = beside(dir, m)
	}
	if c.Engine.LlamaLib != "" {
		c.Engine.LlamaLib = beside(dir, c.Engine.LlamaLib)
	}
	if c.Engine.SlotSaveDir != "" {
		c.Engine.SlotSaveDir = beside(dir, c.Engine.SlotSaveDir)
	}
	if c.Traces.DB != "" && !trace.IsURL(c.Traces.DB) {
		c.Traces.DB = beside(dir, c.Traces.DB)
	}
	return c, nil
}

// beside resolves p against dir unless it is absolute (or starts at ~/, the
// user's home).
func beside(dir, p string) string {
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func (c Config) withDefaults() Config {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:4000"
	}
	if c.TraceSize == 0 {
		c.TraceSize = 256
	}
	if c.ModelsTTL == 0 {
		c.ModelsTTL = Duration(10 * time.Second)
	}
	if c.Limits.ResponseHeaderTimeout == 0 {
		c.Limits.ResponseHeaderTimeout = Duration(5 * time.Minute)
	}
	if c.Limits.IdleTimeout == 0 {
		c.Limits.IdleTimeout = Duration(2 * time.Minute)
	}
	if c.Limits.AnswerTimeout == 0 {
		c.Limits.AnswerTimeout = Duration(time.Hour)
	}
	if c.Limits.ConnectTimeout == 0 {
		c.Limits.ConnectTimeout = Duration(10 * time.Second)
	}
	if c.Limits.MaxAnswerBytes == 0 {
		c.Limits.MaxAnswerBytes = 64 << 20
	}
	if c.Limits.RequestHeaderTimeout == 0 {
		c.Limits.RequestHeaderTimeout = Duration(10 * time.Second)
	}
	if c.Limits.RequestTimeout == 0 {
		c.Limits.RequestTimeout = Duration(time.Minute)
	}
	if c.Limits.ClientIdleTimeout == 0 {
		c.Limits.ClientIdleTimeout = Duration(2 * time.Minute)
	}
	if c.Limits.MaxTraceBytes == 0 {
		c.Limits.MaxTraceBytes = 8 << 20
	}
	for _, d := range []struct {
		limit *Duration
		value time.Duration
	}{
		{&c.Limits.ListTimeout, 2 * time.Second}, {&c.Limits.LocalListTimeout, 10 * time.Second},
		{&c.Limits.MarkDown, 10 * time.Second}, {&c.Limits.PrepareTimeout, time.Minute}, {&c.Limits.PrepareTTL, 10 * time.Minute},
		{&c.Limits.RetryFirst, time.Second}, {&c.Limits.RetryMax, time.Minute},
		{&c.Limits.ConnectRetryTimeout, 30 * time.Second}, {&c.Limits.DetectTimeout, 5 * time.Second},
		{&c.Limits.LostFor, 10 * time.Minute}, {&c.Limits.CatalogWait, 10 * time.Second},
	} {
		if *d.limit == 0 {
			*d.limit = Duration(d.value)
		}
	}
	if c.Traces.MaxCount == 0 {
		c.Traces.MaxCount = trace.DefaultMaxCount
	}
	if c.Traces.MaxAge == 0 {
		c.Traces.MaxAge = Duration(trace.DefaultMaxAge)
	}
	if c.Traces.MaxBytes == 0 {
		c.Traces.MaxBytes = trace.DefaultMaxBytes
	}
	if c.Traces.Queue == 0 {
		c.Traces.Queue = 1024
	}
	if c.Responses.Max == 0 {
		c.Responses.Max = 256
	}
	if c.Responses.MaxAge == 0 {
		c.Responses.MaxAge = Duration(time.Hour)
	}
	return c
}
