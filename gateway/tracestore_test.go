package gateway

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/pgtest"
	"github.com/dragoman-dev/dragoman/trace"
)

// syncBuffer is a log sink safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// storeRuntime serves "qwen" and "other"; its answers, in turn: text, a
// call to a tool the request did not offer (a diagnostic), then text.
func storeRuntime() *fakeRuntime {
	rt := qwenRuntime()
	rt.models["other"] = rt.models["qwen"]
	ok := []backend.Chunk{{Text: "Sunny."}, {FinishReason: chat.FinishStop}}
	bad := []backend.Chunk{{Text: "<tool_call>\n{\"name\": \"launch_rocket\", \"arguments\": {}}\n</tool_call>"}, {FinishReason: chat.FinishStop}}
	rt.scripts = [][]backend.Chunk{ok, bad, ok}
	return rt
}

// storeGateway is a gateway on cfg with rt behind it, logging into log.
// close ends the HTTP server, then the gateway (its store written).
func storeGateway(t *testing.T, cfg Config, log io.Writer, rt *fakeRuntime) (s *Server, base string, close func()) {
	t.Helper()
	cfg.Upstreams = append(cfg.Upstreams, Upstream{URL: rt.url})
	cfg.NoDiscover = true
	s, err := New(cfg, Hooks{Log: slog.New(slog.NewTextHandler(log, nil)), Connect: func(ctx context.Context, u Upstream) (backend.Backend, error) {
		return rt, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	var once sync.Once
	close = func() {
		once.Do(func() {
			ts.Close()
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(close)
	return s, ts.URL, close
}

// body is a response's body, failing unless its status is want.
func body(t *testing.T, resp *http.Response, want int) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s: status %d, want %d: %s", resp.Request.URL, resp.StatusCode, want, b)
	}
	return string(b)
}

// fourRequests sends: qwen, answered; qwen, answered with a diagnostic;
// other, answered; nosuch, a 404. It returns their ids in that order.
func fourRequests(t *testing.T, base string) []string {
	t.Helper()
	var ids []string
	for _, model := range []string{"qwen", "qwen", "other", "nosuch"} {
		resp := post(t, base+"/v1/chat/completions", strings.Replace(chatBody(""), `"model":"qwen"`, `"model":"`+model+`"`, 1))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ids = append(ids, resp.Header.Get("X-Dragoman-Request-Id"))
	}
	return ids
}

// A gateway on a store file keeps its traces across a restart: a new
// server on the same file lists and serves them, byte for byte.
func TestTraceStoreRestart(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "state", "dragoman", "traces.db")
		testTraceStoreRestart(t, db, db)
	})
	t.Run("postgres", func(t *testing.T) {
		db := pgtest.Schema(t)
		u, _ := url.Parse(db)
		testTraceStoreRestart(t, db, u.Redacted()) // the password is not shown
	})
}

func testTraceStoreRestart(t *testing.T, db, shown string) {
	var log syncBuffer
	s, base, closeFirst := storeGateway(t, Config{Traces: Traces{DB: db}}, &log, storeRuntime())
	if where, failed := s.TraceStore(); where != shown || failed != nil {
		t.Fatalf("store %s, %v", where, failed)
	}
	ids := fourRequests(t, base)
	index := body(t, get(t, base+"/v1/dragoman/requests"), 200)
	var records []string
	for _, id := range ids {
		records = append(records, body(t, get(t, base+"/v1/dragoman/requests/"+id), 200))
	}
	pages := body(t, get(t, base+"/dragoman/requests/"+ids[1]), 200)
	closeFirst()

	_, base2, _ := storeGateway(t, Config{Traces: Traces{DB: db}}, &log, storeRuntime())
	if got := body(t, get(t, base2+"/v1/dragoman/requests"), 200); got != index {
		t.Errorf("the index changed in the restart:\n got %s\nwant %s", got, index)
	}
	for i, id := range ids {
		if got := body(t, get(t, base2+"/v1/dragoman/requests/"+id), 200); got != records[i] {
			t.Errorf("trace %s changed in the restart:\n got %s\nwant %s", id, got, records[i])
		}
	}
	if got := body(t, get(t, base2+"/dragoman/requests/"+ids[1]), 200); got != pages {
		t.Errorf("the trace page changed in the restart")
	}
	if !strings.Contains(records[1], `"unknown-tool"`) || !strings.Contains(index, `"status":404`) {
		t.Errorf("the requests are not what the test means: %s\n%s", records[1], index)
	}
	// New requests go after the old ones.
	more := fourRequests(t, base2)
	var list struct {
		Requests []trace.Summary `json:"requests"`
	}
	decodeJSON(t, body(t, get(t, base2+"/v1/dragoman/requests"), 200), &list)
	var got []string
	for _, r := range list.Requests {
		got = append(got, r.ID)
	}
	want := append(slices.Clone(ids), more...)
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Errorf("list %v, want %v", got, want)
	}
	if strings.Contains(log.String(), "level=WARN msg=\"trace store") {
		t.Errorf("warnings:\n%s", log.String())
	}
}

