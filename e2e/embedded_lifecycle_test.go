package e2e

// The embedded engine's model lifecycle through the real binary: a model
// loaded by its first request, its state in /v1/models and /api/ps before
// and after, and a load that fails answered in the client's dialect.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
)

// modelStatus is the engine model's status object in /v1/models.
func modelStatus(t *testing.T, base, id string) map[string]any {
	t.Helper()
	for _, m := range getJSON(t, base+"/v1/models")["data"].([]any) {
		if mm := m.(map[string]any); mm["id"] == id {
			st, _ := mm["status"].(map[string]any)
			if st == nil {
				t.Fatalf("/v1/models gives %s no status: %v", id, mm)
			}
			return st
		}
	}
	t.Fatalf("/v1/models does not list %s", id)
	return nil
}

// Started, the model is checked but not loaded: /v1/models says so with the
// context and slots a load makes, /api/ps lists nothing; the first request
// loads it and is answered; then it is loaded, with its size and, with an
// hour's keep-alive, an expiry an hour after the request.
func TestEmbeddedModelStatus(t *testing.T) {
	base, model := startEmbedded(t, "-keep-alive", "1h")
	st := modelStatus(t, base, model)
	if st["state"] != "unloaded" || st["context_length"] != 2048.0 || st["slots"] != 4.0 || st["kv_cache"] != false || st["size"].(float64) <= 0 {
		t.Errorf("before the first request: %v", st)
	}
	if ps := getJSON(t, base+"/api/ps")["models"].([]any); len(ps) != 0 {
		t.Errorf("/api/ps before the first request: %v", ps)
	}
	before := time.Now().Truncate(time.Second)
	cl := client(base)
	resp, err := cl.Chat.Completions.New(context.Background(), weatherParams(model))
	if err != nil {
		t.Fatal(err)
	}
	checkWeatherCall(t, resp.Choices[0].Message, resp.Choices[0].FinishReason)
	after := time.Now()
	st = modelStatus(t, base, model)
	at, _ := time.Parse(time.RFC3339, str(st["expires_at"]))
	if st["state"] != "loaded" || st["kv_cache"] != true || st["running"] != 0.0 || at.Before(before.Add(time.Hour)) || at.After(after.Add(time.Hour)) {
		t.Errorf("after the first request (between %v and %v): %v", before, after, st)
	}
	ps := getJSON(t, base+"/api/ps")["models"].([]any)
	if len(ps) != 1 {
		t.Fatalf("/api/ps after the first request: %v", ps)
	}
	p := ps[0].(map[string]any)
	if p["name"] != model || p["size"] != st["size"] || p["size_vram"] != 0.0 || p["context_length"] != 2048.0 || p["expires_at"] != st["expires_at"] {
		t.Errorf("/api/ps: %v; /v1/models: %v", p, st)
	}
}

// A model whose load fails (a q8_0 KV cache on the tiny model's heads of
// 16, which llama.cpp refuses) starts, and its first request gets the
// reason in the client's dialect: OpenAI's error object, Anthropic's.
func TestEmbeddedLoadFails(t *testing.T) {
	base, model := startEmbedded(t, "-cache-type", "q8_0")
	cl := client(base)
	_, err := cl.Chat.Completions.New(context.Background(), weatherParams(model))
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 502 || !strings.Contains(oe.Message, "could not make a context") {
		t.Errorf("OpenAI: %v", err)
	}
	ac := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	_, err = ac.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 64,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 502 || !strings.Contains(ae.Error(), "could not make a context") {
		t.Errorf("Anthropic: %v", err)
	}
	if st := modelStatus(t, base, model); st["state"] != "unloaded" {
		t.Errorf("after the failed load: %v", st)
	}
}

// POST /v1/dragoman/unload (llama-swap's /unload) frees the engine's loaded
// models: the answer names them, /v1/models then says unloaded, and the
// next request loads the model again.
func TestEmbeddedUnloadEndpoint(t *testing.T) {
	base, model := startEmbedded(t)
	cl := client(base)
	if _, err := cl.Chat.Completions.New(context.Background(), weatherParams(model)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/v1/dragoman/unload", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || path(v, "unloaded", 0, "model") != model {
		t.Fatalf("unload: %d %v %v", resp.StatusCode, v, err)
	}
	// The unload is the engine's scheduler's, once the model is idle (it
	// is): read the status again until it says so (a bound, not a measure).
	state := ""
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if state = str(modelStatus(t, base, model)["state"]); state == "unloaded" {
			break
		}
	}
	if state != "unloaded" {
		t.Fatalf("state %q after the unload", state)
	}
	r, err := cl.Chat.Completions.New(context.Background(), weatherParams(model))
	if err != nil {
		t.Fatal(err)
	}
	checkWeatherCall(t, r.Choices[0].Message, r.Choices[0].FinishReason)
	if st := modelStatus(t, base, model); st["state"] != "loaded" {
		t.Errorf("after the next request: %v", st)
	}
}
