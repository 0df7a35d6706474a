package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The user-suite format (docs/BENCH.md): JSON Lines, one item a line,
//
//	{"id": "…", "category": "…",
//	 "messages": [{"role": "user", "content": "…"}],
//	 "tools": [{"type": "function", "function": {"name": "…", "description": "…", "parameters": {JSON Schema}}}],
//	 "expected": {"mode": "…", "calls": [{"name": "…", "arguments": {"param": [acceptable values…]}}]}}
//
// read into the same Item as BFCL's questions and checked by the same code.

// LoadSuiteFile reads a user suite; its name is the file's base name
// without the extension.
func LoadSuiteFile(path string) (*Suite, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return ReadSuite(f, name)
}

// ReadSuite reads a user suite from r. Every item is checked as it is read:
// an error names the line.
func ReadSuite(r io.Reader, name string) (*Suite, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	s := &Suite{Name: name}
	seen := map[string]int{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		it, err := readUserItem(line, name)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n+1, err)
		}
		if first, ok := seen[it.ID]; ok {
			return nil, fmt.Errorf("%s line %d: id %q already on line %d", name, n+1, it.ID, first)
		}
		seen[it.ID] = n + 1
		s.Items = append(s.Items, it)
	}
	return s, nil
}

var userKeys = map[string]bool{"id": true, "category": true, "messages": true, "tools": true, "expected": true}

func readUserItem(line []byte, suite string) (Item, error) {
	rec, err := ParseValue(line)
	if err != nil {
		return Item{}, err
	}
	if rec.Kind() != KindMap {
		return Item{}, fmt.Errorf("not an object")
	}
	for _, m := range rec.Members() {
		if !userKeys[m.Key] {
			return Item{}, fmt.Errorf("unknown key %q", m.Key)
		}
	}
	id, _ := rec.Get("id")
	it := Item{ID: id.Str(), Category: suite}
	if it.ID == "" {
		return Item{}, fmt.Errorf("no id")
	}
	if c, ok := rec.Get("category"); ok && c.Str() != "" {
		it.Category = c.Str()
	}
	msgs, _ := rec.Get("messages")
	if len(msgs.Items()) == 0 {
		return Item{}, fmt.Errorf("%s: no messages", it.ID)
	}
	// Messages are OpenAI's, as chat reads them (history with tool calls
	// and tool results included).
	if err := json.Unmarshal(msgs.AppendJSON(nil), &it.Messages); err != nil {
		return Item{}, fmt.Errorf("%s: messages: %w", it.ID, err)
	}
	tools, _ := rec.Get("tools")
	for _, t := range tools.Items() {
		if err := it.addUserTool(t); err != nil {
			return Item{}, fmt.Errorf("%s: %w", it.ID, err)
		}
	}
	expected, _ := rec.Get("expected")
	if it.Expected, err = readUserExpected(expected, len(it.Functions)); err != nil {
		return Item{}, fmt.Errorf("%s: %w", it.ID, err)
	}
	return it, it.validate()
}

// addUserTool takes an OpenAI tool ({"type": "function", "function": {…}})
// or a bare function description (BFCL's doc shape).
func (it *Item) addUserTool(t Value) error {
	doc := t
	if fn, ok := t.Get("function"); ok {
		doc = fn
	}
	tool, fn, err := convertDoc(doc, false)
	if err != nil {
		return err
	}
	if it.function(fn.Name) != nil {
		return fmt.Errorf("two tools named %s", fn.Name)
	}
	it.Tools = append(it.Tools, tool)
	it.Functions = append(it.Functions, fn)
	return nil
}

// readUserExpected reads {"mode", "calls": [{"name", "arguments": {param:
// [acceptable…]}}]}. Without a mode: one call of the only tool is simple,
// one call among several tools multiple, more calls parallel.
func readUserExpected(e Value, tools int) (Expected, error) {
	if e.Kind() != KindMap {
		return Expected{}, fmt.Errorf("no expected object")
	}
	mode, _ := e.Get("mode")
	out := Expected{Mode: Mode(mode.Str())}
	calls, _ := e.Get("calls")
	for _, c := range calls.Items() {
		name, _ := c.Get("name")
		args, ok := c.Get("arguments")
		if !ok {
			args = Map()
		}
		if name.Str() == "" || args.Kind() != KindMap {
			return Expected{}, fmt.Errorf("an expected call is not {\"name\", \"arguments\": {…}}: %s", c)
		}
		call, err := expectedCall(name.Str(), args)
		if err != nil {
			return Expected{}, err
		}
		out.Calls = append(out.Calls, call)
	}
	switch {
	case out.Mode == ModeNoCall || out.Mode == ModeAnyCall:
		if len(out.Calls) > 0 {
			return Expected{}, fmt.Errorf("mode %s takes no calls", out.Mode)
		}
	case out.Mode != "":
	case len(out.Calls) == 0:
		return Expected{}, fmt.Errorf(`no expected calls (for none, say "mode": "no_call")`)
	case len(out.Calls) > 1:
		out.Mode = ModeParallel
	case tools == 1:
		out.Mode = ModeSimple
	default:
		out.Mode = ModeMultiple
	}
	return out, nil
}

// WriteSuite writes a suite in the user-suite format, the mode always
// written out; reading it back gives items that check the same (a BFCL
// category exported this way is a user suite like any other).
func WriteSuite(w io.Writer, s *Suite) error {
	var buf []byte
	for i := range s.Items {
		line, err := userLine(&s.Items[i])
		if err != nil {
			return err
		}
		buf = append(line.AppendJSON(buf[:0]), '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func userLine(it *Item) (Value, error) {
	messages, err := json.Marshal(it.Messages)
	if err != nil {
		return Value{}, err
	}
	tools, err := json.Marshal(it.Tools)
	if err != nil {
		return Value{}, err
	}
	var m, t Value
	if m, err = ParseValue(messages); err != nil {
		return Value{}, err
	}
	if t, err = ParseValue(tools); err != nil {
		return Value{}, err
	}
	calls := make([]Value, len(it.Expected.Calls))
	for i, c := range it.Expected.Calls {
		args := make([]Member, len(c.Params))
		for j, p := range c.Params {
			args[j] = Member{p.Name, List(p.Acceptable...)}
		}
		calls[i] = Map(Member{"name", String(c.Name)}, Member{"arguments", Map(args...)})
	}
	expected := Map(Member{"mode", String(string(it.Expected.Mode))})
	if len(calls) > 0 {
		expected.mems = append(expected.mems, Member{"calls", List(calls...)})
	}
	return Map(Member{"id", String(it.ID)}, Member{"category", String(it.Category)},
		Member{"messages", m}, Member{"tools", t}, Member{"expected", expected}), nil
}
