package e2e

// The real npm clients agent builders use, driving the real binary over the
// embedded engine with the scripted model (which always calls get_weather):
// the ollama client against the Ollama-compatible front, the openai client
// against the Responses API. The clients come from $DRAGOMAN_NPM_CLIENTS
// (.ci/npmclients.sh); without it the tests skip, or fail under CI=true.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const envNPMClients = "DRAGOMAN_NPM_CLIENTS"

// runNodeClient runs testdata/npm/SCRIPT with node against base and
// decodes the JSON it prints.
func runNodeClient(t *testing.T, script, base, model string) map[string]any {
	t.Helper()
	clients := os.Getenv(envNPMClients)
	if clients == "" {
		msg := envNPMClients + " is unset: run .ci/npmclients.sh (npm install of the pinned clients) and set it to the directory it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node: ", err)
	}
	// The script runs from a folder whose node_modules is the clients', so
	// that its imports resolve to the pinned packages.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "npm", script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, script), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(clients, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BASE_URL="+base, "MODEL="+model)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node %s: %v\n%s%s", script, err, out, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("node %s printed %q: %v", script, out, err)
	}
	return v
}

func TestOllamaNPMClient(t *testing.T) {
	base, model := startEmbedded(t)
	v := runNodeClient(t, "ollama-chat.mjs", base, model)
	call := path(v, "whole", "message", "tool_calls", 0, "function")
	if path(call, "name") != "get_weather" || path(call, "arguments", "city") != "Paris" {
		t.Errorf("chat: %v", path(v, "whole", "message"))
	}
	if c := path(v, "streamedCalls", 0, "function"); path(c, "name") != "get_weather" || path(c, "arguments", "city") != "Paris" {
		t.Errorf("streamed chat: calls %v", path(v, "streamedCalls"))
	}
	if path(v, "done", "done") != true || path(v, "done", "eval_count") == 0.0 {
		t.Errorf("last part %v", path(v, "done"))
	}
	if path(v, "models", 0) != model || path(v, "version") == "" {
		t.Errorf("list %v, version %v", path(v, "models"), path(v, "version"))
	}
}

func TestOpenAINPMClientResponses(t *testing.T) {
	base, model := startEmbedded(t)
	v := runNodeClient(t, "openai-responses.mjs", base, model)
	for _, which := range []string{"created", "streamed"} {
		var calls []any
		out, _ := path(v, which, "output").([]any)
		for _, it := range out {
			if path(it, "type") == "function_call" {
				calls = append(calls, it)
			}
		}
		if len(calls) != 1 || path(calls[0], "name") != "get_weather" || !strings.Contains(str(calls[0], "arguments"), "Paris") {
			t.Errorf("%s: output %v", which, out)
		}
		if path(v, which, "status") != "completed" {
			t.Errorf("%s: status %v", which, path(v, which, "status"))
		}
	}
	types, _ := path(v, "types").([]any)
	if len(types) < 4 || types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Errorf("streamed events %v", types)
	}
	chained := str(v, "chained", "id")
	trace := getJSON(t, base+"/v1/dragoman/requests/"+chained)
	if !strings.Contains(str(trace, "prompt"), "18C and sunny") || path(v, "chained", "previous_response_id") != str(v, "created", "id") {
		t.Errorf("chained turn: prompt %q, previous %v", str(trace, "prompt"), path(v, "chained", "previous_response_id"))
	}
}

// path walks a decoded JSON value: keys for objects, ints for arrays.
func path(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}
