package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/scripts/perfdoc"
)

// Goals from issue #5.
const (
	goalAddedP50  = 100 * time.Microsecond
	goalAddedTTFT = 200 * time.Microsecond
)

func report(r *results) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	o := r.opts
	w("## Gateway\n\n")
	if o.only != "" {
		w("Reproduce: `go run ./scripts/perfgateway -only %s` (this run took %s; printed, not written to docs/PERFORMANCE.md).\n\n",
			o.only, r.elapsed.Round(time.Second))
	} else {
		w("Reproduce: `scripts/perf-gateway.sh` (that is, `go run ./scripts/perfgateway -out docs/PERFORMANCE.md`; ")
		w("this run took %s, the load %s of it; `scripts/perf-gateway.sh -duration 10s -tduration 1s` for a quicker look, ",
			r.elapsed.Round(time.Second), secs(r.ld.duration))
		w("`go run ./scripts/perfgateway -only throughput` for the throughput beside the bare proxy alone).\n\n")
	}
	w("The upstream is a fake Ollama in the measuring process on 127.0.0.1 that answers at once: no model, the same ")
	w("hermes-style (Qwen3) answer every time (%d bytes: reasoning in `<think>`, a sentence, a `<tool_call>` for ", r.answerBytes)
	w("`get_weather`) in %d NDJSON lines plus the `done` line, each line flushed as Ollama flushes a token; ", r.chunks)
	w("`/api/generate` (raw) for own mode, `/api/chat` (the reasoning, the content, then the call whole) for relay mode. ")
	w("Its model's chat template is found as on a real machine: a temporary `OLLAMA_MODELS` store whose model blob is ")
	w("`tiny-qwen3-toolcall.gguf`. The gateway runs in its own process, as `dragoman serve` builds it (`gateway.New` ")
	w("behind an `http.Server`, one upstream of kind `ollama`, discovery off), one process per mode.\n\n")

	w("| | |\n|---|---|\n")
	w("| Date | %s |\n", r.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("| Commit | %s |\n", perfdoc.Commit("."))
	w("| Go | %s %s/%s, GOMAXPROCS=%d |\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	w("| CPU | %s |\n", perfdoc.CPU())
	w("| Load average | %s |\n", r.load)
	w("| Run time | %s |\n\n", r.elapsed.Round(time.Second))
	w("A load average above zero means other work shared the machine. Client, fake upstream and gateway also share ")
	w("the same %d cores, so every figure below includes their competition for them; the added latency less so, since ", runtime.NumCPU())
	w("the sides take turns.\n\n")
	if o.only != "" {
		reportThroughput(w, r)
		return b.String()
	}

	// Goal line.
	var own *comparison
	for _, c := range r.comps {
		if c.mode == "own" {
			own = c
		}
	}
	if own != nil {
		addP50 := own.gw.total.q(0.5) - own.direct.total.q(0.5)
		addTTFT := own.gw.ttft.q(0.5) - own.direct.ttft.q(0.5)
		verdict := "**met**"
		if addP50 > goalAddedP50 || addTTFT > goalAddedTTFT {
			verdict = "**not met**"
		}
		w("Goal: at most %s added at p50 and at most %s added to the time to first token (own mode, p50) — %s (%s added at p50, %s to the first token).\n\n",
			fmtDur(goalAddedP50), fmtDur(goalAddedTTFT), verdict, fmtSigned(addP50), fmtSigned(addTTFT))
	}
	nerr := int64(0)
	for _, v := range r.ld.errors {
		nerr += v
	}
	verdict := "**met**"
	if nerr > 0 || r.ld.requests == 0 {
		verdict = "**not met**"
	}
	w("Goal: %d concurrent streaming clients for %s with zero errors — %s (%d errors in %d requests).\n\n",
		r.ld.clients, secs(r.ld.duration), verdict, nerr, r.ld.requests)

	// Latency.
	w("### Added latency\n\n")
	w("One client, one request at a time, each side on its own keep-alive connection: *direct* is client → fake Ollama ")
	w("(`/api/generate` with the prompt the gateway renders, or `/api/chat`), *gateway* is client → gateway ")
	w("`/v1/chat/completions` (`stream: true`, the same messages and `get_weather` tool) → fake. The client reads and ")
	w("decodes every line or event on both sides and checks the answer (the gateway's: the reasoning, the content and ")
	w("one whole `get_weather({\"city\":\"Paris\"})` call, `finish_reason: tool_calls`, `[DONE]`). ")
	w("%d rounds; in each, %d requests on each of the three sides in turn, the order rotating from round to round (after %d warm-up requests each). ",
		o.rounds, o.perRound, min(500, o.perRound))
	w("*Bare proxy* is the direct request through a minimal streaming proxy in its own process (it reads the request whole, ")
	w("sends it on over a kept-alive connection and flushes every read of the answer): what any gateway in a separate ")
	w("process pays on this machine for the extra hop before doing any work of its own. ")
	w("*Total* is from sending the request to the end of the body; *first token* to the first line or event carrying ")
	w("text or a call; *headers* to the response headers.\n\n")
	for _, c := range r.comps {
		title := "Own mode (Dragoman renders the prompt with the template, Ollama `/api/generate` raw, Dragoman parses)"
		if c.mode == "relay" {
			title = "Relay mode (Ollama `/api/chat`, its answer repaired)"
		}
		origin := "`" + c.template + "`"
		if strings.Contains(c.template, "/blobs/sha256-") {
			origin = "the GGUF in the Ollama store (`tokenizer.chat_template`)"
		}
		w("%s; format `%s`, template from %s:\n\n", title, c.format, origin)
		w("| Per request (%d each) | Direct | Bare proxy | Gateway | Added by the gateway | Added by the bare proxy |\n|---|---:|---:|---:|---:|---:|\n", len(c.direct.total))
		row := func(label string, a, p, g dist, q float64) {
			w("| %s | %s | %s | %s | %s | %s |\n", label, fmtDur(a.q(q)), fmtDur(p.q(q)), fmtDur(g.q(q)), fmtSigned(g.q(q)-a.q(q)), fmtSigned(p.q(q)-a.q(q)))
		}
		row("Total p50", c.direct.total, c.proxy.total, c.gw.total, 0.5)
		row("Total p99", c.direct.total, c.proxy.total, c.gw.total, 0.99)
		row("First token p50", c.direct.ttft, c.proxy.ttft, c.gw.ttft, 0.5)
		row("First token p99", c.direct.ttft, c.proxy.ttft, c.gw.ttft, 0.99)
		row("Headers p50", c.direct.ttfb, c.proxy.ttfb, c.gw.ttfb, 0.5)
		w("| Lines or events per answer | %d | %d | %d | | |\n", c.direct.events, c.proxy.events, c.gw.events)
		w("| CPU time of the serving process per request | | %s | %s | | |\n", fmtDur(c.proxy.cpu), fmtDur(c.gw.cpu))
		w("| Heap allocations per request | | %.0f / %s | %.0f / %s | | |\n", c.proxyAllocs, size(uint64(c.proxyBytes)), c.gwAllocs, size(uint64(c.gwBytes)))
		w("\nAdded at p50, round by round: %s. ", joinDur(c.addedPerRound))
		w("From the gateway's own traces of the last %d requests (timings, medians): render %s, first chunk from the upstream %s, whole request %s. ",
			len(c.traceTotal), fmtDur(c.traceRender.q(0.5)), fmtDur(c.traceFirst.q(0.5)), fmtDur(c.traceTotal.q(0.5)))
		added, hop := c.gw.total.q(0.5)-c.direct.total.q(0.5), c.proxy.total.q(0.5)-c.direct.total.q(0.5)
		w("Of the %s the gateway adds at p50, the extra hop itself (the bare proxy's figure) accounts for %s; the rest, %s, is the gateway's own work, ",
			fmtDur(added), fmtDur(hop), fmtSigned(added-hop))
		w("which shows in its CPU time per request (%s, against the bare proxy's %s) on a machine whose cores the client and the upstream share. ",
			fmtDur(c.gw.cpu), fmtDur(c.proxy.cpu))
		w("Connections the gateway opened to the upstream over the %d timed requests: %d", len(c.gw.total), c.upstreamConns)
		if c.upstreamConns > 0 {
			w(" (one request at a time should need one: a stream the gateway stops reading at the runtime's last line is closed before the end of its body has arrived, and its connection is then dropped, not reused)")
		}
		w(".\n\n")
	}

	if len(r.tp) > 0 {
		reportThroughput(w, r)
	}

	// Load.
	ld := r.ld
	w("### Load\n\n")
	w("%d clients, each looping on streamed Chat Completions requests (own mode, the answer checked as above) for %s; ", ld.clients, secs(ld.duration))
	w("an error is any transport failure, any status other than 200, a stream without `[DONE]`, an error event, or an answer whose call was not parsed.\n\n")
	w("| | |\n|---|---|\n")
	w("| Requests | %d in %s |\n", ld.requests, ld.elapsed.Round(time.Millisecond))
	if nerr == 0 {
		w("| Errors | 0 |\n")
	} else {
		var kinds []string
		for k, v := range ld.errors {
			kinds = append(kinds, fmt.Sprintf("%s: %d", k, v))
		}
		slices.Sort(kinds)
		w("| Errors | **%d** (%s) |\n", nerr, strings.Join(kinds, ", "))
	}
	thr := float64(ld.requests) / ld.elapsed.Seconds()
	w("| Throughput | %.0f requests/s (%.0f upstream chunks/s); per second: min %d, max %d |\n", thr, thr*float64(r.chunks), minOf(ld.perSecond), maxOf(ld.perSecond))
	w("| Total p50 / p99 | %s / %s |\n", fmtDur(ld.total.q(0.5)), fmtDur(ld.total.q(0.99)))
	w("| First token p50 / p99 | %s / %s |\n", fmtDur(ld.ttft.q(0.5)), fmtDur(ld.ttft.q(0.99)))
	w("| Gateway CPU | %s per request (%.2f cores busy) |\n",
		fmtDur(time.Duration(float64(ld.afterOpen.CPU-ld.before.CPU)/float64(max(ld.requests, 1)))), (ld.afterOpen.CPU-ld.before.CPU).Seconds()/ld.elapsed.Seconds())
	w("| Upstream connections opened | %d, for %d upstream requests |\n", ld.upstreamConns, ld.upstreamRequests)
	w("| Gateway goroutines | %d before, %d at most, %d after (clients' connections open), %d after they closed |\n",
		ld.before.Goroutines, ld.peak.Goroutines, ld.afterOpen.Goroutines, ld.afterClosed.Goroutines)
	w("| Gateway RSS | %s before, %s at most (sampled once a second; high-water mark %s), %s after |\n",
		kib(ld.before.RSSKiB), kib(ld.peak.RSSKiB), kib(ld.afterClosed.HWMKiB), kib(ld.afterClosed.RSSKiB))
	w("| Gateway heap in use | %s before, %s at most, %s after |\n\n", size(ld.before.HeapInuse), size(ld.peak.HeapInuse), size(ld.afterClosed.HeapInuse))
	w("Latency under load is mostly queueing: with %d requests always in flight, each waits about %d ÷ throughput (%s) for the shared cores; ",
		ld.clients, ld.clients, fmtDur(time.Duration(float64(ld.clients)/thr*float64(time.Second))))
	w("client, fake upstream and gateway together saturate the machine, so the throughput is the machine's, not the gateway's alone.\n\n")
	if ld.upstreamConns > ld.upstreamRequests/10 {
		w("Most upstream requests under load opened a new connection: the gateway reaches its runtimes with `http.DefaultClient`, ")
		w("whose transport keeps at most 2 idle connections per host, so with %d requests in flight nearly every finished ", ld.clients)
		w("one closes its connection and the next dials again.\n\n")
	}
	if len(ld.firstErrors) > 0 {
		w("First errors:\n\n")
		for _, e := range ld.firstErrors {
			w("- `%s`\n", strings.ReplaceAll(e, "`", "'"))
		}
		w("\n")
	}

	// Idle RSS.
	if r.binIdle.RSSKiB > 0 {
		w("### Idle memory\n\n")
		w("The real binary (`go build ./cmd/dragoman`, %s), started as `dragoman serve -no-discover -listen 127.0.0.1:0 -upstream ollama=<fake>`; ", size(uint64(r.binSize)))
		w("VmRSS from `/proc/PID/status`:\n\n")
		w("| | RSS | High-water mark |\n|---|---:|---:|\n")
		w("| Idle, after start | %s | %s |\n", kib(r.binIdle.RSSKiB), kib(r.binIdle.HWMKiB))
		w("| After the first request (the template read from the GGUF and compiled) | %s | %s |\n", kib(r.binOne.RSSKiB), kib(r.binOne.HWMKiB))
		w("| After 1000 more, one at a time | %s | %s |\n\n", kib(r.binThousand.RSSKiB), kib(r.binThousand.HWMKiB))
	}
	return b.String()
}

func secs(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

func fmtSigned(d time.Duration) string {
	if d < 0 {
		return "−" + fmtDur(-d)
	}
	return "+" + fmtDur(d)
}

func joinDur(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, fmtSigned(d))
	}
	return strings.Join(s, ", ")
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

func kib(k int64) string { return size(uint64(k) << 10) }

func size(b uint64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
