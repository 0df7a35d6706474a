package jinja

// TestDifferentialOracle renders random cases with this engine and with the
// reference renderer (Python Jinja2 set up as transformers sets it up, in
// <shared>/tools/oracle/render.py --serve) and compares the results.
//
//	go test ./jinja -run TestDifferentialOracle -v
//	DRAGOMAN_FUZZ_SEED=7 DRAGOMAN_FUZZ_N=50000 DRAGOMAN_FUZZ_RECORD=1 go test ./jinja -run TestDifferentialOracle
//
// (scripts/fuzz-oracle.sh runs the second form.) Two generators take turns:
// "conv" renders a random Chat Completions request through one of the corpus
// templates, "tmpl" renders a small random template over random variables
// (gen_test.go). A case matches when both outputs are equal after
// normalizeAddrs, or when both sides fail; a differing error kind is only
// counted. Mismatches are shrunk, re-checked, printed in the
// testdata/cases.jsonl format and, with DRAGOMAN_FUZZ_RECORD=1, appended to
// testdata/fuzz_regressions.jsonl, which TestOracleCases replays.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	defaultFuzzSeed = 20260115
	defaultFuzzN    = 8000 // about 30 s on two cores
	fuzzBatch       = 256  // requests written to the oracle before reading answers
	regressionsFile = "testdata/fuzz_regressions.jsonl"
)

// fuzzLimits stop runaway generated templates on our side; a case that hits
// one is skipped (Python has no such limits, only its recursion limit).
var fuzzLimits = Limits{MaxOutputBytes: 1 << 20, MaxIterations: 200_000, MaxDepth: 100, Timeout: 3 * time.Second}

func TestDifferentialOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("differential fuzzing against the Python oracle is slow; skipped under -short")
	}
	script := oracleScript(t)
	seed := uint64(fuzzEnvInt(t, "DRAGOMAN_FUZZ_SEED", defaultFuzzSeed))
	n := fuzzEnvInt(t, "DRAGOMAN_FUZZ_N", defaultFuzzN)
	record := os.Getenv("DRAGOMAN_FUZZ_RECORD") == "1"
	corpus := loadFuzzCorpus(t)
	began := time.Now()
	o := newOracle(t, script)
	defer o.stop()

	stats := map[string]*fuzzStats{"conv": {skips: map[string]int{}}, "tmpl": {skips: map[string]int{}}}
	perTemplate := map[string][2]int{} // corpus template -> cases, rendered by Python
	var mismatches []*fuzzMismatch
	for start := 0; start < n; start += fuzzBatch {
		var batch []*fuzzCase
		for i := start; i < min(n, start+fuzzBatch); i++ {
			batch = append(batch, genCase(seed, i, corpus))
		}
		for i, r := range runCases(t, o, batch) {
			c := batch[i]
			stats[c.gen].count(t, c, r)
			if c.gen == "conv" {
				pt := perTemplate[c.label]
				pt[0]++
				if r.py != nil && !r.py.failed {
					pt[1]++
				}
				perTemplate[c.label] = pt
			}
			if r.verdict == vMismatch {
				mismatches = append(mismatches, &fuzzMismatch{c: c, class: r.class, num: i + start, py: r.py, gor: r.gor})
			}
		}
	}

	if len(mismatches) > 0 {
		var unstable []*fuzzMismatch
		mismatches, unstable = stable(t, script, mismatches)
		for _, m := range unstable {
			st := stats[m.c.gen]
			st.mismatched--
			st.skipped++
			st.skips["depends on memory addresses"]++
		}
	}
	for _, gen := range []string{"conv", "tmpl"} {
		s := stats[gen]
		t.Logf("%s: %d cases, %d same output, %d errors on both sides (%d with another error kind: warning), %d mismatches, %d skipped %v",
			gen, s.ran, s.matched, s.bothErr, s.kindDiff, s.mismatched, s.skipped, s.skips)
	}
	if stats["conv"].ran > 0 {
		var never []string
		for name := range corpus.src {
			if perTemplate[name][1] == 0 {
				never = append(never, fmt.Sprintf("%s (%d cases)", name, perTemplate[name][0]))
			}
		}
		slices.Sort(never)
		t.Logf("conv: %d/%d corpus templates covered; never rendered without error: %v", len(perTemplate), len(corpus.src), never)
	}
	t.Logf("compared in %v", time.Since(began))
	if len(mismatches) == 0 {
		return
	}
	reportMismatches(t, o, mismatches, record)
}

