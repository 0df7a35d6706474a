// Package llamacpp is Dragoman's embedded engine: a backend.Backend that runs
// GGUF models in this process through llama.cpp's C API, loaded at run time
// from prebuilt shared libraries (npm @node-llama-cpp/linux-x64@3.22.1,
// llama.cpp v0.5.0) without cgo, through purego. It serves own mode only:
// Complete takes the prompt the gateway rendered, tokenizes it with the
// model's vocabulary (special tokens parsed), decodes it and samples until an
// end-of-generation token, a stop string, max_tokens or the end of the
// context, streaming the text as it comes. A GBNF grammar (eager or lazy,
// with triggers) or a JSON Schema (converted to GBNF by package grammar)
// constrains the sampler.
//
// Each model has one llama.cpp context, owned by one goroutine, its
// scheduler (sched.go), which makes every call on it. Requests for the same
// model are decoded together (continuous batching, step.go): every step is
// one llama_decode of a batch holding one generated token of each running
// request and shares of the prompts still being decoded, after which each
// request samples its own next token with its own sampler chain and
// grammar. A request joins at the next step and leaves, freeing its
// sequence, as soon as it finishes, fails, or its client cancels or closes
// the stream; at most one request runs per slot, and the others wait in a
// queue that honours their context. The context holds several cached
// conversations (slots, sequences of one unified KV cache): a request takes
// the idle slot holding the longest prefix of its prompt, or a free or the
// least recently used one, keeps that prefix's KV cache and decodes only
// the rest (cache.go).
package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/template"
)

// Options configure New.
type Options struct {
	// LibDir is the directory holding libllama and libggml (FindLib says
	// what is searched when it is empty).
	LibDir string
	// Models are GGUF files; each is served under its base name without
	// ".gguf", or the name Names gives it.
	Models []string
	// Names, keyed by a Models path, is the name a model is served under
	// when its file's name says nothing (an Ollama blob is sha256-…).
	Names map[string]string
	// ContextSize is each model's context in tokens. 0 sizes it (size.go):
	// what the model was trained for, or as many tokens as KVBudget holds
	// where that is less. A size above what a model was trained for is an
	// error (llama.cpp would only cap it, and a request then meets the
	// smaller context).
	ContextSize int
	// KVBudget bounds each model's KV cache, in bytes, when ContextSize is
	// 0; 0 is DefaultKVBudget (a quarter of the machine's memory).
	KVBudget int64
	// Threads for generation and prompt processing; 0 means half the
	// CPUs, at least one (llama.cpp's threads spin while they wait for each
	// other, so more threads than free cores is much slower: docs/PERFORMANCE.md).
	Threads int
	// Slots is how many conversations each model keeps cached (cache.go):
	// llama.cpp sequences sharing one KV cache of ContextSize cells, so
	// any one of them may fill the whole context and more slots cost no KV
	// memory. It is also how many of a model's requests are decoded
	// together (a running request owns its slot; more wait in a queue).
	// 0 is DefaultSlots; at most 256.
	Slots int
	// NoPromptReuse makes every request start from an empty KV cache
	// instead of keeping the prefix its prompt shares with what earlier
	// requests decoded (cache.go). Reuse changes the logits in their last
	// bits, so seeded sampling is reproducible only without it.
	NoPromptReuse bool
	// FlashAttention is "auto" (llama.cpp's default, also ""), "on" or
	// "off".
	FlashAttention string
	// CacheType is the KV cache's type: "f16" (llama.cpp's default, also
	// "") or "q8_0" (about half the memory a token; its V cache needs flash
	// attention, which "auto" then turns on).
	CacheType string
	// Batch is llama.cpp's n_batch, the most tokens one llama_decode takes
	// (0: llama.cpp's 2048), and Ubatch its n_ubatch, the compute batch
	// (0: llama.cpp's 512); n_batch at most the context.
	Batch, Ubatch int
	// Seed, when set, is the seed of every request that sets none (without
	// it such requests draw a random one): an agent's session over the
	// engine then repeats. Batching and prompt reuse can still change a
	// seeded answer (docs/DECISIONS.md).
	Seed *int64
	// IdleRelease, when above 0, frees a model's context (its KV cache,
	// the memory that grows with the context) after that long without a
	// request; the next request makes it again, its slots empty
	// (release.go), or read back from SlotSaveDir when it is set. The weights stay loaded (KeepAlive unloads them). 0
	// keeps it for ever.
	IdleRelease time.Duration
	// SlotSaveDir, when set, is a directory where each model's slots are
	// saved (their tokens and KV cells, one pair of files a slot) when its
	// context is freed: the engine closes, the model is unloaded, or the
	// idle release frees its KV cache. When the context is made again the
	// saved slots are read back, so that a restarted gateway serves an
	// agent's long prefix from the cache (slotsave.go). A state saved for
	// another model file, context size or KV cache type, or a damaged
	// file, is ignored with a SlotStateIgnored event. Nothing is saved
	// with NoPromptReuse.
	SlotSaveDir string
	// KeepAlive, when above 0, unloads a model (its weights and its
	// context) after that long without a request; the next request loads
	// it again (lifecycle.go). 0 keeps a loaded model loaded.
	KeepAlive time.Duration
	// MemoryBudget, when above 0, bounds the memory the loaded models hold
	// together (weights and KV caches, in bytes): loading one that would
	// exceed it first unloads the least recently used idle ones, and waits
	// while the others run requests. 0 sets no bound.
	MemoryBudget int64
	// Preload loads every model in New, as before models were loaded on
	// first use; New then fails on a model llama.cpp cannot load.
	Preload bool
	// OnLoad, when set, is told of each load (start, progress, end or
	// failure) and unload, on the goroutine doing it: it must not block.
	OnLoad func(LoadEvent)
}

