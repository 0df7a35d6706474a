package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/trace"
)

// ResultsFile and TracesFile are the files a run appends to in its folder.
const (
	ResultsFile = "results.jsonl"
	TracesFile  = "traces.jsonl"
)

// RunConfig is what a run asks: the same items, seeds and sampling on every
// side.
type RunConfig struct {
	Sides []Side
	Items []Item
	// Dir is the run's folder: results.jsonl, traces.jsonl, the summaries.
	Dir string
	// Seed is the base seed: item ID's seed is Seed plus a hash of the ID
	// (ItemSeed), the same on every side and in every run.
	Seed int64
	// Temperature and MaxTokens are sent with every question.
	Temperature float64
	MaxTokens   int
	// Concurrency is how many questions each side has in flight; 0 is 1.
	Concurrency int
	// Timeout bounds each question; 0 is 5 minutes.
	Timeout time.Duration
	// Engine holds the embedded engine's options for gguf= sides (its
	// Models are the sides' files; Slots defaults to the questions in
	// flight on them).
	Engine llamacpp.Options
	// Now pins the templates' clock (gateway.Config.Now).
	Now string
	// Check is the checker's options.
	Check Options
	// Progress, when set, gets a progress line with each side's running
	// score, at most every ProgressEvery (default 250ms); on a terminal
	// (ProgressTTY) the line is redrawn in place.
	Progress      io.Writer
	ProgressTTY   bool
	ProgressEvery time.Duration
}

// Record is one line of results.jsonl: one item asked of one side.
type Record struct {
	Side     string `json:"side"`
	Item     string `json:"item"`
	Category string `json:"category"`
	Pass     bool   `json:"pass"`
	// Kind and Message say why it failed (the checker's, upstream's names).
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
	// Error is a transport failure: the gateway's error, or the timeout.
	// The checker still scores the missing answer as upstream does (no
	// call: an irrelevance item passes).
	Error string `json:"error,omitempty"`
	// Attribution is the layer a failure came from (Attribute: template,
	// parser, constraint, truncation, transport, model; empty for a pass),
	// and Why says what in the trace shows it.
	Attribution string          `json:"attribution"`
	Why         string          `json:"why,omitempty"`
	Calls       []chat.ToolCall `json:"calls"`
	Content     string          `json:"content,omitempty"`
	// Completion is the raw completion as the trace holds it.
	Completion string `json:"completion"`
	TraceID    string `json:"trace_id,omitempty"`
	Seed       int64  `json:"seed"`
	// MS is the wall time of the question, through the gateway; Timings are
	// the trace's.
	MS               float64         `json:"ms"`
	Timings          json.RawMessage `json:"timings,omitempty"`
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
}

// ItemSeed is the sampling seed item id gets in a run with base seed.
func ItemSeed(seed int64, id string) int64 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return seed + int64(h.Sum32()&0x7fffffff)
}

