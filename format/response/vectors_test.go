package response

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// vector is one line of vectors-transformers-tests.jsonl.
type vector struct {
	ID       string          `json:"id"`
	Template string          `json:"template"`
	Inline   json.RawMessage `json:"response_template"`
	Prefix   string          `json:"prefix"`
	Tools    []chat.Tool     `json:"tools"`
	Text     *string         `json:"text"`
	Chunks   []string        `json:"chunks"`
	Expected json.RawMessage `json:"expected"`
}

func (v *vector) generation() string {
	if v.Text != nil {
		return *v.Text
	}
	return strings.Join(v.Chunks, "")
}

func templatesDir(t testing.TB) string {
	return filepath.Join(fixtures.Require(t), "response-templates")
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	dir := templatesDir(t)
	f, err := os.Open(filepath.Join(dir, "vectors-transformers-tests.jsonl"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("response-template vectors missing: %v", err)
	}
	defer f.Close()
	var out []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (v *vector) templateSource(t testing.TB) []byte {
	if v.Template != "" {
		data, err := os.ReadFile(filepath.Join(templatesDir(t), v.Template+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return v.Inline
}

type expectation struct {
	message any
	isErr   bool
	events  []Event // initial + chunks + final, when the vector carries them
	hasEvs  bool
}

func (v *vector) expectation(t testing.TB) expectation {
	ev, err := ParseJSON(string(v.Expected))
	if err != nil {
		t.Fatal(err)
	}
	o := ev.(*Object)
	var e expectation
	if _, ok := o.Get("error"); ok {
		e.isErr = true
		return e
	}
	e.message = o.Val("message")
	if ie, ok := o.Get("initial_events"); ok {
		e.hasEvs = true
		add := func(l any) {
			for _, x := range l.([]any) {
				xo := x.(*Object)
				evt := Event{Type: xo.Val("type").(string), Field: xo.Val("field").(string), Value: xo.Val("value")}
				if s, ok := xo.Val("text").(string); ok {
					evt.Text = s
				}
				if d, ok := xo.Val("dirty").(bool); ok {
					evt.Dirty = d
				}
				e.events = append(e.events, evt)
			}
		}
		add(ie)
		for _, c := range o.Val("chunk_events").([]any) {
			add(c)
		}
		add(o.Val("final_events"))
	}
	return e
}

// run parses the vector's generation in the given pieces.
func run(tpl *Template, v *vector, pieces []string, ref bool) (*Object, []Event, error) {
	p, evs, err := NewParser(tpl, Options{Prefix: v.Prefix, Tools: v.Tools, Reference: ref})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range pieces {
		e, err := p.Feed(c)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, e...)
	}
	e, err := p.Finish()
	if err != nil {
		return nil, nil, err
	}
	return p.Message(), append(evs, e...), nil
}

// equalValues compares parsed values structurally, numbers by value.
func equalValues(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool, string:
		return a == b
	case Number:
		bn, ok := b.(Number)
		if !ok {
			return false
		}
		if !a.Finite() || !bn.Finite() {
			return a.Lit == bn.Lit
		}
		x, _, err1 := big.ParseFloat(a.Lit, 10, 200, big.ToNearestEven)
		y, _, err2 := big.ParseFloat(bn.Lit, 10, 200, big.ToNearestEven)
		return err1 == nil && err2 == nil && x.Cmp(y) == 0
	case *Object:
		bo, ok := b.(*Object)
		if !ok || a.Len() != bo.Len() {
			return false
		}
		for _, k := range a.Keys {
			bv, ok := bo.Get(k)
			if !ok || !equalValues(a.Val(k), bv) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalValues(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// eventSummary is what the spec fixes about events: the open/close
// sequence with the close values, and the text per region between them.
func eventSummary(evs []Event) string {
	var b strings.Builder
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			fmt.Fprintf(&b, "  text %q\n", text.String())
			text.Reset()
		}
	}
	for _, e := range evs {
		switch e.Type {
		case "region_chunk":
			text.WriteString(e.Text)
			if e.Dirty {
				text.WriteString("") // dirty checked separately
			}
		default:
			flush()
			fmt.Fprintf(&b, "%s %s", e.Type, e.Field)
			if e.Type == "region_close" {
				fmt.Fprintf(&b, " %s", canonical(e.Value))
			}
			b.WriteByte('\n')
		}
	}
	flush()
	return b.String()
}

// canonical writes a value with sorted keys and numbers by value.
func canonical(v any) string {
	switch v := v.(type) {
	case *Object:
		keys := append([]string(nil), v.Keys...)
		for i := 1; i < len(keys); i++ {
			for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
			}
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%q:%s", k, canonical(v.Val(k))))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		var parts []string
		for _, e := range v {
			parts = append(parts, canonical(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case Number:
		if f, _, err := big.ParseFloat(v.Lit, 10, 200, big.ToNearestEven); err == nil {
			return f.Text('g', 30)
		}
		return v.Lit
	}
	return encodeValue(v)
}

func dirtyOK(evs []Event, tpl *Template) bool {
	for _, e := range evs {
		if e.Type != "region_chunk" {
			continue
		}
		for _, f := range tpl.fields {
			if f.Name == e.Field && f.dirty != e.Dirty {
				return false
			}
		}
	}
	return true
}

// dragomanDiffers lists the vectors on which Dragoman's own answer (without
// Options.Reference) differs from the reference's on purpose, and why.
var dragomanDiffers = map[string]string{
	"upstream/ChatResponseTemplateParserTest.test_transform_dotted_path_errors#1":                 "a transform that cannot be resolved fails the whole parse in the reference; Dragoman keeps the region's text in content with a malformed-region diagnostic",
	"upstream/ChatResponseTemplateParserTest.test_transform_dotted_path_errors#2":                 "as #1: the region is kept as content with a diagnostic",
	"upstream/ChatResponseTemplateParserTest.test_transform_dotted_path_errors#3":                 "as #1: the region is kept as content with a diagnostic",
	"upstream/ChatResponseTemplateParserTest.test_join_requires_string_matches":                   "a non-string match under join fails the parse in the reference; Dragoman keeps the region as content with a diagnostic",
	"upstream/ChatResponseTemplateParserTest.test_optional_false_raises_when_missing":             "a missing required field fails the parse in the reference; Dragoman returns the message with a missing-field diagnostic, and the text outside every region in content",
	"upstream/ChatResponseTemplateParserTest.test_literal_list_defers_prefix_overlapping_literal": "the reference drops \" more\" after the region (the template has no implicit field); Dragoman keeps it in content with an unclaimed-text diagnostic",
}

// TestVectors runs every transcribed transformers test case, one-shot and
// streamed, in reference mode (must equal the reference's answer) and in
// Dragoman's mode (must equal it too, except where dragomanDiffers says why).
func TestVectors(t *testing.T) {
	vectors := loadVectors(t)
	if len(vectors) != 176 {
		t.Errorf("%d vectors, want 176", len(vectors))
	}
	counts := map[string]int{}
	for _, mode := range []string{"reference", "dragoman"} {
		for i := range vectors {
			v := &vectors[i]
			t.Run(mode+"/"+v.ID, func(t *testing.T) {
				if reason, ok := dragomanDiffers[v.ID]; ok && mode == "dragoman" {
					counts[mode+"-differs"]++
					checkDiffers(t, v, reason)
					return
				}
				checkVector(t, v, mode == "reference")
				if !t.Failed() && !t.Skipped() {
					counts[mode]++
				}
			})
		}
	}
	t.Logf("reference mode: %d/%d pass; Dragoman mode: %d pass, %d differ on purpose", counts["reference"], len(vectors), counts["dragoman"], counts["dragoman-differs"])
}

func checkVector(t *testing.T, v *vector, ref bool) {
	exp := v.expectation(t)
	tpl, err := Load(v.templateSource(t))
	if err != nil {
		if !exp.isErr {
			t.Fatalf("template rejected: %v", err)
		}
		return
	}
	gen := v.generation()
	msg, _, err := Parse(tpl, gen, Options{Prefix: v.Prefix, Tools: v.Tools, Reference: ref})
	if exp.isErr {
		if err == nil {
			t.Fatalf("parsed as %s, want an error", encodeValue(msg))
		}
	} else if err != nil {
		t.Fatalf("error %v, want %s", err, canonical(exp.message))
	} else if !equalValues(msg, exp.message) {
		t.Fatalf("one-shot message\n got  %s\n want %s", canonical(msg), canonical(exp.message))
	}
	// streamed: the vector's own chunks, byte by byte, and random splits all
	// give the one-shot answer
	splits := [][]string{bytewise(gen)}
	if v.Chunks != nil {
		splits = append(splits, v.Chunks)
	}
	rng := rand.New(rand.NewPCG(uint64(len(gen)), 19))
	for k := 0; k < 5; k++ {
		splits = append(splits, randomSplit(gen, rng))
	}
	for si, pieces := range splits {
		smsg, evs, serr := run(tpl, v, pieces, ref)
		if (serr != nil) != (err != nil) {
			t.Fatalf("split %d: streamed error %v, one-shot error %v", si, serr, err)
		}
		if serr != nil {
			continue
		}
		if !equalValues(smsg, msg) {
			t.Fatalf("split %d: streamed message %s, one-shot %s", si, canonical(smsg), canonical(msg))
		}
		if !dirtyOK(evs, tpl) {
			t.Fatalf("split %d: a region_chunk's dirty flag disagrees with its parser", si)
		}
		if exp.hasEvs && ref {
			if got, want := eventSummary(evs), eventSummary(exp.events); got != want {
				t.Fatalf("split %d: events\n got:\n%s want:\n%s", si, got, want)
			}
		}
	}
}

func checkDiffers(t *testing.T, v *vector, reason string) {
	t.Logf("differs from the reference on purpose: %s", reason)
	exp := v.expectation(t)
	tpl, err := Load(v.templateSource(t))
	if err != nil {
		t.Fatalf("template rejected: %v", err)
	}
	msg, diags, err := Parse(tpl, v.generation(), Options{Prefix: v.Prefix, Tools: v.Tools})
	if err != nil {
		t.Fatalf("Dragoman's mode failed: %v", err)
	}
	if !exp.isErr && equalValues(msg, exp.message) {
		t.Fatalf("listed as differing, but equals the reference's answer %s", canonical(msg))
	}
	if len(diags) == 0 {
		t.Fatalf("differs from the reference (%s) without a diagnostic", canonical(msg))
	}
}

func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

func randomSplit(s string, rng *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + rng.IntN(min(len(s), 12))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
