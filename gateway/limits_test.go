package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// A runtime that accepts the request and never begins its answer is given
// up on after limits.response_header_timeout, or after limits.answer_timeout
// where that is the shorter: a 504 naming the limit that ran out.
func TestRuntimeThatNeverAnswers(t *testing.T) {
	for _, c := range []struct {
		limits Limits
		name   string
	}{
		{Limits{ResponseHeaderTimeout: Duration(50 * time.Millisecond)}, "limits.response_header_timeout"},
		{Limits{AnswerTimeout: Duration(50 * time.Millisecond)}, "limits.answer_timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := qwenRuntime()
			rt.startBlock = true
			ts := newFakeGateway(t, Config{Limits: c.limits}, rt)
			resp := postGuarded(t, ts.URL+"/v1/chat/completions", chatBody(""))
			v := decodeBody(t, resp)
			if msg, _ := path(v, "error", "message").(string); resp.StatusCode != 504 || !strings.Contains(msg, c.name) {
				t.Errorf("%d %v", resp.StatusCode, v)
			}
		})
	}
}

// A runtime that goes quiet mid-answer is cut off after
// limits.idle_timeout, with what it sent delivered and the limit named.
func TestRuntimeThatGoesQuiet(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Partly "})
	rt.block = true
	ts := newFakeGateway(t, Config{Limits: Limits{IdleTimeout: Duration(50 * time.Millisecond)}}, rt)
	resp := postGuarded(t, ts.URL+"/v1/chat/completions", chatBody(""))
	v := decodeBody(t, resp)
	if resp.StatusCode != 502 || path(v, "partial", "message", "content") != "Partly " || !strings.Contains(toJSON(t, v), "limits.idle_timeout") {
		t.Errorf("%d %v", resp.StatusCode, v)
	}
}

// An answer that floods past limits.max_answer_bytes is cut off there: what
// came before it is delivered, the runtime is stopped, the limit named.
func TestAnswerSizeBounded(t *testing.T) {
	var script []backend.Chunk
	for range 100 {
		script = append(script, backend.Chunk{Text: "flood "})
	}
	script = append(script, backend.Chunk{FinishReason: chat.FinishStop})
	rt := qwenRuntime(script...)
	ts := newFakeGateway(t, Config{Limits: Limits{MaxAnswerBytes: 60}}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"Go"}]}`)
	events, _ := sseData(t, resp.Body)
	var text string
	for _, ev := range events {
		if c, ok := path(ev, "choices", 0, "delta", "content").(string); ok {
			text += c
		}
	}
	last := toJSON(t, events[len(events)-1])
	if !strings.Contains(last, "limits.max_answer_bytes") || len(text) < 50 || len(text) > 60 {
		t.Errorf("delivered %d bytes, last event %s", len(text), last)
	}
}

// A trace keeps at most limits.max_trace_bytes of the raw completion, and
// says how much more there was.
func TestTraceSizeBounded(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "0123456789"}, backend.Chunk{Text: "abcdefghij"}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{Limits: Limits{MaxTraceBytes: 15}}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":"Go"}]}`)
	v := decodeBody(t, resp)
	if path(v, "choices", 0, "message", "content") != "0123456789abcdefghij" {
		t.Errorf("the client's answer was cut: %v", v)
	}
	rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
	if !strings.HasPrefix(rec.Completion, "0123456789abcde\n[… 5 more bytes not kept") {
		t.Errorf("trace completion %q", rec.Completion)
	}
}

// postGuarded is post for a request the gateway must end on its own: the
// client gives up after 30 s, so that a limit that does not hold fails the
// test instead of hanging it (no assertion on how fast the limit acts).
func postGuarded(t *testing.T, url, body string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the gateway did not end the request: %v", err)
	}
	return resp
}

// A client that stops reading for longer than limits.idle_timeout does not
// get its answer cut: the timer measures the runtime's silences, not the
// time the gateway spends waiting to write to a slow client.
func TestSlowReaderIsNotIdleRuntime(t *testing.T) {
	var script []backend.Chunk
	piece := strings.Repeat("word ", 16<<10/5) // an SSE line sseData reads whole
	for range 800 {                            // 13 MB: more than the sockets' buffers hold
		script = append(script, backend.Chunk{Text: piece})
	}
	script = append(script, backend.Chunk{FinishReason: chat.FinishStop})
	rt := qwenRuntime(script...)
	rt.stopsOnCancel = true // a cut would show
	ts := newFakeGateway(t, Config{Limits: Limits{IdleTimeout: Duration(100 * time.Millisecond)}}, rt)
	resp := postGuarded(t, ts.URL+"/v1/chat/completions", chatBody(`"stream":true`))
	defer resp.Body.Close()
	time.Sleep(time.Second) // the client reads nothing for ten idle timeouts
	events, done := sseData(t, resp.Body)
	var content int
	for _, ev := range events {
		if path(ev, "error") != nil {
			t.Fatalf("the answer was cut: %v", path(ev, "error"))
		}
		if s, ok := path(ev, "choices", 0, "delta", "content").(string); ok {
			content += len(s)
		}
	}
	if !done || content != 800*len(piece) {
		t.Errorf("[DONE] %v, %d of %d bytes", done, content, 800*len(piece))
	}
}

// A runtime that keeps its answer alive for ever, a chunk well inside the
// idle limit each time, is cut off after limits.answer_timeout: what it
// sent is delivered and the limit named.
func TestAnswerThatNeverEnds(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "Going"})
	rt.drip = true
	ts := newFakeGateway(t, Config{Limits: Limits{AnswerTimeout: Duration(100 * time.Millisecond)}}, rt)
	resp := postGuarded(t, ts.URL+"/v1/chat/completions", chatBody(""))
	v := decodeBody(t, resp)
	content, _ := path(v, "partial", "message", "content").(string)
	if resp.StatusCode != 502 || !strings.HasPrefix(content, "Going.") || !strings.Contains(toJSON(t, v), "limits.answer_timeout") {
		t.Errorf("%d %v", resp.StatusCode, v)
	}
}

// A runtime whose address takes connections and never completes them (its
// accept queue full) is given up on after limits.connect_timeout, and the
// client is told which limit it met. This goes through the gateway's real
// HTTP client, not a fake runtime.
func TestConnectTimeout(t *testing.T) {
	addr := unresponsiveAddress(t)
	s, err := New(Config{NoDiscover: true, Limits: Limits{ConnectTimeout: Duration(200 * time.Millisecond)},
		Upstreams: []Upstream{{URL: "http://" + addr, Kind: "ollama"}}}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	resp := postGuarded(t, ts.URL+"/v1/chat/completions", chatBody(""))
	v := decodeBody(t, resp)
	if resp.StatusCode < 500 || !strings.Contains(toJSON(t, v), "limits.connect_timeout") {
		t.Errorf("%d %v", resp.StatusCode, v)
	}
}

// unresponsiveAddress is a loopback address whose connections hang: a
// listening socket with the smallest accept queue, never accepted from and
// filled, so that the kernel drops further connection attempts (Linux).
func unresponsiveAddress(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("no socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for range 16 {
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err != nil {
			return addr // the queue is full: this attempt hung
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the kernel kept accepting connections into a full queue: no way to make a connection hang here")
	return ""
}