// Filters and paging over HTTP, on the ring, on the file and on
// PostgreSQL.
func TestTraceIndexFilters(t *testing.T) {
	for _, store := range []string{"memory", "sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			cfg := Config{}
			switch store {
			case "sqlite":
				cfg.Traces.DB = filepath.Join(t.TempDir(), "traces.db")
			case "postgres":
				cfg.Traces.DB = pgtest.Schema(t)
			}
			var log syncBuffer
			_, base, _ := storeGateway(t, cfg, &log, storeRuntime())
			before := time.Now()
			ids := fourRequests(t, base)
			after := time.Now()
			list := func(query string) (ids []string, next string) {
				t.Helper()
				var p struct {
					Requests []trace.Summary `json:"requests"`
					Next     string          `json:"next"`
				}
				decodeJSON(t, body(t, get(t, base+"/v1/dragoman/requests?"+query), 200), &p)
				for _, r := range p.Requests {
					ids = append(ids, r.ID)
				}
				return ids, p.Next
			}
			ts := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
			for _, c := range []struct {
				query string
				want  []string
			}{
				{"", []string{ids[3], ids[2], ids[1], ids[0]}},
				{"model=qwen", []string{ids[1], ids[0]}},
				{"model=other", []string{ids[2]}},
				{"upstream=nosuch", nil},
				{"status=4xx", []string{ids[3]}},
				{"status=404", []string{ids[3]}},
				{"status=200-299", []string{ids[2], ids[1], ids[0]}},
				{"has_diagnostics=true", []string{ids[1]}},
				{"has_diagnostics=false&model=qwen", []string{ids[0]}},
				{"since=" + ts(before), []string{ids[3], ids[2], ids[1], ids[0]}},
				{"since=" + ts(after), nil},
				{"until=" + ts(before), nil},
				{"since=1h", []string{ids[3], ids[2], ids[1], ids[0]}},
			} {
				got, next := list(c.query)
				if !slices.Equal(got, c.want) || next != "" {
					t.Errorf("?%s: %v (next %q), want %v", c.query, got, next, c.want)
				}
			}
			// Two a page.
			got, next := list("limit=2")
			if !slices.Equal(got, []string{ids[3], ids[2]}) || next == "" {
				t.Fatalf("first page %v, next %q", got, next)
			}
			got, next2 := list("limit=2&after=" + url.QueryEscape(next))
			if !slices.Equal(got, []string{ids[1], ids[0]}) || next2 != "" {
				t.Errorf("second page %v, next %q", got, next2)
			}
			got, _ = list("limit=1&model=qwen&after=" + url.QueryEscape(next))
			if !slices.Equal(got, []string{ids[1]}) {
				t.Errorf("filtered page after a cursor: %v", got)
			}
			for _, bad := range []string{"limit=0", "limit=5000", "status=teapot", "has_diagnostics=maybe", "since=yesterday", "after=xyz", "modle=qwen"} {
				if resp := get(t, base+"/v1/dragoman/requests?"+bad); resp.StatusCode != 400 {
					t.Errorf("?%s: status %d", bad, resp.StatusCode)
				}
			}

			// The list page: the same filters, and a link to the older requests.
			p := page(t, get(t, base+"/dragoman/?limit=3"), 200)
			older := regexp1(`<a id="older" href="([^"]+)"`, p)
			if strings.Count(p, `<tr id="row-`) != 3 || older == "" {
				t.Fatalf("first page: older %q\n%s", older, p)
			}
			p = page(t, get(t, base+html.UnescapeString(older)), 200)
			if !strings.Contains(p, `id="row-`+ids[0]+`"`) || strings.Count(p, `<tr id="row-`) != 1 || strings.Contains(p, `id="older"`) {
				t.Errorf("older page:\n%s", p)
			}
			p = page(t, get(t, base+"/dragoman/?model=other"), 200)
			if !strings.Contains(p, `id="row-`+ids[2]+`"`) || strings.Count(p, `<tr id="row-`) != 1 {
				t.Errorf("filtered page:\n%s", p)
			}
			p = page(t, get(t, base+"/dragoman/?status=nonsense"), 400)
			if !strings.Contains(element(p, "list-error"), "status") {
				t.Errorf("a bad filter: %s", p)
			}
		})
	}
}

// A store that cannot be written — its folder cannot be made, another
// process holds it locked, the PostgreSQL server refuses the connection —
// keeps the traces in memory: every request answered, its trace served,
// one warning at the log.
func TestTraceStoreDegrades(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) (path string, cfg Traces)
	}{
		{"postgres refused", func(t *testing.T) (string, Traces) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close() // nothing listens there now
			return "postgres://dragoman:pw@" + addr + "/traces?sslmode=disable", Traces{}
		}},
		{"no folder", func(t *testing.T) (string, Traces) {
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(file, "dragoman", "traces.db"), Traces{}
		}},
		{"locked", func(t *testing.T) (string, Traces) {
			path := filepath.Join(t.TempDir(), "traces.db")
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(`CREATE TABLE other (x)`); err != nil {
				t.Fatal(err)
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(`INSERT INTO other VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tx.Rollback(); db.Close() })
			traceStoreBusy = 20 * time.Millisecond
			t.Cleanup(func() { traceStoreBusy = 0 })
			return path, Traces{}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, tc := c.setup(t)
			tc.DB = path
			var log syncBuffer
			s, base, _ := storeGateway(t, Config{Traces: tc}, &log, storeRuntime())
			ids := fourRequests(t, base)
			for i, id := range ids {
				resp := get(t, base+"/v1/dragoman/requests/"+id)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("request %d: trace %d", i, resp.StatusCode)
				}
			}
			var list struct {
				Requests []trace.Summary `json:"requests"`
			}
			decodeJSON(t, body(t, get(t, base+"/v1/dragoman/requests"), 200), &list)
			if len(list.Requests) != 4 {
				t.Errorf("listed %d", len(list.Requests))
			}
			if _, failed := s.TraceStore(); failed == nil {
				t.Error("the store does not say it failed")
			}
			if n := strings.Count(log.String(), "msg=\"trace store"); n != 1 || !strings.Contains(log.String(), "memory only") {
				t.Errorf("%d warnings:\n%s", n, log.String())
			}
		})
	}
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
}

// regexp1 is the first group of re's first match in s.
func regexp1(re, s string) string {
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}
