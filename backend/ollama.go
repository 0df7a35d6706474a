package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/ondisk"
)

// OllamaBackend speaks Ollama's native API (/api/*). Facts from Ollama
// v0.17.4 (its source and the recordings in shared/recordings/ollama):
// /api/chat returns calls whole, arguments as a JSON object, with ids in
// v0.17.4 but not in older versions; /api/show never returns the GGUF's Jinja
// chat template (server/routes.go deletes tokenizer.chat_template from
// model_info, verbose or not) and its "template" is a Go text/template, so the
// Jinja template can only come from the weights file itself (GGUFPath).
type OllamaBackend struct {
	conn
	// ModelsDir is Ollama's model store (OLLAMA_MODELS), used to find a
	// model's GGUF file. Only consulted when the server is on this machine.
	ModelsDir string
}

// NewOllama returns a backend for the Ollama server at baseURL. A nil client
// means http.DefaultClient. ModelsDir defaults to $OLLAMA_MODELS, else
// ~/.ollama/models as Ollama itself resolves it, else the store of Ollama's
// Linux service (its user's home is /usr/share/ollama) when that exists.
func NewOllama(baseURL string, client *http.Client) *OllamaBackend {
	return &OllamaBackend{conn: newConn(Ollama, baseURL, "", client), ModelsDir: defaultOllamaModels()}
}

// serviceOllamaModels is where the Linux install script's service keeps models.
const serviceOllamaModels = "/usr/share/ollama/.ollama/models"

func defaultOllamaModels() string {
	if d := os.Getenv("OLLAMA_MODELS"); d != "" {
		return d
	}
	var own string
	if home, err := os.UserHomeDir(); err == nil {
		own = filepath.Join(home, ".ollama", "models")
		if _, err := os.Stat(filepath.Join(own, "manifests")); err == nil {
			return own
		}
	}
	if _, err := os.Stat(filepath.Join(serviceOllamaModels, "manifests")); err == nil {
		return serviceOllamaModels
	}
	return own
}

func (o *OllamaBackend) Kind() Kind        { return Ollama }
func (o *OllamaBackend) BaseURL() string   { return o.base }
func (o *OllamaBackend) CanComplete() bool { return true }

// Models lists /api/tags. ContextLength stays 0: it costs one /api/show per
// model (each reads the GGUF header); ModelInfo has it.
func (o *OllamaBackend) Models(ctx context.Context) ([]Model, error) {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := o.getJSON(ctx, "/api/tags", &tags); err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(tags.Models))
	for _, m := range tags.Models {
		id := m.Name
		if id == "" {
			id = m.Model
		}
		out = append(out, Model{ID: id})
	}
	return out, nil
}

// ModelInfo asks /api/show for the context length and finds the weights file
// in the local store. Template stays empty: Ollama only exposes its own Go
// template, which is not the Jinja template callers render.
func (o *OllamaBackend) ModelInfo(ctx context.Context, model string) (ModelInfo, error) {
	var show struct {
		ModelInfo map[string]json.RawMessage `json:"model_info"`
	}
	if err := o.postJSON(ctx, http.MethodPost, "/api/show", map[string]string{"model": model}, &show); err != nil {
		return ModelInfo{}, err
	}
	info := ModelInfo{ContextLength: showContextLength(show.ModelInfo)}
	if IsLocal(o.base) {
		info.GGUFPath = ollamaGGUFPath(o.ModelsDir, model)
	}
	return info, nil
}

// showContextLength reads "<architecture>.context_length" from model_info.
func showContextLength(mi map[string]json.RawMessage) int {
	var arch string
	_ = json.Unmarshal(mi["general.architecture"], &arch)
	var n int
	if arch != "" && json.Unmarshal(mi[arch+".context_length"], &n) == nil {
		return n
	}
	return 0
}

