package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// The Ollama-compatible front: /api/chat, /api/generate, /api/tags,
// /api/show, /api/ps, /api/version and /api/pull on the gateway's port, for
// clients that speak only Ollama's API (the ollama npm and Python clients,
// Open WebUI, Codex --oss). Behind it is the same pipeline as every other
// API, so any runtime behind Dragoman looks like an Ollama that renders with
// the model's own template and parses every family's calls. Answers are in
// Ollama's shapes: NDJSON streams (streaming is Ollama's default), call
// arguments as objects, durations in nanoseconds.

// ollamaAPIVersion is the Ollama release whose API the front follows (the one
// the end-to-end tests run), reported by /api/version: clients check it
// before using newer fields.
const ollamaAPIVersion = "0.17.4"

// ollamaChatRequest is /api/chat's body (and, with Prompt and System,
// /api/generate's).
type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []chat.Tool     `json:"tools"`
	Think    json.RawMessage `json:"think"`
	Format   json.RawMessage `json:"format"`
	Options  *ollamaOptions  `json:"options"`
	Stream   *bool           `json:"stream"`
	// KeepAlive is how long the model stays loaded after the request: a
	// duration string ("5m", "0") or seconds; negative for ever.
	KeepAlive json.RawMessage `json:"keep_alive"`
	// /api/generate only.
	Prompt string   `json:"prompt"`
	System string   `json:"system"`
	Images []string `json:"images"`
	Raw    bool     `json:"raw"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	Images    []string         `json:"images,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
	// ToolCallID is not Ollama's (it matches results by order and name) but
	// OpenAI-minded clients send it.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollamaOptions are the sampling options the pipeline passes on; others
// (num_ctx, top_k, repeat_penalty, …) are accepted and left to the runtime.
type ollamaOptions struct {
	Temperature *float64 `json:"temperature"`
	TopP        *float64 `json:"top_p"`
	Seed        *int64   `json:"seed"`
	NumPredict  *int     `json:"num_predict"`
	Stop        []string `json:"stop"`
}

// ollamaDialect is /api/chat (generate false) or /api/generate.
func ollamaDialect(generate bool) *dialect {
	api := "ollama-chat"
	if generate {
		api = "ollama-generate"
	}
	return &dialect{
		api:      api,
		idPrefix: "ollama-",
		decode: func(body []byte, rec *trace.Record) (*chat.Request, any, error) {
			return decodeOllama(body, generate, rec)
		},
		respond: func(w http.ResponseWriter, req *chat.Request, _ any) response {
			a := &ollamaAnswer{generate: generate} // /api/generate: the text goes in "response"
			if req.Stream {
				a.w = w
			}
			return a
		},
		fail: func(w http.ResponseWriter, err error) int {
			status, _, _ := errorStatus(err)
			writeJSON(w, status, map[string]string{"error": err.Error()})
			return status
		},
	}
}

// decodeOllama reads an /api/chat or /api/generate request. One without a
// prompt or messages only asks for the model to be loaded, or with
// keep_alive 0 unloaded: it is returned as a *modelLifecycle state, with no
// chat request.
func decodeOllama(body []byte, generate bool, rec *trace.Record) (*chat.Request, any, error) {
	var in ollamaChatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, nil, &requestError{msg: "the request body is not valid JSON: " + err.Error()}
	}
	if in.Model == "" {
		return nil, nil, &requestError{msg: "model is required", param: "model"}
	}
	keepAlive, err := decodeOllamaKeepAlive(in.KeepAlive)
	if err != nil {
		return nil, nil, err
	}
	if generate && in.Prompt == "" && len(in.Images) == 0 || !generate && len(in.Messages) == 0 {
		return nil, ollamaLifecycle(in.Model, keepAlive, generate), nil
	}
	req := &chat.Request{Model: in.Model, Stream: in.Stream == nil || *in.Stream, Tools: in.Tools, KeepAlive: keepAlive}
	if generate {
		if in.Raw {
			return nil, nil, &requestError{msg: "raw prompts are not served: Dragoman renders every prompt with the model's own template (send the text as prompt without raw)", param: "raw"}
		}
		if in.System != "" {
			req.Messages = append(req.Messages, chat.Message{Role: chat.RoleSystem, Content: in.System})
		}
		req.Messages = append(req.Messages, userWithImages(in.Prompt, in.Images))
	} else {
		msgs, err := ollamaMessages(in.Messages)
		if err != nil {
			return nil, nil, err
		}
		req.Messages = msgs
	}
	for i, t := range in.Tools {
		if t.Function.Name == "" {
			return nil, nil, &requestError{msg: fmt.Sprintf("tools[%d]: want {\"type\": \"function\", \"function\": {\"name\": ...}}", i), param: "tools"}
		}
		if t.Type == "" {
			req.Tools[i].Type = "function"
		}
	}
	if o := in.Options; o != nil {
		req.Temperature, req.TopP, req.Seed, req.Stop = o.Temperature, o.TopP, o.Seed, o.Stop
		if o.NumPredict != nil && *o.NumPredict > 0 {
			req.MaxTokens = *o.NumPredict
		}
	}
	if err := decodeOllamaThink(in.Think, req); err != nil {
		return nil, nil, err
	}
	if req.ResponseFormat, err = decodeOllamaFormat(in.Format); err != nil {
		return nil, nil, err
	}
	return req, nil, nil
}

