package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The fake upstream is an Ollama that misbehaves on request: the client puts
// "[fault=NAME id=ID]" in its user message, the gateway renders it into the
// prompt (own mode, /api/generate) or passes it on (relay mode, /api/chat),
// and the fake does what NAME says (scenarios.go). A request without a tag
// (the warm-up) is answered normally. The fake records, per request, how its
// handler ended: whether the gateway cancelled the request (closed the
// connection) or the fake ended it itself.

const (
	fakeModel = "tiny-toolcall:latest"
	// answer is a hermes-style (Qwen3) answer: reasoning, a sentence, a call.
	answer = "<think>\nThe user asks for the weather in Paris; the get_weather tool answers that, so I call it with the city.\n</think>\n\n" +
		"I will look up the current weather in Paris for you.\n" +
		"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	relayThinking = "The user asks for the weather in Paris; the get_weather tool answers that, so I call it with the city."
	relayContent  = "I will look up the current weather in Paris for you."
	created       = "2026-01-15T12:00:00.000000000Z"
)

// How a handler of the fake ended.
const (
	endFinished  = "finished"  // the fake wrote what it meant to and returned
	endCancelled = "cancelled" // the gateway closed the request (context done or a write failed)
	endAborted   = "aborted"   // the fake cut the connection mid-answer (http.ErrAbortHandler)
	endClosed    = "closed"    // the fake closed the connection before any header
)

var tagRE = regexp.MustCompile(`\[fault=([a-z0-9-]+) id=([a-z0-9-]+)\]`)

// upstreamRec is one request the fake received.
type upstreamRec struct {
	id, fault   string
	start       time.Time
	end         time.Time // zero while it runs (set under fakeUpstream.mu)
	how         string
	byWriteFail bool         // cancelled seen as a failed write, not as the context
	written     atomic.Int64 // body bytes written
	last        atomic.Int64 // when the last write went out (start when none), Unix nanoseconds
}

func (u *upstreamRec) lastWrite() time.Time { return time.Unix(0, u.last.Load()) }

// progress is when the fake last wrote for a client's id and whether a
// handler for it still runs.
func (f *fakeUpstream) progress(id string) (last time.Time, running bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs := f.byID[id]
	if len(rs) == 0 {
		return time.Time{}, false
	}
	u := rs[len(rs)-1]
	return u.lastWrite(), u.end.IsZero()
}

type fakeUpstream struct {
	addr      string
	port      string
	srv       *http.Server
	genLines  [][]byte
	chatLines [][]byte

	mu      sync.Mutex
	recs    []*upstreamRec        // ended
	active  map[*upstreamRec]bool // running
	conns   map[net.Conn]http.ConnState
	byID    map[string][]*upstreamRec // every attempt, by the client's id
	big     atomic.Int64              // handlers sending a multi-MB line right now
	bigPeak atomic.Int64
	nconns  atomic.Int64

	bigOnce  sync.Once
	bigLines [2][]byte
}

