package format

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

var fuzzTools = []chat.Tool{
	{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"location": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}, "tags": {"type": "array"}}}`)}},
	{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(`{"type": "object"}`)}},
}

// accounter is implemented by parsers that count the markup bytes they
// recognised, so that tests can check that no byte was lost.
type accounter interface{ markupLen() int }

// FuzzFamilies feeds arbitrary output to every family, whole and in two
// pieces: no panic; the same result either way; and every byte of the output
// ends up in the content, in the reasoning, or in recognised markup.
//
//	go test ./format -run '^$' -fuzz FuzzFamilies -fuzztime 60s
func FuzzFamilies(f *testing.F) { fuzzFamilies(f, Families()) }

// fuzzFamily is one family's own fuzz target (fuzz_families_test.go): its
// vectors as the seed corpus, so that `go test -fuzz` spends its time on
// that family's markup.
func fuzzFamily(f *testing.F, id string) {
	fam, ok := Lookup(id)
	if !ok {
		f.Fatalf("no family %s", id)
	}
	fuzzFamilies(f, []*Family{fam})
}

func fuzzFamilies(f *testing.F, fams []*Family) {
	only := map[string]bool{}
	for _, fam := range fams {
		only[fam.ID] = true
	}
	for _, v := range loadVectors(f) {
		if len(fams) > 1 || only[v.Family] {
			f.Add(v.Input, uint(len(v.Input)/2), false)
		}
	}
	f.Add("<think>a</think>b<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>c", uint(7), true)
	f.Fuzz(func(t *testing.T, out string, split uint, open bool) {
		cut := int(split % uint(len(out)+1))
		// Half the runs offer tools, so that schema typing and the
		// undeclared-tool paths are fuzzed too.
		var tools []chat.Tool
		if split%2 == 1 {
			tools = fuzzTools
		}
		for _, fam := range fams {
			opts := Options{ReasoningOpen: open, Tools: tools, NewID: func() string { return "id" }}
			whole := fam.New(opts)
			r := Run(whole, out)
			if got := Run(fam.New(opts), out[:cut], out[cut:]); !equalResults(got, r) {
				t.Fatalf("%s: split at %d differs:\n got %+v\nwant %+v", fam.ID, cut, got, r)
			}
			if a, ok := whole.(accounter); ok {
				if n := len(r.Content) + len(r.Reasoning) + a.markupLen(); n != len(out) {
					t.Fatalf("%s: %d of %d bytes accounted for (content %q, reasoning %q)", fam.ID, n, len(out), r.Content, r.Reasoning)
				}
			}
			if utf8.ValidString(out) && (!utf8.ValidString(r.Content) || !utf8.ValidString(r.Reasoning)) {
				t.Fatalf("%s: valid UTF-8 in, invalid out", fam.ID)
			}
		}
	})
}

func equalResults(a, b Result) bool {
	if a.Content != b.Content || a.Reasoning != b.Reasoning || len(a.ToolCalls) != len(b.ToolCalls) || len(a.Diagnostics) != len(b.Diagnostics) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	for i := range a.Diagnostics {
		if a.Diagnostics[i] != b.Diagnostics[i] {
			return false
		}
	}
	return true
}

// fuzzName is a family's fuzz target's name: Fuzz and its id in camel case
// ("deepseek-v3.2-dsml" → FuzzDeepseekV32Dsml).
func fuzzName(id string) string {
	var b strings.Builder
	b.WriteString("Fuzz")
	up := true
	for _, r := range id {
		switch {
		case r == '-' || r == '.' || r == '_':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every family has a fuzz target of its own in fuzz_families_test.go.
func TestFuzzTargetPerFamily(t *testing.T) {
	src, err := os.ReadFile("fuzz_families_test.go")
	if err != nil {
		t.Fatal(err)
	}
	have := strings.Join(strings.Fields(string(src)), " ") // gofmt aligns the bodies
	for _, f := range Families() {
		want := "func " + fuzzName(f.ID) + "(f *testing.F) { fuzzFamily(f, \"" + f.ID + "\") }"
		if !strings.Contains(have, want) {
			t.Errorf("no fuzz target for %s: add %q to fuzz_families_test.go", f.ID, want)
		}
	}
}
