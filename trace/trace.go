// Package trace keeps what the gateway did for each request: the rendered
// prompt, the raw completion, the parse decisions and diagnostics, and timings,
// so that a user can see why an answer came back the way it did.
package trace

import (
	"math"
	"strings"
	"sync"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/makeup"
)

// Record is one request's trace. The gateway fills it while the request runs;
// readers get a copy (Store.Get) and never see it half-written.
type Record struct {
	ID    string    `json:"id"`
	API   string    `json:"api"` // "openai" or "anthropic"
	Model string    `json:"model"`
	Start time.Time `json:"start"`

	// Upstream, Runtime and UpstreamModel say where the request went.
	Upstream      string `json:"upstream,omitempty"`
	Runtime       string `json:"runtime,omitempty"`
	UpstreamModel string `json:"upstream_model,omitempty"`
	// Mode is "own" (Dragoman rendered and parsed) or "relay" (the runtime's
	// chat API, repaired).
	Mode string `json:"mode,omitempty"`
	// Format is the parser's family id; TemplateOrigin where the template came from.
	Format         string `json:"format,omitempty"`
	TemplateOrigin string `json:"template_origin,omitempty"`
	// Request is the client's request body as it came (its first
	// limits.max_trace_bytes; RequestBytes is its whole length).
	Request      string `json:"request,omitempty"`
	RequestBytes int    `json:"request_bytes,omitempty"`
	// Decisions are the choices made on the way, in order, each a sentence.
	Decisions []string `json:"decisions,omitempty"`
	// Constraint is the form the model's calls were constrained in, if
	// they were: "grammar" (from the first byte), "lazy-grammar" (from the
	// call opener on), "structural-tag" or "json-schema" (a forced call
	// after a prefill). Actions are what the gateway did beyond rendering
	// and parsing, as codes (the Action constants): the decisions say the
	// same in words; these are for counting.
	Constraint string   `json:"constraint,omitempty"`
	Actions    []string `json:"actions,omitempty"`

	// Prompt is the rendered prompt (own mode); Completion the raw output as
	// the runtime sent it (own mode) or its content (relay mode).
	Prompt string `json:"prompt,omitempty"`
	// PromptTokens is the prompt's length in the model's tokens, as
	// Dragoman counted it, else as the runtime did (0 when neither did).
	PromptTokens int `json:"prompt_tokens,omitempty"`
	// CompletionTokens is the answer's length, as the runtime counted it.
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// Status is the HTTP status the client got (200 for a stream that
	// began, even if it broke off later: Error says so).
	Status     int    `json:"status,omitempty"`
	Completion string `json:"completion"`
	// Calls are the tool calls handed to the client, whole.
	Calls []chat.ToolCall `json:"calls,omitempty"`
	// Diagnostics are the parser's and the pipeline's findings.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Makeup is the prompt's make-up in tokens (own mode, where the model's
	// tokenizer is known): per system prompt, tool, message and the
	// template's scaffolding. Set once, never changed after.
	Makeup *makeup.Makeup `json:"makeup,omitempty"`
	// Later is work on the record deferred until it is first read (Get),
	// or until a store that writes writes it, in its writer goroutine: the
	// prompt's make-up costs milliseconds no client should wait for.
	Later *Deferred `json:"-"`

	FinishReason string  `json:"finish_reason,omitempty"`
	Error        string  `json:"error,omitempty"`
	Timings      Timings `json:"timings"`
}

// Diagnostic is one finding: chat's, as the parsers report it.
type Diagnostic = chat.Diagnostic

