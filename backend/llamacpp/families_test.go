package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// familyTools have a string, an integer, an enum and a boolean parameter
// between them, some optional.
var familyTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Description: "Current weather",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"city":{"type":"string"},
			"days":{"type":"integer"},
			"unit":{"type":"string","enum":["celsius","fahrenheit"]},
			"alerts":{"type":"boolean"}},
			"required":["city","unit"]}`)}},
	{Type: "function", Function: chat.ToolFunction{Name: "set_alarm", Description: "Set an alarm",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"minutes":{"type":"integer"},
			"loud":{"type":"boolean"},
			"repeat":{"type":"object","properties":{
				"days":{"type":"array","items":{"type":"string","enum":["mon","tue"]}},
				"until":{"type":"string"}},"required":["days"]}},
			"required":["minutes","loud"]}`)}},
}

// Every family's call grammar, as format.Family.Constrain builds it for
// tool_choice "auto" and "required", is taken by llama.cpp's own grammar
// parser (straight to llama_sampler_init_grammar, without the engine's GBNF
// check first) eagerly and lazily with the family's triggers as words, and
// the engine samples from it with the random model. A grammar llama.cpp
// refuses (NULL) fails the test with what llama.cpp logged. Families without
// a call syntax are listed in the log; those added later are picked up.
func TestFamilyGrammars(t *testing.T) {
	e := tiny(t)
	m, err := e.model("tiny-qwen3-random")
	if err != nil {
		t.Fatal(err)
	}
	var without []string
	loaded := 0
	for _, f := range format.Families() {
		if f.Calls == nil {
			without = append(without, f.ID)
			continue
		}
		for _, mode := range []string{"auto", "required"} {
			c, err := f.Constrain(familyTools, format.ToolChoice{Mode: mode}, false)
			if err != nil {
				t.Errorf("%s %s: Constrain: %v", f.ID, mode, err)
				continue
			}
			if c == nil || c.Grammar == "" {
				t.Errorf("%s %s: no grammar", f.ID, mode)
				continue
			}
			for _, lazy := range []bool{false, true} {
				way := "eager"
				if lazy {
					way = "lazy"
				}
				name := f.ID + " " + mode + " " + way
				if lazy && len(c.Triggers) == 0 {
					t.Errorf("%s: the family has no triggers", name)
					continue
				}
				if !refusedByLlama(t, m, name, c.Grammar, lazy, c.Triggers) {
					loaded++
				}
				generate(t, e, name, c.Grammar, lazy, c.Triggers)
			}
		}
	}
	if len(without) == 0 {
		without = []string{"none"}
	}
	t.Logf("%d grammars loaded by llama.cpp (eager and lazy, auto and required); families without a call syntax: %s", loaded, strings.Join(without, ", "))
	if loaded == 0 {
		t.Fatal("no family has a call syntax")
	}
}

// refusedByLlama loads gbnf into llama.cpp directly and reports an error
// when it returns NULL; true when it did.
func refusedByLlama(t *testing.T, m *model, name, gbnf string, lazy bool, triggers []string) bool {
	t.Helper()
	if err := m.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.release()
	var pats []string
	for _, w := range triggers {
		pats = append(pats, regexp.QuoteMeta(w)) // as checkGrammar makes "word" triggers
	}
	s, err := m.initGrammar(gbnf, lazy, pats)
	if err != nil {
		t.Errorf("%s: %v\n%s", name, err, gbnf)
		return true
	}
	llamaSamplerFree(s)
	return false
}

// generate samples up to 4 tokens under the grammar through the engine.
func generate(t *testing.T, e *Engine, name, gbnf string, lazy bool, triggers []string) {
	t.Helper()
	req := backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 4, Seed: i64(1), Grammar: gbnf, GrammarLazy: lazy}
	for _, w := range triggers {
		req.GrammarTriggers = append(req.GrammarTriggers, backend.GrammarTrigger{Type: "word", Value: w})
	}
	s, err := e.Complete(context.Background(), req)
	if err != nil {
		t.Errorf("%s: the engine refused the grammar: %v", name, err)
		return
	}
	text, last := collect(t, s)
	if last.Usage == nil || last.Usage.CompletionTokens < 1 {
		t.Errorf("%s: no token generated (%q, %+v)", name, text, last)
	}
}

// A grammar llama.cpp refuses is reported, not passed on as a NULL sampler:
// a parse error (llama.cpp prints the details to stderr and logs that it
// failed) and a left recursion (logged), eager and lazy.
func TestGrammarRefusedByLlama(t *testing.T) {
	m, err := tiny(t).model("tiny-qwen3-random")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.release()
	for _, c := range []struct{ gbnf, why string }{
		{`root ::= "unclosed`, "failed to parse grammar"},
		{`root ::= root "a" | "b"`, "left recursion"},
	} {
		for _, lazy := range []bool{false, true} {
			s, err := m.initGrammar(c.gbnf, lazy, []string{"x"})
			var be *backend.Error
			if s != 0 || !errors.As(err, &be) || be.Status != 400 || !strings.Contains(be.Message, "llama.cpp refused the grammar") || !strings.Contains(be.Message, c.why) {
				t.Errorf("%q lazy %v: sampler %v, err %v", c.gbnf, lazy, s, err)
			}
		}
	}
}
