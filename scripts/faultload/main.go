// Command faultload runs the real `dragoman serve` under streaming load
// against an upstream that misbehaves on purpose, and writes the "## Fault
// injection" section of docs/PERFORMANCE.md:
//
//	go run ./scripts/faultload -out docs/PERFORMANCE.md [-duration 60s] [-clients 256]
//
// It is a measurement, not a test: it asserts nothing on time; it counts.
//
// The binary is built with CGO_ENABLED=0 (from `git archive HEAD` unless
// -rev says otherwise, so that uncommitted work in the tree stays out) and
// started with a config file whose only upstream is a fake Ollama in this
// process, and whose limits are short (limits.response_header_timeout and
// idle_timeout 2 s, max_answer_bytes 4 MiB, max_trace_bytes 1 MiB). The
// fake's model template comes from a temporary Ollama store whose blob is
// the tiny Qwen3 GGUF, so the gateway renders and parses as it would over a
// real Ollama. One run per mode (-modes own,relay), each on a process of its
// own.
//
// -clients clients (one in -anthropic-every speaks Anthropic Messages, the
// rest Chat Completions, all streamed with a tool) send requests one after
// another for -duration, each drawn from the scenarios of scenarios.go: the
// fake answers normally, slowly, stalls before its headers or mid-stream,
// cuts the connection, floods, sends garbage, a 500 with HTML or closes at
// once; in some the client leaves. The scenario travels in the user message
// as "[fault=NAME id=ID]", which the gateway passes on in the prompt or the
// messages, so that the client knows what its request met and the fake
// records, per id, whether the gateway cancelled it.
//
// Per request the client checks that the answer is well-formed: a whole
// answer, a JSON error body in its dialect, or an event stream ended by an
// error event; an error's message must name no address of the runtime, and
// no more than max_answer_bytes of text may arrive. A request is hung when
// it outlives the limits by -margin: no headers response_header_timeout +
// margin after it was sent, or nothing received for idle_timeout + margin
// while the fake sent nothing either (a client hears nothing while a call
// is held whole, and the runtime may still be sending it), or still going
// after -hard-cap; the client then leaves it. After the load: requests in
// flight (/metrics), the fake's handlers still running (upstream requests
// the gateway never cancelled), and, once the clients' and the fake's idle
// connections are closed, the goroutines: the binary has no endpoint that
// counts them, so it is sent SIGQUIT and its dump (GOTRACEBACK=all) is
// read, beside that of a twin process that only served the warm-up. RSS and
// its high-water mark come from /proc. Last, each costly scenario runs alone
// (-costs) for the gateway's CPU time per request.
package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dragoman-dev/dragoman/scripts/perfdoc"
)

type options struct {
	out        string
	duration   time.Duration
	clients    int
	anthropic  int // one client in this many speaks Anthropic Messages; 0: none
	headerWait time.Duration
	idle       time.Duration
	maxAnswer  int
	maxTrace   int
	margin     time.Duration
	settle     time.Duration
	modes      string
	rev        string
	gguf       string
	seed       uint64
	hardCap    time.Duration
	costs      time.Duration
	chunks     int
	dump       string
	results    string
	tee        string
}

