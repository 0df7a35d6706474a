package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"sync/atomic"
	"time"
)

// The fake upstream is an Ollama-native server that answers at once: no model
// behind it, the same output every time, streamed as NDJSON one line (one
// flush) per chunk, as Ollama streams one line per token.

const (
	fakeModel = "tiny-toolcall:latest"
	// answer is a hermes-style (Qwen3) answer: reasoning, a sentence, a call.
	answer = "<think>\nThe user asks for the weather in Paris; the get_weather tool answers that, so I call it with the city.\n</think>\n\n" +
		"I will look up the current weather in Paris for you.\n" +
		"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	// Relay mode: what Ollama's own qwen3 parser makes of the same answer.
	relayThinking = "The user asks for the weather in Paris; the get_weather tool answers that, so I call it with the city."
	relayContent  = "I will look up the current weather in Paris for you."
)

// splitChunks cuts s into n pieces along token-like boundaries (markup tags,
// words with their leading space, punctuation), merging neighbours evenly;
// concatenated they give s back.
func splitChunks(s string, n int) []string {
	toks := regexp.MustCompile(`<[/a-z_]+>|\s*[A-Za-z0-9_]+|\s*[^A-Za-z0-9_\s<]|\s+|<`).FindAllString(s, -1)
	if len(toks) <= n {
		return toks
	}
	out := make([]string, 0, n)
	for i := range n {
		lo, hi := i*len(toks)/n, (i+1)*len(toks)/n
		var b bytes.Buffer
		for _, t := range toks[lo:hi] {
			b.WriteString(t)
		}
		out = append(out, b.String())
	}
	return out
}

type fakeUpstream struct {
	addr      string
	srv       *http.Server
	genLines  [][]byte     // /api/generate NDJSON lines, the last done:true
	chatLines [][]byte     // /api/chat NDJSON lines
	conns     atomic.Int64 // connections accepted
	requests  atomic.Int64 // /api/generate and /api/chat requests
}

func ndjson(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

func newFake(chunks int) *fakeUpstream {
	f := &fakeUpstream{}
	created := "2026-01-15T12:00:00.000000000Z"
	parts := splitChunks(answer, chunks)
	for _, p := range parts {
		f.genLines = append(f.genLines, ndjson(map[string]any{"model": fakeModel, "created_at": created, "response": p, "done": false}))
	}
	done := map[string]any{"model": fakeModel, "created_at": created, "response": "", "done": true, "done_reason": "stop",
		"total_duration": 1000000, "load_duration": 10000, "prompt_eval_count": 180, "prompt_eval_duration": 100000,
		"eval_count": len(parts), "eval_duration": 900000}
	f.genLines = append(f.genLines, ndjson(done))

	// /api/chat: the reasoning and the content in the same number of lines,
	// then the call whole in one line, then done (Ollama v0.17.4's shape).
	rparts := splitChunks(relayThinking, chunks/2)
	cparts := splitChunks(relayContent, chunks-len(rparts)-1)
	msg := func(m map[string]any) []byte {
		m["role"] = "assistant"
		if _, ok := m["content"]; !ok {
			m["content"] = ""
		}
		return ndjson(map[string]any{"model": fakeModel, "created_at": created, "message": m, "done": false})
	}
	for _, p := range rparts {
		f.chatLines = append(f.chatLines, msg(map[string]any{"thinking": p}))
	}
	for _, p := range cparts {
		f.chatLines = append(f.chatLines, msg(map[string]any{"content": p}))
	}
	f.chatLines = append(f.chatLines, msg(map[string]any{"tool_calls": []any{map[string]any{
		"id": "call_fake0001", "function": map[string]any{"index": 0, "name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}}}))
	cdone := map[string]any{"model": fakeModel, "created_at": created, "message": map[string]any{"role": "assistant", "content": ""},
		"done": true, "done_reason": "stop", "total_duration": 1000000, "prompt_eval_count": 180, "eval_count": chunks}
	f.chatLines = append(f.chatLines, ndjson(cdone))
	return f
}

func (f *fakeUpstream) start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f.addr = ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"version":"0.17.4"}`)
	})
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"models":[{"name":"`+fakeModel+`","model":"`+fakeModel+`","size":26926368,"details":{"format":"gguf","family":"llama"}}]}`)
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"template":"{{ .Prompt }}","model_info":{"general.architecture":"llama","llama.context_length":2048}}`)
	})
	mux.HandleFunc("POST /api/generate", func(w http.ResponseWriter, r *http.Request) { f.stream(w, r, f.genLines) })
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) { f.stream(w, r, f.chatLines) })
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				f.conns.Add(1)
			}
		}}
	go f.srv.Serve(ln)
	return nil
}

// stream reads the request (as Ollama must, to know the prompt) and writes
// the lines, flushing each.
func (f *fakeUpstream) stream(w http.ResponseWriter, r *http.Request, lines [][]byte) {
	f.requests.Add(1)
	var req struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"bad request"}`)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Date", "Thu, 15 Jan 2026 12:00:00 GMT")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return
		}
		fl.Flush()
	}
}
