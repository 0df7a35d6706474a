package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// replayRuntime is an OpenAI-compatible server that answers every chat
// request with the message of a recorded llama-server exchange
// (../shared/recordings), streamed as the gateway asks.
func replayRuntime(t *testing.T, recording string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.Require(t), "recordings", recording))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Response struct {
			Choices []struct {
				FinishReason string          `json:"finish_reason"`
				Message      json.RawMessage `json:"message"`
			} `json:"choices"`
		} `json:"response"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var msg map[string]any
	_ = json.Unmarshal(rec.Response.Choices[0].Message, &msg)
	if calls, ok := msg["tool_calls"].([]any); ok {
		for i, c := range calls {
			c.(map[string]any)["index"] = i
		}
	}
	delta, _ := json.Marshal(msg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object": "list", "data": [{"id": "scripted", "object": "model"}]}`)
		case "/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\": \"c1\", \"object\": \"chat.completion.chunk\", \"choices\": [{\"index\": 0, \"delta\": %s}]}\n\n", delta)
			fmt.Fprintf(w, "data: {\"id\": \"c1\", \"object\": \"chat.completion.chunk\", \"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\": %q}]}\n\n", rec.Response.Choices[0].FinishReason)
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const diffRequest = `{"model": "scripted", "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
 "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
  "properties": {"city": {"type": "string"}}, "required": ["city"]}}}], "temperature": 0, "seed": 1}`

