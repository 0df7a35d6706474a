package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// fakeRuntime is a scripted runtime behind the gateway: it serves the models
// it is given, exposes their templates, and answers Complete and Chat with
// the chunks of its script. It records what it was asked.
type fakeRuntime struct {
	kind        backend.Kind
	url         string
	canComplete bool
	models      map[string]backend.ModelInfo

	mu sync.Mutex
	// script answers every request: the chunks to send, then err (nil ends
	// the stream cleanly). block, when set, makes Next wait for ctx instead
	// of ending: a runtime that hangs.
	script []backend.Chunk
	err    error
	block  bool
	// startErr fails the request before any chunk.
	startErr error
	// startBlock makes Complete and Chat wait for their context: a runtime
	// that accepts a request and never begins its answer.
	startBlock bool
	// cancelled, when set, is closed once, by the first stream that sees
	// its context cancelled while blocked.
	cancelled     chan struct{}
	cancelledOnce sync.Once

	completes []backend.CompleteRequest
	chats     []chat.Request
	// listings counts model listings; modelsGate, when set, holds every
	// listing after the first until it is closed (a slow runtime).
	listings   int
	modelsGate chan struct{}
	// modelsErr fails every model listing: a runtime that is down.
	modelsErr error
	// infoFailures fails that many ModelInfo calls first (a runtime still
	// loading); infoGate, when set, holds ModelInfo until it is closed.
	infoFailures int
	infoGate     chan struct{}
	infos        int // ModelInfo calls
	// stopsOnCancel makes a stream end at its next chunk once its request
	// is cancelled, as a real runtime's does; otherwise the script's chunks
	// come out whatever happens (what the runtime had sent already).
	stopsOnCancel bool
	// scripts, when set, answer one request each, in turn (the last one
	// then answers the rest); script answers when it is empty.
	scripts [][]backend.Chunk
	// drip, after the script, sends a "." every millisecond until the
	// request is cancelled: a runtime that never finishes, never quiet.
	drip bool
	// loader makes the runtime a backend.ModelLoader (fakeLoader), which
	// records each Load and Unload in lifecycle ("load m 1h0m0s", "unload
	// m") and fails them with loaderErr.
	loader    bool
	lifecycle []string
	loaderErr error
	// streamOf, when set, makes the stream every request gets instead of
	// the script's.
	streamOf func(ctx context.Context) backend.Stream
}

// fakeLoader is a fakeRuntime that loads and unloads models on request.
type fakeLoader struct{ *fakeRuntime }

func (f fakeLoader) Load(ctx context.Context, model string, keepAlive *time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifecycle = append(f.lifecycle, fmt.Sprintf("load %s %v", model, keepAliveText(keepAlive)))
	return f.loaderErr
}

func (f fakeLoader) Unload(ctx context.Context, model string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifecycle = append(f.lifecycle, "unload "+model)
	return f.loaderErr
}

func (f *fakeRuntime) Kind() backend.Kind { return f.kind }
func (f *fakeRuntime) BaseURL() string    { return f.url }
func (f *fakeRuntime) CanComplete() bool  { return f.canComplete }

func (f *fakeRuntime) Models(ctx context.Context) ([]backend.Model, error) {
	f.mu.Lock()
	f.listings++
	gate := f.modelsGate
	if f.listings == 1 {
		gate = nil
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.modelsErr != nil {
		return nil, f.modelsErr
	}
	var out []backend.Model
	for id := range f.models {
		out = append(out, backend.Model{ID: id})
	}
	return out, nil
}

func (f *fakeRuntime) ModelInfo(ctx context.Context, model string) (backend.ModelInfo, error) {
	f.mu.Lock()
	f.infos++
	failing, gate := f.infoFailures > 0, f.infoGate
	if failing {
		f.infoFailures--
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return backend.ModelInfo{}, ctx.Err()
		}
	}
	if failing {
		return backend.ModelInfo{}, errors.New("model is loading")
	}
	info, ok := f.models[model]
	if !ok {
		return info, errors.New("no such model")
	}
	return info, nil
}

