package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dragoman-dev/dragoman/bench"
)

const benchUsage = `usage: dragoman bench [--suite NAME[:CATEGORY]]... [--limit N] [--seed N] [--concurrency N] [--timeout D] [--out DIR] SIDE SIDE...

Asks every side the same tool-call questions, with the same seeds and
sampling, scores each answer with BFCL's AST checker, and compares the sides
pair by pair with paired statistics (docs/BENCH.md).

A SIDE is what dragoman diff takes, [KIND=]URL#MODEL[@own|@relay] (a runtime,
its model, the mode), or gguf=PATH: a GGUF file run in this process by the
embedded engine (its libraries: dragoman engine install, or
$DRAGOMAN_LLAMA_LIB). Either may end in ?tool_choice=auto|required|none, sent
with every question. Each side runs through its own gateway in this process,
so every answer has its trace.

--suite (repeatable; default probes):
  bfcl       BFCL's 11 single-turn categories, 3,491 questions, from
             $DRAGOMAN_SHARED/bench/bfcl, else ../shared/bench/bfcl
  probes     the built-in probes (44 questions small models trip on)
  FILE       a user suite (JSON Lines, docs/BENCH.md)
  :CATEGORY  only that category of the suite (bfcl:simple_python)

Writes in --out DIR:
  results.jsonl  one line per side and question: pass, failure kind and
                 message, the layer the failure is attributed to (template,
                 parser, constraint, truncation, transport, model) and why,
                 the calls, the raw completion, trace id, timings, tokens
  traces.jsonl   the gateway's trace of each question
  summary.json   per side and category n, accuracy, Wilson interval,
                 failures by cause; per pair b, c, McNemar's exact p, the
                 bootstrap interval of the difference, per category and
                 overall, and a verdict naming the loser's commonest cause
  summary.md     the same, short, in Markdown (also printed on stdout)
  summary.html   one self-contained page: the tables, a chart of each
                 side's accuracy with its interval and of its failures by
                 cause, and every failed item's prompt, raw completion and
                 parsed calls, its sides side by side, linked from the lists
A rerun with the same DIR asks only what results.jsonl lacks: an
interrupted run (Ctrl-C) resumes. A progress line with each side's running
score goes to stderr.

Exit status: 0 when every question was asked, 1 on an error or an
interrupted run, 2 on usage errors.

flags:
`

type suiteFlags []string

func (s *suiteFlags) String() string     { return strings.Join(*s, ",") }
func (s *suiteFlags) Set(v string) error { *s = append(*s, v); return nil }

func runBench(args []string, e *env) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var suites suiteFlags
	fs.Var(&suites, "suite", "the questions: bfcl, probes or a suite `FILE`, optionally :CATEGORY; repeatable")
	limit := fs.Int("limit", 0, "ask only the first `N` questions of each category (0: all)")
	seed := fs.Int64("seed", 1, "the base seed: each question's seed is it plus a hash of the question's id")
	concurrency := fs.Int("concurrency", 1, "questions in flight per side")
	timeout := fs.Duration("timeout", 5*time.Minute, "the longest a question may take; past it, a transport error")
	out := fs.String("out", "bench-results", "the run's `DIR`")
	temperature := fs.Float64("temperature", 0, "the sampling temperature sent with every question")
	maxTokens := fs.Int("max-tokens", 1024, "the output limit sent with every question (0: none)")
	ctxSize := fs.Int("ctx", 0, "gguf= sides: the context in tokens (0: as dragoman serve sizes it)")
	threads := fs.Int("threads", 0, "gguf= sides: the engine's threads (0: the physical cores)")
	if status, ok := parseFlags(fs, benchUsage, reorderFlags(args)); !ok {
		return status
	}
	fail := failer("bench", e)
	if fs.NArg() == 0 {
		return fail(2, "give at least one SIDE (see dragoman bench -h)")
	}
	if *concurrency < 1 || *concurrency > 256 || *limit < 0 || *timeout <= 0 {
		return fail(2, "--concurrency takes 1 to 256, --limit 0 or more, --timeout a positive duration")
	}
	var sides []bench.Side
	for _, spec := range fs.Args() {
		s, err := bench.ParseSide(spec)
		if err != nil {
			return fail(2, "%v", err)
		}
		sides = append(sides, s)
	}
	if len(suites) == 0 {
		suites = suiteFlags{"probes"}
	}
	var items []bench.Item
	for _, name := range suites {
		its, err := loadSuite(name, e)
		if err != nil {
			return fail(2, "--suite %s: %v", name, err)
		}
		items = append(items, its...)
	}
	if *limit > 0 {
		items = limitPerCategory(items, *limit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := bench.RunConfig{Sides: sides, Items: items, Dir: *out, Seed: *seed, Temperature: *temperature, MaxTokens: *maxTokens,
		Concurrency: *concurrency, Timeout: *timeout, Now: e.getenv("DRAGOMAN_NOW"), Progress: e.stderr, ProgressEvery: 2 * time.Second}
	cfg.Engine.ContextSize, cfg.Engine.Threads = *ctxSize, *threads
	if f, ok := e.stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			cfg.ProgressTTY, cfg.ProgressEvery = true, 250*time.Millisecond
		}
	}
	fmt.Fprintf(e.stderr, "dragoman bench: %d questions × %d sides, results in %s\n", len(items), len(sides), *out)
	recs, runErr := bench.Run(ctx, cfg)
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return fail(1, "%v", runErr)
	}
	sum := bench.Summarize(items, sides, recs, *seed)
	if err := bench.WriteSummary(*out, sum); err != nil {
		return fail(1, "%v", err)
	}
	if err := bench.WriteReport(*out, sum, items, sides, recs); err != nil {
		return fail(1, "%v", err)
	}
	fmt.Fprint(e.stdout, sum.Markdown())
	fmt.Fprintf(e.stderr, "dragoman bench: wrote %s, %s, %s, %s and %s\n", filepath.Join(*out, bench.ResultsFile),
		filepath.Join(*out, bench.TracesFile), filepath.Join(*out, bench.SummaryFile), filepath.Join(*out, bench.MarkdownFile),
		filepath.Join(*out, bench.ReportFile))
	if runErr != nil {
		return fail(1, "interrupted after %d of %d answers: run the same command again to resume", len(recs), len(items)*len(sides))
	}
	return 0
}

// loadSuite reads --suite NAME[:CATEGORY].
func loadSuite(spec string, e *env) ([]bench.Item, error) {
	name, category, _ := strings.Cut(spec, ":")
	var s *bench.Suite
	var err error
	switch name {
	case "bfcl":
		dir := filepath.Join("..", "shared", "bench", "bfcl")
		if d := e.getenv("DRAGOMAN_SHARED"); d != "" {
			dir = filepath.Join(d, "bench", "bfcl")
		}
		if category != "" {
			s, err = bench.LoadBFCL(dir, category)
		} else {
			s, err = bench.LoadBFCL(dir)
		}
	case "probes":
		s = bench.Probes()
	default:
		s, err = bench.LoadSuiteFile(name)
	}
	if err != nil {
		return nil, err
	}
	if category == "" {
		return s.Items, nil
	}
	var out []bench.Item
	for _, it := range s.Items {
		if it.Category == category {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no category %q (it has %s)", category, strings.Join(s.Categories(), ", "))
	}
	return out, nil
}

// limitPerCategory keeps the first n items of each category.
func limitPerCategory(items []bench.Item, n int) []bench.Item {
	seen := map[string]int{}
	var out []bench.Item
	for _, it := range items {
		if seen[it.Category] < n {
			seen[it.Category]++
			out = append(out, it)
		}
	}
	return out
}
