package bench

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// sameAsEncodingJSON checks ParseValue against encoding/json: both accept
// or both refuse, and an accepted document written back by AppendJSON
// decodes (with UseNumber) to what the original decodes to.
func sameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	v, err := ParseValue(data)
	if err == nil && pythonOnly.Match(data) {
		return // NaN and the infinities, which encoding/json refuses
	}
	if valid := json.Valid(data); (err == nil) != valid {
		t.Fatalf("%q: ParseValue error %v, json.Valid %v", data, err, valid)
	}
	if err != nil {
		return
	}
	want, got := decodeStd(t, data), decodeStd(t, v.AppendJSON(nil))
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%q: read back as %v, want %v", data, got, want)
	}
}

func decodeStd(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	return v
}

var pythonOnly = regexp.MustCompile(`NaN|Infinity`)

var jsonSeeds = []string{
	`{}`, `[]`, `{"a": [1, -2.5e+3, 0, -0, 1E2, true, false, null, "x"]}`, ` {"a" : 1 , "a": 2} `,
	`"\u00e9\ud83d\ude00\n\t\"\\\/"`, `"é 한국어"`, "\"bad \xff utf8\"", `01`, `1.`, `.5`, `-`, `1e`, `+1`,
	`[1,]`, `{"a":}`, `{"a" 1}`, `{,}`, `[1 2]`, `tru`, `nulll`, `"\x"`, "\"a\x01\"", `"open`, `[`, `{"a":1`,
	`123456789012345678901234567890`, `1e999`, ``, ` `, `[[[[]]]]`, `{"":""}`,
}

// TestParseValuePython: what json.loads takes beyond RFC 8259.
func TestParseValuePython(t *testing.T) {
	for in, want := range map[string]string{`[NaN, Infinity, -Infinity]`: `[NaN,Infinity,-Infinity]`, `{"x": -Infinity}`: `{"x":-Infinity}`} {
		v, err := ParseValue([]byte(in))
		if err != nil || v.String() != want {
			t.Errorf("%s: %v %v", in, v, err)
		}
	}
	nan, _ := ParseValue([]byte(`NaN`))
	if nan.Kind() != KindFloat || Equal(nan, nan) {
		t.Errorf("NaN: %v, equal to itself %v", nan.Kind(), Equal(nan, nan))
	}
	for _, bad := range []string{`nan`, `Inf`, `-Infinit`, `+Infinity`, `NaNa`} {
		if _, err := ParseValue([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestParseValueAgainstEncodingJSON(t *testing.T) {
	for _, s := range jsonSeeds {
		sameAsEncodingJSON(t, []byte(s))
	}
}

func FuzzParseValue(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsEncodingJSON(t, data) })
}

// TestParseValueBFCL: staged lines read as encoding/json reads them.
func TestParseValueBFCL(t *testing.T) {
	t.Parallel() // the two slowest tests, side by side
	dir := filepath.Join(fixtures.Require(t), "bench", "bfcl")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) != 19 {
		t.Fatalf("%d staged files", len(files))
	}
	for _, f := range files {
		lines, err := readLines(f)
		if err != nil {
			t.Fatal(err)
		}
		// Every answer line; every eighth question line, which keeps the
		// test short while still covering each file's shapes (all of them
		// are read by the loader in the other tests anyway).
		step := 8
		if filepath.Base(filepath.Dir(f)) == "possible_answer" {
			step = 1
		}
		for i := 0; i < len(lines); i += step {
			sameAsEncodingJSON(t, lines[i])
		}
	}
}
