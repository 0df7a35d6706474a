package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
	"github.com/dragoman-dev/dragoman/internal/ollamatest"
	"github.com/dragoman-dev/dragoman/template"
)

// dragoman diff against a real Ollama: the same side twice is "same"; own
// mode against relay mode gives the same call, but Ollama's prompt, which it
// does not show, has another length by its own count ("prompt differs"); and
// a planted template difference on one side is found, with the planted line
// in the diff.
func TestDiffOnOllama(t *testing.T) {
	srv := ollamatest.Shared(t)
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	if err := os.WriteFile(req, []byte(`{"messages": [{"role": "user", "content": "What's the weather in Paris?"}],
		"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
		"properties": {"city": {"type": "string"}}, "required": ["city"]}}}], "max_tokens": 64, "temperature": 0, "seed": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := template.Find(filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "planted.jinja")
	if err := os.WriteFile(planted, []byte("Planted line.\n"+src.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	side := func(mode string) string { return "ollama=" + srv.URL + "#" + srv.ToolCall + "@" + mode }
	run := func(args ...string) (string, int) {
		cmd := exec.Command(dragomanBinary(t), append([]string{"diff", "--request", req}, args...)...)
		cmd.Env = append(os.Environ(), "OLLAMA_MODELS="+filepath.Join(srv.Dir, "models"))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String() + errb.String(), code
	}

	// Own against relay: the same call, but Ollama renders its own Go TEMPLATE
	// (../shared/models/ollama-qwen-tools.tmpl, a port of the model's Jinja
	// template), whose prompt is shorter by Ollama's own count.
	out, code := run(side("own"), side("relay"))
	if code != 1 || !strings.Contains(out, "verdict: prompt differs") || !strings.Contains(out, "== prompt_tokens: differs") ||
		!strings.Contains(out, "== tool_calls: same") {
		t.Errorf("own vs relay: exit %d\n%s", code, out)
	}
	t.Logf("own vs relay:\n%s", out)

	out, code = run("--template-b", planted, side("own"), side("own"))
	if code != 1 || !strings.Contains(out, "verdict: prompt differs") || !strings.Contains(out, "+Planted line.") {
		t.Errorf("planted template: exit %d\n%s", code, out)
	}

	out, code = run("--json", side("own"), side("own"))
	var rep struct {
		Verdict string            `json:"verdict"`
		Fields  map[string]string `json:"fields"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Verdict != "same" || rep.Fields["prompt"] != "same" {
		t.Errorf("own vs own: exit %d, %+v (%v)\n%s", code, rep, err, out)
	}
}
