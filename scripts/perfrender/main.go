// Command perfrender times Dragoman's render of every corpus pair against the
// Python reference renderer (scripts/perf_oracle.py, one Python process) in the
// same run, and writes the comparison as the "## Render" section of
// docs/PERFORMANCE.md.
//
//	go run ./scripts/perfrender -out docs/PERFORMANCE.md
//
// The oracle runs as `perf_oracle.py --serve`; the two sides take turns pair by
// pair and never run at once. Both time a pair the same way: templates are compiled
// once beforehand, one warm-up render, a batch size calibrated so that a batch
// takes at least mintime/rounds, then `rounds` batches; the pair's figure is the
// median batch mean. Our render is template.Render (request → template variables
// → jinja render), the oracle's is render.render(req) from render.py.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/scripts/perfdoc"
	"github.com/dragoman-dev/dragoman/template"
)

const goal = 20.0 // required speed-up over Python at the median

type pair struct {
	name     string // <template>__<scenario>
	tmpl     string
	tpl      *jinja.Template
	req      template.Request
	want     string
	wantErr  bool
	compErr  error
	goNs     float64
	goIters  int
	engNs    float64 // jinja Template.Render alone, variables built once
	allocs   float64 // per render
	bytes    float64 // per render
	match    bool
	pyNs     float64
	pyIters  int
	pyRaised bool
}

// oracleInfo is the first line perf_oracle.py --serve prints.
type oracleInfo struct {
	Python     string   `json:"python"`
	Jinja2     string   `json:"jinja2"`
	MarkupSafe string   `json:"markupsafe"`
	Names      []string `json:"names"`
}

func main() {
	log := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	fail := func(format string, a ...any) {
		log("perfrender: "+format, a...)
		os.Exit(1)
	}
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "shared")
	}
	corpus := flag.String("corpus", filepath.Join(shared, "corpus"), "corpus directory (default $DRAGOMAN_SHARED/corpus or ../shared/corpus)")
	oracle := flag.String("oracle", "", "directory holding render.py (default <corpus>/../tools/oracle)")
	out := flag.String("out", "", "markdown file whose \"## Render\" section is (re)written; empty: print the section")
	minTime := flag.Duration("mintime", 20*time.Millisecond, "timed renders per pair, on each side")
	rounds := flag.Int("rounds", 5, "batches per pair; the median batch mean is kept")
	python := flag.String("python", "python3", "Python interpreter for scripts/perf_oracle.py")
	only := flag.String("only", "", "time only pairs whose name contains this (for quick looks)")
	rawOut := flag.String("json", "", "also write the per-pair figures as JSON to this file")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of our timed renders to this file")
	noPython := flag.Bool("nopython", false, "time our side only and print per-pair figures (with -only, for profiling)")
	flag.Parse()
	if *rounds < 1 {
		*rounds = 1
	}
	if *oracle == "" {
		*oracle = filepath.Join(filepath.Dir(filepath.Clean(*corpus)), "tools", "oracle")
	}

	pairs, err := load(*corpus, *only)
	if err != nil {
		fail("%v", err)
	}
	if len(pairs) == 0 {
		fail("no pairs in %s", *corpus)
	}
	loadStart := perfdoc.LoadAvg()
	started := time.Now()

	now, _ := template.NowFunc("2026-01-15T12:00:00")
	opts := &jinja.Options{Now: now}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail("%v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail("%v", err)
		}
	}
	if *noPython {
		for _, p := range pairs {
			timeGo(p, opts, *minTime, *rounds)
		}
		if *cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		for _, p := range pairs {
			fmt.Printf("%-64s %10s (engine %10s) %6.0f allocs %9s match=%v\n", p.name, dur(p.goNs), dur(p.engNs), p.allocs, size(p.bytes), p.match)
		}
		return
	}

	// The oracle runs beside us as perf_oracle.py --serve; the two sides take
	// turns pair by pair (never both at once, on a 2-core machine), so that a
	// change in the machine's load touches both sides of a pair alike.
	script := filepath.Join("scripts", "perf_oracle.py")
	if _, err := os.Stat(script); err != nil {
		fail("run from the repository root (%v)", err)
	}
	cmd := exec.Command(*python, script, "--serve", "--corpus", *corpus, "--oracle", *oracle,
		"--mintime", fmt.Sprint(minTime.Seconds()), "--rounds", fmt.Sprint(*rounds), "--only", *only)
	cmd.Stderr = os.Stderr
	toPy, err := cmd.StdinPipe()
	if err != nil {
		fail("%v", err)
	}
	fromPy, err := cmd.StdoutPipe()
	if err != nil {
		fail("%v", err)
	}
	if err := cmd.Start(); err != nil {
		fail("%s: %v", script, err)
	}
	lines := bufio.NewScanner(fromPy)
	lines.Buffer(nil, 16<<20)
	readLine := func(v any) {
		if !lines.Scan() {
			fail("%s stopped answering: %v", script, cmp.Or(lines.Err(), cmd.Wait()))
		}
		if err := json.Unmarshal(lines.Bytes(), v); err != nil {
			fail("reading %s: %v", script, err)
		}
	}
	var or oracleInfo
	readLine(&or)
	if len(or.Names) != len(pairs) {
		fail("the oracle has %d pairs, we have %d", len(or.Names), len(pairs))
	}
	for i, p := range pairs {
		timeGo(p, opts, *minTime, *rounds)
		if _, err := fmt.Fprintln(toPy, p.name); err != nil {
			fail("%s: %v", script, err)
		}
		var ans struct {
			Pair    string  `json:"pair"`
			Ns      float64 `json:"ns"`
			Iters   int     `json:"iters"`
			Error   bool    `json:"error"`
			Missing bool    `json:"missing"`
		}
		readLine(&ans)
		if ans.Missing || ans.Pair != p.name {
			fail("the oracle did not time %s", p.name)
		}
		p.pyNs, p.pyIters, p.pyRaised = ans.Ns, ans.Iters, ans.Error
		if (i+1)%50 == 0 || i+1 == len(pairs) {
			log("  %d/%d pairs", i+1, len(pairs))
		}
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	toPy.Close()
	if err := cmd.Wait(); err != nil {
		fail("%s: %v", script, err)
	}
	elapsed := time.Since(started)

	section := report(pairs, &or, env{
		started: started, elapsed: elapsed, load: loadStart + " at the start, " + perfdoc.LoadAvg() + " at the end",
		minTime: *minTime, rounds: *rounds, only: *only,
	})
	if *rawOut != "" {
		if err := writeJSON(*rawOut, pairs); err != nil {
			fail("%v", err)
		}
	}
	if *out == "" {
		fmt.Print(section)
		return
	}
	if err := perfdoc.WriteSection(*out, "## Render", section); err != nil {
		fail("%v", err)
	}
	log("perfrender: wrote %s", *out)
}

