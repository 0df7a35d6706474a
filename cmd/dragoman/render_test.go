package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// binary builds the dragoman command once into a temporary folder.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dragoman-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "dragoman")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

func TestMain(m *testing.M) {
	// Every dragoman these tests start keeps its traces in a state folder
	// of this run's, never the user's: $XDG_STATE_HOME wins over $HOME in
	// trace.DefaultPath, and the children inherit it (os.Environ()).
	state, err := os.MkdirTemp("", "dragoman-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.RemoveAll(state)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	status         int
}

// dragoman runs the binary with args, stdin and extra environment.
func dragoman(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), status}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const chatTemplate = `{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}` +
	`{% if add_generation_prompt %}<|assistant|>{% endif %}` + "\n"

const chatRequest = `{"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": true,
	"bos_token": "<s>", "eos_token": "</s>", "template": "IGNORED"}`

func TestRenderStdout(t *testing.T) {
	dir := t.TempDir()
	tmpl := write(t, dir, "chat.jinja", chatTemplate)
	want := "<s><|user|>hi</s><|assistant|>" // the template's final newline is dropped, as Jinja does

	r := dragoman(t, chatRequest, nil, "render", "--template", tmpl)
	if r.status != 0 || r.stdout != want || r.stderr != "" {
		t.Fatalf("status %d stdout %q stderr %q", r.status, r.stdout, r.stderr)
	}
	// --request FILE instead of stdin.
	req := write(t, dir, "req.json", chatRequest)
	if r := dragoman(t, "", nil, "render", "--template", tmpl, "--request", req); r.stdout != want {
		t.Errorf("--request: %+v", r)
	}
	// No flag: the request's own template.
	r = dragoman(t, `{"messages": [], "template": "T{{ messages }}"}`, nil, "render")
	if r.status != 0 || r.stdout != "T[]" {
		t.Errorf("request template: %+v", r)
	}
}

func TestRenderModelFolderConflict(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "chat_template.jinja", chatTemplate)
	write(t, dir, "tokenizer_config.json", `{"chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}",
		"bos_token": {"content": "<bos>"}, "eos_token": "<eos>"}`)
	r := dragoman(t, `{"messages": [{"role": "user", "content": "hi"}]}`, nil, "render", "--model", dir)
	if r.status != 0 || r.stdout != "<bos><|user|>hi<eos>" {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"dragoman render: note: chat template conflict", "using chat_template.jinja", "--- tokenizer_config.json (chat_template) (ignored)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestRenderTemplateError(t *testing.T) {
	tmpl := write(t, t.TempDir(), "bad.jinja", `before{{ raise_exception("Conversation roles must alternate") }}after`)
	r := dragoman(t, chatRequest, nil, "render", "--template", tmpl)
	if r.status != 1 || r.stdout != "" || r.stderr != "dragoman render: TemplateError: Conversation roles must alternate\n" {
		t.Errorf("status %d stdout %q stderr %q", r.status, r.stdout, r.stderr)
	}
}

func TestRenderClock(t *testing.T) {
	tmpl := write(t, t.TempDir(), "date.jinja", `Today is {{ strftime_now("%d %b %Y, %H:%M") }}.`)
	r := dragoman(t, `{"messages": []}`, []string{"DRAGOMAN_NOW=2026-01-15T12:00:00"}, "render", "--template", tmpl)
	if r.status != 0 || r.stdout != "Today is 15 Jan 2026, 12:00." {
		t.Errorf("pinned: %+v", r)
	}
	r = dragoman(t, `{"messages": []}`, []string{"DRAGOMAN_NOW=someday"}, "render", "--template", tmpl)
	if r.status != 1 || r.stdout != "" || !strings.Contains(r.stderr, "DRAGOMAN_NOW") {
		t.Errorf("bad clock: %+v", r)
	}
	r = dragoman(t, `{"messages": []}`, []string{"DRAGOMAN_NOW="}, "render", "--template", tmpl)
	if r.status != 0 || !strings.HasPrefix(r.stdout, "Today is ") || strings.Contains(r.stdout, "15 Jan 2026") {
		t.Errorf("real clock: %+v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	if r := dragoman(t, "", nil, "frobnicate"); r.status != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) || !strings.Contains(r.stderr, "render") {
		t.Errorf("unknown command: %+v", r)
	}
	if r := dragoman(t, `{"messages": []}`, nil, "render"); r.status != 2 || !strings.Contains(r.stderr, "no template") {
		t.Errorf("no template: %+v", r)
	}
	if r := dragoman(t, `not json`, nil, "render", "--template", "x"); r.status != 1 || r.stdout != "" {
		t.Errorf("bad request: %+v", r)
	}
}
