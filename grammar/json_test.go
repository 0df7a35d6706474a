package grammar

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The reader's strings: plain ones sliced, escaped ones decoded, a raw
// control character refused, the same answers as encoding/json.
func TestReadJSONStrings(t *testing.T) {
	for _, c := range []string{
		`"plain"`, `"with \"escapes\" and \\ and \n"`, `"\u00e9\ud83d\ude00"`, `"a long string without any escape at all, longer than eight bytes"`,
		"\"tab\there\"", "\"new\nline in a long string ........\"", `"unterminated`, `""`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(c), &want)
		r, v, err := readJSON(c)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, encoding/json %v", c, err, wantErr)
			continue
		}
		if err != nil {
			if strings.ContainsAny(c, "\t\n") && !strings.Contains(err.Error(), "control character") {
				t.Errorf("%q: %v", c, err)
			}
			continue
		}
		if v.kind != jString || v.str != want {
			t.Errorf("%q: %q, want %q", c, v.str, want)
		}
		r.release()
	}
}

// A pooled reader gives each document a tree of its own: reading another
// after releasing one changes nothing in a tree still held by another reader.
func TestReadJSONPooled(t *testing.T) {
	r1, a, err := readJSON(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		r2, b, err := readJSON(`{"type":"array","items":{"enum":[1,2,3]},"minItems":2}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendJSON(nil, b)); got != `{"type":"array","items":{"enum":[1,2,3]},"minItems":2}` {
			t.Fatalf("second document: %s", got)
		}
		r2.release()
	}
	if got := string(appendJSON(nil, a)); got != `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}` {
		t.Errorf("first document after others were read: %s", got)
	}
	r1.release()
}

// FuzzReadJSON: the reader accepts what encoding/json accepts (below its
// depth limit), its tree written back decodes to the same value, and a tree
// still held is unchanged by documents read and released after it.
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"string"}}}`, `[1,2.5e3,-0,"x\u00e9",true,null]`,
		`{"a":{"a":{"a":[]}}}`, `"\ud83d\ude00"`, `{"k":1,"k":2}`, `01`, `{"a" 1}`, ` [ ] `} {
		f.Add(s, `{"other":[1,2,3],"more":{"x":"y"}}`)
	}
	f.Fuzz(func(t *testing.T, doc, other string) {
		if strings.Count(doc, "[")+strings.Count(doc, "{") > 150 {
			return // past the reader's nesting limit, which encoding/json does not have
		}
		r, v, err := readJSON(doc)
		if (err == nil) != json.Valid([]byte(doc)) {
			t.Fatalf("%q: reader error %v, encoding/json valid %v", doc, err, json.Valid([]byte(doc)))
		}
		if err != nil {
			return
		}
		defer r.release()
		written := string(appendJSON(nil, v))
		decode := func(s string) (any, error) {
			d := json.NewDecoder(strings.NewReader(s))
			d.UseNumber() // numbers as written: 1E700 is valid JSON, not a float64
			var v any
			return v, d.Decode(&v)
		}
		a, err := decode(doc)
		if err != nil {
			t.Fatal(err)
		}
		b, err := decode(written)
		if err != nil {
			t.Fatalf("%q written as %q: %v", doc, written, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q written as %q: %v, want %v", doc, written, b, a)
		}
		for i := 0; i < 2; i++ {
			if r2, _, err := readJSON(other); err == nil {
				r2.release()
			}
		}
		if again := string(appendJSON(nil, v)); again != written {
			t.Fatalf("%q: the tree changed after other documents were read: %q, then %q", doc, written, again)
		}
	})
}
