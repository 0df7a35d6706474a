package format

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
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
//
// With $DRAGOMAN_FUZZ_FAMILY (family ids, comma-separated) it fuzzes those
// alone, their vectors as the seed corpus, so that the time goes to their
// markup; a family needs no target of its own:
//
//	DRAGOMAN_FUZZ_FAMILY=hermes go test ./format -run '^$' -fuzz FuzzFamilies
func FuzzFamilies(f *testing.F) {
	fams, err := fuzzedFamilies(os.Getenv("DRAGOMAN_FUZZ_FAMILY"))
	if err != nil {
		f.Fatal(err)
	}
	fuzzFamilies(f, fams)
}

// fuzzedFamilies reads $DRAGOMAN_FUZZ_FAMILY: every family when empty.
func fuzzedFamilies(ids string) ([]*Family, error) {
	if strings.TrimSpace(ids) == "" {
		return Families(), nil
	}
	var fams []*Family
	for _, id := range strings.Split(ids, ",") {
		fam, ok := Lookup(strings.TrimSpace(id))
		if !ok {
			return nil, fmt.Errorf("DRAGOMAN_FUZZ_FAMILY: no family %q", id)
		}
		fams = append(fams, fam)
	}
	return fams, nil
}

func fuzzFamilies(f *testing.F, fams []*Family) {
	only := map[string]bool{}
	for _, fam := range fams {
		only[fam.ID] = true
	}
	for _, v := range loadVectors(f) {
		if only[v.Family] {
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

func TestFuzzedFamilies(t *testing.T) {
	all, err := fuzzedFamilies("")
	if err != nil || len(all) != len(Families()) {
		t.Fatalf("empty: %d families, %v", len(all), err)
	}
	two, err := fuzzedFamilies("hermes, qwen3-coder-xml")
	if err != nil || len(two) != 2 || two[0].ID != "hermes" || two[1].ID != "qwen3-coder-xml" {
		t.Fatalf("two: %v, %v", two, err)
	}
	if _, err := fuzzedFamilies("hermes,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("an unknown family: %v", err)
	}
}