func main() {
	var o options
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "shared")
	}
	flag.StringVar(&o.out, "out", "", "markdown file whose \"## Fault injection\" section is (re)written; empty: print the section")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long the clients start requests")
	flag.IntVar(&o.clients, "clients", 256, "concurrent streaming clients")
	flag.IntVar(&o.anthropic, "anthropic-every", 4, "one client in this many speaks Anthropic Messages (0: none)")
	flag.DurationVar(&o.headerWait, "response-header-timeout", 2*time.Second, "the gateway's limits.response_header_timeout")
	flag.DurationVar(&o.idle, "idle-timeout", 2*time.Second, "the gateway's limits.idle_timeout")
	flag.IntVar(&o.maxAnswer, "max-answer-bytes", 4<<20, "the gateway's limits.max_answer_bytes")
	flag.IntVar(&o.maxTrace, "max-trace-bytes", 1<<20, "the gateway's limits.max_trace_bytes")
	flag.DurationVar(&o.margin, "margin", 20*time.Second, "added to the limits: a request without headers response_header_timeout+margin after it was sent, or receiving nothing for idle_timeout+margin while the fake sends nothing either, is hung")
	flag.DurationVar(&o.hardCap, "hard-cap", 90*time.Second, "a request still going this long after it was sent is hung too")
	flag.DurationVar(&o.costs, "costs", 6*time.Second, "how long each of the costly scenarios runs alone (2 clients, own mode) to measure its cost to the gateway; 0: not measured")
	flag.StringVar(&o.results, "results", "", "write every request (the client's and the fake's view) as JSON lines to this file")
	flag.DurationVar(&o.settle, "settle", 3*time.Second, "wait after the load before counting what is left")
	flag.StringVar(&o.modes, "modes", "own,relay", "the upstream's modes, one run each: own (/api/generate, Dragoman renders and parses), relay (/api/chat)")
	flag.StringVar(&o.rev, "rev", "HEAD", "build the binary from this commit (git archive); empty: from the work tree")
	flag.StringVar(&o.gguf, "gguf", filepath.Join(shared, "models", "tiny-qwen3-toolcall.gguf"), "GGUF whose chat template the fake model has")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the scenario draws")
	flag.IntVar(&o.chunks, "chunks", 32, "NDJSON lines in the fake's normal answer, before done")
	flag.StringVar(&o.dump, "dump", "", "also write the gateway's goroutine dumps after the load to this file's name + .MODE")
	flag.StringVar(&o.tee, "gateway-stderr", "", "append the gateway processes' standard error to this file (for a closer look, e.g. with GODEBUG=gctrace=1)")
	onlyNames := flag.String("only", "", "draw only these scenarios (comma-separated), for a closer look")
	flag.Parse()
	if *onlyNames != "" {
		if err := only(*onlyNames); err != nil {
			fmt.Fprintln(os.Stderr, "faultload:", err)
			os.Exit(2)
		}
	}
	if err := drive(o); err != nil {
		fmt.Fprintln(os.Stderr, "faultload:", err)
		os.Exit(1)
	}
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

// makeStore lays out an Ollama model store holding the fake model: its
// manifest, and its model blob as a link to the GGUF.
func makeStore(dir, gguf string) error {
	abs, err := filepath.Abs(gguf)
	if err != nil {
		return err
	}
	f, err := os.Open(abs)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	digest := hex.EncodeToString(h.Sum(nil))
	man := map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
		"layers": []any{map[string]any{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + digest}}}
	b, _ := json.Marshal(man)
	mp := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", "tiny-toolcall", "latest")
	if err := os.MkdirAll(filepath.Dir(mp), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(mp, b, 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o755); err != nil {
		return err
	}
	return os.Symlink(abs, filepath.Join(dir, "blobs", "sha256-"+digest))
}

// writeConfig writes the gateway's config file: the fake as its only
// upstream, no discovery, the short limits.
func writeConfig(path, upstream, mode string, o options) error {
	cfg := map[string]any{
		"listen": "127.0.0.1:0", "no_discover": true,
		"upstreams": []any{map[string]any{"url": "http://" + upstream, "kind": "ollama", "mode": mode}},
		"limits": map[string]any{
			"response_header_timeout": o.headerWait.String(), "idle_timeout": o.idle.String(),
			"max_answer_bytes": o.maxAnswer, "max_trace_bytes": o.maxTrace,
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func (o options) client(hc *http.Client, gw, dialect string, fake *fakeUpstream) *loadClient {
	return &loadClient{http: hc, small: smallBufClient, gw: gw, dialect: dialect, headerLimit: o.headerWait + o.margin, idleLimit: o.idle + o.margin,
		hardCap: o.hardCap, maxAnswer: o.maxAnswer, upstream: fake.addr, port: fake.port, upstreamProgress: fake.progress}
}

// smallBufClient's connections have a 64 KiB receive buffer, set before
// connecting (which turns the kernel's autotuning off for them): a client
// that stops reading then soon blocks the gateway's writes.
var smallBufClient = &http.Client{Transport: &http.Transport{
	DialContext: (&net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
		return cmp.Or(err, serr)
	}}).DialContext,
	MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second, DisableCompression: true,
}}

func newHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: conns + 16, MaxIdleConnsPerHost: conns + 16, IdleConnTimeout: 90 * time.Second,
		DisableCompression: true,
	}}
}

// snapshot is what the driver reads of the gateway at one moment.
type snapshot struct {
	rss, hwm, threads int64 // KiB, KiB, count
	cpu               time.Duration
	inFlight          int64
	metricsErr        error
}

