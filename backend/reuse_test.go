package backend

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// A stream read to its end gives its connection back to the pool: many
// sequential answers travel over one connection, not one each.
func TestFinishedStreamReusesConnection(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		f := w.(http.Flusher)
		io.WriteString(w, `{"response":"hi","done":false}`+"\n")
		f.Flush()
		io.WriteString(w, `{"response":"","done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":1}`+"\n")
		f.Flush()
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	be := NewOllama(srv.URL, &http.Client{})
	for range 50 {
		s, err := be.Complete(context.Background(), CompleteRequest{Model: "m", Prompt: "p"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := s.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("50 sequential answers opened %d connections; want 1", n)
	}
}

// closingServer answers the first request on each connection and closes the
// connection on the second one after reading it, without an answer: a
// runtime whose idle timeout meets the reuse of a kept-alive connection. With
// closeFirst it closes every connection on its first request.
func closingServer(t *testing.T, closeFirst bool) (url string, conns, requests *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns, requests = new(atomic.Int64), new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					requests.Add(1)
					if n == 1 || closeFirst {
						return // read, then closed without an answer
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return "http://" + ln.Addr().String(), conns, requests
}

// A request that meets a kept-alive connection closed under it is sent once
// more on a new connection and answered; on a new connection that fails, it
// is not sent again.
func TestRetryOnClosedKeptAliveConnection(t *testing.T) {
	url, conns, requests := closingServer(t, false)
	c := newConn(LlamaServer, url, "", &http.Client{})
	for i := range 2 {
		var out struct{ OK bool }
		if err := c.postJSON(context.Background(), http.MethodPost, "/completion", map[string]any{"prompt": "p"}, &out); err != nil || !out.OK {
			t.Fatalf("request %d: %v %+v", i, err, out)
		}
	}
	if conns.Load() != 2 || requests.Load() != 3 {
		t.Errorf("%d connections, %d requests; want 2 and 3 (the second request sent again on a new connection)", conns.Load(), requests.Load())
	}

	url, conns, requests = closingServer(t, true)
	c = newConn(LlamaServer, url, "", &http.Client{})
	var out struct{ OK bool }
	err := c.postJSON(context.Background(), http.MethodPost, "/completion", map[string]any{"prompt": "p"}, &out)
	if err == nil || requests.Load() != 1 || conns.Load() != 1 {
		t.Errorf("a fresh connection closed: err %v, %d requests on %d connections; want an error after one", err, requests.Load(), conns.Load())
	}
}