// flashAttnTypes are FlashAttention's values as llama.cpp's enum
// llama_flash_attn_type.
var flashAttnTypes = map[string]int32{"": -1, "auto": -1, "off": 0, "on": 1}

// Engine is the embedded runtime: the models given to New, each loaded on
// its first request (lifecycle.go).
type Engine struct {
	models []*model
	byID   map[string]*model
	pool   *pool
	// threads and slots are each model's, defaults filled in;
	// threadsWhy says where threads came from.
	threads, slots int
	threadsWhy     string
}

// Threads is how many threads each model decodes with, and Slots how many
// conversations each keeps cached (the defaults filled in).
func (e *Engine) Threads() int { return e.threads }
func (e *Engine) Slots() int   { return e.slots }

// ThreadsWhy says where Threads came from ("-threads", "the physical
// cores", …).
func (e *Engine) ThreadsWhy() string { return e.threadsWhy }

// Sizing is how a model's context was made: its size and why, what a
// token's KV cache costs, and the llama.cpp parameters in use.
type Sizing struct {
	ID         string
	Context    int
	KVPerToken int64 // bytes; 0 when the header did not say
	ContextWhy string
	Batch      int
	Ubatch     int
	FlashAttn  string
	CacheType  string
}

// Sizings are the models' sizes (what a load makes), in the order given.
func (e *Engine) Sizings() []Sizing {
	out := make([]Sizing, len(e.models))
	for i, m := range e.models {
		out[i] = m.sizing
	}
	return out
}

var _ backend.Backend = (*Engine)(nil)

// ErrNoChat is returned by Chat: the engine has no chat API of its own.
var ErrNoChat = errors.New("the embedded engine has no chat API: it serves own mode only, which needs the model's chat template " +
	"(the GGUF's tokenizer.chat_template, or a template configured for the upstream)")

