package backend

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
)

// sseBody writes each delta as a chat chunk, then the given tail.
func sseBody(deltas []string, tail string) string {
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(`data: {"choices":[{"index":0,"delta":` + d + "}]}\n\n")
	}
	return b.String() + tail
}

const finishCalls = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"

// TestCallAssembly covers the ways runtimes fragment calls. Each case says
// what the calls must be once whole.
func TestCallAssembly(t *testing.T) {
	type call struct{ id, name, args string } // id "gen" = a generated id
	cases := []struct {
		name   string
		deltas []string
		tail   string
		want   []call
		finish chat.FinishReason
	}{
		{"fragments without id or index", []string{
			`{"tool_calls":[{"function":{"name":"get_weather","arguments":"{\"ci"}}]}`,
			`{"tool_calls":[{"function":{"arguments":"ty\":"}}]}`,
			`{"tool_calls":[{"function":{"arguments":"\"Paris\"}"}}]}`,
		}, finishCalls, []call{{"gen", "get_weather", `{"city":"Paris"}`}}, chat.FinishToolCalls},
		{"two calls interleaved by index", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}`,
			`{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}]}`,
			`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`,
			`{"tool_calls":[{"index":1,"function":{"arguments":"2}"}}]}`,
		}, finishCalls, []call{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}, chat.FinishToolCalls},
		{"no index, a new id starts a new call", []string{
			`{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}`,
			`{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{\"k\""}}]}`,
			`{"tool_calls":[{"function":{"arguments":":true}"}}]}`,
		}, finishCalls, []call{{"a", "f", `{}`}, {"b", "g", `{"k":true}`}}, chat.FinishToolCalls},
		{"same index, different id (index reused per call)", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`,
			`{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{}"}}]}`,
		}, finishCalls, []call{{"a", "f", `{}`}, {"b", "g", `{}`}}, chat.FinishToolCalls},
		{"whole calls in one delta without index or id", []string{
			`{"tool_calls":[{"function":{"name":"f","arguments":"{}"}},{"function":{"name":"g","arguments":"{}"}}]}`,
		}, finishCalls, []call{{"gen", "f", `{}`}, {"gen", "g", `{}`}}, chat.FinishToolCalls},
		{"name repeated in every fragment", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}`,
			`{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1}"}}]}`,
		}, finishCalls, []call{{"a", "f", `{"x":1}`}}, chat.FinishToolCalls},
		{"arguments as an object keep their key order", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"z":1, "a":[2, 3]}}}]}`,
		}, finishCalls, []call{{"a", "f", `{"z":1,"a":[2,3]}`}}, chat.FinishToolCalls},
		{"no arguments at all", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}`,
		}, finishCalls, []call{{"a", "f", `{}`}}, chat.FinishToolCalls},
		{"invalid JSON arguments are kept as text", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\": 1,"}}]}`,
		}, finishCalls, []call{{"a", "f", `{"x": 1,`}}, chat.FinishToolCalls},
		{"finish stop with calls becomes tool_calls", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`,
		}, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			[]call{{"a", "f", `{}`}}, chat.FinishToolCalls},
		{"finish without [DONE]", []string{
			`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`,
		}, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
			[]call{{"a", "f", `{}`}}, chat.FinishToolCalls},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fixedServer(t, 200, "text/event-stream", sseBody(c.deltas, c.tail))
			got := expectAnswer(t)(NewOpenAI(LlamaServer, srv.URL, "", nil).Chat(context.Background(), weatherRequest("m")))
			if got.callChunks != 1 {
				t.Errorf("calls came in %d chunks, want all in the last", got.callChunks)
			}
			if len(got.calls) != len(c.want) {
				t.Fatalf("calls = %+v, want %+v", got.calls, c.want)
			}
			for i, w := range c.want {
				g := got.calls[i]
				idOK := g.ID == w.id || (w.id == "gen" && isGeneratedID(g.ID))
				if !idOK || g.Function.Name != w.name || g.Function.Arguments != w.args || g.Type != "function" {
					t.Errorf("call %d = %+v, want %+v", i, g, w)
				}
			}
			if got.finish != c.finish {
				t.Errorf("finish = %q, want %q", got.finish, c.finish)
			}
		})
	}
}

// TestCutStreamHandsOutCalls: a stream cut after a call's fragments gives
// the call (no finish reason), then io.ErrUnexpectedEOF.
func TestCutStreamHandsOutCalls(t *testing.T) {
	body := sseBody([]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}`}, "")
	srv := fixedServer(t, 200, "text/event-stream", body)
	s, err := NewOpenAI(VLLM, srv.URL, "", nil).Chat(context.Background(), weatherRequest("m"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, s)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != 1 || len(chunks[0].Calls) != 1 || chunks[0].Calls[0].Function.Arguments != `{"x":` || chunks[0].FinishReason != "" {
		t.Errorf("chunks = %+v", chunks)
	}
}

// TestDroppedConnectionHandsOutCalls: the connection is aborted (a read
// error, not a clean end of the body) after a call's first fragments: the
// call comes out as it was, then the error.
func TestDroppedConnectionHandsOutCalls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseBody([]string{`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}`}, ""))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	s, err := NewOpenAI(VLLM, srv.URL, "", nil).Chat(context.Background(), weatherRequest("m"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := drain(t, s)
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want the read error", err)
	}
	if len(chunks) != 1 || len(chunks[0].Calls) != 1 || chunks[0].Calls[0].Function.Arguments != `{"x":` {
		t.Errorf("chunks = %+v", chunks)
	}
}

// TestUsageAfterFinish: with stream_options.include_usage the usage comes in
// its own chunk (choices: []) after the finish reason; the last chunk has both.
func TestUsageAfterFinish(t *testing.T) {
	body := sseBody([]string{`{"role":"assistant","content":"hi"}`}, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"+
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1,\"total_tokens\":8}}\n\ndata: [DONE]\n\n")
	srv := fixedServer(t, 200, "text/event-stream", body)
	got := expectAnswer(t)(NewOpenAI(SGLang, srv.URL, "", nil).Chat(context.Background(), weatherRequest("m")))
	if got.text != "hi" || got.finish != chat.FinishLength || got.usage == nil || *got.usage != (chat.Usage{PromptTokens: 7, CompletionTokens: 1}) {
		t.Errorf("got %+v usage %+v", got, got.usage)
	}
}
