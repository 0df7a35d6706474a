package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/dragoman-dev/dragoman/chat"
)

// OpenAIBackend speaks the OpenAI-compatible API (/v1/*) of llama-server, LM
// Studio, vLLM, SGLang, mlx_lm.server or any other such server, plus the few
// native endpoints of each that say more (llama-server's /props and raw
// /completion).
type OpenAIBackend struct {
	conn
}

// NewOpenAI returns a backend for the server of the given kind at baseURL
// (with or without a trailing /v1). An empty apiKey sends no Authorization
// header. A nil client means http.DefaultClient.
func NewOpenAI(kind Kind, baseURL, apiKey string, client *http.Client) *OpenAIBackend {
	return &OpenAIBackend{conn: newConn(kind, baseURL, apiKey, client)}
}

func (b *OpenAIBackend) Kind() Kind      { return b.kind }
func (b *OpenAIBackend) BaseURL() string { return b.base }

// CanComplete: llama-server has /completion; LM Studio, vLLM, SGLang and
// mlx_lm.server have /v1/completions. A generic server may have neither
// (OpenAI itself retired it for chat models), so it is not assumed.
func (b *OpenAIBackend) CanComplete() bool {
	switch b.kind {
	case LlamaServer, LMStudio, VLLM, SGLang, MLX:
		return true
	}
	return false
}

// modelEntry is one /v1/models entry. Servers add the context length in
// their own field: llama-server meta.n_ctx, vLLM and SGLang max_model_len;
// mlx_lm.server sends neither (nor owned_by).
type modelEntry struct {
	ID          string `json:"id"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len"`
	Meta        *struct {
		NCtx int `json:"n_ctx"`
	} `json:"meta"`
}

func (e modelEntry) contextLength() int {
	if e.Meta != nil && e.Meta.NCtx > 0 {
		return e.Meta.NCtx
	}
	return e.MaxModelLen
}

func (b *OpenAIBackend) modelEntries(ctx context.Context) ([]modelEntry, error) {
	var list struct {
		Data []modelEntry `json:"data"`
	}
	if err := b.getJSON(ctx, "/v1/models", &list); err != nil {
		return nil, err
	}
	return list.Data, nil
}

// Models lists /v1/models.
func (b *OpenAIBackend) Models(ctx context.Context) ([]Model, error) {
	entries, err := b.modelEntries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(entries))
	for _, e := range entries {
		out = append(out, Model{ID: e.ID, ContextLength: e.contextLength()})
	}
	return out, nil
}

// ModelInfo: llama-server's /props has the chat template, the special tokens
// and the context size; LM Studio's /api/v0/models/{id} the context length;
// the others only what /v1/models says.
func (b *OpenAIBackend) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	switch b.kind {
	case LlamaServer:
		return b.llamaProps(ctx)
	case LMStudio:
		var m struct {
			MaxContextLength int `json:"max_context_length"`
		}
		if err := b.getJSON(ctx, "/api/v0/models/"+url.PathEscape(model), &m); err != nil {
			return ModelInfo{}, err
		}
		return ModelInfo{ContextLength: m.MaxContextLength}, nil
	}
	entries, err := b.modelEntries(ctx)
	if err != nil {
		return ModelInfo{}, err
	}
	for _, e := range entries {
		if e.ID == model {
			return ModelInfo{ContextLength: e.contextLength()}, nil
		}
	}
	return ModelInfo{}, nil
}

// llamaProps reads GET /props (field names as llama-server b9928 and v0.5.0
// answer them, recordings 15-props.json).
func (b *OpenAIBackend) llamaProps(ctx context.Context) (ModelInfo, error) {
	var p struct {
		ChatTemplate string `json:"chat_template"`
		BOSToken     string `json:"bos_token"`
		EOSToken     string `json:"eos_token"`
		Settings     struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		ModelPath string `json:"model_path"`
	}
	if err := b.getJSON(ctx, "/props", &p); err != nil {
		return ModelInfo{}, err
	}
	info := ModelInfo{Template: p.ChatTemplate, BOSToken: p.BOSToken, EOSToken: p.EOSToken, ContextLength: p.Settings.NCtx}
	if info.Template != "" {
		info.TemplateOrigin = "llama-server /props chat_template"
	}
	// The weights file, where llama-server runs on this machine and names
	// it by an absolute path (a relative one is relative to a working
	// directory the gateway does not know): its tokenizer counts prompts.
	if IsLocal(b.base) && filepath.IsAbs(p.ModelPath) {
		if st, err := os.Stat(p.ModelPath); err == nil && st.Mode().IsRegular() {
			info.GGUFPath = p.ModelPath
		}
	}
	return info, nil
}

