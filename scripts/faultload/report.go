package main

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/scripts/perfdoc"
)

// backendMaxLine is backend.MaxLineBytes, the longest line of a runtime's
// stream the gateway gathers (not configurable).
const backendMaxLine = 16 << 20

type dist []time.Duration

func (d dist) q(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

func (d dist) max() time.Duration {
	if len(d) == 0 {
		return 0
	}
	return slices.Max(d)
}

var digits = regexp.MustCompile(`[0-9]+`)

// normalise makes messages that differ only in numbers one, on one line.
func normalise(msg string) string {
	return clip(strings.Join(strings.Fields(digits.ReplaceAllString(msg, "N")), " "), 200)
}

// cell is text fit for a Markdown table's cell, in code.
func cell(s string) string {
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "`", "'"), "|", "\\|") + "`"
}

// outcomeOf is a result's row in the tables.
func outcomeOf(r *result) string {
	if r.bad != "" {
		return "malformed"
	}
	return r.outcome
}

func isError(r *result) bool {
	o := outcomeOf(r)
	return o != outComplete && o != outLeft
}

// tally is one mode's results, counted.
type tally struct {
	m          *modeRun
	byScenario map[string][]*result
	outcomes   map[string]map[string]int // outcome → dialect → n
	hung       []*result
	malformed  []*result
	errs       []*result
	wellFormed []*result
	asWanted   []*result
	noRetry    []*result
	silent     []*result // heard nothing for longer than idle_timeout + margin while the runtime kept sending
	byID       map[string]*result
	upByID     map[string][]*upstreamRec
	cancelWant int // upstream requests that end only when the gateway cancels them
	cancelSeen int // of which the gateway cancelled
}

func count(m *modeRun, o options) *tally {
	t := &tally{m: m, byScenario: map[string][]*result{}, outcomes: map[string]map[string]int{},
		byID: map[string]*result{}, upByID: map[string][]*upstreamRec{}}
	for _, x := range m.res {
		t.byScenario[x.sc.name] = append(t.byScenario[x.sc.name], x)
		t.byID[x.id] = x
		oc := outcomeOf(x)
		if t.outcomes[oc] == nil {
			t.outcomes[oc] = map[string]int{}
		}
		t.outcomes[oc][x.dialect]++
		switch oc {
		case outHung:
			t.hung = append(t.hung, x)
		case "malformed":
			t.malformed = append(t.malformed, x)
		}
		if isError(x) {
			t.errs = append(t.errs, x)
			if oc != "malformed" && oc != outHung {
				t.wellFormed = append(t.wellFormed, x)
			}
		}
		if oc == x.sc.want {
			t.asWanted = append(t.asWanted, x)
		}
		if x.noRetry {
			t.noRetry = append(t.noRetry, x)
		}
		if x.silence > o.idle+o.margin && oc != outHung {
			t.silent = append(t.silent, x)
		}
	}
	for _, u := range m.upstreamRecs {
		t.upByID[u.id] = append(t.upByID[u.id], u)
	}
	for _, u := range m.running {
		t.upByID[u.id] = append(t.upByID[u.id], u)
	}
	for _, sc := range scenarios {
		if !sc.cancel {
			continue
		}
		for _, x := range t.byScenario[sc.name] {
			for _, u := range t.upByID[x.id] {
				t.cancelWant++
				if u.how == endCancelled {
					t.cancelSeen++
				}
			}
		}
	}
	return t
}

func (t *tally) clean() bool {
	return len(t.hung) == 0 && len(t.malformed) == 0 && t.m.crashed == "" && t.cancelSeen == t.cancelWant &&
		len(t.m.running) == 0 && t.m.settled.inFlight == 0 && len(t.m.after) == len(t.m.baseline)
}

