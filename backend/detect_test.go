package backend

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// fakeRuntime answers the given paths with the given bodies (JSON unless
// they start with something else) and 404 elsewhere.
func fakeRuntime(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if len(body) > 0 && (body[0] == '{' || body[0] == '[') {
			w.Header().Set("Content-Type", "application/json")
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// What each runtime answers on the probed paths (shapes from the recordings
// for llama-server b9928 and Ollama v0.17.4, from the documentation and
// source cited in detect.go for the others).
var runtimes = map[Kind]map[string]string{
	Ollama: {
		"/api/version": `{"version":"0.17.4"}`,
		"/":            "Ollama is running",
		"/v1/models":   `{"object":"list","data":[{"id":"tiny-toolcall:latest","object":"model","owned_by":"library"}]}`,
	},
	LlamaServer: {
		"/props":     `{"chat_template":"{{ x }}","build_info":"b9928-81ff7ab","bos_token":"<s>"}`,
		"/health":    `{"status":"ok"}`,
		"/v1/models": `{"object":"list","data":[{"id":"m.gguf","owned_by":"llamacpp","meta":{"n_ctx":2048}}]}`,
	},
	VLLM: {
		"/version":   `{"version":"0.11.2"}`,
		"/health":    "",
		"/v1/models": `{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","max_model_len":32768}]}`,
	},
	SGLang: {
		"/get_model_info": `{"model_path":"qwen/qwen2.5-0.5b-instruct","tokenizer_path":"qwen/qwen2.5-0.5b-instruct","is_generation":true}`,
		"/v1/models":      `{"object":"list","data":[{"id":"qwen/qwen2.5-0.5b-instruct","object":"model","owned_by":"sglang","max_model_len":32768}]}`,
	},
	LMStudio: {
		"/api/v0/models": `{"object":"list","data":[{"id":"qwen3-4b","object":"model","type":"llm","state":"loaded","max_context_length":32768}]}`,
		"/v1/models":     `{"object":"list","data":[{"id":"qwen3-4b","object":"model","owned_by":"organization_owner"}]}`,
	},
	MLX: {
		"/health":    `{"status": "ok"}`,
		"/v1/models": `{"object": "list", "data": [{"id": "mlx-community/Qwen3-4B-4bit", "object": "model", "created": 1}]}`,
	},
	OpenAI: {
		"/v1/models": `{"object":"list","data":[{"id":"gpt-x","object":"model","owned_by":"someone"}]}`,
	},
}

func TestDetect(t *testing.T) {
	for kind, routes := range runtimes {
		t.Run(string(kind), func(t *testing.T) {
			srv := fakeRuntime(t, routes)
			got, err := Detect(context.Background(), srv.URL, nil)
			if err != nil || got != kind {
				t.Fatalf("Detect = %q, %v; want %q", got, err, kind)
			}
			if b := New(got, srv.URL, "", nil); b.Kind() != kind || b.BaseURL() != srv.URL {
				t.Errorf("New gave %s at %s", b.Kind(), b.BaseURL())
			}
		})
	}
}

// An Ollama whose /api/version is hidden (a proxy) is still known by its
// root page.
func TestDetectOllamaByRootPage(t *testing.T) {
	srv := fakeRuntime(t, map[string]string{"/": "Ollama is running"})
	if got, err := Detect(context.Background(), srv.URL, nil); err != nil || got != Ollama {
		t.Fatalf("Detect = %q, %v", got, err)
	}
}

func TestDetectUnknownAndClosed(t *testing.T) {
	srv := fakeRuntime(t, map[string]string{"/": "<html>a web server</html>"})
	if _, err := Detect(context.Background(), srv.URL, nil); !errors.Is(err, ErrUnknownRuntime) {
		t.Errorf("web server: err = %v, want ErrUnknownRuntime", err)
	}
	if _, err := Detect(context.Background(), closedAddr(t), nil); err == nil || errors.Is(err, ErrUnknownRuntime) {
		t.Errorf("closed port: err = %v, want a connection error", err)
	}
}

// closedAddr is an address nothing listens on (a port just released).
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	return addr
}

func TestDiscover(t *testing.T) {
	ollama := fakeRuntime(t, runtimes[Ollama])
	mlx := fakeRuntime(t, runtimes[MLX])
	web := fakeRuntime(t, map[string]string{"/": "hello"})
	found := discover(context.Background(), nil, []string{closedAddr(t), ollama.URL, web.URL, mlx.URL})
	if len(found) != 2 || found[0].Kind() != Ollama || found[0].BaseURL() != ollama.URL || found[1].Kind() != MLX {
		t.Fatalf("found %v", found)
	}
	if DefaultPorts[Ollama] != 11434 || DefaultPorts[LlamaServer] != 8080 || DefaultPorts[MLX] != 8080 ||
		DefaultPorts[LMStudio] != 1234 || DefaultPorts[VLLM] != 8000 || DefaultPorts[SGLang] != 30000 {
		t.Errorf("DefaultPorts = %v", DefaultPorts)
	}
}

// TestModelsAndInfo: model lists and context lengths per kind.
func TestModelsAndInfo(t *testing.T) {
	cases := []struct {
		kind Kind
		ctx  int
	}{{LlamaServer, 2048}, {VLLM, 32768}, {SGLang, 32768}, {MLX, 0}}
	for _, c := range cases {
		srv := fakeRuntime(t, runtimes[c.kind])
		b := New(c.kind, srv.URL, "", nil)
		models, err := b.Models(context.Background())
		if err != nil || len(models) != 1 || models[0].ContextLength != c.ctx {
			t.Errorf("%s: models %+v, %v", c.kind, models, err)
		}
		if c.kind == LlamaServer {
			continue // ModelInfo reads /props: see TestReplayLlamaServerProps
		}
		info, err := b.ModelInfo(context.Background(), models[0].ID)
		if err != nil || info.ContextLength != c.ctx || info.Template != "" {
			t.Errorf("%s: info %+v, %v", c.kind, info, err)
		}
	}
	lms := fakeRuntime(t, map[string]string{"/api/v0/models/qwen3-4b": `{"id":"qwen3-4b","max_context_length":32768}`})
	if info, err := New(LMStudio, lms.URL, "", nil).ModelInfo(context.Background(), "qwen3-4b"); err != nil || info.ContextLength != 32768 {
		t.Errorf("lmstudio: %+v, %v", info, err)
	}
}
