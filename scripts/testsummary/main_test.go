package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const stream = `{"Action":"run","Package":"x/dragoman/a","Test":"TestOK"}
{"Action":"pass","Package":"x/dragoman/a","Test":"TestOK","Elapsed":0.5}
{"Action":"run","Package":"x/dragoman/a","Test":"TestSkip"}
{"Action":"output","Package":"x/dragoman/a","Test":"TestSkip","Output":"=== RUN   TestSkip\n"}
{"Action":"output","Package":"x/dragoman/a","Test":"TestSkip","Output":"    a_test.go:9: DRAGOMAN_OLLAMA is unset: run .ci/ollama.sh\n"}
{"Action":"output","Package":"x/dragoman/a","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Action":"skip","Package":"x/dragoman/a","Test":"TestSkip","Elapsed":0}
{"Action":"run","Package":"x/dragoman/a","Test":"TestBad"}
{"Action":"output","Package":"x/dragoman/a","Test":"TestBad","Output":"    a_test.go:12: got 1, want 2\n"}
{"Action":"fail","Package":"x/dragoman/a","Test":"TestBad","Elapsed":2.25}
{"Action":"fail","Package":"x/dragoman/a","Elapsed":3}
# a build error line
`

func TestSummary(t *testing.T) {
	var out bytes.Buffer
	skips := filepath.Join(t.TempDir(), "skips")
	if summarize(strings.NewReader(stream), &out, "default", 10, skips) {
		t.Error("a failed run summarized as passing")
	}
	got := out.String()
	for _, want := range []string{
		"--- FAIL: TestBad (x/dragoman/a)\n    a_test.go:12: got 1, want 2",
		"FAIL x/dragoman/a",
		"     2.2s  a TestBad\n      0.5s  a TestOK",
		"a TestSkip: a_test.go:9: DRAGOMAN_OLLAMA is unset: run .ci/ollama.sh",
		"# a build error line",
		"\ndefault: 1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	data, err := os.ReadFile(skips)
	if err != nil || !strings.HasPrefix(string(data), "default\ta TestSkip: a_test.go:9") {
		t.Errorf("skips file %q, %v", data, err)
	}
}