func report(r *results) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	o := r.opts
	var ts []*tally
	var names []string
	for _, m := range r.modes {
		ts = append(ts, count(m, o))
		names = append(names, m.mode)
	}

	w("## Fault injection\n\n")
	w("Reproduce: `scripts/fault-load.sh` (that is, `go run ./scripts/faultload -out docs/PERFORMANCE.md`; ")
	w("this run took %s, the load %s of it per mode; `scripts/fault-load.sh -duration 10s -clients 64` for a quicker look, ", r.elapsed.Round(time.Second), secs(o.duration))
	w("`-modes own` for one mode, `-rev ''` to build the work tree instead of HEAD). A measurement, not a test: nothing in it is timed against a goal; it counts.\n\n")
	w("The gateway is the real binary (`CGO_ENABLED=0 go build ./cmd/dragoman`, %s, commit %s) started as ", size(uint64(r.binSize)), r.commit)
	w("`dragoman serve -config F -log-format off`, where F names one upstream of kind `ollama`, discovery off, and short limits: ")
	w("`response_header_timeout` %s, `idle_timeout` %s, `max_answer_bytes` %s, `max_trace_bytes` %s. ", secs(o.headerWait), secs(o.idle), size(uint64(o.maxAnswer)), size(uint64(o.maxTrace)))
	w("One run per mode (%s), each on a process of its own: own mode (Dragoman renders the prompt, Ollama's `/api/generate` raw, Dragoman parses), ", strings.Join(names, ", "))
	w("relay mode (Ollama's `/api/chat`, its answer repaired). ")
	w("The upstream is a fake Ollama in the measuring process on 127.0.0.1 whose model's template comes from a temporary `OLLAMA_MODELS` store ")
	w("(`tiny-qwen3-toolcall.gguf`), as on a real machine. Its normal answer is %d bytes of hermes-style output (reasoning, a sentence, a `get_weather` call) in %d NDJSON lines and `done`. ", len(answer), o.chunks)
	nAnth := 0
	if o.anthropic > 0 {
		nAnth = o.clients / o.anthropic
	}
	w("%d clients (%d of them Anthropic Messages `/v1/messages`, the others Chat Completions `/v1/chat/completions`, all `stream: true` with the tool) ", o.clients, nAnth)
	w("send one request after another for %s, each drawn from the scenarios below (seed %d). ", secs(o.duration), o.seed)
	w("The scenario travels in the user message (`[fault=NAME id=ID]`, which the gateway passes on in the prompt or the messages), so that the client knows what its request met ")
	w("and the fake records, per request, whether the gateway cancelled it. ")
	w("A request is *hung* when it has outlived the gateway's limits by a %s margin: no headers %s after it was sent (`response_header_timeout` + margin), ", secs(o.margin), secs(o.headerWait+o.margin))
	w("nothing received for %s once they came (`idle_timeout` + margin) while the fake sent nothing either, or still going %s after it was sent; the client then leaves it. ", secs(o.idle+o.margin), secs(o.hardCap))
	w("(A client may hear nothing while the runtime keeps sending: a call is passed on whole, so a runtime that floods inside one keeps the client waiting until `max_answer_bytes`. That is counted apart, as *silent*.) ")
	w("A flood is bounded by bytes, not time: a client that receives more than `max_answer_bytes` of answer text counts it as malformed.\n\n")

	w("| | |\n|---|---|\n")
	w("| Date | %s |\n", r.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("| Commit | %s (the binary's) |\n", r.commit)
	w("| Go | %s %s/%s, GOMAXPROCS=%d |\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	w("| CPU | %s |\n", perfdoc.CPU())
	w("| Load average | %s |\n", r.load)
	w("| Run time | %s |\n\n", r.elapsed.Round(time.Second))
	w("Client, fake upstream and gateway share the %d cores (and other work the load average shows), so the times include their competition.\n\n", runtime.NumCPU())

	// Summary.
	row := func(label string, f func(t *tally) string) {
		w("| %s |", label)
		for _, t := range ts {
			w(" %s |", f(t))
		}
		w("\n")
	}
	w("| |")
	for _, n := range names {
		w(" %s mode |", titleCase(n))
	}
	w("\n|---|")
	for range names {
		w("---:|")
	}
	w("\n")
	row("Requests", func(t *tally) string {
		return fmt.Sprintf("%d in %.1f s", len(t.m.res), t.m.loadTime.Seconds())
	})
	row("Outcome as the scenario wants", func(t *tally) string { return fmt.Sprintf("%d of %d", len(t.asWanted), len(t.m.res)) })
	row("**Hung**", func(t *tally) string { return bold(len(t.hung)) })
	row("Errors (not complete, not left) well-formed", func(t *tally) string {
		return fmt.Sprintf("%d of %d", len(t.wellFormed), len(t.errs))
	})
	row("**Malformed**", func(t *tally) string { return bold(len(t.malformed)) })
	row(fmt.Sprintf("Silent for more than %s while the runtime kept sending (not hung)", secs(o.idle+o.margin)), func(t *tally) string { return fmt.Sprint(len(t.silent)) })
	row("Upstream requests cancelled, of those only a cancel ends", func(t *tally) string {
		return fmt.Sprintf("%d of %d", t.cancelSeen, t.cancelWant)
	})
	row(fmt.Sprintf("**Upstream requests still running** %s after the load", secs(o.settle)), func(t *tally) string { return bold(len(t.m.running)) })
	row(fmt.Sprintf("Requests in flight (`/metrics`) %s after the load", secs(o.settle)), func(t *tally) string { return fmt.Sprint(t.m.settled.inFlight) })
	row("Goroutines: the twin after its warm-up / after the load", func(t *tally) string {
		if t.m.crashed != "" {
			return "**crashed**"
		}
		return fmt.Sprintf("%d / %d", len(t.m.baseline), len(t.m.after))
	})
	row("RSS: before the load / high-water mark / after", func(t *tally) string {
		return fmt.Sprintf("%s / %s / %s", kib(t.m.before.rss), kib(max(t.m.final.hwm, t.m.peakRSS)), kib(t.m.final.rss))
	})
	w("\n")
	for _, t := range ts {
		if t.m.crashed != "" {
			w("**The gateway exited under load in %s mode.** Its standard error ends:\n\n```\n%s\n```\n\n", t.m.mode, tail(t.m.crashed, 3000))
		}
	}
	allClean := true
	for _, t := range ts {
		allClean = allClean && t.clean()
	}
	if allClean {
		w("No request hung, every error was well-formed, every upstream request the gateway gave up on or whose client left was cancelled, ")
		w("nothing was left in flight, and the goroutines came back to the twin's count.\n\n")
	} else {
		w("**Not clean**: see the bold figures above and the details below.\n\n")
	}

	// Scenarios.
	w("### Scenarios\n\n")
	w("What the fake does, and what a correct gateway then gives the client. ")
	w("*complete*: 200 and the whole answer (the call parsed, `finish_reason: tool_calls` or `stop_reason: tool_use`, then `[DONE]` or `message_stop`); ")
	w("*error event*: 200, what came before, then an error event (`{\"error\": …}` then `[DONE]`, or `event: error`) and the end of the body; ")
	w("*status N*: that status with a JSON error body in the client's dialect (`{\"error\": {\"message\", \"type\"}}`, or `{\"type\": \"error\", \"error\": {…}}`), and `Retry-After` on a 502; ")
	w("*left*: the client closed the connection as the scenario says; ")
	w("*malformed*: anything else (a broken connection, a stream without its end, a body or event not in the dialect, an answer not as sent, an error message that names the runtime's address). ")
	w("*Cancel*: the fake's handler ends only when the gateway closes the request.\n\n")
	w("| Scenario | Share | The fake | Want | Cancel |\n|---|---:|---|---|---|\n")
	for _, sc := range scenarios {
		c := ""
		if sc.cancel {
			c = "yes"
		}
		w("| %s | %.1f%% | %s | %s | %s |\n", sc.name, 100*float64(sc.weight)/float64(totalWeight), sc.what, sc.want, c)
	}
	w("\n")

	for _, t := range ts {
		modeSection(w, o, t)
	}

	if len(r.costs) > 0 {
		w("### Scenarios alone\n\n")
		w("Each of the costly scenarios alone, beside the normal answer and the client that pauses: 2 Chat Completions clients for %s each, one request after another, through a fresh own-mode gateway; ", secs(o.costs))
		w("the gateway's CPU time from `/proc/PID/stat` (10 ms ticks). The load above mixes them in small shares because a few at once fill the gateway's share of the machine.\n\n")
		w("| Scenario | Requests | Outcomes | Time p50 | Gateway CPU per request | Gateway cores busy | Message |\n|---|---:|---|---:|---:|---:|---|\n")
		for _, c := range r.costs {
			per := time.Duration(0)
			if c.requests > 0 {
				per = c.cpu / time.Duration(c.requests)
			}
			msg := ""
			if m, n := mostCommon(c.msgs); m != "" {
				msg = fmt.Sprintf("%s (%d)", cell(m), n)
			}
			w("| %s | %d | %s | %s | %s | %.2f | %s |\n", c.sc.name, c.requests, countList(c.outcomes), fmtDur(c.took.q(0.5)), fmtDur(per), c.cpu.Seconds()/c.wall.Seconds(), msg)
		}
		w("\n")
		for _, c := range r.costs {
			if c.sc.name != "client-pauses-reading" || c.requests == 0 || c.outcomes[outEvent] == 0 {
				continue
			}
			w("A client that stops reading for longer than `idle_timeout` has a healthy answer cut (%d of %d here): while the gateway's write to it blocks, the gateway reads nothing from the runtime, ", c.outcomes[outEvent], c.requests)
			w("and the idle timer, reset only when a line has been passed on, fires; the error then blames the runtime, and reads `context canceled` when lines read before the timer fired were still passed on ")
			w("(each resets the timer that has fired, which then no longer says it did).\n\n")
		}
		for _, c := range r.costs {
			if c.sc.name != "flood-empty-chunks" || c.requests == 0 {
				continue
			}
			per := c.cpu / time.Duration(c.requests)
			w("A stream of lines that carry no text is bounded by `idle_timeout` alone (`max_answer_bytes` counts text and reasoning, and the idle timer is reset only by a line that carries some): ")
			w("each such request kept about %.2f of a core busy decoding empty lines until the timeout (%s of CPU in %s); `idle_timeout` is 2 minutes by default.\n\n",
				per.Seconds()/c.took.q(0.5).Seconds(), fmtDur(per), fmtDur(c.took.q(0.5)))
		}
	}

	// Memory.
	w("### Memory\n\n")
	w("| RSS of the gateway process (`/proc/PID/status`) |")
	for _, n := range names {
		w(" %s mode |", titleCase(n))
	}
	w("\n|---|")
	for range names {
		w("---:|")
	}
	w("\n")
	row("The twin after its warm-up", func(t *tally) string { return kib(t.m.baseRSS) })
	row("Before the load (after the warm-up)", func(t *tally) string { return kib(t.m.before.rss) })
	row("At most, sampled once a second", func(t *tally) string { return kib(t.m.peakRSS) })
	row("High-water mark (`VmHWM`) at the end", func(t *tally) string { return kib(t.m.final.hwm) })
	row("After the load, the idle connections closed", func(t *tally) string { return kib(t.m.final.rss) })
	row("Multi-MB lines being sent by the fake at once, at most", func(t *tally) string { return fmt.Sprint(t.m.peakBig) })
	w("\n")
	perReq := int64(backendMaxLine)*5/4 + 2*int64(o.maxAnswer) + 2*int64(o.maxTrace)
	w("What bounds it: a request holds at most one line of the runtime's stream (`backend.MaxLineBytes`, %s, past which the line is an error; ", size(backendMaxLine))
	w("gathered by `append`, so up to about a quarter more capacity), the answer's text as it is parsed (at most `max_answer_bytes`, %s, and its copy decoded from the line), ", size(uint64(o.maxAnswer)))
	w("and its trace's request and raw completion (each at most `max_trace_bytes`, %s): about %s a request at worst, so %d clients hold at most about %s; ",
		size(uint64(o.maxTrace)), size(uint64(perReq)), o.clients, size(uint64(perReq)*uint64(o.clients)))
	w("the trace store keeps 256 traces, each at most 2 × `max_trace_bytes` (%s in all), and the Go heap may grow to twice what is live before it is collected. ", size(256*2*uint64(o.maxTrace)))
	w("Without the limits nothing would bound it: a flood or an endless line would grow one request's memory until the process died. ")
	w("The run stays far below the bound because few requests hold a multi-MB line at once (the row above). ")
	w("What stays after the load is mostly the trace store, full of the floods' 1 MiB completions, and the heap the Go runtime has not yet given back.\n\n")

	// Goroutines.
	w("### Goroutines\n\n")
	w("The binary has no endpoint that counts its goroutines, so at the end it is sent SIGQUIT and its dump (`GOTRACEBACK=all`: every goroutine but the runtime's own) is read: ")
	w("%s after the load, once the clients' idle connections and then the fake's (those that carry no request, and those the gateway's transport dialled but never used) were closed, ", secs(o.settle))
	w("and in a twin process started the same way that served only the warm-up.\n\n")
	for _, t := range ts {
		m := t.m
		if m.crashed != "" {
			continue
		}
		w("%s mode: requests in flight (`/metrics`) at most %d during the load (sampled once a second), %d after; upstream handlers running at most %d; ",
			titleCase(m.mode), m.peakFlight, m.settled.inFlight, m.peakActive)
		w("the fake's idle connections closed: %d; OS threads %d before the load, %d after", m.closedIdle, m.before.threads, m.final.threads)
		if m.metricsErr > 0 {
			w("; %d of the once-a-second reads of `/metrics` failed", m.metricsErr)
		}
		w(".\n\n")
		bg, ag := groups(m.baseline), groups(m.after)
		all := map[string]bool{}
		for k := range bg {
			all[k] = true
		}
		for k := range ag {
			all[k] = true
		}
		rows := slices.SortedFunc(maps.Keys(all), func(a, b string) int {
			return cmp.Or(cmp.Compare(ag[b]-bg[b], ag[a]-bg[a]), cmp.Compare(a, b))
		})
		w("| %s mode: goroutine (entry function … innermost Dragoman function) [state] | Twin | After the load |\n|---|---:|---:|\n", titleCase(m.mode))
		for _, k := range rows {
			w("| `%s` | %d | %d |\n", k, bg[k], ag[k])
		}
		w("| All | %d | %d |\n\n", len(m.baseline), len(m.after))
	}
	return b.String()
}

// modeSection writes one mode's outcomes and the upstream's side.
func modeSection(w func(string, ...any), o options, t *tally) {
	m := t.m
	w("### %s mode\n\n", titleCase(m.mode))
	w("Per scenario: the requests, how many got the outcome it wants, the others, the time from sending the request to its end, the longest the client waited for a byte once the headers came, ")
	w("and the error's message as the client got it (numbers as N, whitespace as one space; the most frequent, and how many had it).\n\n")
	w("| Scenario | Requests | As wanted | Others | Time p50 / max | Longest silence | Message |\n|---|---:|---:|---|---:|---:|---|\n")
	for _, sc := range scenarios {
		xs := t.byScenario[sc.name]
		ok, others := 0, map[string]int{}
		var ds dist
		var silence time.Duration
		msgs := map[string]int{}
		named := 0
		for _, x := range xs {
			silence = max(silence, x.silence)
			if x.msg != "" && sc.reason != "" && strings.Contains(x.msg, sc.reason) {
				named++
			}
			oc := outcomeOf(x)
			if oc == sc.want {
				ok++
			} else {
				others[oc]++
			}
			ds = append(ds, x.dur)
			if x.msg != "" {
				msgs[normalise(x.msg)]++
			}
		}
		msg := ""
		if mc, n := mostCommon(msgs); mc != "" {
			msg = fmt.Sprintf("%s (%d)", cell(mc), n)
			if sc.reason != "" && named < len(xs) {
				msg += fmt.Sprintf("; %d of %d say %q", named, len(xs), sc.reason)
			}
		}
		w("| %s | %d | %d | %s | %s / %s | %s | %s |\n", sc.name, len(xs), ok, countList(others), fmtDur(ds.q(0.5)), fmtDur(ds.max()), fmtDur(silence), msg)
	}
	w("\n")
	w("| Outcome | Chat Completions | Anthropic Messages | All |\n|---|---:|---:|---:|\n")
	for _, k := range slices.Sorted(maps.Keys(t.outcomes)) {
		w("| %s | %d | %d | %d |\n", k, t.outcomes[k]["openai"], t.outcomes[k]["anthropic"], t.outcomes[k]["openai"]+t.outcomes[k]["anthropic"])
	}
	w("| All | %d | %d | %d |\n\n", countDialect(m.res, "openai"), countDialect(m.res, "anthropic"), len(m.res))
	thr := float64(len(m.res)) / m.loadTime.Seconds()
	w("%d requests in %.1f s (%.0f a second; per second: min %d, max %d); the last ended %s after the clients stopped starting new ones. ",
		len(m.res), m.loadTime.Seconds(), thr, minOf(m.perSecond), maxOf(m.perSecond), fmtDur(m.drainTime))
	w("CPU during the load: the gateway %.2f cores, the clients and the fake together %.2f. ",
		(m.loaded.cpu-m.before.cpu).Seconds()/m.loadTime.Seconds(), m.selfCPU.Seconds()/m.loadTime.Seconds())
	if len(t.noRetry) > 0 {
		w("%d answers 502 or 503 had no `Retry-After`. ", len(t.noRetry))
	} else {
		w("Every 502 carried `Retry-After`. ")
	}
	if len(m.totals) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m.totals)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, m.totals[k]))
		}
		w("The gateway's own count (`/metrics`, `dragoman_requests_total` by API and status, the two warm-up requests included): %s.", strings.Join(parts, ", "))
	}
	w("\n\n")
	modeNotes(w, o, t)
	if len(t.malformed) > 0 || len(t.hung) > 0 {
		w("Malformed and hung requests, by what was wrong (the first of each kind):\n\n")
		kinds := map[string][]*result{}
		for _, x := range append(slices.Clone(t.malformed), t.hung...) {
			k := normalise(x.bad)
			if x.bad == "" {
				k = "hung: " + x.hungWhy
			}
			kinds[k] = append(kinds[k], x)
		}
		ks := slices.SortedFunc(maps.Keys(kinds), func(a, b string) int { return cmp.Or(cmp.Compare(len(kinds[b]), len(kinds[a])), cmp.Compare(a, b)) })
		for _, k := range ks {
			x := kinds[k][0]
			gw := ""
			if x.gwFound {
				gw = fmt.Sprintf("; the gateway's trace: its handler began %s after the client sent the request and ran %s, status %d", fmtDur(x.gwLag), fmtDur(x.gwTook), x.gwStatus)
			}
			w("- %d× %s — e.g. %s, %s, %s after sending, %d events, %d bytes%s\n", len(kinds[k]), cell(k), x.sc.name, x.dialect, fmtDur(x.dur), x.events, x.bytes, gw)
		}
		w("\n")
	}

	w("The upstream's side, for the scenarios whose handler only a cancel ends: the upstream requests, how many the gateway cancelled ")
	w("(the fake's request context done, or a write failing), how many still ran %s after the load, and how long after the event that should end it ", secs(o.settle))
	w("(the client leaving, the request's arrival at the fake, or its last line) the cancel came.\n\n")
	w("| Scenario | Upstream requests | Cancelled | Still running | Cancelled after (p50 / max) | Measured from |\n|---|---:|---:|---:|---:|---|\n")
	for _, sc := range scenarios {
		if !sc.cancel {
			continue
		}
		n, c, run := 0, 0, 0
		var ds dist
		from := "its arrival"
		switch {
		case sc.leave > 0:
			from = "the client leaving"
		case sc.name == "stall-mid-stream":
			from = "its last line"
		}
		for _, x := range t.byScenario[sc.name] {
			for _, u := range t.upByID[x.id] {
				n++
				if u.end.IsZero() {
					run++
					continue
				}
				if u.how != endCancelled {
					continue
				}
				c++
				switch {
				case sc.leave > 0 && !x.leftAt.IsZero():
					ds = append(ds, u.end.Sub(x.leftAt))
				case sc.name == "stall-mid-stream":
					ds = append(ds, u.end.Sub(u.lastWrite()))
				default:
					ds = append(ds, u.end.Sub(u.start))
				}
			}
		}
		w("| %s | %d | %d | %s | %s / %s | %s |\n", sc.name, n, c, bold(run), fmtDur(ds.q(0.5)), fmtDur(ds.max()), from)
	}
	w("\n")
	attempts := map[int]int{}
	for _, x := range t.byScenario["close-before-headers"] {
		attempts[len(t.upByID[x.id])]++
	}
	if len(attempts) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(attempts)) {
			parts = append(parts, fmt.Sprintf("%d upstream request(s) for %d", k, attempts[k]))
		}
		w("`close-before-headers`: %s (the gateway sends a request once more, on a new connection, when a kept-alive one was closed before any answer). ", strings.Join(parts, ", "))
	}
	w("The fake accepted %d connections from the gateway during the load.\n\n", m.fakeConns)
	if len(m.running) > 0 {
		w("Upstream requests still running after the load (the gateway never closed them):\n\n")
		for i, u := range m.running {
			if i == 10 {
				w("- … and %d more\n", len(m.running)-10)
				break
			}
			cl := ""
			if x := t.byID[u.id]; x != nil {
				cl = fmt.Sprintf("; the client: %s after %s", outcomeOf(x), fmtDur(x.dur))
			}
			w("- %s `%s`, running for %s, %d bytes written%s\n", u.fault, u.id, fmtDur(time.Since(u.start)), u.written.Load(), cl)
		}
		w("\n")
	}
}

