package template_test

// Benchmarks over the shared corpus (84 templates × 7 scenarios):
//
//	go test ./template -run '^$' -bench . -benchmem
//
// scripts/perfrender compares the same renders with the Python oracle.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/template"
)

// benchPair is one corpus pair, its template compiled and its request parsed.
type benchPair struct {
	name, tmpl string
	tpl        *jinja.Template
	req        template.Request
}

type benchCorpus struct {
	sources map[string]string // template name → text
	names   []string          // template names, sorted
	pairs   []benchPair
}

// loadBenchCorpus reads the corpus in $DRAGOMAN_SHARED (or ../../shared), or
// skips the benchmark when it is missing. Requests are built the way
// gen_goldens.py builds them; templates are compiled here, outside any timer.
func loadBenchCorpus(b *testing.B) *benchCorpus {
	b.Helper()
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared, _ = filepath.Abs(filepath.Join("..", "..", "shared"))
	}
	root := filepath.Join(shared, "corpus")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("corpus missing at %s (set DRAGOMAN_SHARED): %v", root, err)
	}
	var entries map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(root, "templates", "tokens.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		b.Fatal(err)
	}
	templates, _ := filepath.Glob(filepath.Join(root, "templates", "*.jinja"))
	scenarios, _ := filepath.Glob(filepath.Join(root, "scenarios", "*.json"))
	slices.Sort(templates)
	slices.Sort(scenarios)
	if len(templates) == 0 || len(scenarios) == 0 {
		b.Skipf("no templates or scenarios in %s", root)
	}
	reqs := make(map[string]template.Request, len(scenarios))
	for _, sp := range scenarios {
		data, err := os.ReadFile(sp)
		if err != nil {
			b.Fatal(err)
		}
		if reqs[sp], err = template.ParseRequest(data); err != nil {
			b.Fatalf("%s: %v", sp, err)
		}
	}
	c := &benchCorpus{sources: map[string]string{}}
	for _, tp := range templates {
		tname := filepath.Base(tp)
		src, err := template.FromFile(tp)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(tname, ".jinja")
		c.sources[name] = src.Text
		c.names = append(c.names, name)
		tpl, err := jinja.Compile(src.Text)
		if err != nil {
			b.Fatalf("%s: %v", tname, err)
		}
		var tok map[string]json.RawMessage
		_ = json.Unmarshal(entries[tname], &tok)
		for _, sp := range scenarios {
			req := reqs[sp]
			req, err := req.WithTokens(tok["bos_token"], tok["eos_token"])
			if err != nil {
				b.Fatal(err)
			}
			sname := strings.TrimSuffix(filepath.Base(sp), ".json")
			c.pairs = append(c.pairs, benchPair{name: name + "__" + sname, tmpl: name, tpl: tpl, req: req})
		}
	}
	return c
}

var benchOpts = func() *jinja.Options {
	now, _ := template.NowFunc("2026-01-15T12:00:00")
	return &jinja.Options{Now: now}
}()

var benchSink string

// renderPairs renders each pair once per op (pairs whose golden is an error fail,
// as they should, and count as renders too) and reports ns per render.
func renderPairs(b *testing.B, pairs []benchPair) {
	b.Helper()
	if len(pairs) == 0 {
		b.Skip("no pairs")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range pairs {
			benchSink, _ = template.Render(pairs[i].tpl, pairs[i].req, benchOpts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs)), "ns/render")
	b.ReportMetric(float64(len(pairs)), "renders/op")
}

// BenchmarkCorpusRender renders all corpus pairs per op through template.Render.
func BenchmarkCorpusRender(b *testing.B) {
	renderPairs(b, loadBenchCorpus(b).pairs)
}

// BenchmarkCorpusEngine renders all corpus pairs per op with the engine alone:
// jinja's Template.Render, the template variables built once beforehand.
func BenchmarkCorpusEngine(b *testing.B) {
	c := loadBenchCorpus(b)
	vars := make([]map[string]jinja.Value, len(c.pairs))
	for i, p := range c.pairs {
		var err error
		if vars[i], err = p.req.Vars(); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range c.pairs {
			benchSink, _ = c.pairs[i].tpl.Render(vars[i], benchOpts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.pairs)), "ns/render")
}

// BenchmarkCorpusVars measures only the request → template variables step of
// template.Render (jinja.FromJSON of messages, tools, tokens and kwargs).
func BenchmarkCorpusVars(b *testing.B) {
	c := loadBenchCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range c.pairs {
			_, _ = c.pairs[i].req.Vars()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.pairs)), "ns/render")
}

// BenchmarkCompile compiles every corpus template per op.
func BenchmarkCompile(b *testing.B) {
	c := loadBenchCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, n := range c.names {
			if _, err := jinja.Compile(c.sources[n]); err != nil {
				b.Fatalf("%s: %v", n, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.names)), "ns/template")
}

// BenchmarkTemplate renders the scenarios of a few of the largest, most used
// templates, one sub-benchmark per template (all its scenarios per op) and, for
// gpt-oss and Qwen3, one per pair: go test ./template -run '^$' -bench 'Template/gpt-oss'.
func BenchmarkTemplate(b *testing.B) {
	c := loadBenchCorpus(b)
	for _, fam := range []struct {
		label, tmpl string
		perPair     bool
	}{
		{"gpt-oss", "openai-gpt-oss-120b", true},
		{"Qwen3", "Qwen-Qwen3-0.6B", true},
		{"gemma-4", "google-gemma-4-E2B-it", false},
		{"Qwen3-Coder", "Qwen3-Coder", false},
		{"Llama-3.1", "meta-llama-Llama-3.1-8B-Instruct", false},
		{"DeepSeek-V3.1", "deepseek-ai-DeepSeek-V3.1", false},
	} {
		var pairs []benchPair
		for _, p := range c.pairs {
			if p.tmpl == fam.tmpl {
				pairs = append(pairs, p)
			}
		}
		if len(pairs) == 0 {
			continue
		}
		b.Run(fam.label, func(b *testing.B) {
			b.Run("all", func(b *testing.B) { renderPairs(b, pairs) })
			for _, p := range pairs {
				if !fam.perPair {
					break
				}
				_, sname, _ := strings.Cut(p.name, "__")
				b.Run(sname, func(b *testing.B) { renderPairs(b, []benchPair{p}) })
			}
		})
	}
}
