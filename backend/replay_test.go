package backend

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

var weatherTool = []chat.Tool{{Type: "function", Function: chat.ToolFunction{
	Name: "get_weather", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`),
}}}

func weatherRequest(model string) *chat.Request {
	return &chat.Request{Model: model, Tools: weatherTool, Messages: []chat.Message{{Role: chat.RoleUser, Content: "What's the weather in Paris?"}}}
}

// llama-server b9928 and v0.5.0, recording 23: the call streams as the name
// with the first argument fragment, then argument deltas (index, no id), then
// finish_reason "tool_calls", then [DONE]. It must come out as one whole call,
// in the last chunk only.
func TestReplayLlamaServerStreamedCall(t *testing.T) {
	for _, rel := range []string{"llama-server-b9928/23-scripted-chat-tools-auto-stream.json", "llama-server-v0.5.0/23-scripted-chat-tools-auto-stream.json"} {
		t.Run(rel, func(t *testing.T) {
			srv := replay(t, rel, nil)
			got := expectAnswer(t)(NewOpenAI(LlamaServer, srv.URL, "", nil).Chat(context.Background(), weatherRequest("tiny")))
			if len(got.calls) != 1 || got.callChunks != 1 {
				t.Fatalf("calls = %+v in %d chunks, want one whole call", got.calls, got.callChunks)
			}
			c := got.calls[0]
			if c.Function.Name != "get_weather" || c.Function.Arguments != `{"city":"Paris"}` || c.Type != "function" {
				t.Errorf("call = %+v", c)
			}
			if len(c.ID) != 32 || strings.HasPrefix(c.ID, "call_") {
				t.Errorf("id = %q, want the runtime's own 32-character id", c.ID)
			}
			if got.finish != chat.FinishToolCalls || got.text != "" {
				t.Errorf("finish = %q, text = %q", got.finish, got.text)
			}
		})
	}
}

// llama-server b9928, recording 05: plain content deltas, finish "length";
// the last chunk's "timings" (1 prompt token in 14.377 ms, 259 kept in its
// cache; 8 generated in 22.599 ms) reach the last chunk.
func TestReplayLlamaServerStreamedText(t *testing.T) {
	srv := replay(t, "llama-server-b9928/05-chat-tools-required-stream.json", nil)
	got := expectAnswer(t)(NewOpenAI(LlamaServer, srv.URL, "", nil).Chat(context.Background(), weatherRequest("tiny")))
	if got.text == "" || !strings.HasSuffix(got.text, " au") || got.finish != chat.FinishLength || len(got.calls) != 0 {
		t.Errorf("got %+v", got)
	}
	if want := (Timings{PromptTokens: 1, CachedTokens: 259, PromptMS: 14.377, GeneratedTokens: 8, GenerateMS: 22.599}); got.timings == nil || *got.timings != want {
		t.Errorf("timings %+v, want %+v", got.timings, want)
	}
}

// llama-server b9928, recording 21: a whole (non-streamed) answer, as a server
// that ignores stream:true sends it; the call keeps its id, usage is read.
func TestReplayLlamaServerWholeAnswer(t *testing.T) {
	srv := replay(t, "llama-server-b9928/21-scripted-chat-tools-auto.json", nil)
	got := expectAnswer(t)(NewOpenAI(LlamaServer, srv.URL, "", nil).Chat(context.Background(), weatherRequest("tiny")))
	if len(got.calls) != 1 || got.calls[0].Function.Arguments != `{"city":"Paris"}` || got.calls[0].ID == "" {
		t.Fatalf("calls = %+v", got.calls)
	}
	if got.finish != chat.FinishToolCalls || got.usage == nil || got.usage.CompletionTokens == 0 {
		t.Errorf("finish %q usage %+v", got.finish, got.usage)
	}
}

// llama-server b9928 and v0.5.0, recording 15: /props has the Jinja template,
// the special tokens and n_ctx.
func TestReplayLlamaServerProps(t *testing.T) {
	for _, rel := range []string{"llama-server-b9928/15-props.json", "llama-server-v0.5.0/15-props.json"} {
		srv := replay(t, rel, nil)
		info, err := NewOpenAI(LlamaServer, srv.URL, "", nil).ModelInfo(context.Background(), "tiny")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(info.Template, "<|im_start|>") || info.TemplateOrigin == "" {
			t.Errorf("%s: template %.40q origin %q", rel, info.Template, info.TemplateOrigin)
		}
		if info.BOSToken != "<|endoftext|>" || info.EOSToken != "<|im_end|>" || info.ContextLength != 2048 {
			t.Errorf("%s: bos %q eos %q ctx %d", rel, info.BOSToken, info.EOSToken, info.ContextLength)
		}
	}
}

// llama-server b9928, recording 17: /v1/models with meta.n_ctx.
func TestReplayLlamaServerModels(t *testing.T) {
	srv := replay(t, "llama-server-b9928/17-v1-models.json", nil)
	models, err := NewOpenAI(LlamaServer, srv.URL, "", nil).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 1 || models[0].ID != "tiny-qwen3-random.gguf" || models[0].ContextLength != 2048 {
		t.Errorf("models = %+v", models)
	}
}

// llama-server b9928, recording 28: raw /completion (recorded unstreamed:
// the same fields as the last streamed chunk, content plus stop:true).
func TestReplayLlamaServerCompletion(t *testing.T) {
	srv := replay(t, "llama-server-b9928/28-scripted-completion-raw.json", func(t *testing.T, body map[string]any) {
		if body["prompt"] != "P" || body["stream"] != true || body["n_predict"] != 40.0 || body["grammar"] != "root ::= \"x\"" {
			t.Errorf("request = %v", body)
		}
	})
	got := expectAnswer(t)(NewOpenAI(LlamaServer, srv.URL, "", nil).Complete(context.Background(), CompleteRequest{Prompt: "P", MaxTokens: 40, Grammar: `root ::= "x"`}))
	want := "<tool_call>\n\n\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>"
	if got.text != want || got.finish != chat.FinishStop || got.usage == nil || *got.usage != (chat.Usage{PromptTokens: 9, CompletionTokens: 17}) {
		t.Errorf("got %+v usage %+v", got, got.usage)
	}
	if want := (Timings{PromptTokens: 1, CachedTokens: 8, PromptMS: 2.623, GeneratedTokens: 17, GenerateMS: 38.031}); got.timings == nil || *got.timings != want {
		t.Errorf("timings %+v, want %+v", got.timings, want)
	}
}

// Ollama v0.17.4: streamed /api/chat gives the call whole with arguments as
// an object (and, in this version, an id). Arguments become a compact string;
// the id is kept; finish is tool_calls although done_reason is "stop".
func TestReplayOllamaChatStream(t *testing.T) {
	srv := replay(t, "ollama-v0.17.4/tiny-toolcall-api-chat-tools-stream.json", func(t *testing.T, body map[string]any) {
		if body["stream"] != true || body["model"] != "tiny-toolcall" || path(body, "tools") == nil {
			t.Errorf("request = %v", body)
		}
	})
	got := expectAnswer(t)(NewOllama(srv.URL, nil).Chat(context.Background(), weatherRequest("tiny-toolcall")))
	if len(got.calls) != 1 || got.calls[0].ID != "call_mgcdf230" || got.calls[0].Function.Name != "get_weather" || got.calls[0].Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("calls = %+v", got.calls)
	}
	if got.finish != chat.FinishToolCalls || got.usage == nil || *got.usage != (chat.Usage{PromptTokens: 136, CompletionTokens: 17}) {
		t.Errorf("finish %q usage %+v", got.finish, got.usage)
	}
}

// Ollama before v0.17 sent calls without ids: the same chunks with the id
// removed get a generated one, and key order of the arguments is kept.
func TestOllamaCallWithoutID(t *testing.T) {
	body := `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"unit":"c","city":"Paris"}}}]},"done":false}` + "\n" +
		`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":2}` + "\n"
	srv := fixedServer(t, 200, "application/x-ndjson", body)
	got := expectAnswer(t)(NewOllama(srv.URL, nil).Chat(context.Background(), weatherRequest("m")))
	if len(got.calls) != 1 || !isGeneratedID(got.calls[0].ID) || got.calls[0].Function.Arguments != `{"unit":"c","city":"Paris"}` {
		t.Fatalf("calls = %+v", got.calls)
	}
}

