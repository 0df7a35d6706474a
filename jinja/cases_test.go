package jinja

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"time"
)

// oracleCase is one line of testdata/cases.jsonl: a template, its variables in
// the request shape of the reference renderer, and what Python Jinja2 (set up as
// transformers sets it up) produced. scripts/oracle_cases.py fills want/error.
type oracleCase struct {
	Name     string          `json:"name"`
	Template string          `json:"template"`
	Vars     json.RawMessage `json:"vars"`
	Want     *string         `json:"want"`
	// Skip, when set, says why this case is a known gap we do not reproduce.
	Skip  string `json:"skip,omitempty"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// oracleVars builds the render context as render.py does: messages, tools,
// documents and add_generation_prompt, then kwargs on top.
func oracleVars(t testing.TB, raw json.RawMessage) map[string]Value {
	vars := map[string]Value{"messages": NewList(nil), "tools": nil, "documents": nil, "add_generation_prompt": false}
	if len(raw) == 0 {
		return vars
	}
	v, err := FromJSON(raw)
	if err != nil {
		t.Fatalf("vars: %v", err)
	}
	d := v.(*Dict)
	for i, k := range d.Keys() {
		name := k.(string)
		switch name {
		case "kwargs":
			kw := d.Values()[i].(*Dict)
			for j, kk := range kw.Keys() {
				vars[kk.(string)] = kw.Values()[j]
			}
		case "add_generation_prompt":
			vars[name] = truthy(d.Values()[i])
		default:
			vars[name] = d.Values()[i]
		}
	}
	return vars
}

func loadOracleCases(t testing.TB, path string) []oracleCase {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []oracleCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c oracleCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cases = append(cases, c)
	}
	return cases
}

var oracleNow = func() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.Local) }

// renderCase compiles and renders one case; compile errors count as errors, as
// they do for transformers.
func renderCase(t testing.TB, c oracleCase) (string, error) {
	tpl, err := Compile(c.Template)
	if err != nil {
		return "", err
	}
	return tpl.Render(oracleVars(t, c.Vars), &Options{Now: oracleNow})
}

// TestOracleCases checks hand-written cases and every difference the
// differential fuzzer has found against the reference renderer's output.
func TestOracleCases(t *testing.T) {
	for _, file := range []string{"testdata/cases.jsonl", "testdata/fuzz_regressions.jsonl"} {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		for _, c := range loadOracleCases(t, file) {
			t.Run(c.Name, func(t *testing.T) {
				if c.Skip != "" {
					t.Skip(c.Skip)
				}
				got, err := renderCase(t, c)
				switch {
				case c.Error != nil && err == nil:
					t.Errorf("want %s: %s\n got output %q", c.Error.Type, c.Error.Message, got)
				case c.Error != nil:
					if e, ok := err.(*Error); !ok || e.Kind != c.Error.Type {
						t.Logf("error kind differs: want %s: %s, got %v", c.Error.Type, c.Error.Message, err)
					}
				case err != nil:
					t.Errorf("unexpected error %v\nwant %q", err, *c.Want)
				case normalizeAddrs(got) != normalizeAddrs(*c.Want):
					t.Errorf("\n got %q\nwant %q", got, *c.Want)
				}
			})
		}
	}
}

var addrRE = regexp.MustCompile(`at 0x[0-9a-f]+`)

// normalizeAddrs blanks the memory addresses Python prints for generators and
// methods, which differ from run to run.
func normalizeAddrs(s string) string { return addrRE.ReplaceAllString(s, "at 0x0") }
