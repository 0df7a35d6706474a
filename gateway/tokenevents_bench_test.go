package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// BenchmarkFrontTokens: a streamed answer of 32 text chunks arriving one at
// a time, through the whole gateway over loopback (own mode, the hermes
// parser, one write per burst), asked of each front: -benchmem's allocs/op
// is the allocations per 32-token answer, client and server together.
//
//	go test ./gateway -run XXX -bench BenchmarkFrontTokens -benchtime 2000x -benchmem
func BenchmarkFrontTokens(b *testing.B) {
	for _, f := range []struct{ name, path, body, end string }{
		{"chat", "/v1/chat/completions", `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"Hi"}]}`, "[DONE]"},
		{"messages", "/v1/messages", `{"model":"qwen","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`, "message_stop"},
		{"responses", "/v1/responses", `{"model":"qwen","stream":true,"store":false,"input":"Hi"}`, "response.completed"},
		{"ollama", "/api/chat", `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"Hi"}]}`, `"done":true`},
	} {
		b.Run(f.name, func(b *testing.B) {
			rt := qwenRuntime()
			rt.streamOf = func(ctx context.Context) backend.Stream {
				var bursts [][]backend.Chunk
				for i := range 32 {
					bursts = append(bursts, []backend.Chunk{{Text: strings.Repeat("w", 1+i%7) + " "}})
				}
				bursts = append(bursts, []backend.Chunk{{FinishReason: chat.FinishStop}})
				proceed := make(chan struct{})
				close(proceed)
				return &burstStream{ctx: ctx, bursts: bursts, proceed: proceed}
			}
			s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: rt.url}}, Traces: Traces{Memory: true}},
				Hooks{Connect: func(context.Context, Upstream) (backend.Backend, error) { return rt, nil }})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ts := httptest.NewServer(s)
			defer ts.Close()
			ask := func() {
				resp, err := http.Post(ts.URL+f.path, "application/json", strings.NewReader(f.body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || strings.Count(string(out), "www") < 9 || !strings.Contains(string(out), f.end) {
					b.Fatalf("%d %s", resp.StatusCode, out)
				}
			}
			ask() // the model prepared
			b.ResetTimer()
			for range b.N {
				ask()
			}
		})
	}
}
