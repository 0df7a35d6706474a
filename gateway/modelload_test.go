package gateway

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// keep_alive is read as Ollama reads it: seconds or a duration string, any
// negative value for ever; anything else is a 400 naming the field.
func TestDecodeOllamaKeepAlive(t *testing.T) {
	for raw, want := range map[string]time.Duration{
		`0`: 0, `"0"`: 0, `"0s"`: 0, `300`: 5 * time.Minute, `1.5`: 1500 * time.Millisecond, `"10m"`: 10 * time.Minute,
		`"24h"`: 24 * time.Hour, `-1`: -1, `"-1m"`: -1, `-5`: -1,
	} {
		got, err := decodeOllamaKeepAlive([]byte(raw))
		if err != nil || got == nil || *got != want {
			t.Errorf("keep_alive %s: %v, %v; want %v", raw, got, err, want)
		}
	}
	for _, raw := range []string{``, `null`} {
		if got, err := decodeOllamaKeepAlive([]byte(raw)); got != nil || err != nil {
			t.Errorf("keep_alive %q: %v, %v; want unset", raw, got, err)
		}
	}
	for _, raw := range []string{`"10"`, `"soon"`, `true`, `{}`, `1e300`} {
		if _, err := decodeOllamaKeepAlive([]byte(raw)); err == nil || !strings.Contains(err.Error(), "keep_alive") {
			t.Errorf("keep_alive %s: err %v", raw, err)
		}
	}
}

// An ordinary request's keep_alive reaches the runtime with the prompt.
func TestOllamaKeepAlivePassedOn(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/api/chat", `{"model":"qwen","stream":false,"keep_alive":"10m","messages":[{"role":"user","content":"Hi"}]}`)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(rt.completes) != 1 {
		t.Fatalf("status %d, %d completes", resp.StatusCode, len(rt.completes))
	}
	if k := rt.completes[0].KeepAlive; k == nil || *k != 10*time.Minute {
		t.Errorf("the runtime got keep-alive %v", k)
	}
}

// A request without messages (or prompt) loads the model, one with
// keep_alive 0 unloads it, on a runtime that does so on request; the answer
// is Ollama's: one object, done, done_reason load or unload. No generation.
func TestOllamaLoadAndUnloadRequests(t *testing.T) {
	rt := qwenRuntime()
	rt.loader = true
	ts := newFakeGateway(t, Config{}, rt)
	cases := []struct{ path, body, reason, did, field string }{
		{"/api/chat", `{"model":"qwen","messages":[],"keep_alive":"1h"}`, "load", "load qwen 1h0m0s", "message"},
		{"/api/generate", `{"model":"qwen"}`, "load", "load qwen the runtime's default", "response"},
		{"/api/chat", `{"model":"qwen","messages":[],"keep_alive":0}`, "unload", "unload qwen", "message"},
		{"/api/generate", `{"model":"qwen","prompt":"","keep_alive":"0"}`, "unload", "unload qwen", "response"},
	}
	for _, c := range cases {
		resp := post(t, ts.URL+c.path, c.body)
		v := decodeBody(t, resp)
		if resp.StatusCode != 200 || v["done"] != true || v["done_reason"] != c.reason || v["model"] != "qwen" || v[c.field] == nil {
			t.Errorf("%s %s: %d %v", c.path, c.body, resp.StatusCode, v)
		}
		if last := rt.lifecycle[len(rt.lifecycle)-1]; last != c.did {
			t.Errorf("%s %s: the runtime was asked %q, want %q", c.path, c.body, last, c.did)
		}
		rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
		if rec.Status != 200 || !strings.Contains(strings.Join(rec.Decisions, "\n"), c.reason) {
			t.Errorf("trace: status %d, decisions %v", rec.Status, rec.Decisions)
		}
	}
	if len(rt.completes)+len(rt.chats) != 0 {
		t.Errorf("a load or unload request generated: %d completes, %d chats", len(rt.completes), len(rt.chats))
	}
	resp := post(t, ts.URL+"/api/chat", `{"model":"nope","messages":[],"keep_alive":0}`)
	if v := decodeBody(t, resp); resp.StatusCode != 404 || !strings.Contains(str(v["error"]), "nope") {
		t.Errorf("unknown model: %d %v", resp.StatusCode, v)
	}
	rt.loaderErr = &backend.Error{Kind: backend.Ollama, Status: 500, Message: "out of memory"}
	resp = post(t, ts.URL+"/api/chat", `{"model":"qwen","messages":[]}`)
	if v := decodeBody(t, resp); resp.StatusCode != 502 || !strings.Contains(str(v["error"]), "out of memory") {
		t.Errorf("a failed load: %d %v", resp.StatusCode, v)
	}
}

// A runtime that loads its models itself is not asked; the answer is still
// Ollama's, and the trace says why nothing was done.
func TestOllamaUnloadOnARuntimeThatCannot(t *testing.T) {
	rt := qwenRuntime()
	rt.kind = backend.LlamaServer
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/api/chat", `{"model":"qwen","messages":[],"keep_alive":0}`)
	if v := decodeBody(t, resp); resp.StatusCode != 200 || v["done_reason"] != "unload" {
		t.Errorf("%d %v", resp.StatusCode, v)
	}
	rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
	if !strings.Contains(strings.Join(rec.Decisions, "\n"), "loads and unloads its models itself") {
		t.Errorf("decisions %v", rec.Decisions)
	}
}

// POST /v1/dragoman/unload: one model wherever it is served, or every model
// of the runtimes that unload on request; runtimes that cannot are skipped.
func TestUnloadEndpoint(t *testing.T) {
	a := qwenRuntime()
	a.loader = true
	b := templateRuntime("x")
	b.url = "http://127.0.0.1:2"
	b.loader = true
	c := templateRuntime("y") // llama-server: not a loader
	c.url, c.models = "http://127.0.0.1:3", map[string]backend.ModelInfo{"other": {Template: "y"}}
	ts := newFakeGateway(t, Config{}, a, b, c)

	resp := post(t, ts.URL+"/v1/dragoman/unload", `{"model":"qwen"}`)
	v := decodeBody(t, resp)
	if resp.StatusCode != 200 || len(v["unloaded"].([]any)) != 1 || path(v, "unloaded", 0, "model") != "qwen" {
		t.Errorf("one model: %d %v", resp.StatusCode, v)
	}
	if !slices.Equal(a.lifecycle, []string{"unload qwen"}) || len(b.lifecycle) != 0 {
		t.Errorf("asked: %v and %v", a.lifecycle, b.lifecycle)
	}

	resp = post(t, ts.URL+"/v1/dragoman/unload", ``)
	v = decodeBody(t, resp)
	if resp.StatusCode != 200 || len(v["unloaded"].([]any)) != 2 {
		t.Errorf("all: %d %v", resp.StatusCode, v)
	}
	if !slices.Equal(a.lifecycle, []string{"unload qwen", "unload qwen"}) || !slices.Equal(b.lifecycle, []string{"unload m"}) {
		t.Errorf("asked: %v and %v", a.lifecycle, b.lifecycle)
	}

	for body, status := range map[string]int{`{"model":"nope"}`: 404, `{"model":`: 400} {
		if resp := post(t, ts.URL+"/v1/dragoman/unload", body); resp.StatusCode != status {
			t.Errorf("%s: status %d, want %d", body, resp.StatusCode, status)
		}
	}
}