// decodeOllamaKeepAlive reads keep_alive as Ollama does: a number of seconds
// or a Go duration string, any negative value meaning for ever (returned as
// -1); nil when absent.
func decodeOllamaKeepAlive(raw json.RawMessage) (*time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := &requestError{msg: fmt.Sprintf("keep_alive: want a duration such as \"5m\" or a number of seconds, not %s", raw), param: "keep_alive"}
	var d time.Duration
	var secs float64
	var text string
	switch {
	case json.Unmarshal(raw, &secs) == nil:
		if secs > float64(math.MaxInt64)/float64(time.Second) {
			return nil, bad
		}
		d = time.Duration(secs * float64(time.Second))
	case json.Unmarshal(raw, &text) == nil:
		var err error
		if d, err = time.ParseDuration(text); err != nil {
			return nil, bad
		}
	default:
		return nil, bad
	}
	if d < 0 {
		d = -1
	}
	return &d, nil
}

// ollamaLifecycle is the load or unload request of /api/chat or
// /api/generate, answered as Ollama answers it: one object, done, with
// done_reason "load" or "unload".
func ollamaLifecycle(model string, keepAlive *time.Duration, generate bool) *modelLifecycle {
	return &modelLifecycle{model: model, keepAlive: keepAlive, answer: func(w http.ResponseWriter, unload bool) {
		o := map[string]any{"model": model, "created_at": time.Now().UTC().Format(time.RFC3339Nano), "done": true, "done_reason": "load"}
		if unload {
			o["done_reason"] = "unload"
		}
		if generate {
			o["response"] = ""
		} else {
			o["message"] = map[string]any{"role": "assistant", "content": ""}
		}
		writeJSON(w, http.StatusOK, o)
	}}
}

func userWithImages(text string, images []string) chat.Message {
	m := chat.Message{Role: chat.RoleUser, Content: text}
	if len(images) > 0 {
		m.Content = ""
		m.Parts = []chat.Part{{Type: "text", Text: text}}
		for _, img := range images {
			m.Parts = append(m.Parts, chat.Part{Type: "image_url", ImageURL: "data:image/*;base64," + img})
		}
	}
	return m
}

// ollamaMessages converts the messages. A call's arguments are an object;
// a tool result names its tool (tool_name) and, having no call id, answers
// the latest unanswered call of that tool, as Ollama pairs them.
func ollamaMessages(in []ollamaMessage) ([]chat.Message, error) {
	out := make([]chat.Message, 0, len(in))
	var open []chat.ToolCall // calls not answered yet
	for i, m := range in {
		switch m.Role {
		case chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool, chat.RoleDeveloper:
		default:
			return nil, &requestError{msg: fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role), param: "messages"}
		}
		cm := userWithImages(m.Content, m.Images)
		cm.Role, cm.Reasoning = m.Role, m.Thinking
		for j, c := range m.ToolCalls {
			args := bytes.TrimSpace(c.Function.Arguments)
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", i, j)
			}
			tc := chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: c.Function.Name, Arguments: string(args)}}
			cm.ToolCalls = append(cm.ToolCalls, tc)
			open = append(open, tc)
		}
		if m.Role == chat.RoleTool {
			cm.Name, cm.ToolCallID = m.ToolName, m.ToolCallID
			for k := len(open) - 1; k >= 0 && cm.ToolCallID == ""; k-- {
				if m.ToolName == "" || open[k].Function.Name == m.ToolName {
					cm.ToolCallID = open[k].ID
					if cm.Name == "" {
						cm.Name = open[k].Function.Name
					}
					open = append(open[:k], open[k+1:]...)
				}
			}
		}
		out = append(out, cm)
	}
	return out, nil
}

