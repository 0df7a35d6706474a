package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Hostile templates (testdata/hostile.jsonl: values that would take many
// GB, cyclic and deep values, endless loops) rendered by the real binary in
// a child process under a 4 GB address-space limit: each one ends within
// seconds with its error, never a Go fatal error or a panic. A template
// from a stranger's GGUF must not be able to take the gateway down.
func TestHostileTemplates(t *testing.T) {
	bin := binary(t)
	f, err := os.Open(filepath.Join("testdata", "hostile.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	req := write(t, dir, "req.json", `{"messages": [{"role": "user", "content": "hi"}]}`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct{ Name, Template, Error string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		t.Run(c.Name, func(t *testing.T) {
			tpl := write(t, t.TempDir(), "t.jinja", c.Template)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 4000000; exec "$0" render --template "$1" --request "$2"`, bin, tpl, req)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			msg := stderr.String()
			if ctx.Err() != nil {
				t.Fatalf("still rendering after a minute")
			}
			if strings.Contains(msg, "fatal error") || strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("the process died: %s", firstLines(msg, 3))
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(msg, c.Error) {
				t.Errorf("exit %v, stderr %q; want status 1 and %q", err, firstLines(msg, 2), c.Error)
			}
			t.Logf("%.2fs: %s", time.Since(start).Seconds(), strings.TrimSpace(msg))
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// The same hostile templates served: `dragoman serve` under the same 4 GB
// limit, in front of a runtime (a scripted Ollama on loopback) whose models
// each have one of them configured, and one clean model. Every hostile
// model's request ends with an error in the client's dialect, and the same
// server, still up, then answers the clean model.
func TestHostileTemplatesServed(t *testing.T) {
	bin := binary(t)
	cases := readHostile(t)
	dir := t.TempDir()
	templates := map[string]string{"clean": write(t, dir, "clean.jinja", `{% for m in messages %}{{ m.content }}{% endfor %}`)}
	var names []string
	for i, c := range cases {
		name := fmt.Sprintf("hostile-%d", i)
		names = append(names, name)
		templates[name] = write(t, dir, name+".jinja", c.Template)
	}
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			var ms []map[string]string
			for name := range templates {
				ms = append(ms, map[string]string{"name": name, "model": name})
			}
			json.NewEncoder(w).Encode(map[string]any{"models": ms})
		case "/api/show":
			io.WriteString(w, `{"model_info": {}}`)
		case "/api/version":
			io.WriteString(w, `{"version": "0.17.4"}`)
		case "/api/generate":
			io.WriteString(w, `{"response":"fine","done":false}`+"\n"+`{"response":"","done":true,"done_reason":"stop"}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer ollama.Close()
	tpls, _ := json.Marshal(templates)
	cfg := write(t, dir, "dragoman.json", `{"no_discover": true, "upstreams": [{"url": "`+ollama.URL+`", "kind": "ollama", "templates": `+string(tpls)+`}]}`)
	cmd := exec.Command("sh", "-c", `ulimit -v 4000000; exec "$0" serve -listen 127.0.0.1:0 -log-format off -config "$1"`, bin, cfg)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var base string
	var out strings.Builder
	sc := bufio.NewScanner(stderr)
	for base == "" && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if _, rest, ok := strings.Cut(sc.Text(), "on http://"); ok {
			base = "http://" + strings.Fields(rest)[0]
		}
	}
	go func() {
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
	}()
	if base == "" {
		t.Fatalf("serve did not start: %s", out.String())
	}
	client := &http.Client{Timeout: 60 * time.Second}
	chat := func(model string) (int, string) {
		resp, err := client.Post(base+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatalf("%s: %v (the server's output: %s)", model, err, firstLines(out.String(), 20))
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for i, name := range names {
		status, body := chat(name)
		var e struct {
			Error struct{ Message, Type string }
		}
		if status < 400 || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error.Message, cases[i].Error) {
			t.Errorf("%s (%s): status %d, body %s", name, cases[i].Name, status, firstLines(body, 2))
		}
	}
	if status, body := chat("clean"); status != 200 || !strings.Contains(body, "fine") {
		t.Errorf("the clean model after the hostile ones: status %d, %s", status, body)
	}
	if strings.Contains(out.String(), "fatal error") || strings.Contains(out.String(), "panic") {
		t.Errorf("the server died: %s", firstLines(out.String(), 5))
	}
}

type hostileCase struct{ Name, Template, Error string }

func readHostile(t *testing.T) []hostileCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hostile.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []hostileCase
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c hostileCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}