// ---------------------------------------------------------------------------
// Cases

type fuzzCase struct {
	gen      string // "conv" or "tmpl"
	label    string // conv: the corpus template
	template string
	tree     *gnode   // tmpl: the tree the template text comes from, for shrinking
	pieces   []string // conv while shrinking: the template split at its tags
	vars     *jobj    // the request without its template
}

// text is the current template source (the tree and pieces change while shrinking).
func (c *fuzzCase) text() string {
	switch {
	case c.tree != nil:
		return c.tree.String()
	case c.pieces != nil:
		return strings.Join(c.pieces, "")
	}
	return c.template
}

func (c *fuzzCase) request() []byte {
	req := &jobj{keys: append([]string{"template"}, c.vars.keys...), vals: append([]any{c.text()}, c.vars.vals...)}
	return appendJSON(nil, req)
}

// genCase is case i of the campaign: even ones are conversations, odd ones
// generated templates, each from its own random stream so a case depends only
// on (seed, i).
func genCase(seed uint64, i int, corpus *fuzzCorpus) *fuzzCase {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	if i%2 == 0 {
		name := corpus.names[(i/2)%len(corpus.names)] // round robin: every template gets coverage
		return &fuzzCase{gen: "conv", label: name, template: corpus.src[name], vars: convVars(r, corpus.src[name], corpus.tokens[name])}
	}
	kw, scope := templateVars(r)
	tree := genTemplate(r, scope)
	vars := jsonObj("messages", []any{}, "kwargs", kw)
	return &fuzzCase{gen: "tmpl", template: tree.String(), tree: tree, vars: vars}
}

type fuzzCorpus struct {
	names  []string
	src    map[string]string
	tokens map[string]map[string]any
}

