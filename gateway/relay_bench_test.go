package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkRelayTokens: a streamed answer of 32 text chunks relayed from a
// vLLM-shaped runtime (its SSE lines, over loopback) to a Chat Completions
// client, through the whole gateway in relay mode: the runtime's lines are
// read by backend's sseStream, so this is where the way upstream lines are
// decoded shows in the whole. allocs/op counts the runtime's fake server,
// the gateway and the client together.
//
//	go test ./gateway -run XXX -bench BenchmarkRelayTokens -benchtime 1000x -benchmem
func BenchmarkRelayTokens(b *testing.B) {
	var body strings.Builder
	body.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	for i := range 32 {
		tok, _ := json.Marshal(strings.Repeat("w", 1+i%7) + " ")
		fmt.Fprintf(&body, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%s},"logprobs":null,"finish_reason":null}]}`+"\n\n", tok)
	}
	body.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}` + "\n\ndata: [DONE]\n\n")
	stream := body.String()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","max_model_len":8192}]}`)
		case "/v1/chat/completions":
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, stream)
		default:
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: up.URL, Kind: "vllm", Mode: "relay"}}, Traces: Traces{Memory: true}}, Hooks{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	ask := func() {
		resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Count(string(out), "www") < 9 || !strings.Contains(string(out), "[DONE]") {
			b.Fatalf("%d %s", resp.StatusCode, out)
		}
	}
	ask()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ask()
	}
}
