package gateway

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// After scripted requests — a parsed call, a call left as text, a call to
// an undeclared tool, a forced call constrained by a JSON Schema, a forced
// call refused, an "auto" call under a lazy grammar, an unknown model — each
// counter of /metrics moved by what happened, with its labels, and the
// exposition passes Prometheus' linter.
func TestMetricsCountOutcomes(t *testing.T) {
	stop := backend.Chunk{FinishReason: chat.FinishStop, Usage: &chat.Usage{PromptTokens: 40, CompletionTokens: 10}}
	ollama := qwenRuntime()
	ollama.scripts = [][]backend.Chunk{
		{{Text: weatherCall}, stop},
		{{Text: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {oops}}\n</tool_call>"}, stop},
		{{Text: "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"}, stop},
		{{Text: `{"city": "Oslo"}`}, stop}, // after the prefill of a forced call
	}
	mlx := &fakeRuntime{kind: backend.MLX, url: "http://127.0.0.1:2",
		models: map[string]backend.ModelInfo{"mlxmodel": {Template: qwenTemplate, TemplateOrigin: "fake runtime"}}}
	llama := &fakeRuntime{kind: backend.LlamaServer, url: "http://127.0.0.1:3", canComplete: true,
		models: map[string]backend.ModelInfo{"llamamodel": {Template: qwenTemplate, TemplateOrigin: "fake runtime", EOSToken: "<|im_end|>"}},
		script: []backend.Chunk{{Text: weatherCall}, stop}}
	down := &fakeRuntime{kind: backend.LlamaServer, url: "http://127.0.0.1:4", canComplete: true,
		models:   map[string]backend.ModelInfo{"downmodel": {Template: qwenTemplate, TemplateOrigin: "fake runtime"}},
		startErr: errors.New("connection refused")}
	ts := newFakeGateway(t, Config{}, ollama, mlx, llama, down)
	for _, body := range []string{
		chatBody(""), chatBody(""), chatBody(""),
		chatBody(`"tool_choice":{"type":"function","function":{"name":"get_weather"}}`),
		strings.Replace(chatBody(`"tool_choice":"required"`), `"qwen"`, `"mlxmodel"`, 1),
		strings.Replace(chatBody(""), `"qwen"`, `"llamamodel"`, 1),
		strings.Replace(chatBody(""), `"qwen"`, `"nosuchmodel"`, 1),
		strings.Replace(chatBody(""), `"qwen"`, `"downmodel"`, 1),
	} {
		post(t, ts.URL+"/v1/chat/completions", body).Body.Close()
	}

	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	problems, err := promlint.New(strings.NewReader(text)).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", err, problems)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	const q, o = "qwen", "ollama@http://127.0.0.1:1"
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"dragoman_requests_total", map[string]string{"api": "openai", "model": q, "upstream": o, "mode": "own", "status": "200"}, 4},
		{"dragoman_requests_total", map[string]string{"model": "mlxmodel", "status": "400"}, 1},
		{"dragoman_requests_total", map[string]string{"model": "", "upstream": "", "status": "404"}, 1},
		{"dragoman_tool_calls_total", map[string]string{"model": q, "upstream": o, "mode": "own"}, 3}, // the undeclared one is handed on, with its diagnostic
		{"dragoman_tool_calls_left_as_text_total", map[string]string{"model": q, "upstream": o, "mode": "own"}, 1},
		{"dragoman_diagnostics_total", map[string]string{"model": q, "code": "malformed-call"}, 1},
		{"dragoman_diagnostics_total", map[string]string{"model": q, "code": "unknown-tool"}, 1},
		{"dragoman_constrained_requests_total", map[string]string{"model": q, "form": "json-schema"}, 1},
		{"dragoman_constrained_requests_total", map[string]string{"model": "llamamodel", "form": "lazy-grammar"}, 1},
		{"dragoman_actions_total", map[string]string{"model": "mlxmodel", "action": "forced-call-refused"}, 1},
		{"dragoman_tokens_total", map[string]string{"model": q, "kind": "completion"}, 40},
		{"dragoman_request_duration_seconds", map[string]string{"model": q, "upstream": o, "mode": "own"}, 4},
		{"dragoman_time_to_first_chunk_seconds", map[string]string{"model": "llamamodel"}, 1},
		{"dragoman_upstream_errors_total", map[string]string{"upstream": "llama-server@http://127.0.0.1:4", "kind": "failed"}, 1},
		{"dragoman_upstream_errors_total", map[string]string{"upstream": o}, 0},
		{"dragoman_requests_in_flight", nil, 0},
	} {
		if got := metricValue(fams[c.name], c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// metricValue sums the samples of fam whose labels include labels: a
// counter's or gauge's value, a histogram's count.
func metricValue(fam *dto.MetricFamily, labels map[string]string) float64 {
	if fam == nil {
		return -1
	}
	sum := 0.0
	for _, m := range fam.Metric {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.Label {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// BenchmarkMetricsObserve is what counting one finished request costs: a
// record with a call, a diagnostic, a constraint and an action.
func BenchmarkMetricsObserve(b *testing.B) {
	m := newMetrics()
	rec := &trace.Record{API: "openai", Model: "qwen", Upstream: "ollama@http://127.0.0.1:11434", Mode: "own", Status: 200,
		PromptTokens: 900, CompletionTokens: 40, Constraint: "lazy-grammar", Actions: []string{trace.ActionContextRaised},
		Calls:       []chat.ToolCall{{ID: "call_1"}},
		Diagnostics: []trace.Diagnostic{{Code: "unknown-tool"}},
		Timings:     trace.Timings{FirstChunkMS: 120, TotalMS: 900}}
	b.ReportAllocs()
	for b.Loop() {
		m.started()
		m.observe(rec)
	}
}
