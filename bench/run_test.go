package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOllama is an httptest server speaking Ollama's API for one model,
// "fake": every /api/chat answers with a get_weather call for Paris, except
// every third (the 3rd, 6th, …), which leaves the call in the text. It
// records the seeds and options it was sent.
type fakeOllama struct {
	URL   string
	chats atomic.Int64
	mu    sync.Mutex
	seeds map[string]float64 // the question's text → seed
	block chan struct{}      // when set, /api/chat waits on it
}

func newFakeOllama(t testing.TB) *fakeOllama {
	f := &fakeOllama{seeds: map[string]float64{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models": [{"name": "fake", "model": "fake"}]}`)
		case "/api/show":
			io.WriteString(w, `{"model_info": {}}`)
		case "/api/version":
			io.WriteString(w, `{"version": "0.17.4"}`)
		case "/api/chat":
			var req struct {
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
				Options map[string]any `json:"options"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			if f.block != nil {
				select {
				case <-f.block:
				case <-r.Context().Done():
					return
				}
			}
			if len(req.Messages) > 0 {
				seed, _ := req.Options["seed"].(float64)
				f.mu.Lock()
				f.seeds[req.Messages[len(req.Messages)-1].Content] = seed
				f.mu.Unlock()
			}
			msg := `{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}`
			if f.chats.Add(1)%3 == 0 {
				msg = `{"role": "assistant", "content": "I would call get_weather(city=\"Paris\") now."}`
			}
			fmt.Fprintf(w, `{"model": "fake", "message": %s, "done": true, "done_reason": "stop", "prompt_eval_count": 12, "eval_count": 7}`+"\n", msg)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// weatherSuite is n questions whose answer is get_weather for Paris.
func weatherSuite(t testing.TB, n int) []Item {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id": "w%d", "category": "weather", "messages": [{"role": "user", "content": "Weather in Paris? (%d)"}], "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}], "expected": {"calls": [{"name": "get_weather", "arguments": {"city": ["Paris"]}}]}}`+"\n", i, i)
	}
	s, err := ReadSuite(strings.NewReader(b.String()), "weather")
	if err != nil {
		t.Fatal(err)
	}
	return s.Items
}

func mustSide(t testing.TB, spec string) Side {
	s, err := ParseSide(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readRecords(t *testing.T, dir string) []Record {
	data, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, r)
	}
	return out
}

// A relay side over a runtime that leaves every third call in the text:
// exactly a third of the answers fail, as no call; every line of
// results.jsonl has its trace, the raw completion and the tokens.
func TestRunRelay(t *testing.T) {
	f := newFakeOllama(t)
	dir := t.TempDir()
	items := weatherSuite(t, 12)
	side := mustSide(t, "ollama="+f.URL+"#fake@relay")
	var prog strings.Builder
	recs, err := Run(context.Background(), RunConfig{Sides: []Side{side}, Items: items, Dir: dir, Seed: 7, Concurrency: 3, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	fails := 0
	for _, r := range recs {
		if !r.Pass {
			fails++
			if r.Kind != string(ErrDecode) || len(r.Calls) != 0 || !strings.Contains(r.Completion, "get_weather(") {
				t.Errorf("%s: a call left in text should fail as no call, with the text as completion: %+v", r.Item, r)
			}
		} else if len(r.Calls) != 1 || r.Calls[0].Function.Name != "get_weather" {
			t.Errorf("%s: passed with calls %+v", r.Item, r.Calls)
		}
		if r.TraceID == "" || r.PromptTokens != 12 || r.CompletionTokens != 7 || r.Seed != ItemSeed(7, r.Item) || r.Side != side.Spec || r.Category != "weather" {
			t.Errorf("%s: record %+v", r.Item, r)
		}
	}
	if fails != 4 {
		t.Errorf("%d failures, want 4 (every third of 12)", fails)
	}
	if got := readRecords(t, dir); len(got) != 12 {
		t.Errorf("results.jsonl has %d lines, want 12", len(got))
	}
	traces, _ := os.ReadFile(filepath.Join(dir, TracesFile))
	if n := strings.Count(string(traces), "\n"); n != 12 {
		t.Errorf("traces.jsonl has %d lines, want 12", n)
	}
	// Each question's seed reached the runtime.
	for i, it := range items {
		if got := f.seeds[it.Messages[0].Content]; got != float64(ItemSeed(7, it.ID)) {
			t.Errorf("item %d: runtime got seed %v, want %d", i, got, ItemSeed(7, it.ID))
		}
	}
	if !strings.Contains(prog.String(), "12/12 66.7%") {
		t.Errorf("the last progress line should say 12/12 66.7%%: %q", prog.String())
	}
}

// A rerun asks nothing already answered; a line cut short by a killed run
// is dropped and its item asked again; another seed is refused.
func TestRunResume(t *testing.T) {
	f := newFakeOllama(t)
	dir := t.TempDir()
	items := weatherSuite(t, 6)
	sides := []Side{mustSide(t, "ollama="+f.URL+"#fake@relay"), mustSide(t, "ollama="+f.URL+"#fake@relay?tool_choice=auto")}
	cfg := RunConfig{Sides: sides, Items: items[:4], Dir: dir, Seed: 1, Concurrency: 2}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := f.chats.Load(); n != 8 {
		t.Fatalf("%d questions asked, want 8", n)
	}
	cfg.Items = items
	recs, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.chats.Load(); n != 12 || len(recs) != 12 {
		t.Fatalf("after the rerun %d questions asked (want 12: only the 4 new pairs) and %d records (want 12)", n, len(recs))
	}
	// Cut the last line short.
	path := filepath.Join(dir, ResultsFile)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, data[:len(data)-20], 0o644)
	recs, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.chats.Load(); n != 13 || len(recs) != 12 || len(readRecords(t, dir)) != 12 {
		t.Errorf("after a cut line: %d asked (want 13), %d records (want 12)", n, len(recs))
	}
	cfg.Seed = 2
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("another seed over the same results: %v", err)
	}
}

// A question that outlives its timeout is a transport error, scored as no
// answer; an interrupted run writes nothing for what it did not finish.
func TestRunTimeout(t *testing.T) {
	f := newFakeOllama(t)
	f.block = make(chan struct{})
	defer close(f.block)
	dir := t.TempDir()
	items := weatherSuite(t, 2)
	recs, err := Run(context.Background(), RunConfig{Sides: []Side{mustSide(t, "ollama="+f.URL+"#fake@relay")}, Items: items, Dir: dir, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Pass || !strings.Contains(r.Error, "timeout") || r.Kind != string(ErrDecode) {
			t.Errorf("%s: %+v", r.Item, r)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	dir2 := t.TempDir()
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	recs, err = Run(ctx, RunConfig{Sides: []Side{mustSide(t, "ollama="+f.URL+"#fake@relay")}, Items: items, Dir: dir2})
	if err == nil || len(recs) != 0 {
		t.Errorf("interrupted: err %v, %d records", err, len(recs))
	}
}

func TestParseSide(t *testing.T) {
	for _, c := range []struct {
		spec                         string
		kind, url, model, mode, gguf string
		choice                       string
	}{
		{spec: "ollama=127.0.0.1:11434#qwen3@relay", kind: "ollama", url: "http://127.0.0.1:11434", model: "qwen3", mode: "relay"},
		{spec: "http://h:8080/v1#m", url: "http://h:8080/v1", model: "m"},
		{spec: "llama-server=http://u@h:1/x#m@own", kind: "llama-server", url: "http://u@h:1/x", model: "m", mode: "own"},
		{spec: "openai=h:1#org/m@relay?tool_choice=required", kind: "openai", url: "http://h:1", model: "org/m", mode: "relay", choice: "required"},
		{spec: "gguf=/m/tiny.gguf", gguf: "/m/tiny.gguf"},
		{spec: "gguf=/m/tiny.gguf?tool_choice=required", gguf: "/m/tiny.gguf", choice: "required"},
	} {
		s, err := ParseSide(c.spec)
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		if s.Upstream.Kind != c.kind || s.Upstream.URL != c.url || s.Model != c.model || s.Upstream.Mode != c.mode || s.GGUF != c.gguf || s.ToolChoice != c.choice || s.Spec != c.spec {
			t.Errorf("%s: %+v", c.spec, s)
		}
	}
	if s, _ := ParseSide("gguf=/m/tiny-qwen3.gguf"); s.ServedName() != "tiny-qwen3" {
		t.Errorf("gguf served name %q", s.ServedName())
	}
	for _, bad := range []string{"h:1", "h:1#m@remote", "gguf=", "gguf=x.gguf@relay", "h:1#m?tool_choice=maybe", "h:1#m?temp=1"} {
		if _, err := ParseSide(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// BenchmarkRunBFCL runs all of BFCL (3,491 questions) on one relay side
// over a fake instant runtime, 8 at a time, attributes each failure, and
// writes the summaries and the HTML report: the benchmark's own cost
// (docs/PERFORMANCE.md).
func BenchmarkRunBFCL(b *testing.B) {
	s := loadBFCL(b)
	f := newFakeOllama(b)
	side := mustSide(b, "ollama="+f.URL+"#fake@relay")
	for b.Loop() {
		dir := b.TempDir()
		recs, err := Run(context.Background(), RunConfig{Sides: []Side{side}, Items: s.Items, Dir: dir, Concurrency: 8})
		if err != nil {
			b.Fatal(err)
		}
		if len(recs) != len(s.Items) {
			b.Fatalf("%d records", len(recs))
		}
		errs := 0
		for _, r := range recs {
			if r.Error != "" {
				errs++
			}
		}
		b.ReportMetric(float64(errs), "errors")
		sum := Summarize(s.Items, []Side{side}, recs, 1)
		if err := WriteSummary(dir, sum); err != nil {
			b.Fatal(err)
		}
		if err := WriteReport(dir, sum, s.Items, []Side{side}, recs); err != nil {
			b.Fatal(err)
		}
		if st, err := os.Stat(filepath.Join(dir, ReportFile)); err == nil {
			b.ReportMetric(float64(st.Size())/(1<<20), "report-MiB")
		}
	}
}
