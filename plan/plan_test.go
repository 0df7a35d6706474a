package plan

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/trace"
)

func family(t *testing.T, id string) *format.Family {
	t.Helper()
	f, ok := format.Lookup(id)
	if !ok {
		t.Fatalf("no family %q", id)
	}
	return f
}

func tool(name string) chat.Tool {
	return chat.Tool{Type: "function", Function: chat.ToolFunction{Name: name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}
}

var (
	required = chat.ToolChoice{Mode: chat.ToolRequired}
	auto     = chat.ToolChoice{Mode: chat.ToolAuto}
)

// Runtimes described only by what they take: the plans read these, never a
// kind's name.
var (
	grammarLazy = Runtime{Name: "lazy", Caps: backend.Capabilities{Grammar: true, LazyGrammar: true, JSONSchema: true}, CanComplete: true}
	grammarOnly = Runtime{Name: "eager", Caps: backend.Capabilities{Grammar: true}, CanComplete: true}
	tagSchema   = Runtime{Name: "tagged", Caps: backend.Capabilities{StructuralTag: true, JSONSchema: true}, CanComplete: true}
	schemaOnly  = Runtime{Name: "schema", Caps: backend.Capabilities{JSONSchema: true}, CanComplete: true}
	nothing     = Runtime{Name: "bare", CanComplete: true}
)

// Each branch of Calls: the form chosen from the capabilities, the request
// fields it sets, the prefill, and the refusals.
func TestCalls(t *testing.T) {
	hermes, coder := family(t, "hermes"), family(t, "qwen3-coder-xml")
	single := false
	two := []chat.Tool{tool("get_weather"), tool("get_time")}
	one := two[:1]
	cases := []struct {
		name       string
		q          CallFacts
		maxTokens  int
		form       string
		decision   string // a substring of the decisions
		prefill    string
		refusal    string // the refused field, when refused
		check      func(t *testing.T, c backend.CompleteRequest)
		noDecision bool
	}{
		{name: "no tools", q: CallFacts{Family: hermes, Runtime: grammarLazy, Choice: required}, noDecision: true},
		{name: "tool_choice none", q: CallFacts{Family: hermes, Runtime: grammarLazy, Tools: two, Choice: chat.ToolChoice{Mode: chat.ToolNone}}, noDecision: true},
		{name: "auto, lazy grammar", q: CallFacts{Family: hermes, Runtime: grammarLazy, Tools: two, Choice: auto},
			form: "lazy-grammar", decision: "applies once the model opens a call", check: func(t *testing.T, c backend.CompleteRequest) {
				if !c.GrammarLazy || len(c.GrammarTriggers) != 1 || c.GrammarTriggers[0].Value != "<tool_call>" || len(c.PreservedTokens) != 1 {
					t.Errorf("lazy grammar with its trigger expected: %+v", c)
				}
			}},
		{name: "required, eager grammar", q: CallFacts{Family: hermes, Runtime: grammarLazy, Tools: two, Choice: required},
			form: "grammar", decision: "from its first byte", check: func(t *testing.T, c backend.CompleteRequest) {
				if c.GrammarLazy || c.Grammar == "" || len(c.JSONSchema) > 0 {
					t.Errorf("eager grammar expected: %+v", c)
				}
			}},
		{name: "parallel false named", q: CallFacts{Family: hermes, Runtime: grammarLazy, Tools: two, Choice: auto, Parallel: &single},
			form: "lazy-grammar", decision: `tool_choice "auto" with parallel_tool_calls false`},
		{name: "auto, grammar but not lazy", q: CallFacts{Family: hermes, Runtime: grammarOnly, Tools: two, Choice: auto},
			decision: "parsed but not constrained (eager takes no call constraint with a raw prompt)"},
		{name: "required, grammar but not lazy", q: CallFacts{Family: hermes, Runtime: grammarOnly, Tools: two, Choice: required},
			form: "grammar"},
		{name: "auto, structural tag", q: CallFacts{Family: hermes, Runtime: tagSchema, Tools: two, Choice: auto},
			form: "structural-tag", decision: "structural tag", check: func(t *testing.T, c backend.CompleteRequest) {
				var tag struct {
					Type       string
					Structures []struct{ Begin string }
				}
				if err := json.Unmarshal(c.StructuralTag, &tag); err != nil || tag.Type != "structural_tag" || len(tag.Structures) != 2 ||
					!strings.Contains(string(c.StructuralTag), "<tool_call>") || c.Grammar != "" {
					t.Errorf("structural tag expected: %s (%v)", c.StructuralTag, err)
				}
			}},
		{name: "required, tag runtime: the schema, not the tag", q: CallFacts{Family: hermes, Runtime: tagSchema, Tools: two, Choice: required},
			form: "json-schema", prefill: "<tool_call>\n", check: func(t *testing.T, c backend.CompleteRequest) {
				if len(c.StructuralTag) > 0 {
					t.Errorf("a forced call got the structural tag: %s", c.StructuralTag)
				}
			}},
		{name: "auto, tag runtime, family without a tag form", q: CallFacts{Family: coder, Runtime: tagSchema, Tools: two, Choice: auto},
			decision: "parsed but not constrained (tagged takes"},
		{name: "auto, no grammar in the family", q: CallFacts{Family: family(t, "lmstudio"), Runtime: grammarLazy, Tools: two, Choice: auto},
			decision: "the tool-call format has no call grammar"},
		{name: "auto, unknown family", q: CallFacts{Runtime: grammarLazy, Tools: two, Choice: auto},
			decision: "the tool-call format has no call grammar"},
		{name: "auto, runtime takes nothing", q: CallFacts{Family: hermes, Runtime: nothing, Tools: two, Choice: auto},
			decision: "bare takes no call constraint"},
		{name: "required, takes nothing", q: CallFacts{Family: hermes, Runtime: nothing, Tools: two, Choice: required},
			refusal: "tool_choice"},
		{name: "required, schema, several tools: the call body", q: CallFacts{Family: hermes, Runtime: schemaOnly, Tools: two, Choice: required},
			form: "json-schema", prefill: "<tool_call>\n", decision: "the call opener", check: func(t *testing.T, c backend.CompleteRequest) {
				if !strings.Contains(string(c.JSONSchema), `"get_time"`) || !strings.Contains(string(c.JSONSchema), `"get_weather"`) {
					t.Errorf("the body admits both tools: %s", c.JSONSchema)
				}
			}},
		{name: "named, schema: the arguments", q: CallFacts{Family: hermes, Runtime: schemaOnly, Tools: two, Choice: chat.ToolChoice{Mode: chat.ToolNamed, Name: "get_time"}},
			form: "json-schema", prefill: "<tool_call>\n{\"name\": \"get_time\", \"arguments\": ", decision: `the call to "get_time" opened`},
		{name: "named, schema, not offered", q: CallFacts{Family: hermes, Runtime: schemaOnly, Tools: two, Choice: chat.ToolChoice{Mode: chat.ToolNamed, Name: "nope"}},
			refusal: "tools"},
		{name: "required, schema, one tool, family without a body", q: CallFacts{Family: family(t, "mistral-v11-args"), Runtime: schemaOnly, Tools: one, Choice: required},
			form: "json-schema", prefill: "[TOOL_CALLS]get_weather[ARGS]", decision: `the call to "get_weather" opened`},
		{name: "required, schema, markup arguments", q: CallFacts{Family: coder, Runtime: schemaOnly, Tools: two, Choice: required},
			refusal: "tool_choice"},
		{name: "required, schema, unknown family", q: CallFacts{Runtime: schemaOnly, Tools: one, Choice: required},
			refusal: "tool_choice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			creq := backend.CompleteRequest{Prompt: "PROMPT", MaxTokens: c.maxTokens}
			cp, err := Calls(context.Background(), c.q, &creq)
			if c.refusal != "" {
				var r *Refusal
				if !errors.As(err, &r) || r.Param != c.refusal {
					t.Fatalf("refusal of %s expected, got %v", c.refusal, err)
				}
				if creq.Grammar != "" || len(creq.JSONSchema) > 0 || creq.Prompt != "PROMPT" {
					t.Errorf("a refused request was constrained: %+v", creq)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cp.Form != c.form {
				t.Errorf("form %q, want %q (%q)", cp.Form, c.form, cp.Decisions)
			}
			if c.noDecision != (len(cp.Decisions) == 0) {
				t.Errorf("decisions %q", cp.Decisions)
			}
			if c.decision != "" && !strings.Contains(strings.Join(cp.Decisions, "\n"), c.decision) {
				t.Errorf("decisions %q, want one with %q", cp.Decisions, c.decision)
			}
			if cp.Prefill != c.prefill || creq.Prompt != "PROMPT"+c.prefill {
				t.Errorf("prefill %q, prompt %q; want %q", cp.Prefill, creq.Prompt, c.prefill)
			}
			if c.form == "" && (creq.Grammar != "" || len(creq.JSONSchema) > 0 || len(creq.StructuralTag) > 0) {
				t.Errorf("unconstrained plan constrained the request: %+v", creq)
			}
			if c.form == "json-schema" && (len(creq.JSONSchema) == 0 || strings.HasPrefix(c.prefill, "<tool_call>") != (cp.Suffix != "")) {
				t.Errorf("schema %s, suffix %q", creq.JSONSchema, cp.Suffix)
			}
			if c.check != nil {
				c.check(t, creq)
			}
		})
	}
}

// A forced call's grammar admits reasoning first unless the output limit is
// under ForcedReasoningMin or the plan is for the call alone (NoReasoning).
func TestCallsRoomForReasoning(t *testing.T) {
	hermes := family(t, "hermes")
	call := "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"
	for _, c := range []struct {
		name        string
		maxTokens   int
		noReasoning bool
		reasons     bool
	}{
		{"no limit", 0, false, true},
		{"at the minimum", ForcedReasoningMin, false, true},
		{"under the minimum", ForcedReasoningMin - 1, false, false},
		{"the call alone", 0, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			creq := backend.CompleteRequest{MaxTokens: c.maxTokens}
			q := CallFacts{Family: hermes, Runtime: grammarLazy, Tools: []chat.Tool{tool("get_weather")}, Choice: required, NoReasoning: c.noReasoning}
			if _, err := Calls(context.Background(), q, &creq); err != nil {
				t.Fatal(err)
			}
			g, err := grammar.Parse(creq.Grammar)
			if err != nil || !g.Match(call) {
				t.Fatalf("the grammar refuses the call (%v)", err)
			}
			if got := g.Match("<think>\nhmm\n</think>\n\n" + call); got != c.reasons {
				t.Errorf("reasoning before the call admitted: %v, want %v", got, c.reasons)
			}
		})
	}
}

// A build the client left is the client's leaving; a failed one a refusal
// naming the tools.
func TestToolsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ToolsError(ctx, "call grammar", errors.New("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("left: %v", err)
	}
	var r *Refusal
	if err := ToolsError(context.Background(), "call grammar", errors.New("too big")); !errors.As(err, &r) || r.Param != "tools" || !strings.Contains(r.Msg, "too big") {
		t.Errorf("failed build: %v", err)
	}
}

// Each branch of Mode.
func TestMode(t *testing.T) {
	enforcing := Runtime{Name: "strict", Caps: backend.Capabilities{EnforcesToolChoice: true}, CanComplete: true}
	chatOnly := Runtime{Name: "chatty"}
	named := chat.ToolChoice{Mode: chat.ToolNamed, Name: "f"}
	cases := []struct {
		name     string
		m        ModeFacts
		mode     string
		decision string
		action   string
		refused  bool
	}{
		{"own", ModeFacts{Runtime: grammarLazy, HasTemplate: true}, Own, "", "", false},
		{"own, configured own", ModeFacts{Configured: Own, Runtime: grammarLazy, HasTemplate: true}, Own, "", "", false},
		{"configured relay", ModeFacts{Configured: Relay, Runtime: grammarLazy, HasTemplate: true}, Relay, "relay mode: configured for this upstream", "", false},
		{"no raw prompts", ModeFacts{Runtime: chatOnly, HasTemplate: true}, Relay, "relay mode: the runtime takes no raw prompts", "", false},
		{"no template", ModeFacts{Runtime: grammarLazy}, Relay, "relay mode: the model's chat template is unknown", "", false},
		{"forced, enforced by the chat API", ModeFacts{Runtime: Runtime{Name: "strict", Caps: enforcing.Caps}, Forced: true, Choice: required}, Relay, "relay mode: the runtime takes no raw prompts", "", false},
		{"forced, configured relay, own possible", ModeFacts{Configured: Relay, Runtime: grammarLazy, HasTemplate: true, Forced: true, Choice: named},
			Own, `tool_choice naming "f": lazy's chat API does not enforce it, so this request goes in own mode`, trace.ActionForcedCallOwnMode, false},
		{"forced, no template", ModeFacts{Runtime: grammarLazy, Forced: true, Choice: required}, "", `tool_choice "required" cannot be enforced through lazy's chat API`, trace.ActionForcedCallRefused, true},
		{"forced, no raw prompts", ModeFacts{Runtime: chatOnly, HasTemplate: true, Forced: true, Choice: required}, "", "cannot be enforced through chatty's", trace.ActionForcedCallRefused, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Mode(c.m)
			if got.Mode != c.mode || got.Action != c.action {
				t.Errorf("mode %q action %q, want %q %q", got.Mode, got.Action, c.mode, c.action)
			}
			all := strings.Join(got.Decisions, "\n")
			if got.Err != nil {
				all += "\n" + got.Err.Error()
			}
			if c.decision == "" && all != "" || !strings.Contains(all, c.decision) {
				t.Errorf("reasons %q, want %q", all, c.decision)
			}
			var r *Refusal
			if refused := errors.As(got.Err, &r) && r.Param == "tool_choice"; refused != c.refused {
				t.Errorf("refused %v (%v), want %v", refused, got.Err, c.refused)
			}
		})
	}
	if RuntimeMode(Relay, true) != Relay || RuntimeMode("", true) != Own || RuntimeMode("", false) != Relay || RuntimeMode(Own, false) != Own {
		t.Error("RuntimeMode")
	}
	kinds := OwnModeKinds()
	for _, k := range []backend.Kind{backend.LlamaServer, backend.Ollama, backend.Embedded, backend.VLLM} {
		if !slices.Contains(kinds, k) {
			t.Errorf("OwnModeKinds %v lacks %s", kinds, k)
		}
	}
	for _, k := range []backend.Kind{backend.MLX, backend.OpenAI} {
		if slices.Contains(kinds, k) {
			t.Errorf("OwnModeKinds %v has %s", kinds, k)
		}
	}
	if !slices.IsSorted(kinds) {
		t.Errorf("OwnModeKinds %v not sorted", kinds)
	}
}

