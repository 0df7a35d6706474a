package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

var (
	messages = []map[string]any{
		{"role": "system", "content": "You are a helpful assistant. Use the tools when they help."},
		{"role": "user", "content": "What is the weather in Paris right now?"},
	}
	tools = []map[string]any{{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "Get the current weather in a city.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"city": map[string]any{"type": "string", "description": "The city, e.g. Paris"}}, "required": []string{"city"}},
	}}}
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// gatewayTarget asks the gateway for the answer: Chat Completions, streamed.
func gatewayTarget(addr string, c *http.Client) *target {
	return &target{name: "gateway", url: "http://" + addr + "/v1/chat/completions", kind: "sse", client: c,
		body: mustJSON(map[string]any{"model": "tiny-toolcall", "stream": true, "messages": messages, "tools": tools})}
}

// generateTarget asks the fake directly, as the gateway does in own mode:
// /api/generate with the prompt the gateway rendered.
func generateTarget(addr, prompt string, c *http.Client) *target {
	return &target{name: "direct", url: "http://" + addr + "/api/generate", kind: "ndjson-generate", client: c,
		body: mustJSON(map[string]any{"model": fakeModel, "prompt": prompt, "raw": true, "stream": true, "options": map[string]any{}})}
}

// chatTarget asks the fake directly, as the gateway does in relay mode.
func chatTarget(addr string, c *http.Client) *target {
	return &target{name: "direct", url: "http://" + addr + "/api/chat", kind: "ndjson-chat", client: c,
		body: mustJSON(map[string]any{"model": fakeModel, "messages": messages, "tools": tools, "stream": true, "options": map[string]any{}})}
}

// dist is a set of durations.
type dist []time.Duration

func (d dist) q(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)] // nearest rank
}

// side is one side of a comparison: its samples, and each round's median.
type side struct {
	total, ttft, ttfb dist
	roundP50          []time.Duration
	events            int           // lines or events per answer
	cpu               time.Duration // the serving process's CPU time per request (proxy, gateway)
}

// comparison is one mode's direct-versus-gateway run.
type comparison struct {
	mode          string
	direct, gw    side
	proxy         side            // direct, through a bare reverse proxy
	addedPerRound []time.Duration // gateway − direct total p50, per round
	upstreamConns int64           // connections the gateway opened to the fake during the runs
	gwAllocs      float64         // the gateway's heap allocations per request
	proxyAllocs   float64         // the bare proxy's
	proxyBytes    float64
	gwBytes       float64
	traceRender   dist // from the gateway's traces
	traceFirst    dist
	traceTotal    dist
	format        string
	template      string
	prompt        string // own mode: the prompt the gateway rendered, which the direct side sends
}

type results struct {
	opts        options
	started     time.Time
	elapsed     time.Duration
	load        string
	chunks      int
	answerBytes int

	binSize                      int64
	binIdle, binOne, binThousand procStats

	comps []*comparison
	tp    []*tpLevel // the throughput phase
	ld    loadResult
}

func runSide(t *target, n int, s *side) ([]string, error) {
	var ids []string
	round := make(dist, 0, n)
	for i := range n {
		smp, err := t.do()
		if err != nil {
			return nil, fmt.Errorf("%s %s, request %d: %w", t.name, t.url, i+1, err)
		}
		s.total = append(s.total, smp.total)
		s.ttft = append(s.ttft, smp.ttft)
		s.ttfb = append(s.ttfb, smp.ttfb)
		round = append(round, smp.total)
		s.events = smp.events
		if smp.id != "" {
			ids = append(ids, smp.id)
		}
	}
	s.roundP50 = append(s.roundP50, round.q(0.5))
	return ids, nil
}

func getTrace(addr, id string) (map[string]any, error) {
	resp, err := http.Get("http://" + addr + "/v1/dragoman/requests/" + id)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var rec map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&rec); err != nil {
		return nil, err
	}
	return rec, nil
}

func ms(v any) time.Duration {
	f, _ := v.(float64)
	return time.Duration(f * float64(time.Millisecond))
}

