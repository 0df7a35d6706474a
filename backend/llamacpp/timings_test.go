package llamacpp

import (
	"context"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
)

// The last chunk carries the engine's timings: the prompt's tokens decoded
// and those kept from the previous request (which together are the whole
// prompt), the decoding time, the answer's tokens and generation time.
func TestTimings(t *testing.T) {
	e := tiny(t)
	s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Temperature: f64(0)})
	if err != nil {
		t.Fatal(err)
	}
	_, last := collect(t, s)
	tm := last.Timings
	if tm == nil || tm.PromptTokens+tm.CachedTokens != 15 || tm.PromptTokens < 1 || tm.PromptMS <= 0 || tm.GeneratedTokens != last.Usage.CompletionTokens || tm.GenerateMS <= 0 {
		t.Fatalf("timings %+v (usage %+v)", tm, last.Usage)
	}
	t.Logf("%+v", *tm)
}