// ollamaGGUFPath finds a model's weights in Ollama's store, as
// ondisk.OllamaWeights reads a manifest. Returns "" unless that file exists.
func ollamaGGUFPath(modelsDir, name string) string {
	rel, ok := ollamaManifestPath(name)
	if modelsDir == "" || !ok {
		return ""
	}
	p, ok := ondisk.OllamaWeights(modelsDir, filepath.Join(modelsDir, "manifests", rel))
	if !ok {
		return ""
	}
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// ollamaManifestPath expands a model name as Ollama does (host
// registry.ollama.ai, namespace library, tag latest by default) into the
// manifest's relative path. Names come from clients, so anything that could
// leave the store (.., separators, empty parts) is refused.
func ollamaManifestPath(name string) (string, bool) {
	name, _, _ = strings.Cut(name, "@") // a digest suffix does not change the file
	tag := "latest"
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, tag = name[:i], name[i+1:]
	}
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 1:
		parts = []string{"registry.ollama.ai", "library", parts[0]}
	case 2:
		parts = []string{"registry.ollama.ai", parts[0], parts[1]}
	case 3:
	default:
		return "", false
	}
	parts = append(parts, tag)
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `\`+"\x00") {
			return "", false
		}
	}
	return filepath.Join(parts...), true
}

// ollamaOptions are the sampling options of /api/generate and /api/chat.
type ollamaOptions struct {
	NumPredict  int      `json:"num_predict,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
}

type ollamaGenerateRequest struct {
	Model   string          `json:"model"`
	Prompt  string          `json:"prompt"`
	Raw     bool            `json:"raw"`
	Stream  bool            `json:"stream"`
	Format  json.RawMessage `json:"format,omitempty"`
	Options ollamaOptions   `json:"options"`
	// KeepAlive is how long Ollama keeps the model loaded after the
	// request; absent, its default (OLLAMA_KEEP_ALIVE, 5 minutes).
	KeepAlive json.RawMessage `json:"keep_alive,omitempty"`
}

// Complete sends the rendered prompt to /api/generate with raw:true, so that
// Ollama applies no template of its own. Grammar is ignored: Ollama takes
// only a JSON schema (format).
func (o *OllamaBackend) Complete(ctx context.Context, req CompleteRequest) (Stream, error) {
	path, body := ollamaCompleteBody(req)
	return o.stream(ctx, path, body)
}

func ollamaCompleteBody(req CompleteRequest) (string, any) {
	return "/api/generate", ollamaGenerateRequest{
		Model: req.Model, Prompt: req.Prompt, Raw: true, Stream: true,
		Format: req.JSONSchema,
		Options: ollamaOptions{
			NumPredict: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP,
			Seed: req.Seed, Stop: req.Stop, NumCtx: req.ContextLength,
		},
		KeepAlive: ollamaKeepAlive(req.KeepAlive),
	}
}

// ollamaKeepAlive writes a keep-alive as Ollama reads one: a duration string,
// or -1 for ever; nil when unset.
func ollamaKeepAlive(d *time.Duration) json.RawMessage {
	switch {
	case d == nil:
		return nil
	case *d < 0:
		return json.RawMessage("-1")
	default:
		return json.RawMessage(strconv.Quote(d.String()))
	}
}

// ollamaLoadAnswer is Ollama's answer to a request with no prompt: it loaded
// the model ("load") or let it go ("unload").
type ollamaLoadAnswer struct {
	DoneReason string `json:"done_reason"`
}

// Load asks Ollama to load model, as its clients do: /api/generate without a
// prompt, with the keep-alive.
func (o *OllamaBackend) Load(ctx context.Context, model string, keepAlive *time.Duration) error {
	return o.loadRequest(ctx, model, keepAlive, "load")
}

// Unload asks Ollama to let model go: /api/generate without a prompt and
// with keep_alive 0, as `ollama stop` does.
func (o *OllamaBackend) Unload(ctx context.Context, model string) error {
	zero := time.Duration(0)
	return o.loadRequest(ctx, model, &zero, "unload")
}

func (o *OllamaBackend) loadRequest(ctx context.Context, model string, keepAlive *time.Duration, want string) error {
	var out ollamaLoadAnswer
	body := ollamaGenerateRequest{Model: model, KeepAlive: ollamaKeepAlive(keepAlive)}
	if err := o.postJSON(ctx, http.MethodPost, "/api/generate", body, &out); err != nil {
		return err
	}
	if out.DoneReason != want {
		return &Error{Kind: Ollama, Status: http.StatusBadGateway, Message: fmt.Sprintf("asked to %s %s, Ollama answered done_reason %q", want, model, out.DoneReason)}
	}
	return nil
}

