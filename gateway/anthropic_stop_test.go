package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// stopAt is a last chunk whose runtime says a stop string ended the answer.
func stopAt(seq string) backend.Chunk {
	c := stop()
	c.StopSequence, c.StopReported = seq, true
	return c
}

const stopBody = `{"model": "qwen", "max_tokens": 100, "stop_sequences": ["END", "STOP"], "messages": [{"role": "user", "content": "Count"}]`

// traceOf fetches a request's trace.
func traceOf(t *testing.T, ts interface{ Client() *http.Client }, base, id string) trace.Record {
	t.Helper()
	resp, err := ts.Client().Get(base + "/v1/dragoman/requests/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rec trace.Record
	if err := json.NewDecoder(resp.Body).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func decided(rec trace.Record, part string) bool {
	for _, d := range rec.Decisions {
		if strings.Contains(d, part) {
			return true
		}
	}
	return false
}

// A stop sequence the runtime names ends the Message with stop_reason
// "stop_sequence" and the sequence, streamed or not.
func TestAnthropicStopSequence(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "1 2 3 "}, stopAt("STOP")))
	m := messageOK(t, ts, stopBody+`}`)
	if m["stop_reason"] != "stop_sequence" || m["stop_sequence"] != "STOP" {
		t.Errorf("stop_reason %v, stop_sequence %v", m["stop_reason"], m["stop_sequence"])
	}
	if rec := traceOf(t, ts, ts.URL, m["id"].(string)); !decided(rec, `stop sequence "STOP" ended the answer`) {
		t.Errorf("trace decisions %q", rec.Decisions)
	}

	resp, data := postMessages(t, ts, stopBody+`, "stream": true}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	evs := readSSE(t, data)
	md := evs[len(evs)-2].data
	jsonEq(t, "message_delta.delta", md["delta"], `{"stop_reason": "stop_sequence", "stop_sequence": "STOP"}`)

	// The SDK reads both.
	client := sdkClient(ts)
	msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "qwen", MaxTokens: 100, StopSequences: []string{"END", "STOP"},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Count"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != anthropic.StopReasonStopSequence || msg.StopSequence != "STOP" {
		t.Errorf("SDK: stop_reason %q, stop_sequence %q", msg.StopReason, msg.StopSequence)
	}
}

// Where the runtime does not say what ended the answer (Ollama reports
// "stop" either way), or says it was no stop string, or names a string the
// request did not ask for, the answer ends as end_turn; the trace says which.
func TestAnthropicStopSequenceNotKnown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		last     backend.Chunk
		decision string
	}{
		{"not reported", stop(), "does not say whether a stop sequence ended the answer: unknown"},
		{"no stop string", stopAt(""), "no stop sequence ended the answer"},
		{"not asked for", stopAt("<|im_end|>"), `stopped at "<|im_end|>", which is not one of the request's stop sequences`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "1 2 3"}, tc.last))
			m := messageOK(t, ts, stopBody+`}`)
			if m["stop_reason"] != "end_turn" || m["stop_sequence"] != nil {
				t.Errorf("stop_reason %v, stop_sequence %v", m["stop_reason"], m["stop_sequence"])
			}
			if rec := traceOf(t, ts, ts.URL, m["id"].(string)); !decided(rec, tc.decision) {
				t.Errorf("trace decisions %q, want one with %q", rec.Decisions, tc.decision)
			}
			_, data := postMessages(t, ts, stopBody+`, "stream": true}`)
			evs := readSSE(t, data)
			jsonEq(t, "message_delta.delta", evs[len(evs)-2].data["delta"], `{"stop_reason": "end_turn", "stop_sequence": null}`)
		})
	}
}

// A named stop sequence never turns a length cut or a call into a stop.
func TestAnthropicStopSequenceOnlyOnStop(t *testing.T) {
	cut := stopAt("END")
	cut.FinishReason = chat.FinishLength
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "1 2 3"}, cut))
	if m := messageOK(t, ts, stopBody+`}`); m["stop_reason"] != "max_tokens" || m["stop_sequence"] != nil {
		t.Errorf("length: stop_reason %v, stop_sequence %v", m["stop_reason"], m["stop_sequence"])
	}
	ts = newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: parisCall}, stopAt("END")))
	body := `{"model": "qwen", "max_tokens": 100, "stop_sequences": ["END"], "tools": [` + weatherTool + `], "messages": [{"role": "user", "content": "Weather?"}]}`
	if m := messageOK(t, ts, body); m["stop_reason"] != "tool_use" || m["stop_sequence"] != nil {
		t.Errorf("call: stop_reason %v, stop_sequence %v", m["stop_reason"], m["stop_sequence"])
	}
}