// measureLatency compares, per mode, the direct and the gateway path with
// sequential requests, the sides taking turns round by round (the first side
// alternating), each with its own keep-alive connection.
func measureLatency(r *results, fake *fakeUpstream, own, relay, proxy *child) error {
	o := r.opts
	for _, gw := range []*child{own, relay} {
		mode := "own"
		if gw == relay {
			mode = "relay"
		}
		c := &comparison{mode: mode}
		g := gatewayTarget(gw.addr, newClient(1))
		// The first request prepares the model (template from the GGUF);
		// its trace gives the prompt the direct side sends.
		smp, err := g.do()
		if err != nil {
			return fmt.Errorf("%s mode, first request: %w", mode, err)
		}
		rec, err := getTrace(gw.addr, smp.id)
		if err != nil {
			return err
		}
		if rec["mode"] != mode {
			return fmt.Errorf("the gateway ran in %v mode, want %s (decisions: %v)", rec["mode"], mode, rec["decisions"])
		}
		c.format, _ = rec["format"].(string)
		c.template, _ = rec["template_origin"].(string)
		c.prompt, _ = rec["prompt"].(string)
		if o.only != "" { // the throughput phase alone: the prompt is all it needs
			r.comps = append(r.comps, c)
			continue
		}
		var d, p *target
		if mode == "own" {
			prompt := c.prompt
			d = generateTarget(fake.addr, prompt, newClient(1))
			p = generateTarget(proxy.addr, prompt, newClient(1))
		} else {
			d = chatTarget(fake.addr, newClient(1))
			p = chatTarget(proxy.addr, newClient(1))
		}
		p.name = "proxy"
		warm := min(500, o.perRound)
		var scratch side
		for _, t := range []*target{d, p, g} {
			if _, err := runSide(t, warm, &scratch); err != nil {
				return err
			}
		}
		runtime.GC()
		conns0 := fake.conns.Load()
		gw0, px0 := gw.stats(true), proxy.stats(true)
		var lastIDs []string
		for i := range o.rounds {
			order := []*target{d, p, g}
			// Each side goes first, second and third in turn.
			order = append(order[i%3:], order[:i%3]...)
			for _, t := range order {
				s := &c.direct
				switch t {
				case g:
					s = &c.gw
				case p:
					s = &c.proxy
				}
				ids, err := runSide(t, o.perRound, s)
				if err != nil {
					return err
				}
				if t == g {
					lastIDs = ids
				}
			}
			c.addedPerRound = append(c.addedPerRound, c.gw.roundP50[i]-c.direct.roundP50[i])
			logf("%s mode, round %d/%d: total p50 direct %s, bare proxy %s, gateway %s", mode, i+1, o.rounds,
				fmtDur(c.direct.roundP50[i]), fmtDur(c.proxy.roundP50[i]), fmtDur(c.gw.roundP50[i]))
		}
		n := time.Duration(o.rounds * o.perRound)
		gw1 := gw.stats(true)
		c.gw.cpu = (gw1.CPU - gw0.CPU) / n
		// Less the 3 requests of the stats themselves: negligible.
		c.gwAllocs = float64(gw1.Mallocs-gw0.Mallocs) / float64(n)
		c.gwBytes = float64(gw1.TotalAlloc-gw0.TotalAlloc) / float64(n)
		px1 := proxy.stats(true)
		c.proxy.cpu = (px1.CPU - px0.CPU) / n
		c.proxyAllocs = float64(px1.Mallocs-px0.Mallocs) / float64(n)
		c.proxyBytes = float64(px1.TotalAlloc-px0.TotalAlloc) / float64(n)
		// Connections opened during the rounds: the clients keep theirs, the
		// bare proxy keeps its own; the rest are the gateway's.
		c.upstreamConns = fake.conns.Load() - conns0
		// The gateway keeps the last 256 traces: read the last round's.
		for _, id := range lastIDs[max(0, len(lastIDs)-200):] {
			rec, err := getTrace(gw.addr, id)
			if err != nil {
				return err
			}
			t, _ := rec["timings"].(map[string]any)
			c.traceRender = append(c.traceRender, ms(t["render_ms"]))
			c.traceFirst = append(c.traceFirst, ms(t["first_chunk_ms"]))
			c.traceTotal = append(c.traceTotal, ms(t["total_ms"]))
		}
		r.comps = append(r.comps, c)
	}
	return nil
}