var _ ModelLoader = (*OllamaBackend)(nil)

type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []chat.Tool     `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	Think    *bool           `json:"think,omitempty"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  ollamaOptions   `json:"options"`
	// KeepAlive: as in ollamaGenerateRequest.
	KeepAlive json.RawMessage `json:"keep_alive,omitempty"`
}

type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	Images     []string         `json:"images,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// Chat sends req to /api/chat. Ollama has no tool_choice: "none" is honoured
// by not offering the tools; the other modes are left to the model.
func (o *OllamaBackend) Chat(ctx context.Context, req *chat.Request) (Stream, error) {
	msgs, err := ollamaMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	body := ollamaChatRequest{
		Model: req.Model, Messages: msgs, Stream: true, Think: req.Reasoning.Enabled,
		Format: ollamaFormat(req.ResponseFormat),
		Options: ollamaOptions{
			NumPredict: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP,
			Seed: req.Seed, Stop: req.Stop,
		},
		KeepAlive: ollamaKeepAlive(req.KeepAlive),
	}
	if req.ToolChoice.Mode != chat.ToolNone {
		body.Tools = req.Tools
	}
	s, err := o.stream(ctx, "/api/chat", body)
	if err != nil {
		return nil, err
	}
	s.(*ollamaStream).chat = true
	return s, nil
}

// ollamaFormat is the format field: a schema, "json" for json_object, or
// nothing.
func ollamaFormat(rf *chat.ResponseFormat) json.RawMessage {
	switch {
	case rf == nil:
		return nil
	case len(rf.Schema) > 0:
		return rf.Schema
	default:
		return json.RawMessage(`"json"`)
	}
}

// ollamaMessages converts the canonical turns to Ollama's shape: call
// arguments as objects, tool results named by tool_name (looked up from the
// call they answer when the client gave no name), images as bare base64.
func ollamaMessages(in []chat.Message) ([]ollamaMessage, error) {
	names := map[string]string{} // call id -> function name
	out := make([]ollamaMessage, 0, len(in))
	for _, m := range in {
		om := ollamaMessage{Role: m.Role, Content: m.Text(), Thinking: m.Reasoning, ToolCallID: m.ToolCallID, Images: dataURLImages(m.Parts)}
		for i, c := range m.ToolCalls {
			tc, err := ollamaCall(i, c)
			if err != nil {
				return nil, err
			}
			names[c.ID] = c.Function.Name
			om.ToolCalls = append(om.ToolCalls, tc)
		}
		if m.Role == chat.RoleTool {
			om.ToolName = m.Name
			if om.ToolName == "" {
				om.ToolName = names[m.ToolCallID]
			}
		}
		out = append(out, om)
	}
	return out, nil
}

// ollamaCall converts one call; Ollama rejects arguments that are not a JSON
// object, so a broken history is reported rather than sent.
func ollamaCall(i int, c chat.ToolCall) (ollamaToolCall, error) {
	var tc ollamaToolCall
	tc.ID = c.ID
	tc.Function.Index = i
	tc.Function.Name = c.Function.Name
	args := bytes.TrimSpace([]byte(c.Function.Arguments))
	if len(args) == 0 {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return tc, fmt.Errorf("ollama: arguments of call %q (%s) are not a JSON object", c.ID, c.Function.Name)
	}
	tc.Function.Arguments = args
	return tc, nil
}

// dataURLImages keeps the base64 payload of data: URL images; Ollama cannot
// fetch remote images, so other URLs are dropped.
func dataURLImages(parts []chat.Part) []string {
	var imgs []string
	for _, p := range parts {
		if p.Type != "image_url" || !strings.HasPrefix(p.ImageURL, "data:") {
			continue
		}
		if _, data, ok := strings.Cut(p.ImageURL, ";base64,"); ok {
			imgs = append(imgs, data)
		}
	}
	return imgs
}

func (o *OllamaBackend) stream(ctx context.Context, path string, body any) (Stream, error) {
	resp, err := o.do(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	return &ollamaStream{lines: newLineReader(ctx, resp.Body)}, nil
}

// ollamaChunk is one NDJSON line of /api/generate (response, thinking) or
// /api/chat (message); the last has done:true and the counts.
type ollamaChunk struct {
	Response        string              `json:"response"`
	Thinking        string              `json:"thinking"`
	Message         *ollamaChunkMessage `json:"message"`
	Done            bool                `json:"done"`
	DoneReason      string              `json:"done_reason"`
	PromptEvalCount int                 `json:"prompt_eval_count"`
	EvalCount       int                 `json:"eval_count"`
	Error           string              `json:"error"`
	// The last line's durations, in nanoseconds.
	PromptEvalDuration int64 `json:"prompt_eval_duration"`
	EvalDuration       int64 `json:"eval_duration"`
}

// ollamaChunkMessage is /api/chat's message in a line.
type ollamaChunkMessage struct {
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking"`
	ToolCalls []ollamaToolCall `json:"tool_calls"`
}

