package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// placeSchema has bounded values only, so that a constrained answer of the
// random-weights model ends before the token limit.
const placeSchema = `{"type":"object","properties":{"city":{"enum":["Paris","Rome","Oslo"]},"days":{"type":"integer"},"sunny":{"type":"boolean"}},"required":["city","days","sunny"]}`

// Structured outputs constrain the random-weights model in the embedded
// engine: OpenAI's response_format, the Responses API's text.format and
// Anthropic's output_config.format each give JSON valid for the schema in
// every sample (checked with our own recogniser).
func TestEmbeddedStructuredOutputs(t *testing.T) {
	random := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-random.gguf")
	base, _ := startEmbedded(t, "-model", random)
	g, _, err := grammar.FromJSONSchema([]byte(placeSchema), grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	apis := []struct {
		name, path, body string
		text             func(map[string]any) string
	}{
		{"chat completions", "/v1/chat/completions",
			`"messages":[{"role":"user","content":"Plan a trip."}],"max_tokens":256,"response_format":{"type":"json_schema","json_schema":{"name":"place","schema":` + placeSchema + `}}`,
			func(v map[string]any) string { return str(v, "choices", 0, "message", "content") }},
		{"responses", "/v1/responses",
			`"input":"Plan a trip.","max_output_tokens":256,"text":{"format":{"type":"json_schema","name":"place","schema":` + placeSchema + `}}`,
			func(v map[string]any) string { return outputText(v) }},
		{"anthropic", "/v1/messages",
			`"messages":[{"role":"user","content":"Plan a trip."}],"max_tokens":256,"output_config":{"format":{"type":"json_schema","schema":` + placeSchema + `}}`,
			func(v map[string]any) string { return str(v, "content", 0, "text") }},
	}
	samples := sampleCount(t, 20)
	for _, api := range apis {
		valid := 0
		for i := range samples {
			body := fmt.Sprintf(`{"model":"tiny-qwen3-random","seed":%d,"temperature":1,%s}`, i, api.body)
			resp, err := http.Post(base+api.path, "application/json", bytes.NewReader([]byte(body)))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil || resp.StatusCode != 200 {
				t.Errorf("%s, sample %d: %d %s", api.name, i, resp.StatusCode, data)
				continue
			}
			text := api.text(v)
			var compact bytes.Buffer
			if json.Compact(&compact, []byte(text)) != nil || !g.Match(compact.String()) {
				t.Errorf("%s, sample %d: %q is not valid for the schema", api.name, i, text)
				continue
			}
			valid++
		}
		t.Logf("%s: %d of %d answers valid for the schema", api.name, valid, samples)
	}
}

// str walks a decoded JSON value to a string.
func str(v any, steps ...any) string {
	s, _ := path(v, steps...).(string)
	return s
}

// outputText is a Responses answer's message text.
func outputText(v map[string]any) string {
	items, _ := v["output"].([]any)
	for _, it := range items {
		if m, _ := it.(map[string]any); m["type"] == "message" {
			return str(m, "content", 0, "text")
		}
	}
	return ""
}