func (g *gateway) snapshot(mc *http.Client) snapshot {
	var s snapshot
	s.rss, s.hwm, s.threads, s.cpu = procFigures(g.cmd.Process.Pid)
	s.inFlight, _, s.metricsErr = g.metrics(mc)
	return s
}

// warmUp sends one normal request per dialect (the model is prepared: its
// template read from the GGUF and compiled), then closes the idle
// connections on both sides.
func warmUp(g *gateway, fake *fakeUpstream, o options) error {
	for _, d := range []string{"openai", "anthropic"} {
		c := o.client(newHTTPClient(1), g.addr, d, fake)
		r := c.do(scenarioByFault["normal"], "")
		c.http.CloseIdleConnections()
		if r.outcome != outComplete || r.bad != "" {
			return fmt.Errorf("warm-up %s request: %s %s %s", d, r.outcome, r.bad, r.msg)
		}
	}
	fake.closeIdle()
	time.Sleep(time.Second)
	return nil
}

// results is the whole run; modeRun one mode's part of it.
type results struct {
	opts    options
	started time.Time
	elapsed time.Duration
	load    string
	commit  string
	binSize int64
	modes   []*modeRun
	costs   []cost
}

// cost is what one scenario alone costs the gateway.
type cost struct {
	sc       *scenario
	requests int
	cpu      time.Duration // the gateway's CPU time over them
	wall     time.Duration
	took     dist // per request, sending to its end
	outcomes map[string]int
	msgs     map[string]int // the errors' messages, normalised
}

// costScenarios are measured alone, beside the normal answer.
var costScenarios = []string{"normal", "flood-text", "flood-in-a-call", "flood-empty-chunks", "long-line-then-eof", "chunk-of-6-mb", "endless-line", "client-pauses-reading"}