// load builds every template × scenario pair with a golden, requests made as
// gen_goldens.py makes them (the scenario object, bos/eos from tokens.json).
func load(corpus, only string) ([]*pair, error) {
	var entries map[string]json.RawMessage
	b, err := os.ReadFile(filepath.Join(corpus, "templates", "tokens.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("tokens.json: %w", err)
	}
	tokens := map[string]map[string]json.RawMessage{}
	for k, raw := range entries {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil { // skips "_doc"
			tokens[k] = m
		}
	}
	templates, _ := filepath.Glob(filepath.Join(corpus, "templates", "*.jinja"))
	scenarios, _ := filepath.Glob(filepath.Join(corpus, "scenarios", "*.json"))
	slices.Sort(templates)
	slices.Sort(scenarios)
	var pairs []*pair
	for _, tp := range templates {
		tname := filepath.Base(tp)
		src, err := template.FromFile(tp)
		if err != nil {
			return nil, err
		}
		tpl, compErr := jinja.Compile(src.Text)
		for _, sp := range scenarios {
			name := strings.TrimSuffix(tname, ".jinja") + "__" + strings.TrimSuffix(filepath.Base(sp), ".json")
			if only != "" && !strings.Contains(name, only) {
				continue
			}
			data, err := os.ReadFile(sp)
			if err != nil {
				return nil, err
			}
			req, err := template.ParseRequest(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sp, err)
			}
			// render.py gets the tokens inside its (decoded) request dict.
			if req, err = req.WithTokens(tokens[tname]["bos_token"], tokens[tname]["eos_token"]); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			p := &pair{name: name, tmpl: strings.TrimSuffix(tname, ".jinja"), tpl: tpl, compErr: compErr, req: req}
			golden := filepath.Join(corpus, "golden", name)
			if want, err := os.ReadFile(golden + ".txt"); err == nil {
				p.want = string(want)
			} else if _, err := os.Stat(golden + ".err"); err == nil {
				p.wantErr = true
			} else {
				continue
			}
			pairs = append(pairs, p)
		}
	}
	return pairs, nil
}

