package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// benchOllama is a fake Ollama whose model always calls get_weather for
// Paris; it counts the chats.
func benchOllama(t *testing.T) (string, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models": [{"name": "fake", "model": "fake"}]}`)
		case "/api/show":
			io.WriteString(w, `{"model_info": {}}`)
		case "/api/version":
			io.WriteString(w, `{"version": "0.17.4"}`)
		case "/api/chat":
			n.Add(1)
			io.WriteString(w, `{"model": "fake", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}, "done": true, "done_reason": "stop"}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// dragoman bench over a user suite: --suite FILE:CATEGORY keeps one
// category, --limit the first N of it; two sides, the files written, the
// summary printed; a rerun asks nothing; -h documents; usage errors exit 2.
func TestBenchCommand(t *testing.T) {
	url, chats := benchOllama(t)
	dir := t.TempDir()
	var suite strings.Builder
	for i := range 5 {
		city := "Paris"
		if i >= 3 {
			city = "Rome"
		}
		fmt.Fprintf(&suite, `{"id": "q%d", "category": "weather", "messages": [{"role": "user", "content": "Weather? %d"}], "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": [%q]}}]}}`+"\n", i, i, city)
	}
	fmt.Fprintf(&suite, `{"id": "other", "category": "other", "messages": [{"role": "user", "content": "Hi"}], "tools": [], "expected": {"mode": "no_call"}}`+"\n")
	file := write(t, dir, "suite.jsonl", suite.String())
	out := filepath.Join(dir, "out")
	a, b := "ollama="+url+"#fake@relay", "ollama="+url+"#fake@relay?tool_choice=auto"
	args := []string{"bench", "--suite", file + ":weather", "--limit", "4", "--out", out, a, b}
	r := dragoman(t, "", nil, args...)
	if r.status != 0 {
		t.Fatalf("status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	if chats.Load() != 8 {
		t.Errorf("%d questions asked, want 8 (4 of the weather category on 2 sides)", chats.Load())
	}
	for _, want := range []string{"do not differ significantly: 0.0 points [0.0, 0.0], p = 1 (0 discordant of 4)", "| all | 3/4 75.0% ["} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "bench: "+a+" 4/4 75.0% | "+b+" 4/4 75.0%") {
		t.Errorf("no final progress line:\n%s", r.stderr)
	}
	var sum struct {
		Items int
		Sides []struct{ Side string }
		Pairs []struct{ Verdict string }
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || sum.Items != 4 || len(sum.Sides) != 2 || len(sum.Pairs) != 1 {
		t.Errorf("summary.json: %v %s", err, data)
	}
	for _, f := range []string{"results.jsonl", "traces.jsonl", "summary.md", "summary.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if r := dragoman(t, "", nil, args...); r.status != 0 || chats.Load() != 8 {
		t.Errorf("rerun: status %d, %d questions asked in all (want 8)\n%s", r.status, chats.Load(), r.stderr)
	}
	if r := dragoman(t, "", nil, "bench", "-h"); r.status != 0 || !strings.Contains(r.stderr+r.stdout, "gguf=PATH") || !strings.Contains(r.stderr+r.stdout, "-concurrency") {
		t.Errorf("-h: status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	for _, bad := range [][]string{{"bench"}, {"bench", "h:1"}, {"bench", "--suite", file + ":nosuch", a}, {"bench", "--concurrency", "0", a}} {
		if r := dragoman(t, "", nil, append(bad, "--out", filepath.Join(dir, "bad"))...); r.status != 2 {
			t.Errorf("%v: status %d, want 2\n%s", bad, r.status, r.stderr)
		}
	}
}
