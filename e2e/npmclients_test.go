package e2e

// The real npm clients agent builders use, driving the real binary over the
// embedded engine with the scripted model (which always calls get_weather):
// the ollama client against the Ollama-compatible front, the openai client
// against the Responses API, the AI SDK (its default OpenAI provider and
// @ai-sdk/openai-compatible), and the OpenAI Agents SDK's default model. The clients come from $DRAGOMAN_NPM_CLIENTS
// (.ci/npmclients.sh); without it the tests skip, or fail under CI=true.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const envNPMClients = "DRAGOMAN_NPM_CLIENTS"

// runNodeClient runs testdata/npm/SCRIPT with node against base and
// decodes the JSON it prints.
func runNodeClient(t *testing.T, script, base, model string) map[string]any {
	t.Helper()
	clients := requireEnv(t, envNPMClients, "run .ci/npmclients.sh (npm install of the pinned clients)")
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

// The ollama client's load and unload requests (its README's: a generate
// with no prompt, keep_alive 0) reach the embedded engine: the model is
// loaded with the keep-alive asked (expires_at an hour on), then gone from
// /api/ps; a chat's keep_alive 0 unloads it once answered; -1 keeps it for
// ever.
func TestOllamaNPMClientLoadUnload(t *testing.T) {
	base, model := startEmbedded(t)
	before := time.Now()
	v := runNodeClient(t, "ollama-lifecycle.mjs", base, model)
	if path(v, "load", "done_reason") != "load" || path(v, "unload", "done_reason") != "unload" || path(v, "chatLoad", "done_reason") != "load" {
		t.Errorf("answers: load %v, unload %v, chat load %v", path(v, "load"), path(v, "unload"), path(v, "chatLoad"))
	}
	ps, _ := v["psLoaded"].([]any)
	at, _ := time.Parse(time.RFC3339, str(path(v, "psLoaded", 0, "expires_at")))
	if len(ps) != 1 || path(ps[0], "name") != model || at.Before(before.Add(59*time.Minute)) || at.After(time.Now().Add(61*time.Minute)) {
		t.Errorf("/api/ps after the load with 1h: %v", ps)
	}
	for _, after := range []string{"psUnloaded", "psAfterAnswer"} {
		if ps, _ := v[after].([]any); len(ps) != 0 {
			t.Errorf("%s: %v, want the model gone", after, ps)
		}
	}
	if path(v, "answer", "done") != true || path(v, "answer", "eval_count") == 0.0 {
		t.Errorf("the answer with keep_alive 0: %v", path(v, "answer"))
	}
	// For ever is, as in Ollama's /api/ps, an expiry centuries away.
	forever, _ := time.Parse(time.RFC3339, str(path(v, "psForever", 0, "expires_at")))
	if ps, _ := v["psForever"].([]any); len(ps) != 1 || forever.Before(time.Now().AddDate(100, 0, 0)) {
		t.Errorf("/api/ps after keep_alive -1: %v, want loaded for ever", ps)
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

// The AI SDK's default OpenAI provider (the Responses API), streamed and
// not, and @ai-sdk/openai-compatible (Chat Completions, a two-part user
// message) each get the scripted model's call back parsed.
func TestAISDKClients(t *testing.T) {
	base, model := startEmbedded(t)
	v := runNodeClient(t, "ai-sdk.mjs", base, model)
	for _, which := range []string{"responses", "streamed", "chat"} {
		if path(v, which, "calls", 0, "name") != "get_weather" || path(v, which, "calls", 0, "input", "city") != "Paris" {
			t.Errorf("%s: %v", which, path(v, which))
		}
	}
	if path(v, "responses", "finish") != "tool-calls" || path(v, "chat", "finish") != "tool-calls" {
		t.Errorf("finish reasons %v, %v", path(v, "responses", "finish"), path(v, "chat", "finish"))
	}
	// Which API each used, from the traces; the two parts reached the prompt.
	if tr := getJSON(t, base+"/v1/dragoman/requests/"+str(v, "responses", "id")); tr["api"] != "responses" {
		t.Errorf("openai(model) used %v", tr["api"])
	}
	tr := getJSON(t, base+"/v1/dragoman/requests/"+str(v, "chat", "id"))
	if tr["api"] != "openai" || !strings.Contains(str(tr, "prompt"), "What's the weather\nin Paris?") {
		t.Errorf("openai-compatible: api %v, prompt %q", tr["api"], str(tr, "prompt"))
	}
}

// The OpenAI Agents SDK's default model (the Responses API) runs the tool the
// scripted model calls and sends its result back: the next prompt holds it.
func TestAgentsSDKToolRound(t *testing.T) {
	base, model := startEmbedded(t)
	v := runNodeClient(t, "agents.mjs", base, model)
	if path(v, "cities", 0) != "Paris" || path(v, "error") != "MaxTurnsExceededError" {
		t.Errorf("run: %v", v)
	}
	list, _ := getJSON(t, base+"/v1/dragoman/requests")["requests"].([]any)
	found := false
	for _, r := range list {
		tr := getJSON(t, base+"/v1/dragoman/requests/"+str(r, "id"))
		if tr["api"] == "responses" && strings.Contains(str(tr, "prompt"), "18C and sunny in Paris") {
			found = true
		}
	}
	if !found {
		t.Errorf("no Responses request carried the tool's result (%d requests)", len(list))
	}
}