// loadResult is the load run's outcome.
type loadResult struct {
	clients          int
	duration         time.Duration
	elapsed          time.Duration
	requests         int64
	errors           map[string]int64
	firstErrors      []string
	total, ttft      dist
	perSecond        []int64
	before, peak     procStats
	afterOpen        procStats // clients' connections still open
	afterClosed      procStats // clients' connections closed
	upstreamConns    int64
	upstreamRequests int64
}

func measureLoad(r *results, fake *fakeUpstream, gw *child) error {
	o := r.opts
	ld := &r.ld
	ld.clients, ld.duration, ld.errors = o.clients, o.duration, map[string]int64{}
	client := newClient(o.clients)
	client.Timeout = 30 * time.Second
	t := gatewayTarget(gw.addr, client)
	time.Sleep(500 * time.Millisecond)
	ld.before = gw.stats(true)
	conns0, reqs0 := fake.conns.Load(), fake.requests.Load()
	logf("load: %d clients for %s through the own-mode gateway", o.clients, o.duration)

	var done atomic.Int64
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	ld.peak = ld.before
	go func() { // once a second: throughput and the gateway's peak figures
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
			ld.perSecond = append(ld.perSecond, n-last)
			last = n
			st := gw.stats(true)
			ld.peak.Goroutines = max(ld.peak.Goroutines, st.Goroutines)
			ld.peak.RSSKiB = max(ld.peak.RSSKiB, st.RSSKiB)
			ld.peak.HeapInuse = max(ld.peak.HeapInuse, st.HeapInuse)
		}
	}()
	start := time.Now()
	deadline := start.Add(o.duration)
	var wg sync.WaitGroup
	for range o.clients {
		wg.Go(func() {
			var tot, ttft dist
			errs := map[string]int64{}
			var first []string
			for time.Now().Before(deadline) {
				smp, err := t.do()
				done.Add(1)
				if err != nil {
					kind := "other"
					if ek, ok := err.(*errKind); ok {
						kind = ek.kind
					}
					errs[kind]++
					if len(first) < 3 {
						first = append(first, err.Error())
					}
					continue
				}
				tot = append(tot, smp.total)
				ttft = append(ttft, smp.ttft)
			}
			mu.Lock()
			ld.total = append(ld.total, tot...)
			ld.ttft = append(ld.ttft, ttft...)
			for k, v := range errs {
				ld.errors[k] += v
			}
			if len(ld.firstErrors) < 5 {
				ld.firstErrors = append(ld.firstErrors, first...)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	ld.elapsed = time.Since(start)
	close(stop)
	<-sampled
	ld.requests = done.Load()
	ld.upstreamConns = fake.conns.Load() - conns0
	ld.upstreamRequests = fake.requests.Load() - reqs0
	time.Sleep(2 * time.Second)
	ld.afterOpen = gw.stats(true)
	client.Transport.(*http.Transport).CloseIdleConnections()
	time.Sleep(2 * time.Second)
	ld.afterClosed = gw.stats(true)
	nerr := int64(0)
	for _, v := range ld.errors {
		nerr += v
	}
	logf("load: %d requests in %s, %d errors %v; total p50 %s p99 %s; %d upstream connections opened",
		ld.requests, ld.elapsed.Round(time.Millisecond), nerr, ld.errors, fmtDur(ld.total.q(0.5)), fmtDur(ld.total.q(0.99)), ld.upstreamConns)
	for _, e := range ld.firstErrors {
		logf("  e.g. %s", e)
	}
	return nil
}
