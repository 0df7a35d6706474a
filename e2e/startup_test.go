package e2e

// What `dragoman serve` says: at start, where it listens, what it found and,
// when it found nothing to serve, what to do; then one log line per request,
// as text or JSON.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// serveLines starts `dragoman serve -listen 127.0.0.1:0 args…` and returns
// its stderr's lines as they come.
func serveLines(t *testing.T, args ...string) <-chan string {
	t.Helper()
	return launchServe(t, append([]string{"serve", "-listen", "127.0.0.1:0"}, args...), nil)
}

// awaitLine returns the first line holding every part, and the lines before.
func awaitLine(t *testing.T, lines <-chan string, parts ...string) (string, []string) {
	t.Helper()
	var seen []string
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended before a line with %q; it printed:\n%s", parts, strings.Join(seen, "\n"))
			}
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			if all {
				return l, seen
			}
			seen = append(seen, l)
		case <-timeout:
			t.Fatalf("no line with %q within a minute; serve printed:\n%s", parts, strings.Join(seen, "\n"))
		}
	}
}

func TestServeSaysWhatToDoWithNothingToServe(t *testing.T) {
	lines := serveLines(t, "-no-discover")
	awaitLine(t, lines, "serving", "on http://127.0.0.1:")
	awaitLine(t, lines, "traces of each request at http://")
	l, _ := awaitLine(t, lines, "no model is served")
	for _, want := range []string{"-upstream URL", "-model FILE.gguf"} {
		if !strings.Contains(l, want) {
			t.Errorf("the line does not say %q: %s", want, l)
		}
	}
}

func TestServeStartupAndRequestLines(t *testing.T) {
	requireLlamaLib(t)
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			// Text: the model loaded by its first request (the default);
			// JSON: at start (-preload).
			args := []string{"-no-discover", "-model", model, "-threads", "1", "-log-format", format}
			if format == "json" {
				args = append(args, "-preload")
			}
			lines := serveLines(t, args...)
			loadLines := func() {
				// The model named with its file and size as it loads, then
				// the time it took.
				awaitLine(t, lines, "loading tiny-qwen3-toolcall ("+model+", ", "with its KV cache and compute buffers)")
				awaitLine(t, lines, "model tiny-qwen3-toolcall loaded in ", "with its KV cache and compute buffers)")
			}
			how := "checked, loaded in this process on its first request"
			policy := "models are loaded on their first request"
			if format == "json" {
				loadLines()
				how, policy = "loaded in this process", "models are loaded at start (-preload)"
			}
			// What a load makes, and why: the context, threads, slots; then
			// the lifecycle's policy.
			awaitLine(t, lines, "model tiny-qwen3-toolcall "+how, "context 2048 tokens: the model's trained context", "1 threads: -threads", "4 slots")
			awaitLine(t, lines, policy, "stay loaded until serve stops", "no memory budget")
			l, _ := awaitLine(t, lines, "serving", "on http://")
			_, rest, _ := strings.Cut(l, "on http://")
			base := "http://" + strings.Fields(rest)[0]
			awaitLine(t, lines, "runtime embedded at", "own mode, 1 model(s): tiny-qwen3-toolcall")
			cl := client(base)
			resp, err := cl.Chat.Completions.New(context.Background(), weatherParams("tiny-qwen3-toolcall"))
			if err != nil {
				t.Fatal(err)
			}
			if format == "text" {
				loadLines() // the first request loaded it, and was answered
			}
			l, _ = awaitLine(t, lines, resp.ID)
			if format == "json" {
				var v map[string]any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("not one JSON object: %s", l)
				}
				if v["msg"] != "request" || v["api"] != "openai" || v["status"] != 200.0 || v["calls"] != 1.0 || v["mode"] != "own" ||
					v["prompt_tokens"] == 0.0 || v["completion_tokens"] == 0.0 || v["finish"] != "tool_calls" {
					t.Errorf("request line %v", v)
				}
				return
			}
			for _, want := range []string{"msg=request", "api=openai", "model=tiny-qwen3-toolcall", "status=200", "mode=own", "calls=1", "finish=tool_calls", "total_ms="} {
				if !strings.Contains(l, want) {
					t.Errorf("request line lacks %q: %s", want, l)
				}
			}
		})
	}
}