// ollamaStream reads Ollama's NDJSON. Ollama can stop without a done:true
// line (v0.17.4 does after 30 identical tokens in a row), which is reported
// as a truncated stream, not as a normal end.
type ollamaStream struct {
	lines    *lineReader
	chat     bool
	done     bool
	anyCalls bool

	// fast reads the per-token lines; unmarshalOnly (tests, benchmarks)
	// sends every line through encoding/json instead.
	fast          ollamaFast
	unmarshalOnly bool
}

func (s *ollamaStream) Close() error { return s.lines.close(s.done) }

// OnWait: see WaitNotifier.
func (s *ollamaStream) OnWait(f func()) { s.lines.onWait = f }

func (s *ollamaStream) Next() (Chunk, error) {
	for !s.done {
		line, err := s.lines.next()
		if err == io.EOF {
			return Chunk{}, truncated(Ollama, "done")
		}
		if err != nil {
			return Chunk{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c *ollamaChunk
		if !s.unmarshalOnly {
			c = s.fast.line(line) // the per-token shapes (fastline.go)
		}
		if c == nil {
			c = new(ollamaChunk)
			if err := json.Unmarshal(line, c); err != nil {
				return Chunk{}, s.lines.badLine(Ollama, line, err)
			}
		}
		if c.Error != "" {
			// Ollama writes {"error": ...} into a stream it already answered
			// 200; the status it would have used is not sent.
			return Chunk{}, &Error{Kind: Ollama, Status: http.StatusInternalServerError, Message: c.Error}
		}
		out := s.chunk(c)
		if c.Done || out.Text != "" || out.Reasoning != "" || len(out.Calls) > 0 {
			return out, nil
		}
	}
	return Chunk{}, io.EOF
}

// chunk converts one line: calls get ids and string arguments; the last line
// carries the finish reason and the counts.
func (s *ollamaStream) chunk(c *ollamaChunk) Chunk {
	out := Chunk{Text: c.Response, Reasoning: c.Thinking}
	if c.Message != nil {
		out.Text += c.Message.Content
		out.Reasoning += c.Message.Thinking
		for _, tc := range c.Message.ToolCalls {
			out.Calls = append(out.Calls, fromOllamaCall(tc))
		}
	}
	s.anyCalls = s.anyCalls || len(out.Calls) > 0
	if c.Done {
		s.done = true
		out.FinishReason = chat.FinishStop
		if c.DoneReason == "length" {
			out.FinishReason = chat.FinishLength
		}
		if s.anyCalls {
			out.FinishReason = chat.FinishToolCalls
		}
		out.Usage = &chat.Usage{PromptTokens: c.PromptEvalCount, CompletionTokens: c.EvalCount}
		if c.PromptEvalDuration > 0 || c.EvalDuration > 0 {
			out.Timings = &Timings{PromptTokens: c.PromptEvalCount, PromptMS: float64(c.PromptEvalDuration) / 1e6,
				GeneratedTokens: c.EvalCount, GenerateMS: float64(c.EvalDuration) / 1e6}
		}
	}
	return out
}

// fromOllamaCall keeps Ollama's id where it sent one (v0.17.4 does) and makes
// one otherwise (older versions do not).
func fromOllamaCall(tc ollamaToolCall) chat.ToolCall {
	id := tc.ID
	if id == "" {
		id = chat.NewCallID()
	}
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{
		Name: tc.Function.Name, Arguments: compactArguments(tc.Function.Arguments),
	}}
}
