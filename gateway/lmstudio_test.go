package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LM Studio cannot run here (a desktop application): these tests stand a
// server in its place that answers as LM Studio's documentation says it does
// (lmstudio.ai/docs, "Tool use": a call LM Studio cannot parse is returned in
// choices[0].message.content, and models without native tool use are
// prompted with its [TOOL_REQUEST] protocol), through the gateway's real
// LM Studio backend over HTTP.

// lmstudioServer streams content as LM Studio's /v1/chat/completions does,
// in the chunks given, and answers the model listings.
func lmstudioServer(t *testing.T, chunks ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models", "/api/v0/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"gemma-2-2b-it","object":"model","type":"llm","max_context_length":8192}]}`)
		case "/api/v0/models/gemma-2-2b-it":
			io.WriteString(w, `{"id":"gemma-2-2b-it","object":"model","type":"llm","max_context_length":8192}`)
		case "/v1/chat/completions":
			var req struct {
				Stream bool `json:"stream"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			if !req.Stream {
				b, _ := json.Marshal(strings.Join(chunks, ""))
				fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"gemma-2-2b-it","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],"usage":{"prompt_tokens":263,"completion_tokens":34,"total_tokens":297}}`, b)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for _, c := range chunks {
				b, _ := json.Marshal(c)
				fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"gemma-2-2b-it\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", b)
			}
			io.WriteString(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"gemma-2-2b-it\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const deliveryTools = `[{"type":"function","function":{"name":"get_delivery_date","description":"Get the delivery date for a customer's order",
	"parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}}]`

// The documented exchange: a model without native tool use answers in LM
// Studio's protocol, split across stream chunks, and LM Studio leaves it in
// the content. The client gets the call, streamed and not.
func TestLMStudioToolRequestInContent(t *testing.T) {
	up := lmstudioServer(t, "[TOOL_", "REQUEST]{\"name\": \"get_delivery_date\", ", "\"arguments\": {\"order_id\": \"123\"}}[END_TOOL", "_REQUEST]")
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: up.URL, Kind: "lmstudio"}}}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	body := `{"model":"gemma-2-2b-it","messages":[{"role":"user","content":"Get me delivery date for order 123"}],"tools":` + deliveryTools
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			resp := post(t, ts.URL+"/v1/chat/completions", body+fmt.Sprintf(`,"stream":%v}`, stream))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			name, args, content, finish := openAIAnswer(t, resp, stream)
			if name != "get_delivery_date" || args != `{"order_id": "123"}` || content != "" || finish != "tool_calls" {
				t.Errorf("call %s(%s), content %q, finish %q", name, args, content, finish)
			}
		})
	}
}

// With the model's family known (here from a template file for it), relay
// mode reads both protocols: a call in the model's own markup that LM Studio
// did not parse, and one in LM Studio's.
func TestLMStudioBothProtocols(t *testing.T) {
	up := lmstudioServer(t,
		"[TOOL_REQUEST]{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}[END_TOOL_REQUEST]\n",
		weatherCall)
	tpl := filepath.Join(t.TempDir(), "qwen.jinja")
	if err := os.WriteFile(tpl, []byte(qwenTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{NoDiscover: true, Upstreams: []Upstream{{URL: up.URL, Kind: "lmstudio", Mode: "relay",
		Templates: map[string]string{"gemma-2-2b-it": tpl}}}}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptestServer(t, s)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"gemma-2-2b-it","messages":[{"role":"user","content":"Weather in Paris, twice"}],"tools":`+weatherTools+`}`)
	v := decodeBody(t, resp)
	calls, _ := path(v, "choices", 0, "message", "tool_calls").([]any)
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2: %v", len(calls), v)
	}
	for i, c := range calls {
		if name := path(c, "function", "name"); name != "get_weather" {
			t.Errorf("call %d is %v", i, name)
		}
	}
	if content := path(v, "choices", 0, "message", "content"); content != nil && content != "" {
		t.Errorf("content %q, want none (the whitespace between the calls is layout)", content)
	}
}

// openAIAnswer reads the first call, the content and the finish reason of a
// Chat Completions answer, streamed or not.
func openAIAnswer(t *testing.T, resp *http.Response, stream bool) (name, args, content, finish string) {
	t.Helper()
	if !stream {
		v := decodeBody(t, resp)
		name, _ = path(v, "choices", 0, "message", "tool_calls", 0, "function", "name").(string)
		args, _ = path(v, "choices", 0, "message", "tool_calls", 0, "function", "arguments").(string)
		content, _ = path(v, "choices", 0, "message", "content").(string)
		finish, _ = path(v, "choices", 0, "finish_reason").(string)
		return
	}
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if s, ok := path(v, "choices", 0, "delta", "tool_calls", 0, "function", "name").(string); ok {
			name += s
		}
		if s, ok := path(v, "choices", 0, "delta", "tool_calls", 0, "function", "arguments").(string); ok {
			args += s
		}
		if s, ok := path(v, "choices", 0, "delta", "content").(string); ok {
			content += s
		}
		if s, ok := path(v, "choices", 0, "finish_reason").(string); ok {
			finish = s
		}
	}
	return
}
