package gateway

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/trace"
)

const osloCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"

// forcedCallGateway is a llama-server-like fake (it takes grammars) serving
// "qwen" with template, answering the requests with scripts in turn.
func forcedCallGateway(t *testing.T, template string, scripts ...[]backend.Chunk) (*fakeRuntime, *httptest.Server) {
	t.Helper()
	rt := qwenRuntime()
	rt.kind = backend.LlamaServer
	rt.scripts = scripts
	rt.models["qwen"] = backend.ModelInfo{Template: template, TemplateOrigin: "fake runtime", EOSToken: "<|im_end|>"}
	return rt, newFakeGateway(t, Config{}, rt)
}

func lengthEnd(completion int) backend.Chunk {
	return backend.Chunk{FinishReason: chat.FinishLength, Usage: &chat.Usage{PromptTokens: 50, CompletionTokens: completion}}
}

func stopEnd(prompt, completion int) backend.Chunk {
	return backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: prompt, CompletionTokens: completion}}
}

// Reasoning that runs into the first pass's limit (the limit less the call's
// reserve) is closed by the gateway and the call written in a second pass
// constrained to the call alone: the client gets the reasoning and the call,
// with both passes' output counted once.
func TestForcedCallAfterReasoningThatDoesNotStop(t *testing.T) {
	for _, c := range []struct {
		name, template, first string
	}{
		{"prompt leaves reasoning open", thinkingTemplate, "ponder ponder"},
		{"model opens reasoning", qwenTemplate, "<think>\nponder ponder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt, ts := forcedCallGateway(t, c.template,
				[]backend.Chunk{{Text: c.first}, lengthEnd(768)},
				[]backend.Chunk{{Text: osloCall}, stopEnd(900, 20)})
			resp := post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"required","max_tokens":1024`))
			v := decodeBody(t, resp)
			if len(rt.completes) != 2 {
				t.Fatalf("%d passes, want 2; answer %v", len(rt.completes), v)
			}
			// The trace shows the closer the gateway wrote, where it wrote
			// it, and says why.
			rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
			decisions := strings.Join(rec.Decisions, "\n")
			if !strings.HasSuffix(rec.Completion, "ponder ponder</think>\n\n"+osloCall) || !strings.Contains(decisions, "the gateway closed it") || !slices.Contains(rec.Actions, trace.ActionCallSecondPass) {
				t.Errorf("trace completion %q, decisions %s, actions %v", rec.Completion, decisions, rec.Actions)
			}
			first, second := rt.completes[0], rt.completes[1]
			if first.MaxTokens != 768 || second.MaxTokens != 256 {
				t.Errorf("limits %d and %d, want 768 and 256", first.MaxTokens, second.MaxTokens)
			}
			if want := first.Prompt + c.first + "</think>\n\n"; second.Prompt != want {
				t.Errorf("second prompt ends %q, want it to continue the first with the reasoning closed", second.Prompt[max(0, len(second.Prompt)-40):])
			}
			g, err := grammar.Parse(second.Grammar)
			if err != nil || !g.Match(osloCall) || g.Match("<think>\nhmm\n</think>\n\n"+osloCall) || g.Match("hmm</think>\n\n"+osloCall) {
				t.Errorf("the second pass's grammar is not the call alone (%v)", err)
			}
			msg := path(v, "choices", 0, "message")
			if path(msg, "tool_calls", 0, "function", "name") != "get_weather" || path(msg, "reasoning_content") != "ponder ponder" {
				t.Errorf("message %v", msg)
			}
			if path(v, "choices", 0, "finish_reason") != "tool_calls" || path(v, "usage", "completion_tokens") != 788.0 || path(v, "usage", "prompt_tokens") != 50.0 {
				t.Errorf("finish %v, usage %v", path(v, "choices", 0, "finish_reason"), path(v, "usage"))
			}
		})
	}
}

// The first pass's end passes through as it is when the reasoning did not
// use up its budget, when the limit cut the call itself, and when the model
// wrote no reasoning: there is nothing for a second pass to do.
func TestForcedCallWithoutSecondPass(t *testing.T) {
	for _, c := range []struct {
		name, template string
		script         []backend.Chunk
		finish         string
	}{
		{"reasoning closed in time", thinkingTemplate, []backend.Chunk{{Text: "hmm</think>\n\n" + osloCall}, stopEnd(50, 30)}, "tool_calls"},
		{"the call cut by the limit", thinkingTemplate, []backend.Chunk{{Text: "hmm</think>\n\n<tool_call>\n{\"name\""}, lengthEnd(768)}, "length"},
		{"no reasoning, the call cut", qwenTemplate, []backend.Chunk{{Text: "<tool_call>\n{\"name\""}, lengthEnd(768)}, "length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt, ts := forcedCallGateway(t, c.template, c.script)
			v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"required","max_tokens":1024`)))
			if len(rt.completes) != 1 || rt.completes[0].MaxTokens != 768 {
				t.Fatalf("%d passes (limit %d), want 1 (768); answer %v", len(rt.completes), rt.completes[0].MaxTokens, v)
			}
			if got := path(v, "choices", 0, "finish_reason"); got != c.finish {
				t.Errorf("finish %v, want %s", got, c.finish)
			}
		})
	}
}

// Streamed, the client sees one answer: the reasoning, then the call, one
// finish; and a second pass that breaks off before its end leaves the
// answer as cut by the limit.
func TestForcedCallSecondPassStreamed(t *testing.T) {
	rt, ts := forcedCallGateway(t, thinkingTemplate,
		[]backend.Chunk{{Text: "ponder "}, {Text: "ponder"}, lengthEnd(768)},
		[]backend.Chunk{{Text: osloCall}, stopEnd(900, 20)})
	events, _ := sseData(t, post(t, ts.URL+"/v1/chat/completions", `{"model":"qwen","stream":true,"stream_options":{"include_usage":true},"tool_choice":"required","max_tokens":2000,"messages":[{"role":"user","content":"Weather in Oslo?"}],"tools":`+weatherTools+`}`).Body)
	var reasoning, finishes []string
	var name any
	for _, ev := range events {
		if r, ok := path(ev, "choices", 0, "delta", "reasoning_content").(string); ok {
			reasoning = append(reasoning, r)
		}
		if n := path(ev, "choices", 0, "delta", "tool_calls", 0, "function", "name"); n != nil {
			name = n
		}
		if f, ok := path(ev, "choices", 0, "finish_reason").(string); ok {
			finishes = append(finishes, f)
		}
	}
	if strings.Join(reasoning, "") != "ponder ponder" || name != "get_weather" || strings.Join(finishes, ",") != "tool_calls" {
		t.Errorf("reasoning %q, call %v, finishes %v", reasoning, name, finishes)
	}
	if len(rt.completes) != 2 || rt.completes[0].MaxTokens != 1500 || rt.completes[1].MaxTokens != 500 {
		t.Errorf("passes %d", len(rt.completes))
	}

	rt, ts = forcedCallGateway(t, thinkingTemplate,
		[]backend.Chunk{{Text: "ponder"}, lengthEnd(768)},
		[]backend.Chunk{{Text: "<tool_call>\n{\"na"}})
	v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"required","max_tokens":1024`)))
	if path(v, "choices", 0, "finish_reason") != "length" || len(rt.completes) != 2 {
		t.Errorf("a second pass that ended without its end: %v", v)
	}
}
