package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/trace"
)

// The call constraint each runtime gets in own mode, by tool_choice: the
// grammar for llama-server (lazy for auto, eager for forced calls), a
// structural tag for vLLM auto, the eager grammar for SGLang forced calls,
// nothing for Ollama auto; and the constraint sent admits the call the
// runtime then writes.
func TestCallConstraintPerRuntime(t *testing.T) {
	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"
	cases := []struct {
		kind   backend.Kind
		extra  string
		check  func(t *testing.T, c backend.CompleteRequest)
		accept bool // the grammar sent, if any, must admit call
	}{
		{backend.LlamaServer, "", func(t *testing.T, c backend.CompleteRequest) {
			if !c.GrammarLazy || len(c.GrammarTriggers) != 1 || c.GrammarTriggers[0] != (backend.GrammarTrigger{Type: "word", Value: "<tool_call>"}) ||
				len(c.PreservedTokens) != 1 || len(c.JSONSchema) > 0 {
				t.Errorf("lazy grammar expected: %+v", c)
			}
		}, true},
		{backend.LlamaServer, `"tool_choice":"required"`, func(t *testing.T, c backend.CompleteRequest) {
			if c.GrammarLazy || c.Grammar == "" || len(c.JSONSchema) > 0 || strings.HasSuffix(c.Prompt, "<tool_call>\n") {
				t.Errorf("eager grammar, no prefill expected: %+v", c)
			}
		}, true},
		{backend.LlamaServer, `"tool_choice":"required","parallel_tool_calls":false`, func(t *testing.T, c backend.CompleteRequest) {
			g, err := grammar.Parse(c.Grammar)
			if err != nil || g.Match(call+"\n"+call) {
				t.Errorf("parallel_tool_calls false: two calls admitted (%v)", err)
			}
		}, true},
		{backend.SGLang, `"tool_choice":"required"`, func(t *testing.T, c backend.CompleteRequest) {
			if c.GrammarLazy || c.Grammar == "" {
				t.Errorf("eager grammar expected: %+v", c)
			}
		}, true},
		{backend.VLLM, "", func(t *testing.T, c backend.CompleteRequest) {
			var tag struct {
				Type       string
				Structures []struct{ Begin, End string }
				Triggers   []string
			}
			if err := json.Unmarshal(c.StructuralTag, &tag); err != nil || tag.Type != "structural_tag" || len(tag.Structures) != 1 ||
				tag.Structures[0].Begin != "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": " || tag.Triggers[0] != "<tool_call>" || c.Grammar != "" {
				t.Errorf("structural tag expected: %s (%v)", c.StructuralTag, err)
			}
		}, false},
		{backend.Ollama, "", func(t *testing.T, c backend.CompleteRequest) {
			if c.Grammar != "" || len(c.JSONSchema) > 0 || len(c.StructuralTag) > 0 {
				t.Errorf("Ollama takes no lazy constraint: %+v", c)
			}
		}, false},
	}
	for _, tc := range cases {
		rt := qwenRuntime(backend.Chunk{Text: call}, backend.Chunk{FinishReason: chat.FinishStop})
		rt.kind = tc.kind
		ts := newFakeGateway(t, Config{}, rt)
		v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody(tc.extra)))
		if path(v, "choices", 0, "message", "tool_calls", 0, "function", "name") != "get_weather" {
			t.Errorf("%s %s: answer %v", tc.kind, tc.extra, v)
			continue
		}
		c := rt.completes[0]
		tc.check(t, c)
		if tc.accept {
			g, err := grammar.Parse(c.Grammar)
			if err != nil || !g.Match(call) {
				t.Errorf("%s %s: the grammar sent refuses the call (%v)", tc.kind, tc.extra, err)
			}
		}
	}
}

// thinkingTemplate is qwenTemplate with a generation prompt that opens the
// reasoning, as DeepSeek-R1's and QwQ's do.
var thinkingTemplate = strings.Replace(qwenTemplate, `{% if enable_thinking is defined and enable_thinking is false %}`, `<think>
{% if false %}`, 1)

