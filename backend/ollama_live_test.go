package backend

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

// These tests run against a real Ollama server (the version .ci/ollama.sh
// builds, v0.17.4 at the time of writing) with the tiny models of
// internal/ollamatest. They skip when $DRAGOMAN_OLLAMA is unset (and fail
// under CI=true), as ollamatest does.

func TestMain(m *testing.M) { ollamatest.Main(m) }

const qwenPrompt = "<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"

func TestLiveOllamaComplete(t *testing.T) {
	srv := ollamatest.Shared(t)
	o := NewOllama(srv.URL, nil)
	// The model without a TEMPLATE: exactly the case where the gateway
	// renders the Jinja template itself and sends the raw prompt.
	got := expectAnswer(t)(o.Complete(context.Background(), CompleteRequest{Model: srv.NoTemplate, Prompt: qwenPrompt, MaxTokens: 64, Temperature: ptr(0.0)}))
	if !strings.Contains(got.text, `"get_weather"`) || got.finish != chat.FinishStop || got.usage == nil || got.usage.CompletionTokens == 0 {
		t.Errorf("got %+v usage %+v", got, got.usage)
	}
}

func TestLiveOllamaCompleteSchema(t *testing.T) {
	srv := ollamatest.Shared(t)
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","enum":["Paris","Oslo"]}},"required":["city"]}`)
	s, err := NewOllama(srv.URL, nil).Complete(context.Background(), CompleteRequest{Model: srv.Random, Prompt: qwenPrompt, MaxTokens: 64, Temperature: ptr(0.0), JSONSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, s)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ City string }
	if text := summarize(t, chunks).text; json.Unmarshal([]byte(text), &v) != nil || v.City == "" {
		t.Errorf("constrained output %q is not the schema's JSON", text)
	}
}

func TestLiveOllamaChat(t *testing.T) {
	srv := ollamatest.Shared(t)
	req := weatherRequest(srv.ToolCall)
	req.MaxTokens, req.Temperature = 64, ptr(0.0)
	for _, b := range []Backend{NewOllama(srv.URL, nil), NewOpenAI(OpenAI, srv.URL, "", nil)} {
		s, err := b.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", b.Kind(), err)
		}
		chunks, err := drain(t, s)
		if err != nil {
			t.Fatalf("%s: %v", b.Kind(), err)
		}
		got := summarize(t, chunks)
		if len(got.calls) != 1 || got.calls[0].ID == "" || got.calls[0].Function.Name != "get_weather" ||
			got.calls[0].Function.Arguments != `{"city":"Paris"}` || got.finish != chat.FinishToolCalls {
			t.Errorf("%s: got %+v", b.Kind(), got)
		}
	}
}

func TestLiveOllamaNoTemplateRefusesTools(t *testing.T) {
	srv := ollamatest.Shared(t)
	_, err := NewOllama(srv.URL, nil).Chat(context.Background(), weatherRequest(srv.NoTemplate))
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || !strings.Contains(e.Message, "does not support tools") {
		t.Fatalf("err = %v", err)
	}
}

func TestLiveOllamaInfoAndDetect(t *testing.T) {
	srv := ollamatest.Shared(t)
	if k, err := Detect(context.Background(), srv.URL, nil); err != nil || k != Ollama {
		t.Errorf("Detect = %q, %v", k, err)
	}
	o := NewOllama(srv.URL, nil)
	o.ModelsDir = filepath.Join(srv.Dir, "models")
	info, err := o.ModelInfo(context.Background(), srv.NoTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if info.GGUFPath == "" || info.ContextLength == 0 || info.Template != "" {
		t.Errorf("info = %+v", info)
	}
	models, err := o.Models(context.Background())
	if err != nil || len(models) < 3 {
		t.Errorf("models = %+v, %v", models, err)
	}
}

// psModels is what Ollama's /api/ps lists: the loaded models and when each
// expires.
func psModels(t *testing.T, base string) map[string]time.Time {
	t.Helper()
	var ps struct {
		Models []struct {
			Name      string    `json:"name"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"models"`
	}
	if err := NewOllama(base, nil).getJSON(context.Background(), "/api/ps", &ps); err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, m := range ps.Models {
		out[strings.TrimSuffix(m.Name, ":latest")] = m.ExpiresAt
	}
	return out
}

// waitUnloaded waits until /api/ps no longer lists model: Ollama answers an
// unload before its scheduler has let the model go. A guard, not a measure.
func waitUnloaded(t *testing.T, base, model string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, loaded := psModels(t, base)[model]; !loaded {
			return
		}
	}
	t.Fatalf("%s still loaded a minute after its unload", model)
}

// Load and Unload as Ollama's clients ask them, against the real server:
// the model is listed loaded with the keep-alive given, then gone; a
// request's keep_alive 0 lets the model go once it has answered.
func TestLiveOllamaLoadUnload(t *testing.T) {
	srv := ollamatest.Shared(t)
	o := NewOllama(srv.URL, nil)
	model := srv.Random
	before := time.Now()
	if err := o.Load(context.Background(), model, ptr(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Ollama answers the load before its scheduler has moved the expiry of a
	// model that was loaded already (by an earlier test): /api/ps is read
	// again until it has (a bound, not a measure).
	var exp time.Time
	var loaded bool
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if exp, loaded = psModels(t, srv.URL)[model]; loaded && !exp.Before(before.Add(59*time.Minute)) {
			break
		}
	}
	if !loaded || exp.Before(before.Add(59*time.Minute)) || exp.After(time.Now().Add(61*time.Minute)) {
		t.Fatalf("after Load with an hour: loaded %v, expires %v (%v from now)", loaded, exp, time.Until(exp))
	}
	if err := o.Unload(context.Background(), model); err != nil {
		t.Fatal(err)
	}
	waitUnloaded(t, srv.URL, model)

	s, err := o.Complete(context.Background(), CompleteRequest{Model: model, Prompt: qwenPrompt, MaxTokens: 4, KeepAlive: ptr(time.Duration(0))})
	mustDrain(t, s, err)
	waitUnloaded(t, srv.URL, model)
}
