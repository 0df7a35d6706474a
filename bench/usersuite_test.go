package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

const weatherTool = `{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer"}}, "required": ["city"]}}}`
const timeTool = `{"name": "get_time", "description": "Time.", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}`

var userSuite = strings.Join([]string{
	`{"id": "one", "messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": [` + weatherTool + `], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris", "Paris, France"], "unit": ["", "celsius"]}}]}}`,
	``,
	`{"id": "two", "category": "choice", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Time in Tokyo?"}], "tools": [` + weatherTool + `, ` + timeTool + `], "expected": {"calls": [{"name": "get_time", "arguments": {"zone": ["Asia/Tokyo"]}}]}}`,
	`{"id": "both", "messages": [{"role": "user", "content": "Weather and time in Oslo?"}], "tools": [` + weatherTool + `, ` + timeTool + `], "expected": {"calls": [{"name": "get_time", "arguments": {"zone": ["Europe/Oslo"]}}, {"name": "get_weather", "arguments": {"city": ["Oslo"]}}]}}`,
	`{"id": "none", "messages": [{"role": "user", "content": "Hi!"}], "tools": [` + weatherTool + `], "expected": {"mode": "no_call"}}`,
	`{"id": "any", "messages": [{"role": "user", "content": "Weather somewhere?"}], "tools": [` + weatherTool + `], "expected": {"mode": "any_call"}}`,
}, "\n")

func TestReadSuite(t *testing.T) {
	s, err := ReadSuite(strings.NewReader(userSuite), "probe")
	if err != nil {
		t.Fatal(err)
	}
	modes := []Mode{ModeSimple, ModeMultiple, ModeParallel, ModeNoCall, ModeAnyCall}
	if len(s.Items) != len(modes) {
		t.Fatalf("%d items", len(s.Items))
	}
	for i, m := range modes {
		if s.Items[i].Expected.Mode != m {
			t.Errorf("%s: mode %s, want %s", s.Items[i].ID, s.Items[i].Expected.Mode, m)
		}
	}
	if s.Items[0].Category != "probe" || s.Items[1].Category != "choice" || s.Items[1].Messages[0].Role != "system" {
		t.Errorf("categories or messages: %+v", s.Items[:2])
	}
	if s.Items[1].Tools[1].Function.Name != "get_time" || s.Items[1].Tools[1].Type != "function" {
		t.Errorf("a bare function as a tool: %+v", s.Items[1].Tools[1])
	}
	for _, c := range []struct {
		item int
		out  string // name, arguments pairs separated by |
		want ErrorKind
	}{
		{0, `get_weather|{"city": "paris, france"}`, ""},
		{0, `get_weather|{"city": "Paris", "unit": "fahrenheit"}`, ErrString},
		{0, `get_weather|{"city": "Paris", "days": 3}`, ErrUnexpectedParam},
		{1, `get_time|{"zone": "asia/tokyo"}`, ""},
		{1, `get_weather|{"city": "Tokyo"}`, ErrWrongName},
		{2, `get_weather|{"city": "Oslo"}|get_time|{"zone": "Europe/Oslo"}`, ""},
		{2, `get_weather|{"city": "Oslo"}`, ErrParallelCount},
		{3, ``, ""},
		{3, `get_weather|{"city": "x"}`, ErrCallMade},
		{4, `get_weather|{}`, ""},
	} {
		var parts []string
		if c.out != "" {
			parts = strings.Split(c.out, "|")
		}
		res := Check(&s.Items[c.item], calls(parts...), Options{})
		if res.Kind != c.want {
			t.Errorf("%s %s: %+v, want %q", s.Items[c.item].ID, c.out, res, c.want)
		}
	}
}

func TestReadSuiteErrors(t *testing.T) {
	line := func(expected string) string {
		return `{"id": "x", "messages": [{"role": "user", "content": "q"}], "tools": [` + weatherTool + `], "expected": ` + expected + `}`
	}
	for _, c := range []struct{ suite, want string }{
		{`{"id": "x"`, "line 1"},
		{line(`{"calls": [{"name": "get_weather", "arguments": {"city": ["a"]}}]}`) + "\n" + line(`{"mode": "no_call"}`), `already on line 1`},
		{line(`{"calls": [{"name": "nope", "arguments": {}}]}`), "names no offered function"},
		{line(`{"calls": [{"name": "get_weather", "arguments": {"city": "a"}}]}`), "not a list"},
		{line(`{}`), "no expected calls"},
		{line(`{"mode": "no_call", "calls": [{"name": "get_weather"}]}`), "takes no calls"},
		{line(`{"mode": "sometimes", "calls": [{"name": "get_weather"}]}`), "unknown mode"},
		{strings.Replace(line(`{"mode": "no_call"}`), `"id"`, `"ident"`, 1), `unknown key "ident"`},
		{`{"id": "x", "messages": [], "tools": [], "expected": {"mode": "no_call"}}`, "no messages"},
		{`{"id": "x", "messages": [{"role": "user", "content": "q"}], "tools": [` + weatherTool + `,` + weatherTool + `], "expected": {"mode": "no_call"}}`, "two tools named"},
	} {
		_, err := ReadSuite(strings.NewReader(c.suite), "s")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.suite, err, c.want)
		}
	}
}

// TestBFCLAsUserSuite: every BFCL category written in the user-suite format
// and read back by ReadSuite scores every gold output, reversed gold output
// and mutant exactly as the original items do — one loader, one checker.
func TestBFCLAsUserSuite(t *testing.T) {
	t.Parallel() // the two slowest tests, side by side
	s := loadBFCL(t)
	var buf bytes.Buffer
	if err := WriteSuite(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSuite(&buf, "bfcl")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Items) != len(s.Items) {
		t.Fatalf("%d items read back of %d", len(back.Items), len(s.Items))
	}
	for i := range s.Items {
		orig, user := &s.Items[i], &back.Items[i]
		if orig.ID != user.ID || orig.Category != user.Category || orig.Expected.Mode != user.Expected.Mode || len(orig.Messages) != len(user.Messages) {
			t.Fatalf("%s: read back as %s %s %s", orig.ID, user.ID, user.Category, user.Expected.Mode)
		}
		outputs := [][]Call{nil}
		if len(orig.Expected.Calls) > 0 {
			gold := goldOutput(orig, false)
			outputs = append(outputs, gold, toCalls(reversed(toolCalls(gold))))
			for _, m := range mutations {
				if out, ok := mutate(orig, m); ok {
					outputs = append(outputs, out)
				}
			}
		}
		for _, out := range outputs {
			a, b := Check(orig, toolCalls(out), Options{}), Check(user, toolCalls(out), Options{})
			if a.Pass != b.Pass || a.Kind != b.Kind {
				t.Errorf("%s %v: BFCL %+v, user suite %+v", orig.ID, out, a, b)
			}
		}
	}
}

func toCalls(tc []chat.ToolCall) []Call {
	out, _ := DecodeCalls(tc)
	return out
}