// Against recorded exchanges: the same answer twice is "same"; llama-server's
// answer with tool_choice "none" (recording 24: the call left as text)
// against its parsed call (recording 21) is a parser gap.
func TestDiffRecorded(t *testing.T) {
	req := write(t, t.TempDir(), "req.json", diffRequest)
	parsed := replayRuntime(t, "21-scripted-chat-tools-auto.json")
	asText := replayRuntime(t, "24-scripted-chat-tools-none.json")

	r := dragoman(t, "", nil, "diff", "--request", req, "openai="+parsed+"@relay", "openai="+parsed+"@relay")
	if r.status != 0 || !strings.Contains(r.stdout, "verdict: same") {
		t.Errorf("same answers: status %d\n%s%s", r.status, r.stdout, r.stderr)
	}

	r = dragoman(t, "", nil, "diff", "--request", req, "openai="+parsed+"@relay", "openai="+asText+"@relay", "--json")
	var rep struct {
		Verdict string            `json:"verdict"`
		Fields  map[string]string `json:"fields"`
		A, B    struct {
			Calls   []struct{ Name string } `json:"tool_calls"`
			Content string                  `json:"content"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json: %v: %q (%s)", err, r.stdout, r.stderr)
	}
	if r.status != 1 || rep.Verdict != "parser gap" || len(rep.A.Calls) != 1 || len(rep.B.Calls) != 0 ||
		!strings.Contains(rep.B.Content, "<tool_call>") || rep.Fields["prompt"] != "unknown" {
		t.Errorf("parser gap: status %d, %+v", r.status, rep)
	}
}

func TestDiffSideSpec(t *testing.T) {
	u, model, err := parseSide("ollama=127.0.0.1:11434#tiny-toolcall@relay")
	if err != nil || u.Kind != "ollama" || u.URL != "http://127.0.0.1:11434" || model != "tiny-toolcall" || u.Mode != "relay" {
		t.Errorf("%+v %q %v", u, model, err)
	}
	u, model, err = parseSide("http://h:1/v1")
	if err != nil || u.Kind != "" || u.URL != "http://h:1/v1" || model != "" || u.Mode != "" {
		t.Errorf("%+v %q %v", u, model, err)
	}
	if _, _, err := parseSide("h:1@fast"); err == nil {
		t.Error("an unknown mode: no error")
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	b := "zero\none\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight\nnine\n"
	d := unifiedDiff("A", a, "B", b)
	for _, want := range []string{"--- A\n+++ B\n", "-four\n+FOUR\n", "+nine\n", " three\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, " zero\n") {
		t.Errorf("more than three lines of context:\n%s", d)
	}
}

func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int
		want       float64
	}{
		{8, 0, 0, 8, 2.0 / 12870}, {4, 4, 4, 4, 1}, {3, 1, 1, 3, 34.0 / 70}, {0, 0, 0, 0, 1}, {5, 0, 5, 0, 1},
	} {
		if got := fisherExact(c.a, c.b, c.c, c.d); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%v: %g, want %g", c, got, c.want)
		}
	}
}

// alternatingRuntime answers chat requests in turn with the parsed call of
// one recording and the call left as text of another: a model that
// sometimes writes its call well.
func alternatingRuntime(t *testing.T) string {
	t.Helper()
	a, b := replayRuntime(t, "21-scripted-chat-tools-auto.json"), replayRuntime(t, "24-scripted-chat-tools-none.json")
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := a
		if r.URL.Path == "/v1/chat/completions" && n.Add(1)%2 == 0 {
			target = b
		}
		var resp *http.Response
		var err error
		if r.Method == http.MethodGet {
			resp, err = http.Get(target + r.URL.Path)
		} else {
			resp, err = http.Post(target+r.URL.Path, "application/json", r.Body)
		}
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// --samples: a side that always parses the call against one that always
// leaves it as text is a parser gap; the same runtime twice is the same; two
// runtimes that each parse half their calls are the same within noise.
func TestDiffSamples(t *testing.T) {
	req := write(t, t.TempDir(), "req.json", diffRequest)
	parsed := replayRuntime(t, "21-scripted-chat-tools-auto.json")
	asText := replayRuntime(t, "24-scripted-chat-tools-none.json")
	run := func(a, b string) (int, samplesReport) {
		t.Helper()
		r := dragoman(t, "", nil, "diff", "--request", req, "--samples", "6", "--json", "openai="+a+"@relay", "openai="+b+"@relay")
		var rep samplesReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("--json: %v: %q (%s)", err, r.stdout, r.stderr)
		}
		return r.status, rep
	}
	status, rep := run(parsed, asText)
	if status != 1 || rep.Verdict != "parser gap" || rep.A.Calls != 6 || rep.B.AsText != 6 || rep.P > 0.01 || rep.A.Names["get_weather"] != 6 {
		t.Errorf("gap: status %d, %+v %+v %+v", status, rep, *rep.A, *rep.B)
	}
	if status, rep = run(parsed, parsed); status != 0 || rep.Verdict != "same" || rep.P < 0.999 {
		t.Errorf("same: status %d, %+v", status, rep)
	}
	if status, rep = run(alternatingRuntime(t), alternatingRuntime(t)); status != 0 || rep.Verdict != "same" ||
		rep.A.Calls != 3 || rep.A.AsText != 3 || rep.B.Calls != 3 {
		t.Errorf("noise: status %d, %+v %+v %+v", status, rep, *rep.A, *rep.B)
	}
	// The human-readable report.
	r := dragoman(t, "", nil, "diff", "--request", req, "--samples", "4", "openai="+parsed+"@relay", "openai="+asText+"@relay")
	if r.status != 1 || !strings.Contains(r.stdout, "4 samples: 4 with calls, 0 with a call left as text, 0 errors (calls: get_weather 4)") ||
		!strings.Contains(r.stdout, "verdict: parser gap") {
		t.Errorf("report: status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
}

// Two sides with nothing listening are not "the same": the verdict is
// "error", the exit status 1, and the error names the address tried; with
// --json and with --samples too.
func TestDiffDeadSides(t *testing.T) {
	req := write(t, t.TempDir(), "req.json", diffRequest)
	dead := "http://127.0.0.1:1"
	r := dragoman(t, "", nil, "diff", "--request", req, "openai="+dead+"@relay", "openai="+dead+"@relay")
	if r.status != 1 || !strings.Contains(r.stdout, "verdict: error") || !strings.Contains(r.stdout+r.stderr, "127.0.0.1:1") {
		t.Errorf("text: status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	r = dragoman(t, "", nil, "diff", "--request", req, "--json", "openai="+dead+"@relay", "openai="+dead+"@relay")
	var rep diffReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.status != 1 || rep.Verdict != "error" {
		t.Errorf("--json: status %d, %q %v", r.status, r.stdout, err)
	}
	r = dragoman(t, "", nil, "diff", "--request", req, "--samples", "2", "--json", "openai="+dead+"@relay", "openai="+dead+"@relay")
	var srep samplesReport
	if err := json.Unmarshal([]byte(r.stdout), &srep); err != nil || r.status != 1 || srep.Verdict != "error" {
		t.Errorf("--samples: status %d, %q %v", r.status, r.stdout, err)
	}
}