// Timings are durations from the request's arrival, in milliseconds.
type Timings struct {
	RenderMS     float64 `json:"render_ms"`
	FirstChunkMS float64 `json:"first_chunk_ms"`
	TotalMS      float64 `json:"total_ms"`
	// The runtime's own account, where it gives one (the embedded engine,
	// Ollama): how long it took to evaluate the prompt and to generate the
	// answer, in milliseconds and in tokens per second.
	UpstreamPromptMS           float64 `json:"upstream_prompt_ms,omitempty"`
	UpstreamPromptTokensPerS   float64 `json:"upstream_prompt_tokens_per_s,omitempty"`
	UpstreamGenerateMS         float64 `json:"upstream_generate_ms,omitempty"`
	UpstreamGenerateTokensPerS float64 `json:"upstream_generate_tokens_per_s,omitempty"`
	// UpstreamCachedTokens of the prompt the runtime kept from an earlier
	// request and did not evaluate again (the embedded engine's prompt
	// reuse).
	UpstreamCachedTokens int `json:"upstream_cached_tokens,omitempty"`
	// UpstreamSlot is the runtime's slot that served the request (the
	// embedded engine's cached conversation, from 0), where it says.
	UpstreamSlot *int `json:"upstream_slot,omitempty"`

	// When each step began or ended, from the request's arrival (0 when
	// the step did not happen): the prompt's render (own mode; RenderMS is
	// its length), the call constraint's planning (own mode with tools),
	// the runtime's request (sent, and its stream's end: the last chunk or
	// its failure) and the parser's end (every call handed on). The
	// OpenTelemetry export draws its child spans from them.
	RenderStartMS    float64 `json:"render_start_ms,omitempty"`
	ConstrainStartMS float64 `json:"constrain_start_ms,omitempty"`
	ConstrainMS      float64 `json:"constrain_ms,omitempty"`
	UpstreamStartMS  float64 `json:"upstream_start_ms,omitempty"`
	UpstreamEndMS    float64 `json:"upstream_end_ms,omitempty"`
	ParseEndMS       float64 `json:"parse_end_ms,omitempty"`
}

// SetUpstream records the runtime's timings: promptTokens evaluated in
// promptMS (cached more kept from an earlier request), generated tokens in
// generateMS.
func (t *Timings) SetUpstream(promptTokens, cached int, promptMS float64, generated int, generateMS float64) {
	t.UpstreamPromptMS, t.UpstreamGenerateMS = promptMS, generateMS
	t.UpstreamCachedTokens = cached
	t.UpstreamPromptTokensPerS = perSecond(promptTokens, promptMS)
	t.UpstreamGenerateTokensPerS = perSecond(generated, generateMS)
}

// perSecond is n per ms milliseconds, rounded to a tenth; 0 when unknown.
func perSecond(n int, ms float64) float64 {
	if n <= 0 || ms <= 0 {
		return 0
	}
	return math.Round(float64(n)/ms*10000) / 10
}

// Deferred is work on a record that runs once, when the record is first
// read. Its function computes outside the store's lock; what it returns is
// applied to the record under the lock.
type Deferred struct {
	once sync.Once
	f    func() func(*Record)
}

// Defer makes a Deferred: f computes, and the function it returns applies
// the result to the record.
func Defer(f func() func(*Record)) *Deferred { return &Deferred{f: f} }

// Decide appends a decision sentence.
func (r *Record) Decide(format string) {
	r.Decisions = append(r.Decisions, strings.TrimSpace(format))
}

// The actions a record counts (Record.Actions).
const (
	// ActionForcedCallRefused: a forced call (tool_choice "required" or a
	// named function) that could not be enforced was refused with a 400.
	ActionForcedCallRefused = "forced-call-refused"
	// ActionForcedCallOwnMode: a forced call went in own mode because the
	// runtime's chat API does not enforce tool_choice.
	ActionForcedCallOwnMode = "forced-call-own-mode"
	// ActionReasoningClosed: the prompt closed the reasoning a forced call
	// had no room for.
	ActionReasoningClosed = "reasoning-closed"
	// ActionCallSecondPass: reasoning that used its budget unclosed was
	// closed by the gateway and the call written in a second pass.
	ActionCallSecondPass = "call-second-pass"
	// ActionContextRaised: Ollama was asked for a num_ctx above its
	// default, so that it did not cut the prompt or the answer silently.
	ActionContextRaised = "context-raised"
	// ActionCallFromContent: in relay mode, a call the runtime left in the
	// answer's text was parsed out of it and handed on as a call (once per
	// call): the runtime's answer repaired.
	ActionCallFromContent = "call-from-content"
)

// Act records that the gateway took an action (one of the Action codes).
func (r *Record) Act(code string) { r.Actions = append(r.Actions, code) }

// Since is the milliseconds from r.Start to now.
func (r *Record) Since() float64 {
	return float64(time.Since(r.Start).Microseconds()) / 1000
}