func loadFuzzCorpus(t *testing.T) *fuzzCorpus {
	dir := filepath.Join(sharedDir(t), "corpus", "templates")
	c := &fuzzCorpus{src: map[string]string{}}
	data, err := os.ReadFile(filepath.Join(dir, "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tokens map[string]any // per template, and a "_doc" string
	if err := json.Unmarshal(data, &tokens); err != nil {
		t.Fatal(err)
	}
	c.tokens = map[string]map[string]any{}
	for name, v := range tokens {
		if m, ok := v.(map[string]any); ok {
			c.tokens[name] = m
		}
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jinja"))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		c.names = append(c.names, name)
		c.src[name] = string(src)
	}
	if len(c.names) == 0 {
		t.Fatalf("no templates in %s", dir)
	}
	return c
}

// ---------------------------------------------------------------------------
// Judging

// fuzzResult is what one side made of a case.
type fuzzResult struct {
	out    string
	failed bool
	kind   string // exception class name
	msg    string
}

type verdict int

const (
	vMatch    verdict = iota // same output
	vBothErr                 // both raised
	vMismatch                // different output, or only one side raised
	vSkip                    // cannot be judged: a limit of ours, Python's recursion limit, an oracle timeout, a Jinja2 bug
)

type judgement struct {
	py, gor *fuzzResult
	verdict verdict
	class   string // vMismatch: "output", "go-error:<kind>" or "go-ok:<python type>"; vSkip: why
}

func judgeCase(py, gor *fuzzResult) judgement {
	j := judgement{py: py, gor: gor}
	switch {
	case py == nil:
		j.verdict, j.class = vSkip, "oracle timeout"
	case py.failed && gor.failed:
		j.verdict = vBothErr
	case py.kind == "RecursionError" || gor.kind == "LimitError":
		j.verdict, j.class = vSkip, py.kind+gor.kind
	case py.kind == "AssertionError":
		// Jinja2's own compiler trips on some templates (a name used only in a
		// set block's filter arguments); we do not reproduce its bugs.
		j.verdict, j.class = vSkip, "Jinja2 compiler bug"
	case py.failed:
		j.verdict, j.class = vMismatch, "go-ok:"+py.kind
	case gor.failed:
		j.verdict, j.class = vMismatch, "go-error:"+gor.kind
	case normalizeAddrs(py.out) == normalizeAddrs(gor.out):
		j.verdict = vMatch
	default:
		j.verdict, j.class = vMismatch, "output"
	}
	return j
}

// renderGo renders a case with this engine, exactly as TestOracleCases will.
func renderGo(t testing.TB, c *fuzzCase) (res *fuzzResult) {
	defer func() {
		if p := recover(); p != nil {
			res = &fuzzResult{failed: true, kind: "panic", msg: fmt.Sprint(p)}
		}
	}()
	tpl, err := Compile(c.text())
	if err == nil {
		var out string
		out, err = tpl.Render(oracleVars(t, appendJSON(nil, c.vars)), &Options{Now: oracleNow, Limits: fuzzLimits})
		if err == nil {
			return &fuzzResult{out: out}
		}
	}
	if e, ok := err.(*Error); ok {
		return &fuzzResult{failed: true, kind: e.Kind, msg: e.Message}
	}
	return &fuzzResult{failed: true, kind: fmt.Sprintf("%T", err), msg: err.Error()}
}

// runCases judges a batch: the oracle works on it while we render our side.
func runCases(t testing.TB, o *oracle, cases []*fuzzCase) []judgement {
	reqs := make([][]byte, len(cases))
	for i, c := range cases {
		reqs[i] = c.request()
	}
	answers := make(chan []*fuzzResult, 1)
	go func() { answers <- o.ask(reqs) }()
	gors := make([]*fuzzResult, len(cases))
	for i, c := range cases {
		gors[i] = renderGo(t, c)
	}
	pys := <-answers
	if err := o.err(); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	out := make([]judgement, len(cases))
	for i := range cases {
		out[i] = judgeCase(pys[i], gors[i])
	}
	return out
}

type fuzzStats struct {
	ran, matched, bothErr, kindDiff, mismatched, skipped int
	skips                                                map[string]int // why cases were skipped
}

func (s *fuzzStats) count(t testing.TB, c *fuzzCase, j judgement) {
	s.ran++
	switch j.verdict {
	case vMatch:
		s.matched++
	case vBothErr:
		s.bothErr++
		if j.py.kind != j.gor.kind {
			// Only a warning: the kind rarely matters to a caller, the failure does.
			if s.kindDiff++; s.kindDiff <= 3 {
				src := c.label
				if src == "" {
					src = strconv.Quote(c.text())
				}
				t.Logf("warning: error kind differs: Python %s: %s; ours %s: %s (%s %s)", j.py.kind, j.py.msg, j.gor.kind, j.gor.msg, c.gen, src)
			}
		}
	case vSkip:
		s.skipped++
		s.skips[j.class]++
	case vMismatch:
		s.mismatched++
	}
}

type fuzzMismatch struct {
	c     *fuzzCase
	class string
	num   int // the case number, to regenerate it with genCase
	py    *fuzzResult
	gor   *fuzzResult
}

var digitsRE = regexp.MustCompile(`[0-9]+`)

// key guesses the cause of a mismatch before it is shrunk, so that not every
// instance of a frequent one gets shrunk: the kind of mismatch, and the error
// message of the side that failed, or the text where the outputs part.
func (m *fuzzMismatch) key() string {
	var why string
	switch {
	case strings.HasPrefix(m.class, "go-ok:"):
		why = m.py.msg
	case strings.HasPrefix(m.class, "go-error:"):
		why = m.gor.msg
	default:
		a, b := normalizeAddrs(m.py.out), normalizeAddrs(m.gor.out)
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		why = a[i:min(len(a), i+12)] + "|" + b[i:min(len(b), i+12)]
	}
	return m.c.gen + "|" + m.c.label + "|" + m.class + "|" + digitsRE.ReplaceAllString(why, "0")
}

// stable keeps the mismatches whose oracle answer is the same in two fresh
// oracle processes. Python's output can depend on memory addresses beyond the
// "at 0x..." that normalizeAddrs blanks (say, the length of a generator's
// repr, or a character found in it), and addresses change from process to
// process; such cases cannot be judged.
func stable(t testing.TB, script string, ms []*fuzzMismatch) (kept, unstable []*fuzzMismatch) {
	reqs := make([][]byte, len(ms))
	for i, m := range ms {
		reqs[i] = m.c.request()
	}
	same := make([]bool, len(ms))
	for i := range same {
		same[i] = true
	}
	for range 2 {
		o := &oracleProc{t: t, script: script}
		answers := o.ask(reqs)
		if o.err != nil {
			t.Fatalf("oracle: %v", o.err)
		}
		for i, py := range answers {
			if py == nil || py.failed != ms[i].py.failed || py.kind != ms[i].py.kind ||
				normalizeAddrs(py.out) != normalizeAddrs(ms[i].py.out) {
				same[i] = false
			}
		}
		o.stop()
	}
	for i, m := range ms {
		if same[i] {
			kept = append(kept, m)
		} else {
			unstable = append(unstable, m)
		}
	}
	return kept, unstable
}

// ---------------------------------------------------------------------------
// The oracle process

// oracleTimeout is how long one answer may take; longer means a template
// runs away in Python, and the oracle is restarted.
const oracleTimeout = 20 * time.Second

// oracleRestartEvery bounds render.py's template cache (an unbounded
// lru_cache): the process is replaced after this many requests.
const oracleRestartEvery = 4000

// oracle spreads requests over one render.py process per CPU (two at most):
// Python is the slow side.
type oracle struct {
	script string
	procs  []*oracleProc
}

func newOracle(t testing.TB, script string) *oracle {
	o := &oracle{script: script}
	for range min(2, runtime.NumCPU()) {
		o.procs = append(o.procs, &oracleProc{t: t, script: script})
	}
	return o
}

// err is the first failure of an oracle process (not of a template): it
// could not start or answered nonsense.
func (o *oracle) err() error {
	for _, p := range o.procs {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

func (o *oracle) stop() {
	for _, p := range o.procs {
		p.stop()
	}
}

// ask answers the requests in order, each process taking a contiguous share.
func (o *oracle) ask(reqs [][]byte) []*fuzzResult {
	res := make([]*fuzzResult, len(reqs))
	share := (len(reqs) + len(o.procs) - 1) / len(o.procs)
	var wg sync.WaitGroup
	for i, p := range o.procs {
		lo, hi := min(len(reqs), i*share), min(len(reqs), (i+1)*share)
		if lo == hi {
			continue
		}
		wg.Go(func() { copy(res[lo:hi], p.ask(reqs[lo:hi])) })
	}
	wg.Wait()
	return res
}

type oracleProc struct {
	t      testing.TB
	script string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	served int
	err    error // set instead of failing the test: ask runs outside the test goroutine
}

type oracleAnswer struct {
	Output *string `json:"output"`
	Error  string  `json:"error"`
	Type   string  `json:"type"`
}

// oracleScript finds render.py and checks that python3 can import jinja2.
// Without them the test skips, except on CI, where it must run.
func oracleScript(t *testing.T) string {
	unavailable := func(format string, args ...any) {
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	script := filepath.Join(sharedDir(t), "tools", "oracle", "render.py")
	if _, err := os.Stat(script); err != nil {
		unavailable("oracle missing: %v (set DRAGOMAN_SHARED)", err)
	}
	if out, err := exec.Command("python3", "-c", "import jinja2").CombinedOutput(); err != nil {
		unavailable("python3 with jinja2 is needed for the differential test: %v %s", err, out)
	}
	return script
}

func (o *oracleProc) start() {
	cmd := exec.Command("python3", o.script, "--serve")
	// Pin the clock as the goldens are, and make the pipes UTF-8 whatever the locale.
	cmd.Env = append(os.Environ(), "ORACLE_NOW=2026-01-15T12:00:00", "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1",
		// Jinja2's generated code can draw SyntaxWarnings from CPython's compiler: noise only.
		"PYTHONWARNINGS=ignore::SyntaxWarning")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		o.err = err
		return
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		o.err = err
		return
	}
	if err := cmd.Start(); err != nil {
		o.err = fmt.Errorf("starting %s: %v", o.script, err)
		return
	}
	lines := make(chan []byte, fuzzBatch)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	o.cmd, o.stdin, o.lines, o.served = cmd, stdin, lines, 0
}

func (o *oracleProc) stop() {
	if o.cmd == nil {
		return
	}
	o.stdin.Close()
	o.cmd.Process.Kill()
	o.cmd.Wait()
	for range o.lines { // let the reader finish
	}
	o.cmd = nil
}

// ask returns the oracle's result for each request; nil when the oracle did
// not answer it in time (or died on it), after which it is restarted for the
// rest.
func (o *oracleProc) ask(reqs [][]byte) []*fuzzResult {
	res := make([]*fuzzResult, len(reqs))
	for i := 0; i < len(reqs) && o.err == nil; {
		if o.cmd == nil || o.served >= oracleRestartEvery {
			o.stop()
			if o.start(); o.err != nil {
				break
			}
		}
		n, ok := o.exchange(reqs[i:], res[i:])
		i += n
		o.served += n
		if !ok {
			if o.err == nil {
				o.t.Logf("oracle gave no answer for a request (a runaway template?); restarting it")
			}
			o.stop()
			i++
		}
	}
	return res
}

// exchange writes all requests, from another goroutine so neither pipe can
// fill up and block, and reads the answers in order. It returns how many were
// answered and whether that was all of them.
func (o *oracleProc) exchange(reqs [][]byte, res []*fuzzResult) (int, bool) {
	written := make(chan struct{})
	go func(w io.Writer) {
		defer close(written)
		bw := bufio.NewWriterSize(w, 1<<16)
		for _, r := range reqs {
			bw.Write(r)
			bw.WriteByte('\n')
		}
		bw.Flush() // an error means the process was killed; ask handles that
	}(o.stdin)
	for i := range reqs {
		select {
		case line, ok := <-o.lines:
			if !ok {
				return i, false
			}
			var a oracleAnswer
			if err := json.Unmarshal(line, &a); err != nil {
				o.err = fmt.Errorf("answer %q: %v", line, err)
				return i, false
			}
			if a.Output != nil {
				res[i] = &fuzzResult{out: *a.Output}
			} else {
				res[i] = &fuzzResult{failed: true, kind: a.Type, msg: a.Error}
			}
		case <-time.After(oracleTimeout):
			return i, false
		}
	}
	<-written
	return len(reqs), true
}

// ---------------------------------------------------------------------------
// Reporting and recording

// maxPrinted cases are printed when the test fails; in record mode up to
// maxShrunk mismatches are shrunk, at most perKey with the same key, since
// those mostly share a cause.
const (
	maxPrinted = 20
	maxShrunk  = 200
	perKey     = 2
)

func reportMismatches(t *testing.T, o *oracle, ms []*fuzzMismatch, record bool) {
	limit := maxPrinted
	if record {
		limit = maxShrunk
	}
	var picked []*fuzzMismatch
	perKeyCount := map[string]int{}
	for _, m := range ms {
		key := m.key()
		if len(picked) == limit || perKeyCount[key] >= perKey {
			continue
		}
		perKeyCount[key]++
		picked = append(picked, m)
	}
	shrunk := make([]*fuzzCase, len(picked))
	for i, m := range picked {
		shrunk[i] = m.c
		if os.Getenv("DRAGOMAN_FUZZ_SHRINK") != "0" {
			shrunk[i] = shrinkCase(t, o, m.c, m.class)
		}
	}
	// Re-check the final cases, so what gets printed and recorded is real and stable.
	var still []*fuzzMismatch
	ours := map[*fuzzCase]*fuzzResult{}
	for i, j := range runCases(t, o, shrunk) {
		if j.verdict != vMismatch {
			t.Logf("case %d (%s) no longer mismatches once shrunk; dropped", picked[i].num, picked[i].class)
			continue
		}
		still = append(still, &fuzzMismatch{c: shrunk[i], class: j.class, num: picked[i].num, py: j.py})
		ours[shrunk[i]] = j.gor
	}
	still, _ = stable(t, o.script, still)

	existing := regressionNames(t)
	seen := map[string]bool{}
	var fresh [][]byte
	for _, m := range still {
		name, line := caseLine(m.c, m.py)
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) <= maxPrinted {
			t.Errorf("mismatch (%s; %s case %d %s); ours: %s\n%s", m.class, m.c.gen, m.num, m.c.label, describeResult(ours[m.c]), line)
		}
		if !existing[name] {
			fresh = append(fresh, line)
		}
	}
	t.Logf("%d mismatching cases; %d shrunk, %d distinct after shrinking, %d of them not yet in %s",
		len(ms), len(picked), len(seen), len(fresh), regressionsFile)
	if !record {
		t.Logf("run with DRAGOMAN_FUZZ_RECORD=1 (scripts/fuzz-oracle.sh) to append them to %s", regressionsFile)
		return
	}
	f, err := os.OpenFile(regressionsFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, line := range fresh {
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %d new cases in %s", len(fresh), regressionsFile)
}

func describeResult(r *fuzzResult) string {
	if r.failed {
		return r.kind + ": " + r.msg
	}
	return strconv.Quote(r.out)
}

// caseLine is a case in the testdata/cases.jsonl format with the oracle's
// answer, named after a hash of its content.
func caseLine(c *fuzzCase, py *fuzzResult) (string, []byte) {
	src := c.text()
	sum := sha256.Sum256([]byte(src + "\x00" + fuzzJSON(c.vars)))
	name := "fuzz_" + hex.EncodeToString(sum[:])[:10]
	line := jsonObj("name", name, "template", src, "vars", c.vars)
	if py.failed {
		line.set("error", jsonObj("type", py.kind, "message", py.msg))
	} else {
		line.set("want", py.out)
	}
	return name, appendJSON(nil, line)
}

func regressionNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	if _, err := os.Stat(regressionsFile); err != nil {
		return names
	}
	for _, c := range loadOracleCases(t, regressionsFile) {
		names[c.Name] = true
	}
	return names
}

// ---------------------------------------------------------------------------
// Shrinking
//
// A mismatch is shrunk greedily: candidate edits (dropping statements,
// replacing a node by a simpler one, removing template pieces, deleting
// message fields and list items, shortening strings) are tried in order, and
// the first that keeps the same class of mismatch is taken. Each edit makes the
// case strictly smaller, so this ends.

// shrinkBudget caps the candidates tried for one case.
const shrinkBudget = 4000

type shrinkEdit struct{ do, undo func() }

func shrinkCase(t testing.TB, o *oracle, c *fuzzCase, class string) *fuzzCase {
	c = &fuzzCase{gen: c.gen, label: c.label, template: c.template, tree: c.tree, vars: cloneJSON(c.vars).(*jobj)}
	if c.tree == nil {
		c.pieces = splitPieces(c.template)
	}
	budget := shrinkBudget
	chunk := max(1, len(c.pieces)/2)
	from := 0 // where the last accepted edit was: its neighbours are likely to go too
	for budget > 0 {
		var edits []shrinkEdit
		if c.tree != nil {
			edits = treeEdits(c.tree)
		} else {
			edits = append(blockEdits(c), chunkEdits(c, chunk)...)
		}
		edits = append(edits, jsonEdits(c.vars)...)
		k := firstKeeping(t, o, c, class, edits, from, &budget)
		if k < 0 {
			if c.pieces != nil && chunk > 1 {
				chunk /= 2
				from = 0
				continue
			}
			break
		}
		edits[k].do()
		from = k
	}
	c.template = c.text()
	c.tree, c.pieces = nil, nil
	return c
}

// firstKeeping returns the index of the first edit (starting at from and
// wrapping around) that makes the case smaller and keeps the mismatch class,
// or -1. Our side is rendered first: it is cheap and rules most candidates out
// before the oracle is asked.
func firstKeeping(t testing.TB, o *oracle, c *fuzzCase, class string, edits []shrinkEdit, from int, budget *int) int {
	size := len(c.text()) + len(fuzzJSON(c.vars))
	order := make([]int, 0, len(edits))
	for i := range edits {
		order = append(order, (from+i)%len(edits))
	}
	for len(order) > 0 && *budget > 0 {
		var idx []int
		var cands []*fuzzCase
		for len(order) > 0 && len(cands) < 64 {
			k := order[0]
			order = order[1:]
			edits[k].do()
			cand := &fuzzCase{template: c.text(), vars: cloneJSON(c.vars).(*jobj)}
			edits[k].undo()
			if len(cand.template)+len(fuzzJSON(cand.vars)) >= size {
				continue
			}
			*budget--
			gor := renderGo(t, cand)
			if !gor.failed && class != "output" && !strings.HasPrefix(class, "go-ok:") ||
				gor.failed && (class == "output" || strings.HasPrefix(class, "go-ok:") || "go-error:"+gor.kind != class) {
				continue
			}
			idx = append(idx, k)
			cands = append(cands, cand)
		}
		if len(cands) == 0 {
			continue
		}
		for i, j := range runCases(t, o, cands) {
			if j.verdict == vMismatch && j.class == class {
				return idx[i]
			}
		}
	}
	return -1
}

// treeEdits are the edits of a generated template's tree.
func treeEdits(root *gnode) []shrinkEdit {
	var es []shrinkEdit
	root.walk(func(n *gnode) {
		old := *n
		if n.drop && len(n.parts) > 0 {
			es = append(es, shrinkEdit{do: func() { n.parts = nil }, undo: func() { n.parts = old.parts }})
		}
		if n.seq {
			for i := range n.parts {
				es = append(es, shrinkEdit{
					do:   func() { n.parts = slices.Delete(slices.Clone(old.parts), i, i+1) },
					undo: func() { n.parts = old.parts },
				})
			}
		}
		for _, a := range n.alts {
			es = append(es, shrinkEdit{do: func() { *n = *a }, undo: func() { *n = old }})
		}
	})
	return es
}

// splitPieces cuts a template into text and tags ({% %}, {{ }}, {# #}).
func splitPieces(src string) []string {
	var ps []string
	for len(src) > 0 {
		i := strings.Index(src, "{")
		for i >= 0 && (i+1 >= len(src) || !strings.ContainsRune("%{#", rune(src[i+1]))) {
			j := strings.Index(src[i+1:], "{")
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			ps = append(ps, src)
			break
		}
		if i > 0 {
			ps = append(ps, src[:i])
		}
		closer := map[byte]string{'%': "%}", '{': "}}", '#': "#}"}[src[i+1]]
		j := strings.Index(src[i+2:], closer)
		if j < 0 {
			ps = append(ps, src[i:])
			break
		}
		ps = append(ps, src[i:i+2+j+2])
		src = src[i+2+j+2:]
	}
	return ps
}

// tagWord is the keyword of a {% %} piece ("if", "endfor", ...), or "".
func tagWord(p string) string {
	if !strings.HasPrefix(p, "{%") {
		return ""
	}
	f := strings.Fields(strings.TrimLeft(p[2:], "-+"))
	if len(f) == 0 {
		return ""
	}
	w := strings.TrimRight(f[0], "-+%}")
	if w == "set" && strings.Contains(p, "=") {
		return "" // an assignment, not a block
	}
	return w
}

// blockEdits remove whole blocks ({% if %} ... {% endif %} and the like), or
// replace one by the body of one of its branches.
func blockEdits(c *fuzzCase) []shrinkEdit {
	old := c.pieces
	var es []shrinkEdit
	replace := func(i, j int, keep []string) {
		np := append(append(slices.Clone(old[:i]), keep...), old[j+1:]...)
		es = append(es, shrinkEdit{do: func() { c.pieces = np }, undo: func() { c.pieces = old }})
	}
	type open struct {
		word     string
		at       int
		branches []int
	}
	var stack []open
	for i, p := range old {
		w := tagWord(p)
		switch {
		case slices.Contains([]string{"if", "for", "macro", "call", "filter", "with", "generation", "set", "raw"}, w):
			stack = append(stack, open{word: w, at: i})
		case (w == "elif" || w == "else") && len(stack) > 0:
			stack[len(stack)-1].branches = append(stack[len(stack)-1].branches, i)
		case strings.HasPrefix(w, "end") && len(stack) > 0 && stack[len(stack)-1].word == w[3:]:
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			replace(b.at, i, nil)
			bounds := append(append([]int{b.at}, b.branches...), i)
			for k := 0; k+1 < len(bounds); k++ {
				replace(b.at, i, old[bounds[k]+1:bounds[k+1]])
			}
		}
	}
	return es
}

// chunkEdits remove runs of size pieces, as delta debugging does.
func chunkEdits(c *fuzzCase, size int) []shrinkEdit {
	old := c.pieces
	var es []shrinkEdit
	for i := 0; i < len(old); i += size {
		np := slices.Delete(slices.Clone(old), i, min(len(old), i+size))
		es = append(es, shrinkEdit{do: func() { c.pieces = np }, undo: func() { c.pieces = old }})
	}
	return es
}

// jsonEdits delete object members and list items and shorten strings in the
// variables. The top-level "messages" stays: render.py requires it.
func jsonEdits(vars *jobj) []shrinkEdit {
	var es []shrinkEdit
	var walk func(v any, set func(any), top bool)
	walk = func(v any, set func(any), top bool) {
		switch x := v.(type) {
		case *jobj:
			oldK, oldV := x.keys, x.vals
			for i := range oldK {
				if !(top && oldK[i] == "messages") {
					es = append(es, shrinkEdit{
						do: func() {
							x.keys = slices.Delete(slices.Clone(oldK), i, i+1)
							x.vals = slices.Delete(slices.Clone(oldV), i, i+1)
						},
						undo: func() { x.keys, x.vals = oldK, oldV },
					})
				}
				walk(oldV[i], func(nv any) { x.vals[i] = nv }, false)
			}
		case []any:
			for i := range x {
				es = append(es, shrinkEdit{do: func() { set(slices.Delete(slices.Clone(x), i, i+1)) }, undo: func() { set(x) }})
				walk(x[i], func(nv any) { x[i] = nv }, false)
			}
		case string:
			rs := []rune(x)
			for _, s := range []string{"", "x", string(rs[:len(rs)/2])} {
				if len(s) < len(x) {
					es = append(es, shrinkEdit{do: func() { set(s) }, undo: func() { set(x) }})
				}
			}
		}
	}
	walk(vars, nil, true)
	return es
}

func fuzzEnvInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}