// Each branch of the context's size.
func TestContext(t *testing.T) {
	cases := []struct {
		name   string
		c      ContextFacts
		size   int
		raised bool
		refuse bool
	}{
		{"short prompt, default output", ContextFacts{PromptTokens: 100}, MinContext, false, false},
		{"fits the minimum exactly", ContextFacts{PromptTokens: MinContext - DefaultOutput}, MinContext, false, false},
		{"default output pushes past", ContextFacts{PromptTokens: MinContext - DefaultOutput + 1}, 2 * MinContext, true, false},
		{"max_tokens counted", ContextFacts{PromptTokens: 100, MaxTokens: 5000}, 8192, true, false},
		{"negative max_tokens is none", ContextFacts{PromptTokens: 3500, MaxTokens: -1}, 8192, true, false},
		{"powers of two", ContextFacts{PromptTokens: 20000, MaxTokens: 100}, 32768, true, false},
		{"capped at the model's", ContextFacts{PromptTokens: 20000, MaxTokens: 100, Limit: 25000}, 25000, true, false},
		{"the model's unknown", ContextFacts{PromptTokens: 70000}, 131072, true, false},
		{"under the model's", ContextFacts{PromptTokens: 100, Limit: 40960}, MinContext, false, false},
		{"prompt at the limit", ContextFacts{PromptTokens: 64, Limit: 64, Model: "narrow"}, 0, false, true},
		{"prompt past the limit", ContextFacts{PromptTokens: 65, Limit: 64, Model: "narrow"}, 0, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Context(c.c)
			var r *Refusal
			if c.refuse {
				if !errors.As(err, &r) || r.Param != "messages" || !strings.Contains(r.Msg, "narrow's context holds 64") {
					t.Errorf("refusal expected: %v", err)
				}
				return
			}
			if err != nil || got.Size != c.size || got.Raised != c.raised {
				t.Errorf("%+v, %v; want size %d raised %v", got, err, c.size, c.raised)
			}
			if !strings.HasSuffix(got.Decision, "num_ctx "+itoa(c.size)) {
				t.Errorf("decision %q", got.Decision)
			}
		})
	}
	per := backend.Capabilities{ContextPerRequest: true}
	if !SizesContext(per, true) || SizesContext(per, false) || SizesContext(backend.Capabilities{}, true) {
		t.Error("SizesContext")
	}
	e := errors.New("bad file")
	if w := NoTokenizer(per, e); !strings.Contains(w, "num_ctx is left") || !strings.HasSuffix(w, "bad file") {
		t.Errorf("NoTokenizer, per request: %q", w)
	}
	if w := NoTokenizer(backend.Capabilities{}, e); strings.Contains(w, "num_ctx") || !strings.HasSuffix(w, "bad file") {
		t.Errorf("NoTokenizer: %q", w)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Each branch of CloseReasoning.
func TestCloseReasoning(t *testing.T) {
	hermes := family(t, "hermes")
	open := ForcedFacts{Family: hermes, Runtime: grammarLazy, Forced: true, Choice: required, ReasoningOpen: true}
	with := func(f func(*ForcedFacts)) ForcedFacts { q := open; f(&q); return q }
	cases := []struct {
		name      string
		q         ForcedFacts
		maxTokens int
		why       string // "" : not closed
	}{
		{"grammar with room", open, 4000, ""},
		{"grammar, no limit", open, 0, ""},
		{"grammar, small limit", open, 200, "max_tokens 200 leaves no room for reasoning before the call (under 1024)"},
		{"grammar, at the minimum", open, ForcedReasoningMin, ""},
		{"schema only", with(func(q *ForcedFacts) { q.Runtime = schemaOnly }), 4000, "schema constrains the output by a JSON Schema only"},
		{"not open", with(func(q *ForcedFacts) { q.ReasoningOpen = false }), 200, ""},
		{"not forced", with(func(q *ForcedFacts) { q.Forced = false }), 200, ""},
		{"unknown family", with(func(q *ForcedFacts) { q.Family = nil }), 200, ""},
		{"no reasoning closer", with(func(q *ForcedFacts) { q.Family = family(t, "functionary-v3.1") }), 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			closer, why := CloseReasoning(c.q, c.maxTokens)
			if c.why == "" {
				if closer != "" || why != "" {
					t.Errorf("closed: %q, %q", closer, why)
				}
				return
			}
			if closer != "</think>\n\n" || !strings.Contains(why, c.why) || !strings.HasPrefix(why, `tool_choice "required": the prompt closes the reasoning it left open ("</think>")`) {
				t.Errorf("closer %q, why %q; want %q", closer, why, c.why)
			}
		})
	}
}