// measureCosts runs each costly scenario alone for o.costs with 2 Chat
// Completions clients through a fresh own-mode gateway, and reads the
// gateway's CPU time from /proc.
func measureCosts(o options, bin, store, tmp string, fake *fakeUpstream) ([]cost, error) {
	cfg := filepath.Join(tmp, "config-costs.json")
	if err := writeConfig(cfg, fake.addr, "own", o); err != nil {
		return nil, err
	}
	g, err := startGateway(bin, cfg, store, o.tee)
	if err != nil {
		return nil, err
	}
	defer g.stop()
	if err := g.ready(); err != nil {
		return nil, err
	}
	if err := warmUp(g, fake, o); err != nil {
		return nil, err
	}
	var out []cost
	for _, name := range costScenarios {
		sc := scenarioByFault[name]
		hc := newHTTPClient(2)
		c := cost{sc: sc, outcomes: map[string]int{}, msgs: map[string]int{}}
		_, _, _, cpu0 := procFigures(g.cmd.Process.Pid)
		start := time.Now()
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				lc := o.client(hc, g.addr, "openai", fake)
				for n := 0; time.Since(start) < o.costs; n++ {
					res := lc.do(sc, fmt.Sprintf("cost-%s-%d-%d", name, i, n))
					mu.Lock()
					c.requests++
					c.took = append(c.took, res.dur)
					c.outcomes[outcomeOf(res)]++
					if res.msg != "" {
						c.msgs[normalise(res.msg)]++
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		c.wall = time.Since(start)
		_, _, _, cpu1 := procFigures(g.cmd.Process.Pid)
		c.cpu = cpu1 - cpu0
		hc.CloseIdleConnections()
		out = append(out, c)
		logf("faultload: costs: %s: %d requests in %s, the gateway %s CPU", name, c.requests, c.wall.Round(time.Millisecond), c.cpu)
	}
	return out, nil
}

type modeRun struct {
	mode       string
	loadStart  time.Time
	baseline   []goroutine // the twin's, after the warm-up
	baseRSS    int64
	before     snapshot // the measured process, after its warm-up
	loadTime   time.Duration
	drainTime  time.Duration // from the end of -duration until the last request ended
	res        []*result
	perSecond  []int64
	peakRSS    int64
	peakFlight int64
	peakActive int
	peakBig    int64
	metricsErr int

	loaded       snapshot      // at the end of the load
	selfCPU      time.Duration // the clients' and the fake's CPU time during the load
	settled      snapshot      // -settle after the load
	running      []*upstreamRec
	upstreamRecs []*upstreamRec
	closedIdle   int
	final        snapshot // after the idle connections closed
	totals       map[string]int64
	after        []goroutine
	crashed      string // the gateway's standard error, when it exited under load
	fakeConns    int64
}

func drive(o options) error {
	if _, err := os.Stat(filepath.Join("cmd", "dragoman")); err != nil {
		return fmt.Errorf("run from the repository root (%v)", err)
	}
	r := &results{opts: o, started: time.Now()}
	loadStart := perfdoc.LoadAvg()
	tmp, err := os.MkdirTemp("", "faultload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	store := filepath.Join(tmp, "models")
	if err := makeStore(store, o.gguf); err != nil {
		return fmt.Errorf("model store: %w", err)
	}
	bin, commit, err := buildBinary(tmp, o.rev)
	if err != nil {
		return err
	}
	r.commit = commit
	if st, err := os.Stat(bin); err == nil {
		r.binSize = st.Size()
	}
	logf("faultload: dragoman built from %s (%d bytes)", commit, r.binSize)

	fake := newFake(o.chunks)
	if err := fake.start(); err != nil {
		return err
	}
	for _, mode := range strings.Split(o.modes, ",") {
		m, err := runMode(o, mode, bin, store, tmp, fake)
		if err != nil {
			return fmt.Errorf("%s mode: %w", mode, err)
		}
		r.modes = append(r.modes, m)
	}
	if o.costs > 0 {
		if r.costs, err = measureCosts(o, bin, store, tmp, fake); err != nil {
			return fmt.Errorf("costs: %w", err)
		}
	}
	r.elapsed = time.Since(r.started)
	r.load = loadStart + " at the start, " + perfdoc.LoadAvg() + " at the end"
	section := report(r)
	if o.out == "" {
		fmt.Print(section)
		return nil
	}
	if err := perfdoc.WriteSection(o.out, "## Fault injection", section); err != nil {
		return err
	}
	logf("faultload: wrote %s", o.out)
	return nil
}

// runMode measures one mode: the twin, then the load on a process of its
// own, then what is left after it.
func runMode(o options, mode, bin, store, tmp string, fake *fakeUpstream) (*modeRun, error) {
	m := &modeRun{mode: mode}
	cfg := filepath.Join(tmp, "config-"+mode+".json")
	if err := writeConfig(cfg, fake.addr, mode, o); err != nil {
		return nil, err
	}
	mc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

	// The twin: warm-up only, then its goroutines.
	twin, err := startGateway(bin, cfg, store, o.tee)
	if err != nil {
		return nil, err
	}
	if err := twin.ready(); err != nil {
		twin.stop()
		return nil, err
	}
	if err := warmUp(twin, fake, o); err != nil {
		twin.stop()
		return nil, fmt.Errorf("twin: %w", err)
	}
	m.baseRSS, _, _, _ = procFigures(twin.cmd.Process.Pid)
	time.Sleep(time.Second)
	dump, err := twin.quit()
	if err != nil {
		return nil, fmt.Errorf("twin: %w", err)
	}
	m.baseline = parseDump(dump)
	logf("faultload: %s mode: twin after its warm-up: %d goroutines, RSS %d KiB", mode, len(m.baseline), m.baseRSS)

	g, err := startGateway(bin, cfg, store, o.tee)
	if err != nil {
		return nil, err
	}
	defer g.stop()
	if err := g.ready(); err != nil {
		return nil, err
	}
	if err := warmUp(g, fake, o); err != nil {
		return nil, err
	}
	m.before = g.snapshot(mc)
	fake.reset()
	m.loadStart = time.Now()
	conns0 := fake.nconns.Load()

	_, _, _, self0 := procFigures(os.Getpid())
	runLoad(o, m, g, fake, mc)
	_, _, _, self1 := procFigures(os.Getpid())
	m.selfCPU = self1 - self0
	m.loaded = g.snapshot(mc)

	m.fakeConns = fake.nconns.Load() - conns0
	if g.exited() {
		m.crashed = g.stderr()
		logf("faultload: %s mode: the gateway exited under load:\n%s", mode, clip(m.crashed, 4000))
	} else {
		time.Sleep(o.settle)
		m.settled = g.snapshot(mc)
		m.running = fake.running()
		m.closedIdle = fake.closeIdle()
		time.Sleep(2 * time.Second)
		m.final = g.snapshot(mc)
		_, m.totals, _ = g.metrics(mc)
		time.Sleep(time.Second) // the metrics' connection closed on both sides
		dump, err := g.quit()
		if err != nil {
			return nil, err
		}
		m.after = parseDump(dump)
		if o.dump != "" {
			os.WriteFile(o.dump+"."+mode, []byte(dump), 0o644)
		}
		logf("faultload: %s mode: after the load: %d in flight, %d upstream handlers running, %d goroutines (twin: %d), RSS %d KiB, HWM %d KiB",
			mode, m.settled.inFlight, len(m.running), len(m.after), len(m.baseline), m.final.rss, m.final.hwm)
	}
	fake.mu.Lock()
	m.upstreamRecs = append([]*upstreamRec(nil), fake.recs...)
	fake.mu.Unlock()
	if o.results != "" {
		if err := writeResults(o.results, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// runLoad runs the clients for the duration and samples the gateway once a
// second; it returns when every request has ended.
func runLoad(o options, r *modeRun, g *gateway, fake *fakeUpstream, mc *http.Client) {
	hc := newHTTPClient(o.clients)
	var done atomic.Int64
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last := int64(0)
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			n := done.Load()
			r.perSecond = append(r.perSecond, n-last)
			last = n
			s := g.snapshot(mc)
			r.peakRSS = max(r.peakRSS, s.rss)
			r.peakFlight = max(r.peakFlight, s.inFlight)
			if s.metricsErr != nil {
				r.metricsErr++
			}
			r.peakActive = max(r.peakActive, fake.activeCount())
		}
	}()
	logf("faultload: %s mode: %d clients for %s", r.mode, o.clients, o.duration)
	start := time.Now()
	deadline := start.Add(o.duration)
	var wg sync.WaitGroup
	for i := range o.clients {
		wg.Go(func() {
			dialect := "openai"
			if o.anthropic > 0 && i%o.anthropic == o.anthropic-1 {
				dialect = "anthropic"
			}
			c := o.client(hc, g.addr, dialect, fake)
			rng := rand.New(rand.NewPCG(o.seed, uint64(i)))
			var mine []*result
			for n := 0; time.Now().Before(deadline); n++ {
				res := c.do(pick(rng), fmt.Sprintf("c%d-%d", i, n))
				done.Add(1)
				mine = append(mine, res)
				if g.exited() {
					break
				}
			}
			mu.Lock()
			r.res = append(r.res, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.loadTime = time.Since(start)
	r.drainTime = time.Since(deadline)
	close(stop)
	<-sampled
	hc.CloseIdleConnections()
	smallBufClient.CloseIdleConnections()
	r.peakBig = fake.bigPeak.Load()
}

// writeResults appends every request of a mode to path as JSON lines: the
// client's view and each upstream request the fake saw for it, times in
// milliseconds from the start of the load.
func writeResults(path string, m *modeRun) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ms := func(t time.Time) float64 {
		if t.IsZero() {
			return -1
		}
		return float64(t.Sub(m.loadStart).Microseconds()) / 1000
	}
	up := map[string][]map[string]any{}
	add := func(u *upstreamRec) {
		up[u.id] = append(up[u.id], map[string]any{"start": ms(u.start), "end": ms(u.end), "last_write": ms(u.lastWrite()),
			"how": u.how, "bytes": u.written.Load(), "by_write_fail": u.byWriteFail})
	}
	for _, u := range m.upstreamRecs {
		add(u)
	}
	for _, u := range m.running {
		add(u)
	}
	enc := json.NewEncoder(f)
	for _, x := range m.res {
		if err := enc.Encode(map[string]any{"mode": m.mode, "scenario": x.sc.name, "dialect": x.dialect, "id": x.id,
			"outcome": outcomeOf(x), "bad": x.bad, "status": x.status, "msg": x.msg, "hung": x.hungWhy,
			"start": ms(x.start), "dur_ms": float64(x.dur.Microseconds()) / 1000, "bytes": x.bytes, "text": x.text, "events": x.events, "silence_ms": float64(x.silence.Microseconds()) / 1000,
			"gw_found": x.gwFound, "gw_lag_ms": x.gwLag.Milliseconds(), "gw_took_ms": x.gwTook.Milliseconds(), "gw_status": x.gwStatus,
			"upstream": up[x.id]}); err != nil {
			return err
		}
	}
	return nil
}