func ndjson(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// splitChunks cuts s into n pieces along token-like boundaries.
func splitChunks(s string, n int) []string {
	toks := regexp.MustCompile(`<[/a-z_]+>|\s*[A-Za-z0-9_]+|\s*[^A-Za-z0-9_\s<]|\s+|<`).FindAllString(s, -1)
	if len(toks) <= n {
		return toks
	}
	out := make([]string, 0, n)
	for i := range n {
		lo, hi := i*len(toks)/n, (i+1)*len(toks)/n
		out = append(out, strings.Join(toks[lo:hi], ""))
	}
	return out
}

func newFake(chunks int) *fakeUpstream {
	f := &fakeUpstream{active: map[*upstreamRec]bool{}, conns: map[net.Conn]http.ConnState{}, byID: map[string][]*upstreamRec{}}
	parts := splitChunks(answer, chunks)
	for _, p := range parts {
		f.genLines = append(f.genLines, ndjson(map[string]any{"model": fakeModel, "created_at": created, "response": p, "done": false}))
	}
	f.genLines = append(f.genLines, ndjson(map[string]any{"model": fakeModel, "created_at": created, "response": "", "done": true,
		"done_reason": "stop", "total_duration": 1000000, "prompt_eval_count": 180, "prompt_eval_duration": 100000,
		"eval_count": len(parts), "eval_duration": 900000}))
	rparts := splitChunks(relayThinking, chunks/2)
	cparts := splitChunks(relayContent, chunks-len(rparts)-1)
	msg := func(m map[string]any) []byte {
		m["role"] = "assistant"
		if _, ok := m["content"]; !ok {
			m["content"] = ""
		}
		return ndjson(map[string]any{"model": fakeModel, "created_at": created, "message": m, "done": false})
	}
	for _, p := range rparts {
		f.chatLines = append(f.chatLines, msg(map[string]any{"thinking": p}))
	}
	for _, p := range cparts {
		f.chatLines = append(f.chatLines, msg(map[string]any{"content": p}))
	}
	f.chatLines = append(f.chatLines, msg(map[string]any{"tool_calls": []any{map[string]any{
		"id": "call_fake0001", "function": map[string]any{"index": 0, "name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}}}))
	f.chatLines = append(f.chatLines, ndjson(map[string]any{"model": fakeModel, "created_at": created,
		"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
		"total_duration": 1000000, "prompt_eval_count": 180, "eval_count": chunks}))
	return f
}

// textLine is one NDJSON line carrying text as the endpoint streams it. raw
// is put between the quotes as it is (it may hold invalid UTF-8, which
// json.Marshal would have replaced).
func (f *fakeUpstream) textLine(chat bool, raw string) []byte {
	if chat {
		return []byte(`{"model":"` + fakeModel + `","created_at":"` + created + `","message":{"role":"assistant","content":"` + raw + `"},"done":false}` + "\n")
	}
	return []byte(`{"model":"` + fakeModel + `","created_at":"` + created + `","response":"` + raw + `","done":false}` + "\n")
}

func (f *fakeUpstream) start() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f.addr = ln.Addr().String()
	_, f.port, _ = net.SplitHostPort(f.addr)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"version":"0.17.4"}`)
	})
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"models":[{"name":"`+fakeModel+`","model":"`+fakeModel+`","size":26926368,"details":{"format":"gguf","family":"llama"}}]}`)
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"template":"{{ .Prompt }}","model_info":{"general.architecture":"llama","llama.context_length":2048}}`)
	})
	mux.HandleFunc("POST /api/generate", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, false) })
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, true) })
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: discardLog(),
		ConnState: func(c net.Conn, s http.ConnState) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if s == http.StateNew {
				f.nconns.Add(1)
			}
			if s == http.StateClosed || s == http.StateHijacked {
				delete(f.conns, c)
			} else {
				f.conns[c] = s
			}
		}}
	go f.srv.Serve(ln)
	return nil
}

// closeIdle closes the connections that carry no request: idle ones, and
// new ones no request has come on yet (the gateway's transport dials a
// connection for a request, and when that request is cancelled first, or
// an idle one serves it, the new connection goes to its pool unused). What
// the gateway's pool keeps open is then gone, and so are its goroutines.
func (f *fakeUpstream) closeIdle() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for c, s := range f.conns {
		if s == http.StateIdle || s == http.StateNew {
			c.Close()
			n++
		}
	}
	return n
}

// running is the handlers still running, oldest first.
func (f *fakeUpstream) running() []*upstreamRec {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*upstreamRec
	for r := range f.active {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *upstreamRec) int { return a.start.Compare(b.start) })
	return out
}

func (f *fakeUpstream) activeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.active)
}

// reset forgets the requests recorded so far.
func (f *fakeUpstream) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recs = nil
	f.byID = map[string][]*upstreamRec{}
	f.bigPeak.Store(0)
}

// errCancelled is what a step returns when the gateway has closed the
// request.
type errCancelled struct{ byWrite bool }

func (errCancelled) Error() string { return "cancelled" }

// sender writes one answer's lines and notices the gateway's cancel.
type sender struct {
	w   http.ResponseWriter
	ctx context.Context
	rec *upstreamRec
	fl  http.Flusher
}

func (s *sender) write(b []byte, flush bool) error {
	if err := s.ctx.Err(); err != nil {
		return errCancelled{}
	}
	n, err := s.w.Write(b)
	s.rec.written.Add(int64(n))
	if err == nil && flush {
		s.fl.Flush()
		// A flush to a closed connection fails silently; the context says.
	}
	if err != nil {
		return errCancelled{byWrite: true}
	}
	s.rec.last.Store(time.Now().UnixNano())
	return nil
}

func (s *sender) lines(ls [][]byte) error {
	for _, l := range ls {
		if err := s.write(l, true); err != nil {
			return err
		}
	}
	return nil
}

// sleep waits d, or less if the gateway cancels.
func (s *sender) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return errCancelled{}
	case <-t.C:
		return nil
	}
}

// wait blocks until the gateway cancels (or an hour, far past any limit).
func (s *sender) wait() error { return s.sleep(time.Hour) }

func (f *fakeUpstream) serve(w http.ResponseWriter, r *http.Request, chat bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return
	}
	lines := f.genLines
	if chat {
		lines = f.chatLines
	}
	m := tagRE.FindSubmatch(body)
	if m == nil {
		w.Header().Set("Content-Type", "application/x-ndjson")
		s := &sender{w: w, ctx: r.Context(), rec: &upstreamRec{}, fl: w.(http.Flusher)}
		s.lines(lines)
		return
	}
	rec := &upstreamRec{id: string(m[2]), fault: string(m[1]), start: time.Now()}
	rec.last.Store(rec.start.UnixNano())
	f.mu.Lock()
	f.active[rec] = true
	f.byID[rec.id] = append(f.byID[rec.id], rec)
	f.mu.Unlock()
	how := endFinished
	defer func() {
		f.mu.Lock()
		rec.end = time.Now()
		rec.how = how
		delete(f.active, rec)
		f.recs = append(f.recs, rec)
		f.mu.Unlock()
	}()
	sc, ok := scenarioByFault[rec.fault]
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s := &sender{w: w, ctx: r.Context(), rec: rec, fl: w.(http.Flusher)}
	err = sc.act(f, s, lines, chat, r)
	switch e := err.(type) {
	case nil:
	case errCancelled:
		how = endCancelled
		rec.byWriteFail = e.byWrite
	case errAbort:
		how = endAborted
		panic(http.ErrAbortHandler) // the deferred record runs first
	case errClose:
		how = endClosed
	}
}

type errAbort struct{}

func (errAbort) Error() string { return "abort" }

type errClose struct{}

func (errClose) Error() string { return "close" }

// bigChunk is a valid line whose text is 6 MiB, made once per endpoint.
func (f *fakeUpstream) bigChunk(chat bool) []byte {
	f.bigOnce.Do(func() {
		text := strings.Repeat(string(filler), 6<<20/len(filler))
		f.bigLines = [2][]byte{f.textLine(false, text), f.textLine(true, text)}
	})
	if chat {
		return f.bigLines[1]
	}
	return f.bigLines[0]
}

// bigLine counts a handler sending a multi-MB line while it runs.
func (f *fakeUpstream) bigLine() func() {
	n := f.big.Add(1)
	for {
		p := f.bigPeak.Load()
		if n <= p || f.bigPeak.CompareAndSwap(p, n) {
			break
		}
	}
	return func() { f.big.Add(-1) }
}

// filler is text for floods and long lines: words, no quote or backslash.
var filler = func() []byte {
	var b bytes.Buffer
	words := strings.Fields("the quick brown fox jumps over the lazy dog while the weather in Paris stays mild and grey")
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return b.Bytes()[:64<<10]
}()
