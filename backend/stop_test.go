package backend

import (
	"context"
	"testing"
)

// The last chunk says which stop string ended the answer where the runtime
// tells (llama-server /completion stopping_word, vLLM stop_reason, SGLang
// matched_stop), and reports nothing where it says only "stop" (Ollama's
// done_reason, servers without those fields).
func TestStopSequence(t *testing.T) {
	complete := func(kind Kind) func(ctx context.Context, base string) (Stream, error) {
		return func(ctx context.Context, base string) (Stream, error) {
			if kind == Ollama {
				return NewOllama(base, nil).Complete(ctx, CompleteRequest{Prompt: "p", Stop: []string{"END"}})
			}
			return NewOpenAI(kind, base, "", nil).Complete(ctx, CompleteRequest{Prompt: "p", Stop: []string{"END"}})
		}
	}
	relay := func(kind Kind) func(ctx context.Context, base string) (Stream, error) {
		return func(ctx context.Context, base string) (Stream, error) {
			req := weatherRequest("m")
			req.Stop = []string{"END"}
			return NewOpenAI(kind, base, "", nil).Chat(ctx, req)
		}
	}
	const sseType, ndjson = "text/event-stream", "application/x-ndjson"
	for _, tc := range []struct {
		name, contentType, body string
		open                    func(ctx context.Context, base string) (Stream, error)
		seq                     string
		reported                bool
	}{
		{"llama-server /completion word", sseType,
			"data: {\"content\":\"Hi\",\"stop\":false}\n\n" +
				"data: {\"content\":\"\",\"stop\":true,\"stop_type\":\"word\",\"stopping_word\":\"END\",\"tokens_evaluated\":3,\"tokens_predicted\":2}\n\n",
			complete(LlamaServer), "END", true},
		{"llama-server /completion eos", sseType,
			"data: {\"content\":\"Hi\",\"stop\":false}\n\n" +
				"data: {\"content\":\"\",\"stop\":true,\"stop_type\":\"eos\",\"stopping_word\":\"\",\"tokens_evaluated\":3,\"tokens_predicted\":2}\n\n",
			complete(LlamaServer), "", true},
		{"vllm /v1/completions stop_reason", sseType,
			"data: {\"choices\":[{\"index\":0,\"text\":\"Hi\",\"finish_reason\":null,\"stop_reason\":null}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\",\"stop_reason\":\"END\"}]}\n\ndata: [DONE]\n\n",
			complete(VLLM), "END", true},
		{"vllm /v1/chat/completions stop_reason null", sseType,
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null,\"stop_reason\":null}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\",\"stop_reason\":null}]}\n\ndata: [DONE]\n\n",
			relay(VLLM), "", true},
		{"vllm stop_reason token id", sseType,
			"data: {\"choices\":[{\"index\":0,\"text\":\"Hi\",\"finish_reason\":\"stop\",\"stop_reason\":128009}]}\n\ndata: [DONE]\n\n",
			complete(VLLM), "", true},
		{"sglang /v1/chat/completions matched_stop", sseType,
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null,\"matched_stop\":null}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\",\"matched_stop\":\"END\"}]}\n\ndata: [DONE]\n\n",
			relay(SGLang), "END", true},
		{"lmstudio: no field", sseType,
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			relay(LMStudio), "", false},
		{"ollama done_reason", ndjson,
			"{\"response\":\"Hi\",\"done\":false}\n{\"response\":\"\",\"done\":true,\"done_reason\":\"stop\"}\n",
			complete(Ollama), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fixedServer(t, 200, tc.contentType, tc.body)
			s, err := tc.open(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := drain(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			last := chunks[len(chunks)-1]
			if last.FinishReason != "stop" || last.StopSequence != tc.seq || last.StopReported != tc.reported {
				t.Errorf("last chunk: finish %q, stop sequence %q, reported %v; want stop, %q, %v",
					last.FinishReason, last.StopSequence, last.StopReported, tc.seq, tc.reported)
			}
		})
	}
}
