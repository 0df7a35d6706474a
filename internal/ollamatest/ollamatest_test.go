package ollamatest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

var weatherTool = []any{map[string]any{
	"type": "function",
	"function": map[string]any{
		"name":        "get_weather",
		"description": "Get the current weather for a city",
		"parameters": map[string]any{
			"type":       "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required":   []string{"city"},
		},
	},
}}

// call sends body as JSON (GET when body is nil) and returns the status and
// the raw response.
func call(t *testing.T, srv *Server, path string, body any) (int, []byte) {
	t.Helper()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v\nserver log tail:\n%s", method, path, err, srv.LogTail(2048))
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

func TestTagsListsModels(t *testing.T) {
	srv := Shared(t)
	status, body := call(t, srv, "/api/tags", nil)
	if status != http.StatusOK {
		t.Fatalf("/api/tags: %d %s", status, body)
	}
	var tags struct {
		Models []struct {
			Name, Model string
		} `json:"models"`
	}
	decode(t, body, &tags)
	have := map[string]bool{}
	for _, m := range tags.Models {
		have[strings.TrimSuffix(m.Name, ":latest")] = true
	}
	for _, want := range []string{srv.ToolCall, srv.Random, srv.NoTemplate} {
		if !have[want] {
			t.Errorf("/api/tags lacks %s: %s", want, body)
		}
	}
}

func TestChatToolCall(t *testing.T) {
	srv := Shared(t)
	status, body := call(t, srv, "/api/chat", map[string]any{
		"model":    srv.ToolCall,
		"messages": []any{map[string]any{"role": "user", "content": "What is the weather in Paris?"}},
		"tools":    weatherTool,
		"stream":   false,
		"options":  map[string]any{"num_predict": 64, "temperature": 0},
	})
	if status != http.StatusOK {
		t.Fatalf("/api/chat: %d %s", status, body)
	}
	var resp struct {
		Message struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		Done       bool   `json:"done"`
		DoneReason string `json:"done_reason"`
	}
	decode(t, body, &resp)
	t.Logf("/api/chat: %s", body)
	if len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("want one tool call, got %s", body)
	}
	fn := resp.Message.ToolCalls[0].Function
	if fn.Name != "get_weather" || fn.Arguments["city"] != "Paris" {
		t.Errorf("tool call = %s %v, want get_weather {city: Paris}", fn.Name, fn.Arguments)
	}
}

func TestChatToolsWithoutTemplateFails(t *testing.T) {
	srv := Shared(t)
	status, body := call(t, srv, "/api/chat", map[string]any{
		"model":    srv.NoTemplate,
		"messages": []any{map[string]any{"role": "user", "content": "What is the weather in Paris?"}},
		"tools":    weatherTool,
		"stream":   false,
		"options":  map[string]any{"num_predict": 16},
	})
	t.Logf("/api/chat without template: %d %s", status, body)
	var resp struct {
		Error string `json:"error"`
	}
	decode(t, body, &resp)
	if status < 400 || !strings.Contains(resp.Error, "does not support tools") {
		t.Errorf("want an error saying the model does not support tools, got %d %s", status, body)
	}
}

func TestRawGenerateWithoutTemplate(t *testing.T) {
	srv := Shared(t)
	// The gateway renders the GGUF's Jinja template itself; this is the
	// rendered Qwen3 prompt, ending in the generation prompt.
	prompt := "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"
	status, body := call(t, srv, "/api/generate", map[string]any{
		"model":   srv.NoTemplate,
		"prompt":  prompt,
		"raw":     true,
		"stream":  false,
		"options": map[string]any{"num_predict": 64, "temperature": 0},
	})
	if status != http.StatusOK {
		t.Fatalf("/api/generate raw: %d %s", status, body)
	}
	var resp struct {
		Response string `json:"response"`
		Done     bool   `json:"done"`
	}
	decode(t, body, &resp)
	t.Logf("/api/generate raw: %s", body)
	if resp.Response == "" {
		t.Fatalf("empty response: %s", body)
	}
	if !strings.Contains(resp.Response, `"get_weather"`) {
		t.Errorf("the toolcall model's scripted answer is missing from %q", resp.Response)
	}
}

func TestShowTemplate(t *testing.T) {
	srv := Shared(t)
	for _, tc := range []struct {
		model     string
		wantTools bool
	}{{srv.ToolCall, true}, {srv.NoTemplate, false}} {
		status, body := call(t, srv, "/api/show", map[string]any{"model": tc.model})
		if status != http.StatusOK {
			t.Fatalf("/api/show %s: %d %s", tc.model, status, body)
		}
		var resp struct {
			Template     string   `json:"template"`
			Capabilities []string `json:"capabilities"`
		}
		decode(t, body, &resp)
		t.Logf("/api/show %s: capabilities %v, template %d bytes", tc.model, resp.Capabilities, len(resp.Template))
		hasTools := false
		for _, c := range resp.Capabilities {
			hasTools = hasTools || c == "tools"
		}
		if hasTools != tc.wantTools {
			t.Errorf("%s: capabilities %v, want tools=%v", tc.model, resp.Capabilities, tc.wantTools)
		}
		if tc.wantTools && !strings.Contains(resp.Template, "<tool_call>") {
			t.Errorf("%s: template lacks <tool_call>: %q", tc.model, resp.Template)
		}
	}
}
