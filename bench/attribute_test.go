package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// attributeItem: a weather question whose answer is get_weather for Paris in
// kelvin, which the tool's unit enum does not offer (an answer the schema
// forbids, for the constraint rule), and the same question with any unit.
func attributeItems(t *testing.T) (free, forbidden *Item) {
	const tool = `{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}`
	s, err := ReadSuite(strings.NewReader(
		`{"id": "free", "messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [`+tool+`], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"], "unit": ["", "celsius"]}}]}}
{"id": "kelvin", "messages": [{"role": "user", "content": "Weather in Paris, in kelvin?"}], "tools": [`+tool+`], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"], "unit": ["kelvin"]}}]}}
`), "attr")
	if err != nil {
		t.Fatal(err)
	}
	return &s.Items[0], &s.Items[1]
}

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// Each rule of Attribute over a constructed answer and trace: the cause, and
// a word of the reason the report shows.
func TestAttribute(t *testing.T) {
	free, kelvin := attributeItems(t)
	const hermesCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	london := []chat.ToolCall{call("get_weather", `{"city": "London"}`)}
	for _, c := range []struct {
		name  string
		item  *Item
		rec   Record
		tr    *trace.Record
		cause string
		why   string // a part of the reason
	}{
		{name: "pass", rec: Record{Pass: true}, tr: &trace.Record{Error: "ignored"}},
		{name: "template raised", rec: Record{Error: "the model's chat template refuses this conversation: No user query found in messages."},
			tr:    &trace.Record{Mode: "own", Status: 400, Error: "the model's chat template refuses this conversation: No user query found in messages."},
			cause: CauseTemplate, why: "No user query"},
		{name: "template failed", rec: Record{Error: "x"},
			tr:    &trace.Record{Mode: "own", Status: 400, Error: "the model's chat template failed on this conversation: undefined"},
			cause: CauseTemplate, why: "raised"},
		{name: "an error after the render is not the template's", rec: Record{Error: "the model's chat template failed on this conversation"},
			tr:    &trace.Record{Mode: "own", Prompt: "<|im_start|>", Status: 502, Error: "the model's chat template failed on this conversation"},
			cause: CauseTransport},
		{name: "forced call refused", rec: Record{Error: `tool_choice "required" cannot be enforced through ollama's chat API`},
			tr:    &trace.Record{Mode: "relay", Status: 400, Actions: []string{trace.ActionForcedCallRefused}, Error: `tool_choice "required" cannot be enforced`},
			cause: CauseConstraint, why: "refused"},
		{name: "prompt too long for Ollama's context", rec: Record{Error: "the prompt is 3000 tokens, and qwen3's context holds 2048: shorten the conversation or the tools"},
			tr: &trace.Record{Mode: "own", Prompt: "p", Status: 400, Error: "the prompt is 3000 tokens, and qwen3's context holds 2048: shorten the conversation or the tools"}, cause: CauseTruncation, why: "does not fit"},
		{name: "prompt too long for the engine's context", rec: Record{Error: "the prompt is 3000 tokens and tiny's context holds 1024 (leaving no room for an answer)"},
			tr: &trace.Record{Mode: "own", Prompt: "p", Status: 400, Error: "the prompt is 3000 tokens and tiny's context holds 1024 (leaving no room for an answer)"}, cause: CauseTruncation},
		{name: "timeout, no trace", rec: Record{Error: "no answer within the timeout (5m0s)"}, cause: CauseTransport, why: "timeout"},
		{name: "runtime down", rec: Record{Error: "the runtime failed"}, tr: &trace.Record{Mode: "relay", Status: 502, Error: "dial tcp 127.0.0.1:1: connection refused"},
			cause: CauseTransport, why: "connection refused"},
		{name: "stream broke off", rec: Record{}, tr: &trace.Record{Mode: "own", Prompt: "p", Status: 200, Error: "the runtime's stream broke off after 10 bytes"},
			cause: CauseTransport, why: "broke off"},
		{name: "length limit, even with a call left in the text", rec: Record{Content: "<tool_call>\n{\"name\": \"get_we", CompletionTokens: 40},
			tr: &trace.Record{Mode: "own", Format: "hermes", FinishReason: "length", Completion: "<tool_call>\n{\"name\": \"get_we"}, cause: CauseTruncation, why: "40 tokens"},
		{name: "forced, no call", rec: Record{Content: "hello"},
			tr: &trace.Record{Mode: "own", Request: `{"tool_choice": "required"}`, Constraint: "grammar", FinishReason: "stop"}, cause: CauseConstraint, why: "grammar"},
		{name: "forced by name, no call", rec: Record{Content: "hello"},
			tr: &trace.Record{Mode: "own", Request: `{"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}`, Constraint: "json-schema"}, cause: CauseConstraint},
		{name: "forced in relay mode, no call", rec: Record{Content: "hello"},
			tr: &trace.Record{Mode: "relay", Request: `{"tool_choice": "required"}`}, cause: CauseConstraint, why: "relay"},
		{name: "auto, no call, no constraint broken", rec: Record{Content: "hello", Kind: string(ErrDecode)},
			tr: &trace.Record{Mode: "own", Request: `{"tool_choice": "auto"}`, Constraint: "lazy-grammar"}, cause: CauseModel, why: string(ErrDecode)},
		{name: "arguments outside the schema under a constraint", rec: Record{Calls: []chat.ToolCall{call("get_weather", `{"city": 3}`)}},
			tr: &trace.Record{Mode: "own", Constraint: "lazy-grammar"}, cause: CauseConstraint, why: "outside its schema"},
		{name: "a tool not offered under a constraint", rec: Record{Calls: []chat.ToolCall{call("get_time", `{}`)}},
			tr: &trace.Record{Mode: "own", Constraint: "grammar"}, cause: CauseConstraint, why: "get_time"},
		{name: "arguments outside the schema, unconstrained", rec: Record{Calls: []chat.ToolCall{call("get_weather", `{"city": 3}`)}},
			tr: &trace.Record{Mode: "own"}, cause: CauseModel},
		{name: "an answer the schema forbids, constrained", item: kelvin, rec: Record{Calls: []chat.ToolCall{call("get_weather", `{"city": "Paris", "unit": "celsius"}`)}},
			tr: &trace.Record{Mode: "own", Constraint: "lazy-grammar"}, cause: CauseConstraint, why: "kelvin"},
		{name: "an answer the schema forbids, unconstrained", item: kelvin, rec: Record{Calls: []chat.ToolCall{call("get_weather", `{"city": "Paris", "unit": "celsius"}`)}},
			tr: &trace.Record{Mode: "relay"}, cause: CauseModel},
		{name: "the family parser reads a call the answer lacks", rec: Record{Completion: hermesCall},
			tr: &trace.Record{Mode: "relay", Format: "hermes", Completion: hermesCall}, cause: CauseParser, why: `get_weather({"city": "Paris"})`},
		{name: "the family parser reads the answer's call", rec: Record{Completion: hermesCall, Calls: []chat.ToolCall{call("get_weather", `{"city":"Paris"}`)}},
			tr: &trace.Record{Mode: "own", Format: "hermes", Completion: hermesCall}, cause: CauseModel},
		{name: "the family's opener left in the content", rec: Record{Content: "sure <tool_call> get_weather Paris"},
			tr: &trace.Record{Mode: "relay", Format: "hermes"}, cause: CauseParser, why: "<tool_call>"},
		{name: "a call written as Python, family unknown", rec: Record{Content: `I would call get_weather(city="Paris") now.`, Completion: `I would call get_weather(city="Paris") now.`},
			tr: &trace.Record{Mode: "relay"}, cause: CauseParser, why: "get_weather("},
		{name: "a call written as JSON, family unknown", rec: Record{Content: `{"name": "get_weather", "arguments": {"city": "Paris"}}`},
			tr: &trace.Record{Mode: "relay"}, cause: CauseParser, why: `\"name\": \"get_weather\"`},
		{name: "the tool named in prose", rec: Record{Content: "I can use get_weather for that, or my_get_weather(x)."},
			tr: &trace.Record{Mode: "relay"}, cause: CauseModel},
		{name: "malformed markup the family parser cannot read", rec: Record{Content: "<tool_call>{bad</tool_call>", Completion: "<tool_call>{bad</tool_call>"},
			tr:    &trace.Record{Mode: "own", Format: "hermes", Completion: "<tool_call>{bad</tool_call>", Diagnostics: []trace.Diagnostic{{Code: "malformed-call", Message: "invalid JSON"}}},
			cause: CauseModel, why: "malformed-call"},
		{name: "a message the template left out", rec: Record{Calls: london},
			tr: &trace.Record{Mode: "own", Prompt: "p", Diagnostics: []trace.Diagnostic{{Code: "message-not-in-prompt", Message: "messages[0] (system): left out"}}}, cause: CauseTemplate, why: "messages[0]"},
		{name: "the model", rec: Record{Calls: london, Kind: string(ErrString), Message: "London"},
			tr: &trace.Record{Mode: "own", Prompt: "p", Format: "hermes", Completion: "x"}, cause: CauseModel, why: "London"},
	} {
		it := c.item
		if it == nil {
			it = free
		}
		cause, why := Attribute(it, &c.rec, c.tr)
		if cause != c.cause || !strings.Contains(why, c.why) || (cause == "") != (why == "") {
			t.Errorf("%s: %q, %q; want %q, with %q", c.name, cause, why, c.cause, c.why)
		}
	}
}