// Run asks every side every item not yet in Dir/results.jsonl, appending a
// line per answer, and returns the records of this run's sides and items,
// those of earlier runs included (in the items' order per side). A record
// already there is not asked again: an interrupted run resumes.
func Run(ctx context.Context, cfg RunConfig) ([]Record, error) {
	if len(cfg.Sides) == 0 {
		return nil, errors.New("no sides")
	}
	seen := map[string]bool{}
	for _, s := range cfg.Sides {
		if seen[s.Spec] {
			return nil, fmt.Errorf("side %q given twice", s.Spec)
		}
		seen[s.Spec] = true
	}
	ids := map[string]bool{}
	for _, it := range cfg.Items {
		if ids[it.ID] {
			return nil, fmt.Errorf("item %q appears twice", it.ID)
		}
		ids[it.ID] = true
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 250 * time.Millisecond
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	done, err := readResults(filepath.Join(cfg.Dir, ResultsFile))
	if err != nil {
		return nil, err
	}
	for _, r := range done {
		if ids[r.Item] && seen[r.Side] && r.Seed != ItemSeed(cfg.Seed, r.Item) {
			return nil, fmt.Errorf("%s: %s on %s was asked with seed %d, this run's seed gives %d: use the same --seed, or another folder",
				ResultsFile, r.Item, r.Side, r.Seed, ItemSeed(cfg.Seed, r.Item))
		}
	}
	results, err := os.OpenFile(filepath.Join(cfg.Dir, ResultsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer results.Close()
	traces, err := os.OpenFile(filepath.Join(cfg.Dir, TracesFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer traces.Close()

	gws, closeAll, err := gateways(cfg)
	if err != nil {
		return nil, err
	}
	defer closeAll()

	prog := newProgress(cfg, done)
	stopProgress := prog.start()
	var (
		mu       sync.Mutex
		writeErr error
		wg       sync.WaitGroup
	)
	for si, side := range cfg.Sides {
		todo := make(chan int)
		go func() {
			defer close(todo)
			for i := range cfg.Items {
				mu.Lock()
				_, ok := done[key(side.Spec, cfg.Items[i].ID)]
				mu.Unlock()
				if ok {
					continue
				}
				select {
				case todo <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
		for range cfg.Concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range todo {
					if ctx.Err() != nil {
						continue
					}
					rec, tr := ask(ctx, gws[si], side, &cfg.Items[i], cfg)
					if ctx.Err() != nil {
						continue // interrupted: asked again on the next run
					}
					line, _ := json.Marshal(rec)
					tline := traceLine(side.Spec, rec.Item, tr)
					mu.Lock()
					if writeErr == nil {
						if _, err := results.Write(append(line, '\n')); err != nil {
							writeErr = err
						} else if tline != nil {
							_, _ = traces.Write(tline)
						}
					}
					done[key(side.Spec, rec.Item)] = rec
					mu.Unlock()
					prog.add(si, rec.Pass)
				}
			}()
		}
	}
	wg.Wait()
	stopProgress()
	if writeErr != nil {
		return nil, writeErr
	}
	var out []Record
	for _, side := range cfg.Sides {
		for _, it := range cfg.Items {
			if r, ok := done[key(side.Spec, it.ID)]; ok {
				out = append(out, r)
			}
		}
	}
	return out, ctx.Err()
}

func key(side, item string) string { return side + "\x00" + item }

// readResults reads a results file, keyed by side and item. A last line
// cut short (a run killed while writing it) is dropped from the file, so
// that the next line appended starts on a line of its own.
func readResults(path string) (map[string]Record, error) {
	out := map[string]Record{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if n := bytes.LastIndexByte(data, '\n') + 1; n < len(data) {
		if err := os.Truncate(path, int64(n)); err != nil {
			return nil, err
		}
		data = data[:n]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out[key(r.Side, r.Item)] = r
	}
	return out, sc.Err()
}

// gateways builds one in-process gateway per side, as `dragoman diff`
// does, and the embedded engine for the gguf= sides (one engine, each file
// loaded once).
func gateways(cfg RunConfig) ([]http.Handler, func(), error) {
	var eng *llamacpp.Engine
	var files []string
	engineSides := 0
	for _, s := range cfg.Sides {
		if s.GGUF != "" {
			engineSides++
			if !slices.Contains(files, s.GGUF) {
				files = append(files, s.GGUF)
			}
		}
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if len(files) > 0 {
		eo := cfg.Engine
		eo.Models = files
		if eo.Slots == 0 {
			eo.Slots = min(cfg.Concurrency*engineSides, 256)
		}
		var err error
		if eng, err = llamacpp.New(eo); err != nil {
			return nil, nil, err
		}
		closers = append(closers, func() { eng.Close() })
	}
	var out []http.Handler
	for _, s := range cfg.Sides {
		gc := gateway.Config{NoDiscover: true, Now: cfg.Now, ExposeAddresses: true, TraceSize: 4 * cfg.Concurrency}
		var hooks gateway.Hooks
		if s.GGUF != "" {
			hooks.Backends = []backend.Backend{eng}
		} else {
			gc.Upstreams = []gateway.Upstream{s.Upstream}
		}
		srv, err := gateway.New(gc, hooks)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("%s: %v", s.Spec, err)
		}
		closers = append(closers, func() { srv.Close() })
		out = append(out, srv)
	}
	return out, closeAll, nil
}

// ServedName is the model a side asks for.
func (s Side) ServedName() string {
	if s.GGUF != "" {
		return llamacpp.ModelID(s.GGUF)
	}
	return s.Model
}

// request is the chat request for an item on a side.
func request(it *Item, side Side, cfg *RunConfig) []byte {
	body := map[string]any{
		"model":       side.ServedName(),
		"messages":    it.Messages,
		"stream":      false,
		"seed":        ItemSeed(cfg.Seed, it.ID),
		"temperature": cfg.Temperature,
	}
	if len(it.Tools) > 0 {
		body["tools"] = it.Tools
		if side.ToolChoice != "" {
			body["tool_choice"] = side.ToolChoice
		}
	}
	if cfg.MaxTokens > 0 {
		body["max_tokens"] = cfg.MaxTokens
	}
	data, _ := json.Marshal(body)
	return data
}

// ask sends one item through a side's gateway, scores the answer and reads
// its trace.
func ask(ctx context.Context, gw http.Handler, side Side, it *Item, cfg RunConfig) (Record, []byte) {
	rec := Record{Side: side.Spec, Item: it.ID, Category: it.Category, Seed: ItemSeed(cfg.Seed, it.ID)}
	qctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	start := time.Now()
	status, answer, id := serveLocal(qctx, gw, "POST", "/v1/chat/completions", request(it, side, &cfg))
	rec.MS = float64(time.Since(start).Microseconds()) / 1000
	var resp struct {
		ID      string `json:"id"`
		Choices []struct {
			Message struct {
				Content   *string         `json:"content"`
				ToolCalls []chat.ToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	switch err := json.Unmarshal(answer, &resp); {
	case qctx.Err() != nil && ctx.Err() == nil:
		rec.Error = fmt.Sprintf("no answer within the timeout (%s)", cfg.Timeout)
	case err != nil:
		rec.Error = fmt.Sprintf("status %d, not JSON: %.200q", status, answer)
	case resp.Error != nil:
		rec.Error = resp.Error.Message
	case len(resp.Choices) == 0:
		rec.Error = fmt.Sprintf("status %d, no choices", status)
	}
	if rec.Error == "" {
		m := resp.Choices[0].Message
		if m.Content != nil {
			rec.Content = *m.Content
		}
		rec.Calls = m.ToolCalls
	}
	rec.PromptTokens, rec.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	res := Check(it, rec.Calls, cfg.Check)
	rec.Pass, rec.Kind, rec.Message = res.Pass, string(res.Kind), res.Message
	// The trace is found by the response's request id header, which every
	// answer has, a refused request too: its trace says why it was refused.
	var tr []byte
	var t *trace.Record
	if id != "" {
		var st int
		st, tr, _ = serveLocal(ctx, gw, "GET", "/v1/dragoman/requests/"+id, nil)
		var timings struct {
			Timings json.RawMessage `json:"timings"`
		}
		t = new(trace.Record)
		if st == http.StatusOK && json.Unmarshal(tr, t) == nil && json.Unmarshal(tr, &timings) == nil {
			rec.TraceID, rec.Completion, rec.Timings = id, t.Completion, timings.Timings
		} else {
			tr, t = nil, nil
		}
	}
	rec.Attribution, rec.Why = Attribute(it, &rec, t)
	return rec, tr
}

// traceLine is a line of traces.jsonl: the side, the item and the
// gateway's trace of its request.
func traceLine(side, item string, tr []byte) []byte {
	if tr == nil {
		return nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, tr) != nil {
		return nil
	}
	head, _ := json.Marshal(map[string]string{"side": side, "item": item})
	line := append(head[:len(head)-1], `,"trace":`...)
	line = append(line, compact.Bytes()...)
	return append(line, "}\n"...)
}

// serveLocal runs one request through a gateway in this process; it returns
// the status, the body and the request's id (X-Dragoman-Request-Id).
func serveLocal(ctx context.Context, srv http.Handler, method, path string, body []byte) (int, []byte, string) {
	r := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	r.Host = "localhost" // the gateway serves its own host names only
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes(), w.Header().Get("X-Dragoman-Request-Id")
}

// progress counts each side's answers and passes and prints them.
type progress struct {
	cfg         *RunConfig
	mu          sync.Mutex
	asked, pass []int
	changed     bool
}

func newProgress(cfg RunConfig, done map[string]Record) *progress {
	p := &progress{cfg: &cfg, asked: make([]int, len(cfg.Sides)), pass: make([]int, len(cfg.Sides))}
	for si, s := range cfg.Sides {
		for _, it := range cfg.Items {
			if r, ok := done[key(s.Spec, it.ID)]; ok {
				p.asked[si]++
				if r.Pass {
					p.pass[si]++
				}
			}
		}
	}
	return p
}

func (p *progress) add(side int, pass bool) {
	p.mu.Lock()
	p.asked[side]++
	if pass {
		p.pass[side]++
	}
	p.changed = true
	p.mu.Unlock()
}

// line is the progress line: per side, answers of the total and the score
// so far.
func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	b.WriteString("bench:")
	for i, s := range p.cfg.Sides {
		if i > 0 {
			b.WriteString(" |")
		}
		acc := 0.0
		if p.asked[i] > 0 {
			acc = 100 * float64(p.pass[i]) / float64(p.asked[i])
		}
		fmt.Fprintf(&b, " %s %d/%d %.1f%%", s.Spec, p.asked[i], len(p.cfg.Items), acc)
	}
	p.changed = false
	return b.String()
}

// start prints the line every ProgressEvery while it changes, and once
// more when stopped.
func (p *progress) start() (stop func()) {
	w := p.cfg.Progress
	if w == nil {
		return func() {}
	}
	pre, end := "", "\n"
	if p.cfg.ProgressTTY {
		pre, end = "\r", "\x1b[K"
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(p.cfg.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				fmt.Fprint(w, pre+p.line()+"\n")
				return
			case <-tick.C:
				p.mu.Lock()
				changed := p.changed
				p.mu.Unlock()
				if changed {
					fmt.Fprint(w, pre+p.line()+end)
				}
			}
		}
	}()
	return func() { close(quit); <-finished }
}
