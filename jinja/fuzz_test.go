package jinja

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzTemplate feeds arbitrary template sources through the lexer, parser and
// evaluator: whatever the input, Compile and Render return (an output or an
// *Error), never panic, and stay inside the limits.
//
//	go test ./jinja -run '^$' -fuzz FuzzTemplate -fuzztime 60s
func FuzzTemplate(f *testing.F) {
	for _, c := range loadOracleCases(f, "testdata/cases.jsonl") {
		f.Add(c.Template)
	}
	if dir := os.Getenv("DRAGOMAN_SHARED"); dir != "" {
		paths, _ := filepath.Glob(filepath.Join(dir, "corpus", "templates", "*.jinja"))
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(string(src))
			}
		}
	}
	msgs, _ := FromJSON([]byte(`[{"role":"system","content":"s"},{"role":"user","content":"u"},
		{"role":"assistant","content":"","tool_calls":[{"id":"call00001","type":"function","function":{"name":"f","arguments":{"a":1}}}]},
		{"role":"tool","tool_call_id":"call00001","content":"r"}]`))
	tools, _ := FromJSON([]byte(`[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}}]`))
	limits := Limits{MaxOutputBytes: 1 << 20, MaxIterations: 100000, MaxDepth: 50, Timeout: 2 * time.Second}
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := Compile(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Compile returned %T, want *Error: %v", err, err)
			}
			return
		}
		vars := map[string]Value{"messages": msgs, "tools": tools, "add_generation_prompt": true, "bos_token": "<s>"}
		out, err := tpl.Render(vars, &Options{Limits: limits, Now: oracleNow})
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Kind == "InternalError" {
				t.Fatalf("Render failed with %T %v", err, err)
			}
			return
		}
		if len(out) > limits.MaxOutputBytes {
			t.Fatalf("output %d bytes exceeds the limit", len(out))
		}
	})
}
