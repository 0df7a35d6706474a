package gateway

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/makeup"
	"github.com/dragoman-dev/dragoman/trace"
)

// The prompt's make-up costs renders and counting on the request path, so it
// is bounded: a prompt longer than makeupMaxPrompt bytes gets none (counting
// it twice alone would take several milliseconds), and the renders are capped
// so that they make about makeupBudget bytes of text in all (at least
// makeupMinRenders — the tools as a whole, the system prompt and a group each
// of tools and messages — and at most makeupMaxRenders; beyond the cap tools
// and messages are measured in groups). A 14 KB prompt gets 32 renders, about
// 2 ms on a loaded 2-core machine (docs/PERFORMANCE.md, Prompt make-up).
const (
	makeupMaxPrompt  = 256 << 10
	makeupBudget     = 512 << 10
	makeupMinRenders = 4
	makeupMaxRenders = 32
)

// promptMakeup arranges for the prompt's make-up to be measured when the
// trace is first read, when the model's tokenizer is known: it costs
// milliseconds (renders and counts), which no client should wait for. The
// prompt rate is the one known now, before this request's own.
func (x *exchange) promptMakeup(prompt string) {
	st := x.rt.state
	if st.tok == nil || x.treq == nil {
		return
	}
	if len(prompt) > makeupMaxPrompt {
		x.rec.Decide(fmt.Sprintf("the prompt's make-up is not measured: the prompt is %d KiB (more than %d)", len(prompt)>>10, makeupMaxPrompt>>10))
		return
	}
	treq, now, rate := *x.treq, x.s.templateNow, st.rate.tokensPerSecond()
	renders := max(makeupMinRenders, min(makeupMaxRenders, makeupBudget/max(1, len(prompt))))
	x.rec.Later = trace.Defer(func() func(*trace.Record) {
		m, err := makeup.Analyze(st.tpl, treq, st.tok, makeup.Options{Prompt: prompt, MaxRenders: renders, Render: &jinja.Options{Now: now}})
		if err != nil {
			return func(*trace.Record) {} // the prompt rendered once already; nothing to add
		}
		if rate > 0 {
			m.PrefillEstimateMS = math.Round(float64(m.Total) / rate * 1000)
		}
		w := m.Warning()
		if w != "" && rate > 0 && m.Tools > 0 {
			w += fmt.Sprintf("; at the %.0f tokens/s measured for this model, the tools cost about %.1f s of prefill on every request that is not cached", rate, float64(m.Tools)/rate)
		}
		return func(r *trace.Record) {
			r.Makeup = m
			if w != "" {
				r.Decide(w)
			}
		}
	})
}

// promptRate is a model's prompt processing rate as the runtime reports it
// (tokens per second), smoothed over requests. Prompts under minRatedPrompt
// tokens are not counted: fixed costs dominate them. Safe for concurrent use.
type promptRate struct {
	mu   sync.Mutex
	rate float64
}

const minRatedPrompt = 32

func (p *promptRate) observe(tokens int, ms float64) {
	if tokens < minRatedPrompt || ms <= 0 {
		return
	}
	r := float64(tokens) / ms * 1000
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rate == 0 {
		p.rate = r
	} else {
		p.rate = 0.7*p.rate + 0.3*r
	}
}

// set starts the rate at r (a model prepared again keeps what was measured).
func (p *promptRate) set(r float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate = r
}

func (p *promptRate) tokensPerSecond() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate
}

// tokenHeader adds X-Dragoman-Prompt-Tokens to a response whose prompt
// Dragoman counted, when the response's headers go out: the answers write
// them at their first event or when complete, after the prompt was counted.
type tokenHeader struct {
	http.ResponseWriter
	rec  *trace.Record
	sent bool
}

func (w *tokenHeader) header() {
	if !w.sent {
		w.sent = true
		if n := w.rec.PromptTokens; n > 0 {
			w.ResponseWriter.Header().Set("X-Dragoman-Prompt-Tokens", strconv.Itoa(n))
		}
	}
}

func (w *tokenHeader) WriteHeader(status int) {
	w.header()
	w.ResponseWriter.WriteHeader(status)
}

func (w *tokenHeader) Write(b []byte) (int, error) {
	w.header()
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes on: streams flush every event.
func (w *tokenHeader) Flush() {
	w.header()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *tokenHeader) Unwrap() http.ResponseWriter { return w.ResponseWriter }