// modeNotes says what the figures of a mode show beyond the tables: why
// requests got another outcome than their scenario's, and what the limits
// made of the long lines.
func modeNotes(out func(string, ...any), o options, t *tally) {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	defer func() { out("%s\n\n", strings.TrimSpace(b.String())) }()
	m := t.m
	var arrive dist
	for _, x := range m.res {
		if us := t.upByID[x.id]; len(us) > 0 {
			arrive = append(arrive, us[0].start.Sub(x.start))
		}
	}
	others, late := 0, 0
	for _, x := range m.res {
		if oc := outcomeOf(x); oc != x.sc.want {
			others++
			if oc == "status 504" && x.sc.want != "status 504" {
				late++
			}
		}
	}
	w("The gateway passed a request on to the fake %s after the client sent it at the median, %s at p90, %s at most (decoding, routing, rendering and waiting for a share of the CPU). ",
		fmtDur(arrive.q(0.5)), fmtDur(arrive.q(0.9)), fmtDur(arrive.max()))
	if others > 0 {
		w("%d requests got another outcome than their scenario's. ", others)
	}
	if late > 0 {
		w("%d of them are 504s: `response_header_timeout` (%s) covers the gateway's own work before the runtime's headers too, ", late, secs(o.headerWait))
		w("and on a machine where the gateway had %.2f cores (the load average above) that work took longer than the limit; ", (m.loaded.cpu-m.before.cpu).Seconds()/m.loadTime.Seconds())
		w("`close-before-headers` is the most affected, as its request is sent twice within the limit. ")
	}
	if others > late {
		var rest []string
		for _, sc := range scenarios {
			n, ocs, msgs := 0, map[string]int{}, map[string]int{}
			for _, x := range t.byScenario[sc.name] {
				if oc := outcomeOf(x); oc != sc.want && oc != "status 504" {
					n++
					ocs[oc]++
					msgs[normalise(cmp.Or(x.msg, x.bad, x.hungWhy))]++
				}
			}
			if n > 0 {
				m, k := mostCommon(msgs)
				rest = append(rest, fmt.Sprintf("%s, %s instead of %s (%d of them %s)", sc.name, countList(ocs), sc.want, k, cell(m)))
			}
		}
		w("Besides 504s: %s. ", strings.Join(rest, "; "))
	}
	long, idle := 0, 0
	for _, name := range []string{"long-line-then-eof", "chunk-of-6-mb", "endless-line"} {
		for _, x := range t.byScenario[name] {
			if outcomeOf(x) != outEvent {
				continue
			}
			long++
			if strings.Contains(x.msg, "idle_timeout") {
				idle++
			}
		}
	}
	if idle > 0 {
		w("%d of the %d multi-MB lines that ended in an error event ended on `idle_timeout` (\"the runtime sent nothing\") while the fake was still sending the line or had sent it whole: ", idle, long)
		w("the idle limit is measured between whole lines, and reading one of several MB took the gateway longer than %s here. ", secs(o.idle))
	}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func bold(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("**%d**", n)
}

func mostCommon(m map[string]int) (string, int) {
	best, n := "", 0
	for k, v := range m {
		if v > n || (v == n && k < best) {
			best, n = k, v
		}
	}
	return best, n
}

func countList(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func countDialect(rs []*result, d string) int {
	n := 0
	for _, r := range rs {
		if r.dialect == d {
			n++
		}
	}
	return n
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func secs(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

func minOf(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Min(xs)
}

func maxOf(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

func kib(k int64) string { return size(uint64(max(k, 0)) << 10) }

func size(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