// CountTokens counts text's tokens as llama-server's raw completion reads a
// prompt (POST /tokenize; special tokens written in the text are read as
// such, none added). Other runtimes have no such endpoint.
func (b *OpenAIBackend) CountTokens(ctx context.Context, text string) (int, error) {
	if b.kind != LlamaServer {
		return 0, fmt.Errorf("%s has no tokenize endpoint", b.kind)
	}
	var out struct {
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := b.postJSON(ctx, http.MethodPost, "/tokenize", map[string]any{"content": text, "add_special": false}, &out); err != nil {
		return 0, err
	}
	return len(out.Tokens), nil
}

// llamaCompletionRequest is llama-server's native /completion: it takes a
// GBNF grammar or a JSON schema (recordings 11-14).
type llamaCompletionRequest struct {
	Prompt      string          `json:"prompt"`
	NPredict    int             `json:"n_predict,omitempty"`
	Stream      bool            `json:"stream"`
	Grammar     string          `json:"grammar,omitempty"`
	JSONSchema  json.RawMessage `json:"json_schema,omitempty"`
	Stop        []string        `json:"stop,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	TopP        *float64        `json:"top_p,omitempty"`
	Seed        *int64          `json:"seed,omitempty"`
	// A lazy grammar applies from the first trigger on. A trigger word that
	// is one token must also be a preserved token (v0.5.0 refuses it
	// otherwise), so the gateway lists every trigger word there.
	GrammarLazy     bool           `json:"grammar_lazy,omitempty"`
	GrammarTriggers []llamaTrigger `json:"grammar_triggers,omitempty"`
	PreservedTokens []string       `json:"preserved_tokens,omitempty"`
}

// llamaTrigger is one of llama-server's grammar_triggers.
type llamaTrigger struct {
	Type  int    `json:"type"`
	Value string `json:"value"`
}

// completionsRequest is /v1/completions.
type completionsRequest struct {
	Model         string         `json:"model,omitempty"`
	Prompt        string         `json:"prompt"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Stop          []string       `json:"stop,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	Seed          *int64         `json:"seed,omitempty"`
	// StructuredOutputs is vLLM's constraint field ({"json": schema}); it
	// replaced guided_json, which vLLM v0.12.0 removed
	// (https://docs.vllm.ai/en/latest/features/structured_outputs/).
	StructuredOutputs map[string]json.RawMessage `json:"structured_outputs,omitempty"`
	// Ebnf is SGLang's grammar constraint (GBNF, read by xgrammar); JSONSchema
	// its schema constraint. SGLang takes one constraint per request.
	Ebnf       string          `json:"ebnf,omitempty"`
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Complete generates from a rendered prompt: llama-server through /completion
// (grammar and schema obeyed), the others through /v1/completions. Only vLLM
// is sent a constraint there (its documented JSON schema); a GBNF grammar is
// not sent to it because its grammar dialect is not documented as GBNF.
func (b *OpenAIBackend) Complete(ctx context.Context, req CompleteRequest) (Stream, error) {
	if !b.CanComplete() {
		return nil, ErrNoComplete
	}
	path, body := openAICompleteBody(b.kind, req)
	mode := modeCompletions
	if b.kind == LlamaServer {
		mode = modeLlamaCompletion
	}
	return b.stream(ctx, path, body, mode)
}

// openAICompleteBody is the raw-completion request for an OpenAI-compatible
// runtime: llama-server's /completion, the others' /v1/completions, each with
// the constraint fields that runtime takes.
func openAICompleteBody(kind Kind, req CompleteRequest) (string, any) {
	if kind == LlamaServer {
		body := llamaCompletionRequest{
			Prompt: req.Prompt, NPredict: req.MaxTokens, Stream: true,
			Grammar: req.Grammar, JSONSchema: req.JSONSchema, Stop: req.Stop,
			Temperature: req.Temperature, TopP: req.TopP, Seed: req.Seed,
			GrammarLazy: req.GrammarLazy && req.Grammar != "", PreservedTokens: req.PreservedTokens,
		}
		if body.GrammarLazy {
			for _, t := range req.GrammarTriggers {
				body.GrammarTriggers = append(body.GrammarTriggers, llamaTrigger{Type: llamaTriggerType(t.Type), Value: t.Value})
			}
		}
		return "/completion", body
	}
	body := completionsRequest{
		Model: req.Model, Prompt: req.Prompt, MaxTokens: req.MaxTokens, Stream: true,
		StreamOptions: &streamOptions{IncludeUsage: true}, Stop: req.Stop,
		Temperature: req.Temperature, TopP: req.TopP, Seed: req.Seed,
	}
	switch {
	case kind == VLLM && len(req.JSONSchema) > 0:
		body.StructuredOutputs = map[string]json.RawMessage{"json": req.JSONSchema}
	case kind == VLLM && len(req.StructuralTag) > 0:
		// vLLM takes the structural tag as a JSON string.
		tag, _ := json.Marshal(string(req.StructuralTag))
		body.StructuredOutputs = map[string]json.RawMessage{"structural_tag": tag}
	case kind == SGLang && req.Grammar != "" && !req.GrammarLazy:
		body.Ebnf = req.Grammar
	case kind == SGLang && len(req.JSONSchema) > 0:
		body.JSONSchema = req.JSONSchema
	}
	return "/v1/completions", body
}

// chatRequest is /v1/chat/completions. Messages use chat.Message's own
// MarshalJSON (OpenAI's shape plus reasoning_content).
type chatRequest struct {
	Model              string                     `json:"model,omitempty"`
	Messages           []chat.Message             `json:"messages"`
	Tools              []chat.Tool                `json:"tools,omitempty"`
	ToolChoice         any                        `json:"tool_choice,omitempty"`
	ParallelToolCalls  *bool                      `json:"parallel_tool_calls,omitempty"`
	ResponseFormat     any                        `json:"response_format,omitempty"`
	MaxTokens          int                        `json:"max_tokens,omitempty"`
	Temperature        *float64                   `json:"temperature,omitempty"`
	TopP               *float64                   `json:"top_p,omitempty"`
	Seed               *int64                     `json:"seed,omitempty"`
	Stop               []string                   `json:"stop,omitempty"`
	Stream             bool                       `json:"stream"`
	StreamOptions      *streamOptions             `json:"stream_options,omitempty"`
	ReasoningEffort    string                     `json:"reasoning_effort,omitempty"`
	ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs,omitempty"`
}

// Chat relays req to /v1/chat/completions, always streamed with usage.
func (b *OpenAIBackend) Chat(ctx context.Context, req *chat.Request) (Stream, error) {
	body := chatRequest{
		Model: req.Model, Messages: req.Messages, Tools: req.Tools,
		ToolChoice: toolChoice(req.ToolChoice), ParallelToolCalls: req.ParallelToolCalls,
		ResponseFormat: responseFormat(req.ResponseFormat), MaxTokens: req.MaxTokens,
		Temperature: req.Temperature, TopP: req.TopP, Seed: req.Seed, Stop: req.Stop,
		Stream: true, StreamOptions: &streamOptions{IncludeUsage: true},
		ReasoningEffort:    req.Reasoning.Effort,
		ChatTemplateKwargs: templateKwargs(req),
	}
	if len(req.Tools) == 0 {
		// A tool_choice without tools is an error on some servers (vLLM).
		body.ToolChoice = nil
	}
	return b.stream(ctx, "/v1/chat/completions", body, modeChat)
}

// toolChoice is the wire form: a string for the modes, an object for a named
// function (llama-server ignores the object form, recording 04, but others
// obey it).
func toolChoice(tc chat.ToolChoice) any {
	switch tc.Mode {
	case "":
		return nil
	case chat.ToolNamed:
		return map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}
	}
	return string(tc.Mode)
}

