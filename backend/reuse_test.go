package backend

import (
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
