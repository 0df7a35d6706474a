package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// e2eSuite: four weather questions whose outcomes for the scripted model
// (it always calls get_weather with {"city": "Paris"}) are known.
const e2eSuite = `{"id": "paris", "category": "calls", "messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [` + e2eTool + `], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}}
{"id": "london", "category": "calls", "messages": [{"role": "user", "content": "Weather in London?"}], "tools": [` + e2eTool + `], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["London"]}}]}}
{"id": "irrelevant", "category": "relevance", "messages": [{"role": "user", "content": "Tell me a joke."}], "tools": [` + e2eTool + `], "expected": {"mode": "no_call"}}
{"id": "relevant", "category": "relevance", "messages": [{"role": "user", "content": "Is it raining?"}], "tools": [` + e2eTool + `], "expected": {"mode": "any_call"}}
`

const e2eTool = `{"type": "function", "function": {"name": "get_weather", "description": "Current weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}`

// The scripted model over the embedded engine scores exactly what its one
// answer earns on each question (Paris passes, London fails on the value,
// the irrelevance item fails on the call, the relevance item passes), and
// the relay side over a runtime that leaves every third call in the text
// (the third question here) shows it: paired, only the relay side passes
// the irrelevance item.
func TestEndToEndEngine(t *testing.T) {
	if os.Getenv(llamacpp.EnvLib) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("$%s unset", llamacpp.EnvLib)
		}
		t.Skipf("$%s unset: the embedded engine's libraries", llamacpp.EnvLib)
	}
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	s, err := ReadSuite(strings.NewReader(e2eSuite), "e2e")
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeOllama(t)
	engine, relay := mustSide(t, "gguf="+model), mustSide(t, "ollama="+f.URL+"#fake@relay")
	dir := t.TempDir()
	recs, err := Run(context.Background(), RunConfig{Sides: []Side{engine, relay}, Items: s.Items, Dir: dir, Seed: 3, MaxTokens: 40,
		Engine: llamacpp.Options{ContextSize: 1024, Threads: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // side/item → failure kind, "" for a pass
		"e/paris": "", "e/london": string(ErrString), "e/irrelevant": string(ErrCallMade), "e/relevant": "",
		"r/paris": "", "r/london": string(ErrString), "r/irrelevant": "", "r/relevant": "",
	}
	for _, r := range recs {
		k := map[string]string{engine.Spec: "e", relay.Spec: "r"}[r.Side] + "/" + r.Item
		if r.Pass != (want[k] == "") || r.Kind != want[k] || r.Error != "" {
			t.Errorf("%s: pass %v kind %q (want %q), error %q, completion %q", k, r.Pass, r.Kind, want[k], r.Error, r.Completion)
		}
		// Every failure here is the model's: the scripted call was
		// rendered, generated, parsed and checked as it was written.
		if !r.Pass && r.Attribution != CauseModel {
			t.Errorf("%s: attributed to %q (%s), want model", k, r.Attribution, r.Why)
		}
		if r.Side == engine.Spec && (!strings.Contains(r.Completion, `"Paris"`) || r.TraceID == "" || r.PromptTokens == 0) {
			t.Errorf("%s: completion %q, trace %q, %d prompt tokens", k, r.Completion, r.TraceID, r.PromptTokens)
		}
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	sum := Summarize(s.Items, []Side{engine, relay}, recs, 3)
	if e := sum.Sides[0].Overall; e.Pass != 2 || e.N != 4 {
		t.Errorf("engine side: %+v, want 2 of 4", e)
	}
	if p := sum.Pairs[0].Overall; p.OnlyA != 0 || p.OnlyB != 1 || p.Both != 2 || p.Neither != 1 || p.P != 1 {
		t.Errorf("pair: %+v", p)
	}
}