// decodeOllamaThink reads think: a boolean, or an effort ("low", "medium",
// "high") as gpt-oss takes it.
func decodeOllamaThink(raw json.RawMessage, req *chat.Request) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var on bool
	if json.Unmarshal(raw, &on) == nil {
		req.Reasoning.Enabled = &on
		return nil
	}
	var effort string
	if json.Unmarshal(raw, &effort) == nil && (effort == "low" || effort == "medium" || effort == "high") {
		t := true
		req.Reasoning.Enabled, req.Reasoning.Effort = &t, effort
		return nil
	}
	return &requestError{msg: `think: want true, false, "low", "medium" or "high"`, param: "think"}
}

// decodeOllamaFormat reads format: "json", or a JSON Schema.
func decodeOllamaFormat(raw json.RawMessage) (*chat.ResponseFormat, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null" || string(raw) == `""`:
		return nil, nil
	case string(raw) == `"json"`:
		return &chat.ResponseFormat{Type: "json_object"}, nil
	case raw[0] == '{':
		return &chat.ResponseFormat{Type: "json_schema", Schema: raw}, nil
	}
	return nil, &requestError{msg: `format: want "json" or a JSON Schema`, param: "format"}
}

// ollamaAnswer writes an answer in Ollama's shape: with w set, one NDJSON
// line per piece, flushed; without, one object when complete.
type ollamaAnswer struct {
	generate bool
	w        http.ResponseWriter // nil when collecting
	started  bool

	model          string
	start          time.Time
	text, thinking strings.Builder
	calls          []ollamaToolCall
	finished       chat.FinishReason
	usage          chat.Usage
	failure        error
	promptTokens   int
	// tokens are the token lines' fixed parts, content's and thinking's,
	// after created_at's value and after the text; made by begin.
	tokens [2][2][]byte
	tok    tokenWriter
	stamp  []byte
}

func (a *ollamaAnswer) begun() bool { return a.started }

func (a *ollamaAnswer) begin(_, model string, promptTokens int) error {
	a.model, a.start, a.promptTokens = model, time.Now(), promptTokens
	if a.w != nil {
		a.started = true
		a.tokens = ollamaTokenParts(a.model, a.generate)
		a.tok.quote.html = true // json.Marshal's escaping, as write's
		a.w.Header().Set("Content-Type", "application/x-ndjson")
		a.w.WriteHeader(http.StatusOK)
	}
	return nil
}

// line is one answer object: the piece's fields, in /api/chat's message or
// /api/generate's response and thinking.
func (a *ollamaAnswer) line(content, thinking string, calls []ollamaToolCall, done bool) map[string]any {
	return a.lineAt(time.Now(), content, thinking, calls, done)
}

func (a *ollamaAnswer) lineAt(now time.Time, content, thinking string, calls []ollamaToolCall, done bool) map[string]any {
	o := map[string]any{"model": a.model, "created_at": now.UTC().Format(time.RFC3339Nano), "done": done}
	if a.generate {
		o["response"] = content
		if thinking != "" {
			o["thinking"] = thinking
		}
	} else {
		msg := map[string]any{"role": "assistant", "content": content}
		if thinking != "" {
			msg["thinking"] = thinking
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		o["message"] = msg
	}
	return o
}

func (a *ollamaAnswer) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return a.flushLine(append(b, '\n'))
}