// Ollama v0.17.4 without a TEMPLATE answers /api/chat with tools 400.
func TestReplayOllamaNoTemplate(t *testing.T) {
	srv := replay(t, "ollama-v0.17.4/tiny-toolcall-notemplate-api-chat-tools.json", nil)
	_, err := NewOllama(srv.URL, nil).Chat(context.Background(), weatherRequest("tiny-toolcall-notemplate"))
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || e.Kind != Ollama || !strings.HasSuffix(e.Message, "does not support tools") {
		t.Fatalf("err = %v", err)
	}
}

// Ollama v0.17.4 /api/generate raw (recorded unstreamed: one line with
// done:true, the shape of a one-chunk stream).
func TestReplayOllamaGenerateRaw(t *testing.T) {
	srv := replay(t, "ollama-v0.17.4/tiny-toolcall-api-generate-raw.json", func(t *testing.T, body map[string]any) {
		if body["raw"] != true || body["stream"] != true || path(body, "options", "num_predict") != 64.0 ||
			path(body, "options", "num_ctx") != 2048.0 || path(body, "options", "temperature") != 0.0 ||
			path(body, "format", "type") != "object" {
			t.Errorf("request = %v", body)
		}
	})
	req := CompleteRequest{Model: "tiny-toolcall", Prompt: "p", MaxTokens: 64, Temperature: ptr(0.0), ContextLength: 2048,
		JSONSchema: []byte(`{"type":"object"}`), Grammar: "ignored by Ollama"}
	got := expectAnswer(t)(NewOllama(srv.URL, nil).Complete(context.Background(), req))
	if !strings.HasPrefix(got.text, "<tool_call>") || got.finish != chat.FinishStop || *got.usage != (chat.Usage{PromptTokens: 15, CompletionTokens: 17}) {
		t.Errorf("got %+v", got)
	}
}

// Ollama v0.17.4 /v1/chat/completions streamed: whole calls with index and
// id, arguments as a string; read through the OpenAI dialect.
func TestReplayOllamaV1Stream(t *testing.T) {
	srv := replay(t, "ollama-v0.17.4/tiny-toolcall-v1-chat-tools-stream.json", nil)
	got := expectAnswer(t)(NewOpenAI(OpenAI, srv.URL+"/v1/", "", nil).Chat(context.Background(), weatherRequest("tiny-toolcall")))
	if len(got.calls) != 1 || got.calls[0].ID != "call_xhh74f6w" || got.calls[0].Function.Arguments != `{"city":"Paris"}` || got.finish != chat.FinishToolCalls {
		t.Errorf("got %+v", got)
	}
}
