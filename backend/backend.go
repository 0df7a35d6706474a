// Package backend speaks each local runtime's own dialect: one file per
// upstream API (Ollama's native API, the OpenAI-compatible servers: llama.cpp's
// llama-server, LM Studio, vLLM, SGLang, mlx_lm.server). A Backend is one
// runtime at one address. It offers two ways to generate: Complete sends a
// prompt Dragoman rendered itself (the "own" mode) and streams back the raw
// text; Chat sends the request to the runtime's chat API (the "relay" mode)
// and streams back its answer with the dialect's quirks repaired — calls are
// assembled from fragments and announced whole, with ids, arguments as a JSON
// string, reasoning in one field.
package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
)

// Kind names a runtime.
type Kind string

const (
	Ollama      Kind = "ollama"
	LlamaServer Kind = "llama-server"
	LMStudio    Kind = "lmstudio"
	VLLM        Kind = "vllm"
	SGLang      Kind = "sglang"
	MLX         Kind = "mlx-lm"
	// OpenAI is any other OpenAI-compatible server.
	OpenAI Kind = "openai"
	// Embedded is llama.cpp in Dragoman's own process (package
	// backend/llamacpp): GGUF files given to `dragoman serve --model`.
	Embedded Kind = "embedded"
)

// Backend is one runtime at one address. Methods are safe for concurrent use
// and honour ctx: cancelling it aborts the upstream request.
type Backend interface {
	// Kind is the runtime's kind; BaseURL its address (scheme://host:port).
	Kind() Kind
	BaseURL() string
	// Models lists the models the runtime serves.
	Models(ctx context.Context) ([]Model, error)
	// ModelInfo reports what the runtime knows of a model: its chat template
	// and special tokens where it exposes them, its context length.
	ModelInfo(ctx context.Context, model string) (ModelInfo, error)
	// CanComplete reports whether the runtime takes raw prompts (Complete).
	CanComplete() bool
	// Complete generates from a rendered prompt and streams the raw text.
	Complete(ctx context.Context, req CompleteRequest) (Stream, error)
	// Chat sends req to the runtime's own chat API and streams its answer.
	Chat(ctx context.Context, req *chat.Request) (Stream, error)
}

// Model is one model a runtime serves.
type Model struct {
	// ID is the runtime's name for it.
	ID string
	// ContextLength is the model's context window in tokens; 0 when unknown.
	ContextLength int
}

// ModelInfo is what a runtime exposes about one model.
type ModelInfo struct {
	// Template is the model's Jinja chat template; empty when the runtime does
	// not expose one. TemplateOrigin says where it came from (for the trace).
	Template       string
	TemplateOrigin string
	// BOSToken and EOSToken are the tokenizer's, where known.
	BOSToken, EOSToken string
	// ContextLength is the context window in tokens; 0 when unknown.
	ContextLength int
	// GGUFPath is the model's weights file on this machine, where known
	// (Ollama's store, llama-server's model_path).
	GGUFPath string
}

// CompleteRequest is one raw completion.
type CompleteRequest struct {
	Model  string
	Prompt string
	// MaxTokens bounds the output; 0 is the runtime's default.
	MaxTokens   int
	Temperature *float64
	TopP        *float64
	Seed        *int64
	Stop        []string
	// TopK, MinP and RepeatPenalty tune the embedded engine's sampler (nil:
	// llama.cpp's defaults, no penalty); the HTTP runtimes ignore them.
	TopK          *int
	MinP          *float64
	RepeatPenalty *float64
	// Grammar is a GBNF grammar the sampler must follow (llama.cpp), and
	// JSONSchema a schema the output must match (Ollama's format, llama.cpp's
	// json_schema). At most one is set; a backend that can take neither
	// ignores them and the parser copes.
	Grammar    string
	JSONSchema json.RawMessage
	// GrammarLazy says Grammar applies only once one of GrammarTriggers
	// appears in the output; the text before it is free (tool_choice
	// "auto"). The sampler then constrains the text from the trigger on.
	GrammarLazy     bool
	GrammarTriggers []GrammarTrigger
	// PreservedTokens are special tokens the grammar spells out (call
	// markers such as <tool_call>), which the runtime must match as single
	// tokens rather than refuse as control tokens.
	PreservedTokens []string
	// StructuralTag is a structural tag in the shape vLLM and xgrammar take
	// ({"type": "structural_tag", "structures": [{begin, schema, end}],
	// "triggers": [...]}): calls constrained after a trigger, text free
	// elsewhere.
	StructuralTag json.RawMessage
	// ContextLength asks Ollama for this num_ctx; 0 leaves the model's default.
	ContextLength int
	// KeepAlive is chat.Request.KeepAlive: how long the model stays loaded
	// after this request (nil the runtime's default, 0 unload once done,
	// negative for ever); Ollama and the embedded engine honour it.
	KeepAlive *time.Duration
}

