package gateway

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
)

// A tool_result with is_error: true is a tool message marked IsError whose
// text says so, since templates have no field for the flag.
func TestAnthropicDecodeToolResultError(t *testing.T) {
	req, _, err := decodeAnthropic([]byte(`{"model": "m", "max_tokens": 1, "messages": [
		{"role": "assistant", "content": [
			{"type": "tool_use", "id": "a", "name": "f", "input": {}},
			{"type": "tool_use", "id": "b", "name": "g", "input": {}},
			{"type": "tool_use", "id": "c", "name": "h", "input": {}},
			{"type": "tool_use", "id": "d", "name": "k", "input": {}}]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "a", "content": "city not found", "is_error": true},
			{"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "ERROR 503: try later"}], "is_error": true},
			{"type": "tool_result", "tool_use_id": "c", "is_error": true},
			{"type": "tool_result", "tool_use_id": "d", "content": "fine", "is_error": false}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{
		{Role: "tool", ToolCallID: "a", Name: "f", Content: "Error: city not found", IsError: true},
		{Role: "tool", ToolCallID: "b", Name: "g", Content: "ERROR 503: try later", IsError: true},
		{Role: "tool", ToolCallID: "c", Name: "h", Content: "Error", IsError: true},
		{Role: "tool", ToolCallID: "d", Name: "k", Content: "fine"},
	}
	if got := req.Messages[1:]; !reflect.DeepEqual(got, want) {
		t.Errorf("tool messages %+v\nwant %+v", got, want)
	}
}

// The model sees the failure: in own mode in the rendered prompt, in relay
// mode in the message the runtime's chat API gets.
func TestAnthropicToolResultErrorReachesModel(t *testing.T) {
	params := sdkParams()
	params.Messages = append(params.Messages,
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_1", map[string]any{"city": "Paris"}, "get_weather")),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_1", "weather service unavailable (HTTP 503)", true)))

	f := qwenRuntime(backend.Chunk{Text: "Sorry."}, stop())
	client := sdkClient(newFakeGateway(t, Config{}, f))
	if _, err := client.Messages.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if p := promptOf(t, f); !strings.Contains(p, "<tool_response>\nError: weather service unavailable (HTTP 503)\n</tool_response>") {
		t.Errorf("prompt:\n%s", p)
	}

	relay := qwenRuntime(backend.Chunk{Text: "Sorry."}, stop())
	relay.canComplete = false
	client = sdkClient(newFakeGateway(t, Config{}, relay))
	if _, err := client.Messages.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	relay.mu.Lock()
	defer relay.mu.Unlock()
	msgs := relay.chats[0].Messages
	if last := msgs[len(msgs)-1]; !last.IsError || last.Content != "Error: weather service unavailable (HTTP 503)" {
		t.Errorf("relayed tool message %+v", last)
	}
}
