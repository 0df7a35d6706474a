package grammar

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// Benchmarks: the constraint for 1, 20 and 100 tools, built uncached and through a Cache. The tools are
// BFCL's function definitions (../shared/bench/bfcl, or $DRAGOMAN_SHARED/bench/bfcl), their BFCL type
// names turned into JSON Schema's as a gateway would send them; without the shared data the benchmarks
// skip.

// bfclTools reads up to n distinct tools from BFCL's question files, with names made valid for rules.
func bfclTools(tb testing.TB, n int) []Tool {
	var tools []Tool
	for _, fn := range fixtures.BFCLFunctions(tb, n) {
		tools = append(tools, Tool{Name: strings.ReplaceAll(fn.Name, ".", "_"), Parameters: fn.Parameters})
	}
	return tools
}

func TestBFCLTools(t *testing.T) {
	tools := bfclTools(t, 100)
	tg, err := Tools(tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Grammar.Check(); err != nil {
		t.Fatal(err)
	}
	for _, w := range tg.Warnings {
		if strings.Contains(w, "non-standard type") {
			t.Errorf("BFCL types not converted: %s", w)
		}
	}
	// Every tool's call with its required arguments filled in is accepted.
	for i, tool := range tools {
		args, ok := minimalArgs(tool.Parameters)
		if !ok {
			continue
		}
		call := `{"name": ` + strconv.Quote(tool.Name) + `, "arguments": ` + args + `}`
		if !tg.Grammar.Match(call) {
			t.Errorf("tool %d %s: %s rejected", i, tool.Name, call)
		}
	}
}

// minimalArgs writes an arguments object holding only the required members of a flat schema, with a
// value for each simple type; ok is false when the schema needs more than that.
func minimalArgs(schema json.RawMessage) (string, bool) {
	r, doc, err := readJSON(string(schema))
	if err != nil {
		return "", false
	}
	defer r.release()
	props, req := doc.get("properties"), doc.get("required")
	var parts []string
	if props == nil {
		return "{}", true
	}
	for _, k := range props.keys {
		required := false
		if req != nil {
			for _, r := range req.vals {
				required = required || r.str == k
			}
		}
		if !required {
			continue
		}
		p := props.get(k)
		var v string
		if e := p.get("enum"); e != nil && len(e.vals) > 0 {
			v = string(appendJSON(nil, e.vals[0]))
		} else if t := p.get("type"); t != nil {
			v = map[string]string{"string": `"x"`, "integer": "1", "number": "1.5", "boolean": "true"}[t.str]
		}
		if v == "" {
			return "", false
		}
		parts = append(parts, strconv.Quote(k)+": "+v)
	}
	return "{" + strings.Join(parts, ", ") + "}", true
}

func BenchmarkTools(b *testing.B) {
	for _, n := range []int{1, 20, 100} {
		tools := bfclTools(b, n)
		size := 0
		for _, t := range tools {
			size += len(t.Parameters)
		}
		b.Run(strconv.Itoa(n)+"/uncached", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			start := cpuTime()
			for b.Loop() {
				if _, err := Tools(tools, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
		b.Run(strconv.Itoa(n)+"/cached", func(b *testing.B) {
			c := NewCache(16)
			if _, err := c.Tools(tools, Options{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			start := cpuTime()
			for b.Loop() {
				if _, err := c.Tools(tools, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMatch: the recogniser on a tool call, as output checking would run it.
func BenchmarkMatch(b *testing.B) {
	tools := bfclTools(b, 20)
	tg, err := Tools(tools, Options{})
	if err != nil {
		b.Fatal(err)
	}
	args, ok := minimalArgs(tools[0].Parameters)
	if !ok {
		b.Skip("first tool needs richer arguments")
	}
	call := `{"name": ` + strconv.Quote(tools[0].Name) + `, "arguments": ` + args + `}`
	if !tg.Grammar.Match(call) {
		b.Fatal("call rejected")
	}
	b.ReportAllocs()
	for b.Loop() {
		tg.Grammar.Match(call)
	}
}