// New loads the libraries and reads every model's header and vocabulary,
// so that a file that is not a model fails here; the weights are loaded on
// each model's first request, or here with Options.Preload. Errors say which
// file and why.
func New(opts Options) (*Engine, error) {
	if len(opts.Models) == 0 {
		return nil, errors.New("no model given")
	}
	if opts.ContextSize < 0 || opts.Threads < 0 || opts.Slots < 0 {
		return nil, errors.New("context size, threads and slots must not be negative")
	}
	if opts.Slots > maxSlots {
		return nil, fmt.Errorf("%d slots: llama.cpp takes at most %d sequences in a context", opts.Slots, maxSlots)
	}
	if opts.Slots == 0 {
		opts.Slots = DefaultSlots
	}
	if opts.KVBudget < 0 || opts.Batch < 0 || opts.Ubatch < 0 || opts.MemoryBudget < 0 || opts.KeepAlive < 0 || opts.IdleRelease < 0 {
		return nil, errors.New("the budgets, the batch sizes, the keep-alive and the idle release must not be negative")
	}
	if _, ok := flashAttnTypes[opts.FlashAttention]; !ok {
		return nil, fmt.Errorf("flash attention %q: want auto, on or off", opts.FlashAttention)
	}
	if opts.CacheType == "" {
		opts.CacheType = "f16"
	}
	if _, ok := cacheTypes[opts.CacheType]; !ok {
		return nil, fmt.Errorf("KV cache type %q: want f16 or q8_0", opts.CacheType)
	}
	if opts.CacheType != "f16" && opts.FlashAttention == "off" {
		return nil, fmt.Errorf("a %s KV cache needs flash attention (llama.cpp quantizes the V cache only with it): leave flash attention on auto or on", opts.CacheType)
	}
	if opts.KVBudget == 0 {
		opts.KVBudget = DefaultKVBudget()
	}
	threadsWhy := "-threads"
	if opts.Threads == 0 {
		opts.Threads, threadsWhy = defaultThreads()
	}
	e := &Engine{byID: map[string]*model{}, threads: opts.Threads, slots: opts.Slots, threadsWhy: threadsWhy, pool: newPool(opts.MemoryBudget)}
	for _, p := range opts.Models {
		id := ModelID(p)
		if n := opts.Names[p]; n != "" {
			id = n
		}
		if other, ok := e.byID[id]; ok {
			return nil, fmt.Errorf("models %s and %s would both be served as %q", other.path, p, id)
		}
		// Read the header first: a file that is not a GGUF gets a clear
		// error before llama.cpp sees it, and the metadata gives the chat
		// template.
		g, err := template.ReadGGUFFile(p)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", p, err)
		}
		e.byID[id] = &model{id: id, path: p, meta: g, noReuse: opts.NoPromptReuse, seed: opts.Seed, pool: e.pool,
			saveDir: opts.SlotSaveDir, kvBudget: opts.KVBudget}
		e.models = append(e.models, e.byID[id])
	}
	if err := Load(opts.LibDir); err != nil {
		return nil, err
	}
	for _, m := range e.models {
		m.peers = e.models
		if err := m.open(opts); err != nil {
			e.Close()
			return nil, err
		}
	}
	if opts.Preload {
		if err := e.preload(); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// ModelID is the name a model file is served under: its base name without
// ".gguf".
func ModelID(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".gguf") {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// Close frees the models, waiting for running generations to end.
// (A load waiting for memory that another model holds gives up once its
// own model closes; the models close in order.)
func (e *Engine) Close() error {
	for _, m := range e.models {
		m.free()
	}
	return nil
}

// Kind is backend.Embedded.
func (e *Engine) Kind() backend.Kind { return backend.Embedded }

// BaseURL names the engine in traces and metrics; nothing listens there.
func (e *Engine) BaseURL() string { return "inprocess://llama.cpp" }

// CanComplete is true: the engine takes raw prompts only.
func (e *Engine) CanComplete() bool { return true }

// Models lists the models, loaded or not, with the context a load makes.
func (e *Engine) Models(ctx context.Context) ([]backend.Model, error) {
	out := make([]backend.Model, 0, len(e.models))
	for _, m := range e.models {
		out = append(out, backend.Model{ID: m.id, ContextLength: m.nCtx})
	}
	return out, nil
}

// ModelInfo reports the GGUF's chat template, the vocabulary's BOS and EOS
// and the context size in use: all known without the weights.
func (e *Engine) ModelInfo(ctx context.Context, id string) (backend.ModelInfo, error) {
	m, err := e.model(id)
	if err != nil {
		return backend.ModelInfo{}, err
	}
	info := backend.ModelInfo{BOSToken: m.bos, EOSToken: m.eos, ContextLength: m.nCtx, GGUFPath: m.path}
	if t, ok := m.meta.String("tokenizer.chat_template"); ok {
		info.Template, info.TemplateOrigin = t, "GGUF tokenizer.chat_template ("+m.path+")"
	}
	return info, nil
}

// Chat is not supported: see ErrNoChat.
func (e *Engine) Chat(ctx context.Context, req *chat.Request) (backend.Stream, error) {
	return nil, ErrNoChat
}

// Complete generates from a rendered prompt; see the package comment.
func (e *Engine) Complete(ctx context.Context, req backend.CompleteRequest) (backend.Stream, error) {
	m, err := e.model(req.Model)
	if err != nil {
		return nil, err
	}
	return m.complete(ctx, req)
}

func (e *Engine) model(id string) (*model, error) {
	m, ok := e.byID[id]
	if !ok {
		ids := make([]string, len(e.models))
		for i, m := range e.models {
			ids[i] = m.id
		}
		return nil, &backend.Error{Kind: backend.Embedded, Status: 404, Message: fmt.Sprintf("model %q is not served here; served: %s", id, strings.Join(ids, ", "))}
	}
	return m, nil
}

// badRequest is a request the engine cannot serve as given (HTTP 400).
func badRequest(format string, args ...any) error {
	return &backend.Error{Kind: backend.Embedded, Status: 400, Message: fmt.Sprintf(format, args...)}
}