// Through a real gateway: a forced call that relay mode over Ollama cannot
// enforce is refused (400) and its trace, found by the response's request
// id, attributes the failure to the constraint; the fake runtime's calls
// left in the text are parser failures.
func TestAttributeThroughGateway(t *testing.T) {
	f := newFakeOllama(t)
	items := weatherSuite(t, 6)
	required, relay := mustSide(t, "ollama="+f.URL+"#fake@relay?tool_choice=required"), mustSide(t, "ollama="+f.URL+"#fake@relay")
	recs, err := Run(context.Background(), RunConfig{Sides: []Side{required, relay}, Items: items, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	causes := map[string]map[string]int{}
	for _, r := range recs {
		if causes[r.Side] == nil {
			causes[r.Side] = map[string]int{}
		}
		causes[r.Side][r.Attribution]++
		if r.Side == required.Spec && (r.TraceID == "" || !strings.Contains(r.Why, "refused")) {
			t.Errorf("%s: %+v", r.Item, r)
		}
	}
	if c := causes[required.Spec]; c[CauseConstraint] != 6 {
		t.Errorf("required over relay Ollama: %v, want 6 constraint", c)
	}
	if c := causes[relay.Spec]; c[CauseParser] != 2 || c[""] != 4 {
		t.Errorf("relay side: %v, want 2 parser (every third call left in the text), 4 passes", c)
	}
}

// fakeLlamaServer is an httptest llama-server whose chat template (served
// by /props) raises when the conversation has no user message and leaves
// system messages out of the prompt; /completion answers "Sunny." and stops.
func fakeLlamaServer(t *testing.T) string {
	const tpl = `{%- set ns = namespace(user=false) -%}
{%- for m in messages if m.role == 'user' %}{% set ns.user = true %}{% endfor -%}
{%- if not ns.user %}{{ raise_exception('No user query found in messages.') }}{% endif -%}
{%- for m in messages if m.role != 'system' %}{{ m.role }}: {{ m.content }}
{% endfor %}assistant:`
	props, _ := json.Marshal(map[string]any{"chat_template": tpl, "default_generation_settings": map[string]any{"n_ctx": 4096}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data": [{"id": "fake"}]}`)
		case "/props":
			w.Write(props)
		case "/completion":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"content\": \"Sunny.\", \"stop\": false}\n\ndata: {\"content\": \"\", \"stop\": true, \"stop_type\": \"eos\", \"tokens_predicted\": 2, \"tokens_evaluated\": 9}\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Own mode over a llama-server whose template raises on a conversation
// with no user message (template: the request refused, its trace found by
// the request id), leaves the system prompt out (template: the gateway's
// message-not-in-prompt diagnostic), or renders a question the model
// answers in words (model) — the gateway's own words, which the rules
// match, pinned.
func TestAttributeOwnMode(t *testing.T) {
	const tool = `{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}`
	s, err := ReadSuite(strings.NewReader(
		`{"id": "no-user", "messages": [{"role": "system", "content": "Be brief."}], "tools": [`+tool+`], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}}
{"id": "system", "messages": [{"role": "system", "content": "Always call get_weather."}, {"role": "user", "content": "Paris?"}], "tools": [`+tool+`], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}}
{"id": "plain", "messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [`+tool+`], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}}
`), "own")
	if err != nil {
		t.Fatal(err)
	}
	side := mustSide(t, "llama-server="+fakeLlamaServer(t)+"#fake@own")
	recs, err := Run(context.Background(), RunConfig{Sides: []Side{side}, Items: s.Items, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		t.Logf("%s: %s: %s", r.Item, r.Attribution, r.Why)
	}
	want := map[string]string{"no-user": CauseTemplate, "system": CauseTemplate, "plain": CauseModel}
	for _, r := range recs {
		if r.Attribution != want[r.Item] || r.TraceID == "" {
			t.Errorf("%s: %q (%s), want %q; trace %q, error %q", r.Item, r.Attribution, r.Why, want[r.Item], r.TraceID, r.Error)
		}
	}
	if len(recs) != 3 {
		t.Errorf("%d records", len(recs))
	}
}
