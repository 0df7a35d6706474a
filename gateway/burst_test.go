package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// burstStream hands out its chunks in bursts: the chunks of one burst at
// once, then, before the next, it says it waits (backend.WaitNotifier) and
// waits until proceed receives.
type burstStream struct {
	ctx     context.Context
	bursts  [][]backend.Chunk
	proceed chan struct{}
	onWait  func()
	waits   int
}

func (s *burstStream) OnWait(f func()) { s.onWait = f }
func (s *burstStream) Close() error    { return nil }

func (s *burstStream) Next() (backend.Chunk, error) {
	for len(s.bursts) > 0 && len(s.bursts[0]) == 0 {
		s.bursts = s.bursts[1:]
		if len(s.bursts) == 0 {
			break
		}
		s.waits++
		if s.onWait != nil {
			s.onWait()
		}
		select {
		case <-s.proceed:
		case <-s.ctx.Done():
			return backend.Chunk{}, s.ctx.Err()
		}
	}
	if len(s.bursts) == 0 {
		return backend.Chunk{}, io.EOF
	}
	c := s.bursts[0][0]
	s.bursts[0] = s.bursts[0][1:]
	return c, nil
}

// flushCounter is a ResponseWriter that counts its flushes.
type flushCounter struct {
	http.ResponseWriter
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// The flushes asked for while a burst is read are held until the stream is
// about to wait, then made once; after the stream, each flush is made.
func TestBurstWriterHoldsFlushesUntilTheStreamWaits(t *testing.T) {
	fc := &flushCounter{ResponseWriter: httptest.NewRecorder()}
	b := &burstWriter{ResponseWriter: fc}
	s := &burstStream{}
	stop := b.hold(s)
	b.Flush()
	b.Flush()
	b.Flush()
	if fc.flushes != 0 {
		t.Fatalf("%d flushes during the burst", fc.flushes)
	}
	s.onWait() // the stream is about to wait
	if fc.flushes != 1 {
		t.Fatalf("%d flushes when the stream waits, want 1", fc.flushes)
	}
	s.onWait() // nothing written since
	b.Flush()
	stop()
	if fc.flushes != 2 || s.onWait != nil {
		t.Fatalf("%d flushes after the stream (want 2), its wait hook %v", fc.flushes, s.onWait != nil)
	}
	b.Flush()
	if fc.flushes != 3 {
		t.Errorf("a flush after the stream was held")
	}
	var none *burstWriter // an answer without one flushes as written
	none.hold(s)()
}

// Nothing the runtime sent waits for its next chunk: the client reads the
// first burst's text while the runtime waits (a held flush would leave the
// client with nothing, and the test would stop at its guard), then the rest.
func TestBurstReachesTheClientBeforeTheRuntimeWaits(t *testing.T) {
	proceed := make(chan struct{})
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release) // a failed test lets the runtime go on
	var bs *burstStream
	rt := qwenRuntime()
	rt.streamOf = func(ctx context.Context) backend.Stream {
		bs = &burstStream{ctx: ctx, proceed: proceed, bursts: [][]backend.Chunk{
			{{Text: "Hel"}, {Text: "lo"}, {Text: ","}},
			{{Text: " there"}, {FinishReason: chat.FinishStop}},
		}}
		return bs
	}
	ts := newFakeGateway(t, Config{}, rt)
	// The guard: a held flush would hold the headers too.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"qwen","stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer while the runtime waits (the burst was held): %v", err)
	}
	defer resp.Body.Close()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var text strings.Builder
	readUntil := func(want string) {
		t.Helper()
		guard := time.After(10 * time.Second)
		for !strings.Contains(text.String(), want) {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the stream ended with %q, want %q", text.String(), want)
				}
				if c, _ := path(decodeLine(l), "choices", 0, "delta", "content").(string); c != "" {
					text.WriteString(c)
				}
			case <-guard:
				t.Fatalf("the client has %q while the runtime waits, want %q: the burst was held", text.String(), want)
			}
		}
	}
	readUntil("Hello,")
	release()
	readUntil("Hello, there")
	if bs.waits != 1 {
		t.Errorf("the stream waited %d times, want 1", bs.waits)
	}
}

// decodeLine is an SSE line's data as JSON; nil for other lines.
func decodeLine(line string) map[string]any {
	data, ok := strings.CutPrefix(line, "data: ")
	if !ok {
		return nil
	}
	var v map[string]any
	_ = json.Unmarshal([]byte(data), &v)
	return v
}