func responseFormat(rf *chat.ResponseFormat) any {
	if rf == nil {
		return nil
	}
	if rf.Type != "json_schema" {
		return map[string]string{"type": rf.Type}
	}
	name := rf.Name
	if name == "" {
		name = "response" // OpenAI requires a name; servers ignore it
	}
	return map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": name, "schema": rf.Schema, "strict": rf.Strict,
	}}
}

// templateKwargs merges the client's template variables with
// enable_thinking, which Qwen3-style templates read.
func templateKwargs(req *chat.Request) map[string]json.RawMessage {
	if len(req.TemplateKwargs) == 0 && req.Reasoning.Enabled == nil {
		return nil
	}
	kw := make(map[string]json.RawMessage, len(req.TemplateKwargs)+1)
	for k, v := range req.TemplateKwargs {
		kw[k] = v
	}
	if e := req.Reasoning.Enabled; e != nil {
		kw["enable_thinking"], _ = json.Marshal(*e)
	}
	return kw
}

func (b *OpenAIBackend) stream(ctx context.Context, path string, body any, mode streamMode) (Stream, error) {
	resp, err := b.do(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	s := &sseStream{kind: b.kind, mode: mode, lines: newLineReader(ctx, resp.Body)}
	if isJSONBody(resp) {
		// The server ignored stream:true: its whole answer is one chunk.
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		s.whole = b
	}
	return s, nil
}