func (f *fakeRuntime) Complete(ctx context.Context, req backend.CompleteRequest) (backend.Stream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completes = append(f.completes, req)
	if f.startErr != nil {
		return nil, f.startErr
	}
	if f.startBlock {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.streamOf != nil {
		return f.streamOf(ctx), nil
	}
	return f.stream(ctx), nil
}

func (f *fakeRuntime) stream(ctx context.Context) *fakeStream {
	chunks := f.script
	if len(f.scripts) > 0 {
		chunks = f.scripts[0]
		if len(f.scripts) > 1 {
			f.scripts = f.scripts[1:]
		}
	}
	return &fakeStream{ctx: ctx, chunks: chunks, err: f.err, block: f.block, drip: f.drip, stopsOnCancel: f.stopsOnCancel, onCancel: func() {
		if f.cancelled != nil {
			f.cancelledOnce.Do(func() { close(f.cancelled) })
		}
	}}
}

func (f *fakeRuntime) Chat(ctx context.Context, req *chat.Request) (backend.Stream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chats = append(f.chats, *req)
	if f.startErr != nil {
		return nil, f.startErr
	}
	return f.stream(ctx), nil
}

type fakeStream struct {
	ctx           context.Context
	stopsOnCancel bool
	chunks        []backend.Chunk
	err           error
	block         bool
	drip          bool
	closed        bool
	onCancel      func()
}

func (s *fakeStream) Next() (backend.Chunk, error) {
	if err := s.ctx.Err(); err != nil && s.stopsOnCancel {
		s.onCancel()
		return backend.Chunk{}, err // a real stream ends once its request is cancelled
	}
	if len(s.chunks) > 0 {
		c := s.chunks[0]
		s.chunks = s.chunks[1:]
		return c, nil
	}
	if s.block {
		<-s.ctx.Done()
		s.onCancel()
		return backend.Chunk{}, s.ctx.Err()
	}
	if s.drip {
		select {
		case <-s.ctx.Done():
			s.onCancel()
			return backend.Chunk{}, s.ctx.Err()
		case <-time.After(time.Millisecond):
			return backend.Chunk{Text: "."}, nil
		}
	}
	if s.err != nil {
		return backend.Chunk{}, s.err
	}
	return backend.Chunk{}, io.EOF
}

func (s *fakeStream) Close() error { s.closed = true; return nil }

// qwenTemplate is a small template in the Qwen/Hermes style: tools in the
// system turn, calls as <tool_call> JSON, reasoning in <think>.
const qwenTemplate = `{%- if tools %}<|im_start|>system
# Tools
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>
For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == "assistant" and message.tool_calls %}<|im_start|>assistant
{% for tc in message.tool_calls %}<tool_call>
{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}
</tool_call>{% endfor %}<|im_end|>
{% elif message.role == "tool" %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% else %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% if enable_thinking is defined and enable_thinking is false %}<think>

</think>

{% endif %}{% endif %}`

// newFakeGateway starts a gateway (httptest) in front of runtimes, with
// discovery off.
func newFakeGateway(t *testing.T, cfg Config, runtimes ...*fakeRuntime) *httptest.Server {
	t.Helper()
	return newFakeGatewayWith(t, cfg, Hooks{}, runtimes...)
}

// newFakeGatewayWith is newFakeGateway with hooks of the test's own (a
// clock); their Connect is the fakes'.
func newFakeGatewayWith(t *testing.T, cfg Config, hooks Hooks, runtimes ...*fakeRuntime) *httptest.Server {
	t.Helper()
	byURL := map[string]*fakeRuntime{}
	for _, rt := range runtimes {
		byURL[rt.url] = rt
		cfg.Upstreams = append(cfg.Upstreams, Upstream{URL: rt.url})
	}
	cfg.NoDiscover = true
	hooks.Connect = func(ctx context.Context, u Upstream) (backend.Backend, error) {
		rt, ok := byURL[u.URL]
		if !ok {
			return nil, errors.New("unknown fake")
		}
		if rt.loader {
			return fakeLoader{rt}, nil
		}
		return rt, nil
	}
	s, err := New(cfg, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) // after ts.Close (cleanups run last first)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

// qwenRuntime is a fake Ollama-like runtime serving "qwen" with qwenTemplate.
func qwenRuntime(script ...backend.Chunk) *fakeRuntime {
	return &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"qwen": {Template: qwenTemplate, TemplateOrigin: "fake runtime", EOSToken: "<|im_end|>"}},
		script: script}
}

var _ http.Handler = (*Server)(nil)
