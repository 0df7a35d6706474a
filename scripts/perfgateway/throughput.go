package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The throughput phase: at each of -tclients concurrency levels, N clients
// loop on streamed requests for -tduration, against the gateway (each mode)
// and against the bare proxy with the same mode's direct request, the two
// sides taking turns round by round (the first side alternating), -trounds
// rounds after one untimed warm-up turn each. A side's figure is the median of
// its rounds.

// tpSide is one side's rounds at one level.
type tpSide struct {
	perSec []float64       // requests/s, per round
	cpu    []time.Duration // the serving process's CPU time per request, per round
	errors int64
	first  string // the first error
}

func (s *tpSide) medianRate() float64 { return medianF(s.perSec) }

func (s *tpSide) medianCPU() time.Duration {
	c := slices.Clone(s.cpu)
	slices.Sort(c)
	if len(c) == 0 {
		return 0
	}
	return c[len(c)/2]
}

func medianF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// tpLevel is one mode at one concurrency level.
type tpLevel struct {
	mode      string
	clients   int
	gw, proxy tpSide
}

func parseClients(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-tclients: %q is not a client count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// runFor has n clients loop on t for d, and returns the requests completed
// (every answer checked), the errors and the first error.
func runFor(t *target, n int, d time.Duration) (ok, errs int64, first string) {
	var okN, errN atomic.Int64
	var once sync.Once
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if _, err := t.do(); err != nil {
					errN.Add(1)
					once.Do(func() { first = err.Error() })
					continue
				}
				okN.Add(1)
			}
		})
	}
	wg.Wait()
	return okN.Load(), errN.Load(), first
}

// measureThroughput runs the phase for every mode measured by
// measureLatency (whose first requests gave the prompts).
func measureThroughput(r *results, own, relay, proxy *child) error {
	o := r.opts
	levels, err := parseClients(o.tclients)
	if err != nil {
		return err
	}
	for _, c := range r.comps {
		gwc := own
		if c.mode == "relay" {
			gwc = relay
		}
		for _, n := range levels {
			lv := &tpLevel{mode: c.mode, clients: n}
			gc, pc := newClient(n), newClient(n)
			gc.Timeout, pc.Timeout = 30*time.Second, 30*time.Second
			g := gatewayTarget(gwc.addr, gc)
			var p *target
			if c.mode == "own" {
				p = generateTarget(proxy.addr, c.prompt, pc)
			} else {
				p = chatTarget(proxy.addr, pc)
			}
			p.name = "proxy"
			warm := max(o.tduration/3, 200*time.Millisecond)
			for _, t := range []*target{g, p} {
				if _, errs, first := runFor(t, n, warm); errs > 0 {
					return fmt.Errorf("throughput warm-up, %s mode, %d clients, %s: %d errors, e.g. %s", c.mode, n, t.name, errs, first)
				}
			}
			for i := range o.trounds {
				order := []*target{g, p}
				if i%2 == 1 {
					order = []*target{p, g}
				}
				for _, t := range order {
					s, ch := &lv.gw, gwc
					if t == p {
						s, ch = &lv.proxy, proxy
					}
					st0 := ch.stats(false)
					start := time.Now()
					ok, errs, first := runFor(t, n, o.tduration)
					el := time.Since(start)
					st1 := ch.stats(false)
					s.perSec = append(s.perSec, float64(ok)/el.Seconds())
					s.cpu = append(s.cpu, (st1.CPU-st0.CPU)/time.Duration(max(ok+errs, 1)))
					s.errors += errs
					if s.first == "" {
						s.first = first
					}
				}
				logf("throughput, %s mode, %d clients, round %d/%d: gateway %.0f/s, bare proxy %.0f/s", c.mode, n, i+1, o.trounds,
					lv.gw.perSec[i], lv.proxy.perSec[i])
			}
			gc.Transport.(*http.Transport).CloseIdleConnections()
			pc.Transport.(*http.Transport).CloseIdleConnections()
			r.tp = append(r.tp, lv)
		}
	}
	return nil
}

// goalThroughput is issue #21's: at least 80% of the bare proxy's.
const goalThroughput = 0.8

func reportThroughput(w func(string, ...any), r *results) {
	o := r.opts
	w("### Throughput beside the bare proxy\n\n")
	w("At each concurrency level, that many clients loop on streamed requests for %s, against the gateway (Chat Completions, ", secs(o.tduration))
	w("every answer checked as above) and against the bare proxy (the same mode's direct request); the two sides take turns, ")
	w("%d rounds each after one untimed warm-up turn, the first side alternating; each figure is the median of the rounds. ", o.trounds)
	w("CPU is the serving process's (the gateway's or the bare proxy's) per request; the clients and the fake upstream share the cores ")
	w("with it, so the throughput is the machine's with that process in the path.\n\n")
	miss := []string{}
	for _, lv := range r.tp {
		if lv.proxy.medianRate() == 0 || lv.gw.medianRate()/lv.proxy.medianRate() < goalThroughput || lv.gw.errors > 0 {
			miss = append(miss, fmt.Sprintf("%s mode at %d clients", lv.mode, lv.clients))
		}
	}
	verdict := "**met**"
	if len(miss) > 0 {
		verdict = "**not met** (" + strings.Join(miss, ", ") + ")"
	}
	w("Goal (issue #21): at every level, in both modes, at least %.0f%% of the bare proxy's throughput — %s.\n\n", goalThroughput*100, verdict)
	w("| Mode | Clients | Gateway requests/s | Bare proxy requests/s | Gateway ÷ proxy | Gateway CPU per request | Bare proxy CPU per request | CPU ratio | Rounds, gateway / proxy | Errors, gateway / proxy |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, lv := range r.tp {
		g, p := lv.gw.medianRate(), lv.proxy.medianRate()
		ratio, cpuRatio := 0.0, 0.0
		if p > 0 {
			ratio = g / p
		}
		if lv.proxy.medianCPU() > 0 {
			cpuRatio = float64(lv.gw.medianCPU()) / float64(lv.proxy.medianCPU())
		}
		w("| %s | %d | %.0f | %.0f | %.0f%% | %s | %s | %.2f× | %s / %s | %d / %d |\n", lv.mode, lv.clients, g, p, ratio*100,
			fmtDur(lv.gw.medianCPU()), fmtDur(lv.proxy.medianCPU()), cpuRatio, joinRate(lv.gw.perSec), joinRate(lv.proxy.perSec),
			lv.gw.errors, lv.proxy.errors)
	}
	w("\n")
	for _, lv := range r.tp {
		for _, s := range []struct {
			name string
			t    *tpSide
		}{{"gateway", &lv.gw}, {"bare proxy", &lv.proxy}} {
			if s.t.first != "" {
				w("First error, %s, %s mode, %d clients: `%s`\n\n", s.name, lv.mode, lv.clients, strings.ReplaceAll(s.t.first, "`", "'"))
			}
		}
	}
}

func joinRate(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.0f", x))
	}
	return strings.Join(s, ", ")
}