// timeGo times template.Render for one pair (the headline figure), then the
// engine alone (jinja's Template.Render with the variables built once), and
// counts the allocations of a full render. Outputs are checked against the golden
// before and after timing.
func timeGo(p *pair, opts *jinja.Options, minTime time.Duration, rounds int) {
	full := func() (string, error) {
		if p.compErr != nil {
			return "", p.compErr // Python recompiles (and fails) on every call; we do not
		}
		return template.Render(p.tpl, p.req, opts)
	}
	vars, varsErr := p.req.Vars()
	engine := func() (string, error) {
		if p.compErr != nil {
			return "", p.compErr
		}
		if varsErr != nil {
			return "", varsErr
		}
		return p.tpl.Render(vars, opts)
	}
	ok := func(got string, err error) bool {
		return (p.wantErr && err != nil) || (!p.wantErr && err == nil && got == p.want)
	}
	p.match = ok(full()) && ok(engine()) // also the warm-up
	var n int
	p.goNs, n = measure(full, minTime, rounds)
	p.goIters = n * rounds
	p.engNs, _ = measure(engine, minTime, rounds)
	p.match = p.match && ok(full()) && ok(engine())

	// Allocations of the full render, outside the timed batches.
	an := min(n, 1000)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range an {
		sink, _ = full()
	}
	runtime.ReadMemStats(&m1)
	p.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(an)
	p.bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(an)
}

var sink string

// measure calibrates a batch size n so that one batch of fn calls takes at least
// minTime/rounds, runs `rounds` batches and returns the median batch mean in ns.
func measure(fn func() (string, error), minTime time.Duration, rounds int) (float64, int) {
	batch := func(n int) time.Duration {
		start := time.Now()
		for range n {
			sink, _ = fn()
		}
		return time.Since(start)
	}
	target := minTime / time.Duration(rounds)
	n := 1
	var el time.Duration
	for {
		el = batch(n)
		if el >= target {
			break
		}
		per := max(float64(el)/float64(n), 1)
		n = int(min(max(float64(2*n), float64(target)/per*1.2), float64(100*n)))
	}
	means := []float64{float64(el) / float64(n)}
	for range rounds - 1 {
		means = append(means, float64(batch(n))/float64(n))
	}
	return median(means), n
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }

// quantile is the q-quantile of xs by linear interpolation between closest ranks.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

type env struct {
	started time.Time
	elapsed time.Duration
	load    string
	minTime time.Duration
	rounds  int
	only    string
}