// ModelLoader is a runtime that loads and unloads its models on request:
// Ollama (an empty request with keep_alive) and the embedded engine.
type ModelLoader interface {
	// Load loads model now, if it is not, to stay loaded keepAlive after
	// (nil: the runtime's default; negative: for ever).
	Load(ctx context.Context, model string, keepAlive *time.Duration) error
	// Unload frees model's memory, at once if it is idle, else once the
	// requests it runs end. A model that is not loaded is no error.
	Unload(ctx context.Context, model string) error
}

// GrammarTrigger starts a lazy grammar, as llama.cpp takes it.
type GrammarTrigger struct {
	// Type is "word" (a literal string) or "pattern" (a regular expression
	// matched against the output; the grammar applies from its first
	// capture group, or from the match when it has none).
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Chunk is one piece of a streamed answer.
type Chunk struct {
	// Text is raw output (Complete) or answer content (Chat).
	Text string
	// Reasoning is thinking the runtime separated itself (Chat only).
	Reasoning string
	// Calls are tool calls the runtime parsed itself (Chat only), each whole:
	// arguments as a JSON object in a string, an id assigned where the runtime
	// gave none.
	Calls []chat.ToolCall
	// FinishReason is set on the last chunk ("" when the stream was cut).
	FinishReason chat.FinishReason
	// Usage is set on the last chunk when the runtime reports it.
	Usage *chat.Usage
	// StopSequence, on the last chunk, is the stop string (of the request's
	// Stop) that ended the answer, which runtimes leave out of the text.
	// StopReported says the runtime told what ended the answer, so that an
	// empty StopSequence then means no stop string did (the end-of-turn
	// token, the length). Runtimes that say only "stop" either way leave it
	// false: Ollama (done_reason), LM Studio, mlx_lm.server, and the chat API
	// of llama-server (its /completion says, in stop_type and stopping_word).
	StopSequence string
	StopReported bool
	// Timings is set on the last chunk when the runtime reports how long
	// the prompt and the answer took (the embedded engine, Ollama).
	Timings *Timings
}

// Timings are a runtime's own account of one generation.
type Timings struct {
	// PromptTokens were evaluated in PromptMS milliseconds.
	PromptTokens int
	PromptMS     float64
	// CachedTokens of the prompt were not evaluated: the runtime kept them
	// from an earlier request (the prompt is PromptTokens + CachedTokens).
	CachedTokens int
	// GeneratedTokens were generated in GenerateMS milliseconds.
	GeneratedTokens int
	GenerateMS      float64
	// Slot is the runtime's slot (one of its cached conversations) that
	// served the request, counted from 0; nil where it does not say (the
	// embedded engine does; CachedTokens came from it).
	Slot *int
}

// Stream yields an answer's chunks. Next returns io.EOF after the last chunk;
// any other error means the stream broke (the chunks already returned stand).
// Close releases the connection; it may be called at any time, more than once.
type Stream interface {
	Next() (Chunk, error)
	Close() error
}

// PromptCounter is a Stream that knows its prompt's length in tokens before
// its first chunk (the embedded engine tokenized the prompt to decode it), so
// that an answer can say so from its start (Anthropic's message_start).
type PromptCounter interface {
	PromptTokens() int
}

// ModelStatus is where one of a runtime's models stands in memory, for a
// runtime that loads and unloads its models itself (the embedded engine):
// what /v1/models and Ollama's /api/ps report.
type ModelStatus struct {
	ID string
	// Loaded is true while the weights are in memory, Loading while they
	// are being read.
	Loaded, Loading bool
	// ContextLength and Slots are the context a load makes and how many
	// conversations it keeps cached (known before the load).
	ContextLength, Slots int
	// Size is the memory the model takes loaded, in bytes: the weights and
	// the KV cache while it is held (an estimate when not loaded).
	Size int64
	// KVResident is false while an idle model's KV cache is freed.
	KVResident bool
	// Running is how many requests it is decoding.
	Running int
	// ExpiresAt is when an idle loaded model will be unloaded; zero when
	// it never will be (or is not loaded).
	ExpiresAt time.Time
}

// WaitNotifier is a Stream that says when its Next is about to wait for
// the runtime: what it has read so far holds no more chunks. The gateway
// writes the chunks of a burst (those already read) to its client in one
// write, and flushes when the stream would wait.
type WaitNotifier interface {
	// OnWait sets the function Next calls, on Next's goroutine, each time
	// it is about to wait for the runtime.
	OnWait(func())
}

// StatusReporter is a runtime that reports its models' state in memory
// (ModelStatus), read on each listing rather than cached.
type StatusReporter interface {
	ModelStatus() []ModelStatus
}

// Error is an error the runtime answered with.
type Error struct {
	Kind Kind
	// Status is the HTTP status; Message the runtime's own words.
	Status  int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s answered %d: %s", e.Kind, e.Status, e.Message)
}

// ErrNoComplete is returned by Complete on runtimes without raw completion.
var ErrNoComplete = errors.New("this runtime does not take raw prompts")

// TokenCounter is a runtime that counts a text's tokens itself
// (llama-server's /tokenize), for count_tokens where the model's GGUF is not
// at hand.
type TokenCounter interface {
	CountTokens(ctx context.Context, text string) (int, error)
}
