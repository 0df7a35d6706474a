package backend

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

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