func report(pairs []*pair, or *oracleInfo, e env) string {
	col := func(f func(*pair) float64) []float64 {
		xs := make([]float64, len(pairs))
		for i, p := range pairs {
			xs[i] = f(p)
		}
		return xs
	}
	goNs := col(func(p *pair) float64 { return p.goNs })
	engNs := col(func(p *pair) float64 { return p.engNs })
	pyNs := col(func(p *pair) float64 { return p.pyNs })
	ratio := col(func(p *pair) float64 { return p.pyNs / p.goNs })
	allocs := col(func(p *pair) float64 { return p.allocs })
	byts := col(func(p *pair) float64 { return p.bytes })
	sum := func(xs []float64) float64 {
		t := 0.0
		for _, x := range xs {
			t += x
		}
		return t
	}
	matched := 0
	for _, p := range pairs {
		if p.match {
			matched++
		}
	}
	medRatio := median(pyNs) / median(goNs)

	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("## Render\n\n")
	w("Reproduce: `scripts/perf.sh` (that is, `go run ./scripts/perfrender -out docs/PERFORMANCE.md`, about a minute and a half). ")
	w("Go benchmarks over the same corpus: `go test ./template -run '^$' -bench . -benchmem`.\n\n")
	w("Every corpus pair (%d templates × %d scenarios = %d renders", countTemplates(pairs), len(pairs)/max(1, countTemplates(pairs)), len(pairs))
	if e.only != "" {
		w(", filtered by `-only %s`", e.only)
	}
	w(") is timed on its own, warm, one process per side; the two sides take turns pair by pair, never running at once, so that both see the same machine load: ")
	w("templates are compiled once beforehand, one warm-up render, then %d batches of at least %v each; ", e.rounds, e.minTime/time.Duration(e.rounds))
	w("a pair's figure is its median batch mean. Ours is `template.Render` (parsed request → render context → render, ")
	w("the pinned clock of the goldens); the oracle's is `render.render(req)` from `render.py` with the template already ")
	w("in `compile_template`'s cache, which is what transformers does per `apply_chat_template` call once the template is cached. ")
	w("Pairs whose golden is an error are timed failing, on both sides.\n\n")

	w("| | |\n|---|---|\n")
	w("| Date | %s |\n", e.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("| Commit | %s |\n", perfdoc.Commit("."))
	w("| Go | %s %s/%s, GOMAXPROCS=%d |\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	w("| Python | %s, Jinja2 %s, MarkupSafe %s |\n", or.Python, or.Jinja2, or.MarkupSafe)
	w("| CPU | %s |\n", perfdoc.CPU())
	w("| Load average | %s |\n", e.load)
	w("| Run time | %s |\n\n", e.elapsed.Round(time.Second))
	w("A load average above zero means other work shared the machine: absolute times then move between runs by tens of ")
	w("percent, the ratios less, since the two sides alternate pair by pair.\n\n")

	verdict := "**met**"
	if medRatio < goal {
		verdict = "**not met**"
	}
	w("Goal: at least %.0f× faster than Python at the median — %s (%.1f×).\n\n", goal, verdict, medRatio)
	w("| Per render | Dragoman `template.Render` | Oracle (Python) | Python ÷ Go | Dragoman engine only | Python ÷ engine |\n|---|---:|---:|---:|---:|---:|\n")
	stat := func(label string, f func([]float64) float64) {
		g, e, py := f(goNs), f(engNs), f(pyNs)
		w("| %s | %s | %s | %.1f× | %s | %.1f× |\n", label, dur(g), dur(py), py/g, dur(e), py/e)
	}
	stat("Median", median)
	stat("p90", func(xs []float64) float64 { return quantile(xs, 0.9) })
	stat("Max", slices.Max[[]float64])
	stat(fmt.Sprintf("Whole corpus (sum of %d)", len(pairs)), sum)
	w("\n\"Engine only\" is `jinja.Template.Render` with the template variables built once per pair; `template.Render` also ")
	w("builds the render context on every call: the four fixed arguments and the `**` entries in Python's order, with the ")
	w("checks `render()` makes (a token or kwarg named like a fixed argument is a TypeError). The request's JSON is decoded once, ")
	w("by `template.ParseRequest` (with the tokens, `Request.WithTokens`), as the oracle's request dict is decoded once by `json.loads`.\n\n")
	w("Per-pair speed-up (Python ÷ `template.Render`): median %.1f×, p10 %.1f×, min %.1f×, max %.1f×; %d of %d pairs at least %.0f×.\n\n",
		median(ratio), quantile(ratio, 0.1), slices.Min(ratio), slices.Max(ratio), countAtLeast(ratio, goal), len(ratio), goal)
	w("Allocations per render (ours): median %.0f allocs / %s, p90 %.0f / %s, max %.0f / %s; whole corpus %.0f allocs / %s.\n\n",
		median(allocs), size(median(byts)), quantile(allocs, 0.9), size(quantile(byts, 0.9)),
		slices.Max(allocs), size(slices.Max(byts)), sum(allocs), size(sum(byts)))
	w("Outputs checked against the goldens during the run: %d of %d match.\n\n", matched, len(pairs))

	row := func(p *pair) {
		w("| `%s` | %s | %s | %s | %.1f× | %.0f / %s |\n", p.name, dur(p.goNs), dur(p.engNs), dur(p.pyNs), p.pyNs/p.goNs, p.allocs, size(p.bytes))
	}
	head := "| Pair | Go | Go engine only | Python | Python ÷ Go | Allocs / bytes per render |\n|---|---:|---:|---:|---:|---:|\n"
	w("Slowest pairs for us:\n\n%s", head)
	bySlow := slices.Clone(pairs)
	slices.SortStableFunc(bySlow, func(a, b *pair) int { return cmp.Compare(b.goNs, a.goNs) })
	for _, p := range bySlow[:min(5, len(bySlow))] {
		row(p)
	}
	w("\nSmallest speed-ups:\n\n%s", head)
	byRatio := slices.Clone(pairs)
	slices.SortStableFunc(byRatio, func(a, b *pair) int { return cmp.Compare(a.pyNs/a.goNs, b.pyNs/b.goNs) })
	for _, p := range byRatio[:min(5, len(byRatio))] {
		row(p)
	}
	w("\n")
	return b.String()
}

func countTemplates(pairs []*pair) int {
	seen := map[string]bool{}
	for _, p := range pairs {
		seen[p.tmpl] = true
	}
	return len(seen)
}

func countAtLeast(xs []float64, v float64) int {
	n := 0
	for _, x := range xs {
		if x >= v {
			n++
		}
	}
	return n
}

func dur(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func size(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func writeJSON(path string, pairs []*pair) error {
	type row struct {
		Pair     string  `json:"pair"`
		GoNs     float64 `json:"go_ns"`
		GoIters  int     `json:"go_iters"`
		Allocs   float64 `json:"allocs"`
		Bytes    float64 `json:"bytes"`
		EngNs    float64 `json:"go_engine_ns"`
		Match    bool    `json:"matches_golden"`
		PyNs     float64 `json:"python_ns"`
		PyIters  int     `json:"python_iters"`
		PyRaised bool    `json:"python_raised"`
	}
	var rows []row
	for _, p := range pairs {
		rows = append(rows, row{p.name, p.goNs, p.goIters, p.allocs, p.bytes, p.engNs, p.match, p.pyNs, p.pyIters, p.pyRaised})
	}
	data, err := json.MarshalIndent(rows, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
