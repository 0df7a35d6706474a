package gateway

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// A client that goes away cancels the upstream request: the runtime's stream
// sees its context cancelled, instead of generating for nobody.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	for _, stream := range []bool{true, false} {
		name := "not streamed"
		if stream {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			rt := qwenRuntime(backend.Chunk{Text: "Hello"})
			rt.block, rt.cancelled = true, make(chan struct{})
			ts := newFakeGateway(t, Config{}, rt)
			ctx, cancel := context.WithCancel(context.Background())
			body := chatBody("")
			if stream {
				body = chatBody(`"stream":true`)
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(body))
			done := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					if stream { // read the first event, then hang up
						_, err = bufio.NewReader(resp.Body).ReadString('\n')
						cancel()
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			if !stream {
				// Wait until the runtime has been asked, then hang up.
				for waitFor(func() bool { rt.mu.Lock(); defer rt.mu.Unlock(); return len(rt.completes) > 0 }) {
				}
				cancel()
			}
			select {
			case <-rt.cancelled:
			case <-time.After(30 * time.Second):
				t.Fatal("the upstream request was not cancelled after the client left")
			}
			<-done
			// The trace says the client left, not that the runtime failed,
			// and keeps what the model wrote.
			var rec map[string]any
			for waitFor(func() bool {
				rs, _ := path(decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests")), "requests").([]any)
				if len(rs) == 0 {
					return false
				}
				rec = decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+path(rs[0], "id").(string)))
				return true
			}) {
			}
			if rec["status"] != float64(499) || !strings.Contains(str(rec["error"]), "client closed the connection") || rec["completion"] != "Hello" {
				t.Errorf("trace: status %v, error %v, completion %v", rec["status"], rec["error"], rec["completion"])
			}
			if ds, _ := rec["diagnostics"].([]any); len(ds) > 0 {
				t.Errorf("diagnostics %v: the runtime is not to blame", ds)
			}
		})
	}
}

// waitFor polls cond briefly; it returns true while cond is still false (for
// use as a loop condition), so a caller loops until cond holds.
func waitFor(cond func() bool) bool {
	if cond() {
		return false
	}
	time.Sleep(time.Millisecond)
	return true
}

// After 10,000 requests of every kind — answered, streamed, refused, cut,
// abandoned — the gateway holds no more goroutines than before.
func TestNoGoroutineLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 requests; skipped with -short")
	}
	good := qwenRuntime(backend.Chunk{Text: "Let me see. "}, backend.Chunk{Text: weatherCall}, backend.Chunk{FinishReason: chat.FinishStop})
	cut := qwenRuntime(backend.Chunk{Text: "Partial"})
	cut.url, cut.err = "http://127.0.0.1:2", io.ErrUnexpectedEOF
	cut.models = map[string]backend.ModelInfo{"cut": good.models["qwen"]}
	down := qwenRuntime()
	down.url, down.startErr = "http://127.0.0.1:3", errors.New("connection refused")
	down.models = map[string]backend.ModelInfo{"down": good.models["qwen"]}
	hang := qwenRuntime()
	hang.url, hang.block = "http://127.0.0.1:4", true
	hang.models = map[string]backend.ModelInfo{"hang": good.models["qwen"]}
	ts := newFakeGateway(t, Config{}, good, cut, down, hang)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

	// One request first, so that lazily started parts are counted in the baseline.
	send(t, client, ts.URL, "qwen", false, 0)
	client.CloseIdleConnections()
	before := settledGoroutines(0)

	const n, workers = 10000, 8
	models := []string{"qwen", "qwen", "cut", "down", "hang", "nope"}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				model := models[i%len(models)]
				timeout := time.Duration(0)
				if model == "hang" {
					timeout = 5 * time.Millisecond // the client gives up
				}
				send(t, client, ts.URL, model, i%2 == 0, timeout)
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	after := settledGoroutines(before)
	if after > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after %d requests\n%s", before, after, n, buf[:runtime.Stack(buf, true)])
	}
	t.Logf("goroutines: %d before, %d after %d requests", before, after, n)
}

// send makes one chat request and reads the whole answer; timeout > 0
// abandons it after that long.
func send(t *testing.T, client *http.Client, base, model string, stream bool, timeout time.Duration) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"Weather?"}],"tools":` + weatherTools
	if stream {
		body += `,"stream":true`
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", strings.NewReader(body+"}"))
	resp, err := client.Do(req)
	if err != nil {
		if timeout > 0 {
			return
		}
		t.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// settledGoroutines waits (up to a few seconds) for the goroutine count to
// fall to target or below, and returns the count.
func settledGoroutines(target int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if (target > 0 && n <= target) || time.Now().After(deadline) {
			return n
		}
		if target == 0 {
			time.Sleep(50 * time.Millisecond)
			if m := runtime.NumGoroutine(); m == n {
				return n
			}
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Several upstreams serving one model: one that cannot be reached is passed
// over (and marked down) without the client noticing, and a busy one is
// passed over for an idle one.
func TestReplicas(t *testing.T) {
	t.Run("failover", func(t *testing.T) {
		down := qwenRuntime()
		down.startErr = errors.New("dial tcp: connection refused")
		up := qwenRuntime(backend.Chunk{Text: "fine"})
		up.url = "http://127.0.0.1:2"
		ts := newFakeGateway(t, Config{}, down, up)
		for range 2 {
			v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
			if path(v, "choices", 0, "message", "content") != "fine" {
				t.Fatalf("answer %v", v)
			}
		}
		if len(down.completes) != 1 || len(up.completes) != 2 {
			t.Errorf("down asked %d times (want 1: then marked down), up %d (want 2)", len(down.completes), len(up.completes))
		}
	})
	t.Run("least busy", func(t *testing.T) {
		busy := qwenRuntime()
		busy.block = true
		idle := qwenRuntime(backend.Chunk{Text: "idle"})
		idle.url = "http://127.0.0.1:2"
		ts := newFakeGateway(t, Config{}, busy, idle)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(chatBody("")))
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		for waitFor(func() bool { busy.mu.Lock(); defer busy.mu.Unlock(); return len(busy.completes) > 0 }) {
		}
		v := decodeBody(t, post(t, ts.URL+"/v1/chat/completions", chatBody("")))
		if path(v, "choices", 0, "message", "content") != "idle" {
			t.Errorf("second request did not go to the idle replica: %v", v)
		}
	})
}