// Each branch of SplitForcedCall, and the room asked only without a limit.
func TestSplitForcedCall(t *testing.T) {
	hermes := family(t, "hermes")
	base := ForcedFacts{Family: hermes, Runtime: grammarLazy, Forced: true, Choice: required}
	with := func(f func(*ForcedFacts)) ForcedFacts { q := base; f(&q); return q }
	eager := backend.CompleteRequest{Grammar: "root ::= x"}
	limited := func(n int) backend.CompleteRequest { c := eager; c.MaxTokens = n; return c }
	cases := []struct {
		name           string
		q              ForcedFacts
		creq           backend.CompleteRequest
		room           int
		first, reserve int
		why            string
		roomAsked      bool
	}{
		{"max_tokens with room", base, limited(4000), 0, 3000, 1000, "reasoning may use 3000 of max_tokens (4000 tokens); the last 1000 are kept", false},
		{"max_tokens at the minimum", base, limited(ForcedReasoningMin), 0, ForcedReasoningMin - 256, 256, "the last 256", false},
		{"max_tokens under the minimum", base, limited(ForcedReasoningMin - 1), 0, 0, 0, "", false},
		{"no max_tokens, the context's room", base, eager, 8000, 6000, 2000, "of the context's room after the prompt (8000 tokens)", true},
		{"no max_tokens, small room", base, eager, 500, 0, 0, "bounded only by the context", true},
		{"no max_tokens, room unknown", base, eager, 0, 0, 0, "bounded only by the context", true},
		{"reasoning open", with(func(q *ForcedFacts) { q.ReasoningOpen = true }), limited(4000), 0, 3000, 1000, "reasoning may use", false},
		{"family opens no reasoning and the prompt did not", with(func(q *ForcedFacts) { q.Family = family(t, "step3") }), limited(4000), 0, 0, 0, "", false},
		{"the prompt opened it", with(func(q *ForcedFacts) { q.Family, q.ReasoningOpen = family(t, "step3"), true }), limited(4000), 0, 3000, 1000, "reasoning may use", false},
		{"lazy grammar", base, backend.CompleteRequest{Grammar: "g", GrammarLazy: true, MaxTokens: 4000}, 0, 0, 0, "", false},
		{"no grammar", base, backend.CompleteRequest{MaxTokens: 4000}, 0, 0, 0, "", false},
		{"not forced", with(func(q *ForcedFacts) { q.Forced = false }), limited(4000), 0, 0, 0, "", false},
		{"unknown family", with(func(q *ForcedFacts) { q.Family = nil }), limited(4000), 0, 0, 0, "", false},
		{"no reasoning closer", with(func(q *ForcedFacts) { q.Family = family(t, "functionary-v3.1") }), limited(4000), 0, 0, 0, "", false},
	}
	for limit, want := range map[int]int{400: 256, 1024: 256, 1028: 257, 8000: 2000} {
		if got := CallReserve(limit); got != want {
			t.Errorf("CallReserve(%d) = %d, want %d", limit, got, want)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := false
			creq := c.creq
			sp := SplitForcedCall(c.q, &creq, func() int { asked = true; return c.room })
			if sp.First != c.first || sp.Reserve != c.reserve {
				t.Errorf("%+v; want first %d reserve %d", sp, c.first, c.reserve)
			}
			if c.why == "" && sp.Decision != "" || !strings.Contains(sp.Decision, c.why) {
				t.Errorf("decision %q, want %q", sp.Decision, c.why)
			}
			if asked != c.roomAsked {
				t.Errorf("room asked %v, want %v", asked, c.roomAsked)
			}
			if creq.MaxTokens != c.creq.MaxTokens {
				t.Error("SplitForcedCall changed the request")
			}
		})
	}
}
