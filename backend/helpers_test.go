package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// recording is one exchange recorded with a real runtime (copied from
// shared/recordings into testdata/recordings/<runtime-version>/).
type recording struct {
	Name     string          `json:"name"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

func loadRecording(t *testing.T, rel string) recording {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "recordings", rel))
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if r.Method == "" {
		r.Method = http.MethodPost // the Ollama recordings leave it out; all are POSTs
	}
	return r
}

// replay serves a recording at its recorded path. A streamed answer (a list
// of chunks) is written as the runtime wrote it: SSE "data: ..." events for
// the OpenAI-compatible endpoints, NDJSON lines for Ollama's /api/*. A whole
// answer is written as one JSON body with the recorded status. Each request
// body the backend sent is passed to check, when not nil.
func replay(t *testing.T, rel string, check func(t *testing.T, body map[string]any)) *httptest.Server {
	t.Helper()
	rec := loadRecording(t, rel)
	u, err := url.Parse(rec.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != rec.Method || r.URL.Path != u.Path {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		if check != nil && r.Body != nil {
			var body map[string]any
			if b, _ := io.ReadAll(r.Body); len(b) > 0 {
				if err := json.Unmarshal(b, &body); err != nil {
					t.Errorf("request body is not JSON: %v", err)
				}
			}
			check(t, body)
		}
		writeRecorded(w, rec, strings.HasPrefix(u.Path, "/api/"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The recordings are pretty-printed; the runtimes wrote each chunk as one
// compact line, so chunks are compacted back before they are written.
func writeRecorded(w http.ResponseWriter, rec recording, ndjson bool) {
	var chunks []json.RawMessage
	if json.Unmarshal(rec.Response, &chunks) != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Status)
		w.Write(compact(rec.Response))
		return
	}
	if ndjson {
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(rec.Status)
	for _, c := range chunks {
		c = compact(c)
		if ndjson {
			w.Write(append(c, '\n'))
			continue
		}
		var done string
		if json.Unmarshal(c, &done) == nil {
			c = json.RawMessage(done) // "[DONE]" is recorded as a JSON string
		}
		w.Write([]byte("data: " + string(c) + "\n\n"))
	}
}

// drain reads a stream to its end: the chunks, and the error that ended it
// (nil for io.EOF).
func drain(t *testing.T, s Stream) ([]Chunk, error) {
	t.Helper()
	defer s.Close()
	var out []Chunk
	for i := 0; i < 10000; i++ {
		c, err := s.Next()
		if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	t.Fatal("stream never ended")
	return nil, nil
}

// summary folds chunks into what a client ends up with.
type summary struct {
	text, reasoning string
	calls           []chat.ToolCall
	finish          chat.FinishReason
	usage           *chat.Usage
	timings         *Timings
	callChunks      int // how many chunks carried calls
}

// expectAnswer returns a function that fails the test unless a stream started
// and ended cleanly, and summarizes it: got := expectAnswer(t)(be.Chat(ctx, req)).
func expectAnswer(t *testing.T) func(Stream, error) summary {
	return func(s Stream, err error) summary {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := drain(t, s)
		if err != nil {
			t.Fatal(err)
		}
		return summarize(t, chunks)
	}
}

func summarize(t *testing.T, chunks []Chunk) summary {
	t.Helper()
	var s summary
	for i, c := range chunks {
		s.text += c.Text
		s.reasoning += c.Reasoning
		s.calls = append(s.calls, c.Calls...)
		if len(c.Calls) > 0 {
			s.callChunks++
		}
		if c.FinishReason != "" {
			if i != len(chunks)-1 {
				t.Errorf("finish reason %q on chunk %d of %d, want it on the last", c.FinishReason, i, len(chunks))
			}
			s.finish = c.FinishReason
		}
		if c.Usage != nil {
			s.usage = c.Usage
		}
		if c.Timings != nil {
			if i != len(chunks)-1 {
				t.Errorf("timings on chunk %d of %d, want them on the last", i, len(chunks))
			}
			s.timings = c.Timings
		}
	}
	return s
}

// sseServer serves a fixed body with a content type.
func fixedServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func ptr[T any](v T) *T { return &v }

// isGeneratedID reports whether id is one the backend made for a call the
// runtime gave none.
func isGeneratedID(id string) bool { return chat.IsCallIDShaped(id) }

// path returns a nested field of a decoded JSON body.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
