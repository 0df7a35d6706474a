package chat

import (
	"reflect"
	"testing"
)

func TestResponseCollectsInOrder(t *testing.T) {
	var r Response
	for _, d := range []Delta{
		{Kind: DeltaReasoning, Text: "think "},
		{Kind: DeltaReasoning, Text: "more"},
		{Kind: DeltaContent, Text: "Checking."},
		{Kind: DeltaContent, Text: ""},
		{Kind: DeltaCall, Index: 0, Call: &ToolCall{ID: "a", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}},
		{Kind: DeltaCallStart, Index: 1, ID: "b", Name: "g"},
		{Kind: DeltaCallArgs, Index: 1, Text: `{"x":`},
		{Kind: DeltaCallArgs, Index: 1, Text: `1}`},
		{Kind: DeltaCallEnd, Index: 1},
		{Kind: DeltaContent, Text: " Done"},
		{Kind: DeltaContent, Text: "."},
		{Kind: DeltaFinish, Finish: &Finish{Reason: FinishToolCalls, Usage: Usage{PromptTokens: 3}}},
	} {
		r.Add(d)
	}
	want := []Output{
		{Kind: DeltaReasoning, Text: "think more"},
		{Kind: DeltaContent, Text: "Checking."},
		{Kind: DeltaCall, Call: ToolCall{ID: "a", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}},
		{Kind: DeltaCall, Call: ToolCall{ID: "b", Type: "function", Function: FunctionCall{Name: "g", Arguments: `{"x":1}`}}},
		{Kind: DeltaContent, Text: " Done."},
	}
	if got := r.Output(); !reflect.DeepEqual(got, want) {
		t.Fatalf("output\n got %+v\nwant %+v", got, want)
	}
	m := r.Message()
	if m.Role != RoleAssistant || m.Content != "Checking. Done." || m.Reasoning != "think more" || len(m.ToolCalls) != 2 {
		t.Fatalf("message %+v", m)
	}
	if r.Finish == nil || r.Finish.Reason != FinishToolCalls || r.Finish.Usage.PromptTokens != 3 {
		t.Fatalf("finish %+v", r.Finish)
	}
}

// A call withdrawn after it was announced is not in the answer; one ended
// with its assembled form (the gateway's) takes that form over the
// fragments.
func TestResponseWithdrawnAndAssembledCalls(t *testing.T) {
	var r Response
	assembled := &ToolCall{ID: "c", Type: "function", Function: FunctionCall{Name: "h", Arguments: `{"y":2}`}}
	for _, d := range []Delta{
		{Kind: DeltaCallStart, Index: 0, ID: "a", Name: "f"},
		{Kind: DeltaCallStart, Index: 1, ID: "c", Name: "h"},
		{Kind: DeltaCallArgs, Index: 0, Text: `{"x"`},
		{Kind: DeltaCallWithdrawn, Index: 0},
		{Kind: DeltaContent, Text: `<call>{"x"</call>`},
		{Kind: DeltaCallArgs, Index: 1, Text: `{"y":`},
		{Kind: DeltaCallEnd, Index: 1, Call: assembled},
		{Kind: DeltaCallEnd, Index: 7}, // not announced: ignored
	} {
		r.Add(d)
	}
	want := []Output{
		{Kind: DeltaCall, Call: *assembled},
		{Kind: DeltaContent, Text: `<call>{"x"</call>`},
	}
	if got := r.Output(); !reflect.DeepEqual(got, want) {
		t.Fatalf("output\n got %+v\nwant %+v", got, want)
	}
	if r.Finish != nil {
		t.Fatalf("a broken-off answer has no finish: %+v", r.Finish)
	}
}