// A forced call after a prompt that leaves reasoning open: where reasoning
// cannot be afforded (a runtime that takes only a JSON Schema, or a small
// max_tokens) the prompt closes it, so that the call comes at once and is
// parsed as a call, not as reasoning; with room and a grammar, the grammar
// lets the model reason first.
func TestForcedCallClosesReasoning(t *testing.T) {
	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"
	body := `{"name": "get_weather", "arguments": {"city": "Oslo"}}`
	for _, c := range []struct {
		name   string
		kind   backend.Kind
		extra  string
		output string // what the runtime writes after the prompt
		closed bool
	}{
		{"ollama, json schema", backend.Ollama, `"tool_choice":"required","max_tokens":4000`, body, true},
		{"llama-server, small max_tokens", backend.LlamaServer, `"tool_choice":"required","max_tokens":200`, call, true},
		{"llama-server, room to reason", backend.LlamaServer, `"tool_choice":"required","max_tokens":4000`, "hmm</think>\n\n" + call, false},
		{"llama-server, auto", backend.LlamaServer, `"max_tokens":200`, "hmm</think>\n\n" + call, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := qwenRuntime(backend.Chunk{Text: c.output}, backend.Chunk{FinishReason: chat.FinishStop})
			rt.kind = c.kind
			rt.models["qwen"] = backend.ModelInfo{Template: thinkingTemplate, TemplateOrigin: "fake runtime", EOSToken: "<|im_end|>"}
			ts := newFakeGateway(t, Config{}, rt)
			resp := post(t, ts.URL+"/v1/chat/completions", chatBody(c.extra))
			v := decodeBody(t, resp)
			if path(v, "choices", 0, "message", "tool_calls", 0, "function", "name") != "get_weather" {
				t.Fatalf("answer %v", v)
			}
			prompt := rt.completes[0].Prompt
			if closed := strings.Contains(prompt, "<think>\n</think>\n\n"); closed != c.closed {
				t.Errorf("reasoning closed in the prompt: %v, want %v; prompt ends %q", closed, c.closed, prompt[max(0, len(prompt)-60):])
			}
			rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
			if acted := slices.Contains(rec.Actions, trace.ActionReasoningClosed); acted != c.closed {
				t.Errorf("actions %v: reasoning-closed %v, want %v", rec.Actions, acted, c.closed)
			}
			if !c.closed && c.extra != `"max_tokens":200` {
				g, err := grammar.Parse(rt.completes[0].Grammar)
				if err != nil || !g.Match(c.output) {
					t.Errorf("the grammar refuses reasoning before the call (%v)", err)
				}
			}
		})
	}
	// Where the template lets the model open reasoning itself (Qwen3's), a
	// forced call under a small limit gets a grammar without that room.
	for _, c := range []struct {
		maxTokens  string
		reasonFits bool
	}{{"200", false}, {"4000", true}} {
		t.Run("template-opened reasoning, max_tokens "+c.maxTokens, func(t *testing.T) {
			rt := qwenRuntime(backend.Chunk{Text: call}, backend.Chunk{FinishReason: chat.FinishStop})
			rt.kind = backend.LlamaServer
			ts := newFakeGateway(t, Config{}, rt)
			post(t, ts.URL+"/v1/chat/completions", chatBody(`"tool_choice":"required","max_tokens":`+c.maxTokens)).Body.Close()
			g, err := grammar.Parse(rt.completes[0].Grammar)
			if err != nil || !g.Match(call) {
				t.Fatalf("the grammar refuses the call (%v)", err)
			}
			if fits := g.Match("<think>\nhmm\n</think>\n\n" + call); fits != c.reasonFits {
				t.Errorf("reasoning before the call admitted: %v, want %v", fits, c.reasonFits)
			}
		})
	}
}

// Tools past the grammar's bounds (here an enum of 20,000 values, beyond
// grammar's 10,000) are a 400 naming the tools and the limit, not minutes of
// CPU; a build the client left is the client's leaving, not a 400.
func TestToolsPastGrammarBounds(t *testing.T) {
	values := make([]string, 20000)
	for i := range values {
		values[i] = fmt.Sprintf("%q", fmt.Sprintf("city-%d", i))
	}
	tools := `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"enum":[` + strings.Join(values, ",") + `]}}}}}]`
	rt := qwenRuntime(backend.Chunk{Text: "x"}, backend.Chunk{FinishReason: chat.FinishStop})
	rt.kind = backend.LlamaServer
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model":"qwen","messages":[{"role":"user","content":"hi"}],"tool_choice":"required","tools":` + tools + `}`
	resp := post(t, ts.URL+"/v1/chat/completions", body)
	v := decodeBody(t, resp)
	msg, _ := path(v, "error", "message").(string)
	if resp.StatusCode != 400 || path(v, "error", "param") != "tools" || !strings.Contains(msg, "10000") {
		t.Errorf("status %d, %v", resp.StatusCode, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := toolsError(ctx, "call grammar", errors.New("stopped")); !errors.Is(err, context.Canceled) {
		t.Errorf("a build the client left: %v", err)
	}
}
