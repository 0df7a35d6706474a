package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchToken is the i-th of a 32-token answer: short words, now and then a
// letter outside ASCII or a newline (an escape in the line).
func benchToken(i int) string {
	switch i % 8 {
	case 3:
		return " café"
	case 7:
		return ".\n"
	}
	return strings.Repeat("w", 1+i%7) + " "
}

// BenchmarkUpstreamLines: a streamed answer of 32 tokens as each runtime
// writes it (the per-token lines, then its last line), read from memory
// through sseStream or ollamaStream to its end, every line through
// json.Unmarshal (before) and through the scanner with Unmarshal for the rest
// (after): -benchmem's allocs/op is the allocations per 32-token stream.
//
//	go test ./backend -run XXX -bench BenchmarkUpstreamLines -benchtime 2000x -benchmem
func BenchmarkUpstreamLines(b *testing.B) {
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	sse := func(line func(tok string) string, last ...string) string {
		var body strings.Builder
		body.WriteString("data: " + `{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1795994778,"id":"chatcmpl-udZ2qO827q4nyWDteyffzTYV0bUtKRRs","model":"tiny-qwen3-random.gguf","system_fingerprint":"b9928-81ff7ab","object":"chat.completion.chunk"}` + "\n\n")
		for i := range 32 {
			body.WriteString("data: " + line(q(benchToken(i))) + "\n\n")
		}
		for _, l := range last {
			body.WriteString("data: " + l + "\n\n")
		}
		return body.String()
	}
	ndjson := func(line func(tok string) string, last string) string {
		var body strings.Builder
		for i := range 32 {
			body.WriteString(line(q(benchToken(i))) + "\n")
		}
		return body.String() + last + "\n"
	}
	cases := []struct {
		name   string
		body   string
		ollama bool
		mode   streamMode
	}{
		{"llama-server chat", sse(func(tok string) string {
			return `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":` + tok + `}}],"created":1795994778,"id":"chatcmpl-udZ2qO827q4nyWDteyffzTYV0bUtKRRs","model":"tiny-qwen3-random.gguf","system_fingerprint":"b9928-81ff7ab","object":"chat.completion.chunk"}`
		}, `{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1795994778,"id":"chatcmpl-udZ2qO827q4nyWDteyffzTYV0bUtKRRs","model":"tiny-qwen3-random.gguf","system_fingerprint":"b9928-81ff7ab","object":"chat.completion.chunk","usage":{"completion_tokens":32,"prompt_tokens":260,"total_tokens":292},"timings":{"cache_n":259,"prompt_n":1,"prompt_ms":14.377,"predicted_n":32,"predicted_ms":90.5}}`, "[DONE]"), false, modeChat},
		{"vllm chat reasoning", sse(func(tok string) string {
			return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":` + tok + `},"logprobs":null,"finish_reason":null}]}`
		}, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":"ok"},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}`, "[DONE]"), false, modeChat},
		{"v1 completions", sse(func(tok string) string {
			return `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"text":` + tok + `,"index":0,"logprobs":null,"finish_reason":null}]}`
		}, `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}]}`, "[DONE]"), false, modeCompletions},
		{"llama-server completion", sse(func(tok string) string {
			return `{"index":0,"content":` + tok + `,"tokens":[],"stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":9}`
		}, `{"index":0,"content":"","tokens":[],"id_slot":0,"stop":true,"model":"m","tokens_predicted":32,"tokens_evaluated":9,"stop_type":"limit","stopping_word":""}`), false, modeLlamaCompletion},
		{"ollama chat", ndjson(func(tok string) string {
			return `{"model":"tiny-toolcall","created_at":"2026-11-29T23:26:57.049166258Z","message":{"role":"assistant","content":` + tok + `},"done":false}`
		}, `{"model":"tiny-toolcall","created_at":"2026-11-29T23:26:57.087678506Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":423259333,"load_duration":179606744,"prompt_eval_count":136,"prompt_eval_duration":2898066,"eval_count":32,"eval_duration":180212010}`), true, modeChat},
		{"ollama generate", ndjson(func(tok string) string {
			return `{"model":"tiny-random","created_at":"2026-11-29T23:27:00.634940969Z","response":` + tok + `,"done":false}`
		}, `{"model":"tiny-random","created_at":"2026-11-29T23:27:00.634940969Z","response":"","done":true,"done_reason":"length","total_duration":1420815352,"load_duration":1202859967,"prompt_eval_count":15,"prompt_eval_duration":3657680,"eval_count":32,"eval_duration":170149737}`), true, modeChat},
	}
	for _, c := range cases {
		for _, way := range []struct {
			name          string
			unmarshalOnly bool
		}{{"unmarshal", true}, {"scanner", false}} {
			b.Run(c.name+"/"+way.name, func(b *testing.B) {
				read := func() (texts int) {
					lines := newLineReader(context.Background(), io.NopCloser(strings.NewReader(c.body)))
					var s Stream
					if c.ollama {
						s = &ollamaStream{lines: lines, unmarshalOnly: way.unmarshalOnly}
					} else {
						s = &sseStream{kind: LlamaServer, mode: c.mode, lines: lines, unmarshalOnly: way.unmarshalOnly}
					}
					for {
						ch, err := s.Next()
						if errors.Is(err, io.EOF) {
							return texts
						}
						if err != nil {
							panic(err)
						}
						if ch.Text != "" || ch.Reasoning != "" {
							texts++
						}
					}
				}
				if n := read(); n < 32 {
					b.Fatal(fmt.Sprintf("%d text chunks, want 32", n))
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					read()
				}
			})
		}
	}
}
