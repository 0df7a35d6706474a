package trace

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSetUpstream(t *testing.T) {
	var tm Timings
	tm.SetUpstream(15, 300, 2.5, 16, 20)
	if tm.UpstreamPromptMS != 2.5 || tm.UpstreamPromptTokensPerS != 6000 || tm.UpstreamGenerateMS != 20 || tm.UpstreamGenerateTokensPerS != 800 ||
		tm.UpstreamCachedTokens != 300 {
		t.Fatalf("%+v", tm)
	}
	// Unknown durations give no rate; without upstream timings the JSON
	// has none of the fields.
	tm.SetUpstream(15, 0, 0, 0, 20)
	if tm.UpstreamPromptTokensPerS != 0 || tm.UpstreamGenerateTokensPerS != 0 {
		t.Fatalf("%+v", tm)
	}
	b, _ := json.Marshal(Timings{TotalMS: 1})
	if strings.Contains(string(b), "upstream") {
		t.Fatal(string(b))
	}
}