// flushLine sends a line as it is and flushes it.
func (a *ollamaAnswer) flushLine(b []byte) error {
	if _, err := a.w.Write(b); err != nil {
		return err
	}
	if f, ok := a.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// emit encodes one delta: a line per piece when streaming, else gathered
// for the one object. Calls come whole: Ollama's API has no fragments.
func (a *ollamaAnswer) emit(d chat.Delta) error {
	switch d.Kind {
	case chat.DeltaContent:
		return a.content(d.Text)
	case chat.DeltaReasoning:
		return a.reasoning(d.Text)
	case chat.DeltaCall:
		return a.call(d.Index, *d.Call)
	case chat.DeltaFinish:
		return a.finish(d.Finish.Reason, d.Finish.Usage)
	}
	return nil
}

func (a *ollamaAnswer) streamsCalls() bool { return false }

func (a *ollamaAnswer) content(t string) error {
	if a.w == nil {
		a.text.WriteString(t)
		return nil
	}
	return a.tokenLine(0, t)
}

func (a *ollamaAnswer) reasoning(t string) error {
	if a.w == nil {
		a.thinking.WriteString(t)
		return nil
	}
	if t == "" {
		return a.tokenLine(0, "") // no thinking field: content's empty line
	}
	return a.tokenLine(1, t)
}

// ollamaTokenParts are the fixed parts of the token lines for a model, in
// the order encoding/json writes line's maps: content's (0) and thinking's
// (1), each after created_at's value and after the text.
func ollamaTokenParts(model string, generate bool) [2][2][]byte {
	m := (&quoter{html: true}).append(nil, model)
	if generate {
		head := `","done":false,"model":` + string(m)
		return [2][2][]byte{{[]byte(head + `,"response":`), []byte("}\n")}, {[]byte(head + `,"response":"","thinking":`), []byte("}\n")}}
	}
	tail := []byte(`},"model":` + string(m) + "}\n")
	return [2][2][]byte{{[]byte(`","done":false,"message":{"content":`), append([]byte(`,"role":"assistant"`), tail...)},
		{[]byte(`","done":false,"message":{"content":"","role":"assistant","thinking":`), tail}}
}

// tokenLine writes the line of a token's text, content's (kind 0) or
// thinking's (1), without encoding/json (tokenevents.go): the bytes write
// writes for line's map.
func (a *ollamaAnswer) tokenLine(kind int, t string) error {
	a.stamp = time.Now().UTC().AppendFormat(a.stamp[:0], time.RFC3339Nano)
	p := a.tokens[kind]
	return a.flushLine(a.tok.start(ollamaLineHead).raw(a.stamp).raw(p[0]).text(t).raw(p[1]).bytes())
}

var ollamaLineHead = []byte(`{"created_at":"`)

func (a *ollamaAnswer) call(i int, c chat.ToolCall) error {
	var oc ollamaToolCall
	oc.ID = c.ID
	oc.Function.Index, oc.Function.Name = i, c.Function.Name
	oc.Function.Arguments = argumentsObject(c.Function.Arguments)
	if a.w == nil {
		a.calls = append(a.calls, oc)
		return nil
	}
	if a.generate {
		return nil // /api/generate has no calls: the text the model wrote is in response
	}
	return a.write(a.line("", "", []ollamaToolCall{oc}, false))
}

// argumentsObject is a call's arguments as the object Ollama's clients
// expect; arguments that are not an object are kept under "arguments"
// rather than lost.
func argumentsObject(args string) json.RawMessage {
	raw := json.RawMessage(strings.TrimSpace(args))
	if len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(map[string]string{"arguments": args})
	return b
}

// final is the closing object: done, the reason, the counts and durations.
func (a *ollamaAnswer) final() map[string]any {
	o := a.line(a.text.String(), a.thinking.String(), a.calls, true)
	reason := "stop"
	if a.finished == chat.FinishLength {
		reason = "length"
	}
	prompt := a.usage.PromptTokens
	if prompt == 0 {
		prompt = a.promptTokens
	}
	total := time.Since(a.start).Nanoseconds()
	o["done_reason"], o["total_duration"], o["load_duration"] = reason, total, 0
	o["prompt_eval_count"], o["eval_count"] = prompt, a.usage.CompletionTokens
	return o
}

func (a *ollamaAnswer) finish(r chat.FinishReason, u chat.Usage) error {
	a.finished, a.usage = r, u
	if a.w == nil {
		return nil
	}
	a.text.Reset() // streamed already
	a.thinking.Reset()
	return a.write(a.final())
}

func (a *ollamaAnswer) fail(err error) error {
	a.failure = err
	if a.w == nil {
		return nil
	}
	return a.write(map[string]string{"error": err.Error()})
}

// complete writes a collected answer; a broken-off one is a 502 whose body
// still carries what the model produced.
func (a *ollamaAnswer) complete(w http.ResponseWriter, _ *trace.Record) int {
	if a.w != nil {
		return http.StatusOK
	}
	if a.failure != nil {
		o := a.final()
		o["error"] = a.failure.Error()
		writeJSON(w, http.StatusBadGateway, o)
		return http.StatusBadGateway
	}
	writeJSON(w, http.StatusOK, a.final())
	return http.StatusOK
}

// ollamaModel is a model in /api/tags' and /api/ps' shape.
type ollamaModel struct {
	Name       string             `json:"name"`
	Model      string             `json:"model"`
	ModifiedAt string             `json:"modified_at"`
	Size       int64              `json:"size"`
	Digest     string             `json:"digest"`
	Details    ollamaModelDetails `json:"details"`
	ExpiresAt  string             `json:"expires_at,omitempty"`
	SizeVRAM   *int64             `json:"size_vram,omitempty"`
	// ContextLength is /api/ps's: the context the model was loaded with.
	ContextLength int `json:"context_length,omitempty"`
}

type ollamaModelDetails struct {
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

// handleOllamaTags lists the models (GET /api/tags). Sizes and digests are
// not known for every runtime and are reported as zero and empty.
func (s *Server) handleOllamaTags(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"models": s.ollamaModels(r, false)})
}

