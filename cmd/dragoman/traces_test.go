package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/internal/pgtest"
)

// chatRuntime is an OpenAI-compatible runtime serving "alpha" and "beta",
// answering every chat request with a short streamed text.
func chatRuntime(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object": "list", "data": [{"id": "alpha", "object": "model"}, {"id": "beta", "object": "model"}]}`)
		case "/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\": \"c1\", \"object\": \"chat.completion.chunk\", \"choices\": [{\"index\": 0, \"delta\": {\"content\": \"Sunny <b>today</b>.\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"id\": \"c1\", \"object\": \"chat.completion.chunk\", \"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\": \"stop\"}]}\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runIn runs dragoman in this process.
func runIn(t *testing.T, vars map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	status := run(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }})
	return result{out.String(), errb.String(), status}
}

// dragoman traces list, show and export read the store a gateway writes,
// while it has it open and after it closed it: the default file (found
// through $XDG_STATE_HOME, or -db), and a PostgreSQL database (-db URL, or
// a config whose traces.db is the URL).
func TestTracesCommand(t *testing.T) {
	state := t.TempDir()
	t.Run("sqlite", func(t *testing.T) {
		testTracesCommand(t, filepath.Join(state, "dragoman", "traces.db"), map[string]string{"XDG_STATE_HOME": state}, nil)
	})
	t.Run("postgres", func(t *testing.T) {
		db := pgtest.Schema(t)
		cfg := write(t, t.TempDir(), "dragoman.json", `{"traces": {"db": "`+db+`"}}`)
		testTracesCommand(t, db, nil, []string{"-config", cfg})
	})
	if r := runIn(t, nil, "traces", "list", "-db", filepath.Join(state, "none.db")); r.status != 1 || !strings.Contains(r.stderr, "no trace store at") {
		t.Errorf("a missing file: %d %s", r.status, r.stderr)
	}
	if r := runIn(t, nil, "traces", "-h"); r.status != 0 || !strings.Contains(r.stdout, "dragoman traces export") {
		t.Errorf("-h: %d %s", r.status, r.stdout)
	}
	if r := runIn(t, nil, "traces", "frobnicate"); r.status != 2 {
		t.Errorf("an unknown subcommand: %d", r.status)
	}
}

// testTracesCommand runs the commands on the store db (a file or a URL),
// found by default through env, or by the flags where.
func testTracesCommand(t *testing.T, db string, env map[string]string, where []string) {
	tr := func(sub string, args ...string) []string {
		return append(append([]string{"traces", sub}, where...), args...)
	}
	srv, err := gateway.New(gateway.Config{NoDiscover: true, Traces: gateway.Traces{DB: db},
		Upstreams: []gateway.Upstream{{Name: "fake", URL: chatRuntime(t), Kind: "openai"}}}, gateway.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	var ids []string
	for _, model := range []string{"alpha", "beta", "alpha", "nosuch"} {
		resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"Weather?"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ids = append(ids, resp.Header.Get("X-Dragoman-Request-Id"))
	}
	srv.FlushTraces()
	want := map[string]string{}
	for _, id := range ids {
		resp, err := http.Get(ts.URL + "/v1/dragoman/requests/" + id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want[id] = strings.TrimSpace(string(b))
	}
	check := func(t *testing.T) {
		// The default file, found through $XDG_STATE_HOME (or -config).
		r := runIn(t, env, tr("list")...)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.status != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], ids[3]+" ") ||
			!strings.Contains(lines[1], " 404 ") || !strings.HasPrefix(lines[4], ids[0]+" ") || !strings.Contains(lines[4], " alpha ") || !strings.Contains(lines[4], " fake ") {
			t.Fatalf("list: %d\n%s\n%s", r.status, r.stdout, r.stderr)
		}
		r = runIn(t, nil, "traces", "list", "-db", db, "-model", "alpha", "-limit", "1")
		if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.status != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], ids[2]+" ") ||
			!strings.Contains(r.stderr, "more: -after ") {
			t.Fatalf("list -model alpha -limit 1: %d\n%s\n%s", r.status, r.stdout, r.stderr)
		}
		next := strings.TrimSpace(r.stderr[strings.Index(r.stderr, "-after ")+len("-after "):])
		r = runIn(t, nil, "traces", "list", "-db", db, "-model", "alpha", "-limit", "1", "-after", next, "-json")
		var page struct {
			Requests []struct{ ID string } `json:"requests"`
			Next     string                `json:"next"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || len(page.Requests) != 1 || page.Requests[0].ID != ids[0] || page.Next != "" {
			t.Fatalf("second page: %v %s %s", err, r.stdout, r.stderr)
		}
		r = runIn(t, env, tr("list", "-status", "4xx")...)
		if !strings.Contains(r.stdout, ids[3]) || strings.Contains(r.stdout, ids[0]) {
			t.Errorf("list -status 4xx:\n%s", r.stdout)
		}

		// show: the record as the gateway serves it, or a summary.
		r = runIn(t, env, tr("show", "-json", ids[1])...)
		var got, exp any
		if r.status != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || json.Unmarshal([]byte(want[ids[1]]), &exp) != nil || !jsonEqual(got, exp) {
			t.Errorf("show -json: %d\n%s\nwant\n%s\n%s", r.status, r.stdout, want[ids[1]], r.stderr)
		}
		r = runIn(t, env, tr("show", ids[1])...)
		for _, s := range []string{"id:             " + ids[1], "model:          beta", "status:         200", "completion:\nSunny <b>today</b>."} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("show lacks %q:\n%s", s, r.stdout)
			}
		}
		if r := runIn(t, env, tr("show", "chatcmpl-nosuch")...); r.status != 1 || !strings.Contains(r.stderr, "no trace chatcmpl-nosuch") {
			t.Errorf("show of a missing id: %d %s", r.status, r.stderr)
		}

		// export: JSON Lines, each line the record the gateway serves.
		out := filepath.Join(t.TempDir(), "bug.jsonl")
		r = runIn(t, env, tr("export", "-o", out)...)
		f, err := os.Open(out)
		if r.status != 0 || err != nil {
			t.Fatalf("export: %d %v %s", r.status, err, r.stderr)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			var rec struct{ ID string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			var a, b any
			json.Unmarshal(sc.Bytes(), &a)
			json.Unmarshal([]byte(want[rec.ID]), &b)
			if rec.ID != ids[3-n] || !jsonEqual(a, b) {
				t.Errorf("line %d: %s", n, sc.Text())
			}
			n++
		}
		if n != 4 {
			t.Errorf("%d lines", n)
		}
		r = runIn(t, env, tr("export", "-model", "beta")...)
		if strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, ids[1]) {
			t.Errorf("export -model beta:\n%s", r.stdout)
		}
	}
	t.Run("while the gateway runs", check)
	ts.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	t.Run("after it stopped", check)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
