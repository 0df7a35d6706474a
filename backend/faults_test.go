package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// dialect is one streamed answer shape, with how to write a text chunk, the
// proper end, and an error object in the middle of a stream.
type dialect struct {
	name        string
	contentType string
	open        func(ctx context.Context, base string) (Stream, error)
	text        func(s string) string
	end         string
	errObj      string
}

func dialects() []dialect {
	sse := func(format string) func(string) string {
		return func(s string) string { return fmt.Sprintf("data: "+format+"\n\n", s) }
	}
	ndjson := func(format string) func(string) string {
		return func(s string) string { return fmt.Sprintf(format+"\n", s) }
	}
	req := weatherRequest("m")
	return []dialect{
		{
			name: "ollama /api/chat", contentType: "application/x-ndjson",
			open:   func(ctx context.Context, b string) (Stream, error) { return NewOllama(b, nil).Chat(ctx, req) },
			text:   ndjson(`{"message":{"role":"assistant","content":%q},"done":false}`),
			end:    `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n",
			errObj: `{"error":"model runner crashed"}` + "\n",
		},
		{
			name: "ollama /api/generate", contentType: "application/x-ndjson",
			open: func(ctx context.Context, b string) (Stream, error) {
				return NewOllama(b, nil).Complete(ctx, CompleteRequest{Prompt: "p"})
			},
			text:   ndjson(`{"response":%q,"done":false}`),
			end:    `{"response":"","done":true,"done_reason":"stop"}` + "\n",
			errObj: `{"error":"model runner crashed"}` + "\n",
		},
		{
			name: "/v1/chat/completions", contentType: "text/event-stream",
			open:   func(ctx context.Context, b string) (Stream, error) { return NewOpenAI(VLLM, b, "", nil).Chat(ctx, req) },
			text:   sse(`{"choices":[{"index":0,"delta":{"content":%q}}]}`),
			end:    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			errObj: "data: {\"error\":{\"message\":\"model runner crashed\",\"code\":503}}\n\n",
		},
		{
			name: "/v1/completions", contentType: "text/event-stream",
			open: func(ctx context.Context, b string) (Stream, error) {
				return NewOpenAI(SGLang, b, "", nil).Complete(ctx, CompleteRequest{Prompt: "p"})
			},
			text:   sse(`{"choices":[{"index":0,"text":%q}]}`),
			end:    "data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			errObj: "data: {\"error\":{\"message\":\"model runner crashed\"}}\n\n",
		},
		{
			name: "llama-server /completion", contentType: "text/event-stream",
			open: func(ctx context.Context, b string) (Stream, error) {
				return NewOpenAI(LlamaServer, b, "", nil).Complete(ctx, CompleteRequest{Prompt: "p"})
			},
			text:   sse(`{"content":%q,"stop":false}`),
			end:    "data: {\"content\":\"\",\"stop\":true,\"stop_type\":\"eos\",\"tokens_evaluated\":3,\"tokens_predicted\":2}\n\n",
			errObj: "data: {\"error\":{\"code\":500,\"message\":\"model runner crashed\",\"type\":\"server_error\"}}\n\n",
		},
	}
}

// TestStreamFaults runs every failure class against every dialect: the
// chunks before a failure are kept, and the failure is an error, never a
// panic or a silent normal end.
func TestStreamFaults(t *testing.T) {
	defer func(n, m int) { MaxLineBytes, MaxStreamBytes = n, m }(MaxLineBytes, MaxStreamBytes)
	MaxLineBytes = 64 << 10    // the endless line below is three times this
	MaxStreamBytes = 256 << 10 // the flood of empty lines below is four times this
	type class struct {
		name string
		body func(d dialect) string
		want func(t *testing.T, text string, finish chat.FinishReason, err error)
	}
	classes := []class{
		{"clean end", func(d dialect) string { return d.text("Hel") + d.text("lo") + d.end },
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if err != nil || text != "Hello" || finish != chat.FinishStop {
					t.Errorf("text %q finish %q err %v", text, finish, err)
				}
			}},
		{"body ends before the last chunk", func(d dialect) string { return d.text("Hel") + d.text("lo") },
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if !errors.Is(err, io.ErrUnexpectedEOF) || text != "Hello" || finish != "" {
					t.Errorf("text %q finish %q err %v, want the text then io.ErrUnexpectedEOF", text, finish, err)
				}
			}},
		{"body ends inside a line", func(d dialect) string { return d.text("Hel") + d.text("lo")[:12] },
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if !errors.Is(err, io.ErrUnexpectedEOF) || text != "Hel" {
					t.Errorf("text %q err %v, want the text then io.ErrUnexpectedEOF", text, err)
				}
			}},
		{"garbage line", func(d dialect) string {
			garbage := "{\"choices\": [oops\n"
			if strings.HasPrefix(d.text(""), "data:") {
				garbage = "data: " + garbage + "\n"
			}
			return d.text("Hel") + garbage + d.text("lo") + d.end
		},
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if err == nil || errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "not valid JSON") || text != "Hel" {
					t.Errorf("text %q err %v, want the text then a JSON error", text, err)
				}
			}},
		{"endless line", func(d dialect) string { return d.text("Hel") + strings.Repeat("x", 3*MaxLineBytes) },
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if err == nil || !strings.Contains(err.Error(), "no end of line") || text != "Hel" {
					t.Errorf("text %q err %v, want the text then the line limit", text, err)
				}
			}},
		{"flood of empty lines", func(d dialect) string {
			return d.text("Hel") + strings.Repeat(d.text(""), 4*MaxStreamBytes/len(d.text("")))
		},
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				if err == nil || !strings.Contains(err.Error(), "MaxStreamBytes") || text != "Hel" {
					t.Errorf("text %q err %v, want the text then the stream limit", text, err)
				}
			}},
		{"error object mid-stream", func(d dialect) string { return d.text("Hel") + d.errObj },
			func(t *testing.T, text string, finish chat.FinishReason, err error) {
				var e *Error
				if !errors.As(err, &e) || e.Message != "model runner crashed" || e.Status < 500 || text != "Hel" {
					t.Errorf("text %q err %#v, want the text then an *Error", text, err)
				}
			}},
	}
	for _, d := range dialects() {
		for _, c := range classes {
			t.Run(d.name+"/"+c.name, func(t *testing.T) {
				srv := fixedServer(t, 200, d.contentType, c.body(d))
				s, err := d.open(context.Background(), srv.URL)
				if err != nil {
					t.Fatal(err)
				}
				chunks, err := drain(t, s)
				var text string
				var finish chat.FinishReason
				for _, ch := range chunks {
					text += ch.Text
					finish = ch.FinishReason
				}
				c.want(t, text, finish, err)
			})
		}
	}
}

// TestHTTPErrors: a failed request is an *Error with the runtime's own words,
// whatever shape they come in.
func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"plain text 500", "text/plain", "upstream exploded\n", 500, "upstream exploded"},
		{"empty 502", "text/plain", "", 502, "Bad Gateway"},
		{"html 500", "text/html", "<html>oops</html>", 500, "<html>oops</html>"},
		{"ollama error", "application/json", `{"error":"model 'x' not found"}`, 404, "model 'x' not found"},
		{"openai error", "application/json", `{"error":{"message":"bad tools","type":"invalid_request_error"}}`, 400, "bad tools"},
		{"fastapi detail", "application/json", `{"detail":"Not Found"}`, 404, "Not Found"},
		{"a huge page, cut to its beginning", "text/html", "<html>" + strings.Repeat("é", 30000) + "</html>", 502,
			"<html>" + strings.Repeat("é", (maxErrorMessage-6)/2) + "… (60013 bytes in all)"},
	}
	for _, d := range dialects() {
		for _, c := range cases {
			t.Run(d.name+"/"+c.name, func(t *testing.T) {
				srv := fixedServer(t, c.status, c.contentType, c.body)
				_, err := d.open(context.Background(), srv.URL)
				var e *Error
				if !errors.As(err, &e) || e.Status != c.status || e.Message != c.want {
					t.Fatalf("err = %#v, want *Error %d %q", err, c.status, c.want)
				}
				if !strings.Contains(e.Error(), fmt.Sprint(c.status)) {
					t.Errorf("Error() = %q lacks the status", e.Error())
				}
			})
		}
	}
}

// TestConnectionDropped: the server dies mid-stream (the handler aborts, so
// the chunked body is cut): the chunk before is kept, then an error.
func TestConnectionDropped(t *testing.T) {
	for _, d := range dialects() {
		t.Run(d.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", d.contentType)
				io.WriteString(w, d.text("Hel"))
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			}))
			defer srv.Close()
			s, err := d.open(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := drain(t, s)
			if err == nil || len(chunks) != 1 || chunks[0].Text != "Hel" {
				t.Errorf("chunks %+v err %v", chunks, err)
			}
		})
	}
}

// TestCancelSlowServer: the server sends one chunk and then nothing until the
// test ends. Cancelling the context must end Next with the context's error;
// the test would hang otherwise (no clock is involved).
func TestCancelSlowServer(t *testing.T) {
	for _, d := range dialects() {
		t.Run(d.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", d.contentType)
				io.WriteString(w, d.text("Hel"))
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := d.open(ctx, srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if c, err := s.Next(); err != nil || c.Text != "Hel" {
				t.Fatalf("first chunk %+v %v", c, err)
			}
			cancel()
			if _, err := s.Next(); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

// TestCloseTwice: Close may be called at any time, more than once.
func TestCloseTwice(t *testing.T) {
	for _, d := range dialects() {
		srv := fixedServer(t, 200, d.contentType, d.text("a")+d.end)
		s, err := d.open(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s.Close()
		if _, err := s.Next(); err == nil {
			t.Errorf("%s: Next after Close succeeded", d.name)
		}
	}
}

// TestCloseUnblocksNext: Close from another goroutine ends a Next that waits
// on a silent server.
func TestCloseUnblocksNext(t *testing.T) {
	for _, d := range dialects() {
		t.Run(d.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", d.contentType)
				w.WriteHeader(200)
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			s, err := d.open(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() { _, err := s.Next(); errc <- err }()
			s.Close()
			if err := <-errc; err == nil {
				t.Fatal("Next succeeded on a closed stream")
			}
		})
	}
}