// handleOllamaPS lists the models loaded (GET /api/ps): those of the
// runtimes that report their state (the embedded engine) that are loaded,
// with their size in memory, context and expiry; the other runtimes' models
// are all reported as running (Dragoman does not load or unload them).
func (s *Server) handleOllamaPS(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"models": s.ollamaModels(r, true)})
}

func (s *Server) ollamaModels(r *http.Request, running bool) []ollamaModel {
	now := time.Now().UTC().Format(time.RFC3339)
	out := []ollamaModel{}
	for _, m := range s.modelList(r.Context()) {
		om := ollamaModel{Name: m.ID, Model: m.ID, ModifiedAt: now, Details: ollamaModelDetails{Format: "gguf", Families: []string{}}}
		if running {
			zero := int64(0)
			om.ExpiresAt, om.SizeVRAM = time.Now().Add(24*time.Hour).UTC().Format(time.RFC3339), &zero
			if st := m.Status; st != nil {
				if st.State != "loaded" {
					continue
				}
				om.Size, om.ContextLength, om.ExpiresAt = st.Size, st.ContextLength, st.ExpiresAt // CPU only: size_vram 0
				if om.ExpiresAt == "" {
					om.ExpiresAt = forever()
				}
			}
		}
		out = append(out, om)
	}
	return out
}

// handleOllamaShow describes one model (POST /api/show): its template (the
// Jinja one Dragoman renders with), capabilities and context length.
func (s *Server) handleOllamaShow(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Model string `json:"model"`
		Name  string `json:"name"` // older clients
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the request body is not valid JSON: " + err.Error()})
		return
	}
	if in.Model == "" {
		in.Model = in.Name
	}
	routes, err := s.resolve(r.Context(), in.Model)
	if err != nil {
		status, _, _ := errorStatus(err)
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	st := routes[0].state
	caps := []string{"completion"}
	if st.family != nil {
		caps = append(caps, "tools")
		if st.family.ThinkOpen != "" {
			caps = append(caps, "thinking")
		}
	}
	info := map[string]any{"general.architecture": "unknown"}
	if st.contextLength > 0 {
		info["unknown.context_length"] = st.contextLength
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"template": st.tplSource, "modelfile": "", "parameters": "", "license": "",
		"details":      ollamaModelDetails{Format: "gguf", Families: []string{}},
		"model_info":   info,
		"capabilities": caps,
		"modified_at":  time.Now().UTC().Format(time.RFC3339),
	})
}

// handleOllamaPull answers a pull (POST /api/pull): Dragoman fetches no
// models; one that a runtime already serves is reported present, any other
// is a clear error.
func (s *Server) handleOllamaPull(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	_ = json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in)
	if in.Model == "" {
		in.Model = in.Name
	}
	if _, err := s.resolve(r.Context(), in.Model); err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("Dragoman does not download models: %v. Pull it with the runtime that serves it (ollama pull %s), or serve a GGUF with dragoman serve -model FILE", err, in.Model)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "success"})
}
