package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
	"github.com/dragoman-dev/dragoman/template"
)

// ollamaHome lays out a home folder whose Ollama store holds the tiny model
// as "tiny:latest", the way `ollama pull` stores it, and returns the home.
func ollamaHome(t *testing.T) (home, blob string) {
	t.Helper()
	home = t.TempDir()
	store := filepath.Join(home, ".ollama", "models")
	digest := strings.Repeat("0f", 32)
	blob = filepath.Join(store, "blobs", "sha256-"+digest)
	tiny := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	for _, d := range []string{filepath.Dir(blob), filepath.Join(store, "manifests", "registry.ollama.ai", "library", "tiny")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(tiny, blob); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(store, "manifests", "registry.ollama.ai", "library", "tiny"), "latest",
		`{"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:`+digest+`"}]}`)
	return home, blob
}

// isolated is an environment whose model stores are all under home.
func isolated(home string) []string {
	return []string{"HOME=" + home, "OLLAMA_MODELS=", "HF_HOME=", "HF_HUB_CACHE=", "LLAMA_CACHE=", "XDG_CACHE_HOME="}
}

func TestModelsLists(t *testing.T) {
	home, blob := ollamaHome(t)
	r := dragoman(t, "", isolated(home), "models")
	if r.status != 0 || !strings.Contains(r.stdout, "tiny:latest") || !strings.Contains(r.stdout, "ollama") || !strings.Contains(r.stdout, blob) {
		t.Errorf("status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	r = dragoman(t, "", isolated(home), "models", "-json")
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 1 || got[0]["name"] != "tiny:latest" || got[0]["path"] != blob {
		t.Errorf("-json: %v, %v", got, err)
	}
	// What the GGUF says of it: its architecture and trained context as the
	// header has them, and the tiny model's Qwen3 template writes
	// Hermes-style <tool_call> calls.
	g, err := template.ReadGGUFFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	arch := g.Values["general.architecture"].(string)
	if len(got) == 1 && (got[0]["family"] != arch || got[0]["context_length"] != float64(g.Values[arch+".context_length"].(uint32)) || got[0]["tool_call_format"] != "hermes") {
		t.Errorf("-json facts: %v (the header: %s, %v)", got[0], arch, g.Values[arch+".context_length"])
	}
	r = dragoman(t, "", isolated(t.TempDir()), "models")
	if r.status != 0 || !strings.Contains(r.stderr, "no GGUF models found") {
		t.Errorf("empty stores: status %d, stderr %q", r.status, r.stderr)
	}
}

// serve -check validates and prints the configuration as resolved: a
// -model given by name is the file in Ollama's store, served under the
// Ollama name; what it prints loads back as the same configuration.
func TestServeCheck(t *testing.T) {
	home, blob := ollamaHome(t)
	r := dragoman(t, "", isolated(home), "serve", "-check", "-config", filepath.Join("..", "..", "docs", "examples", "dragoman.json"), "-model", "tiny")
	var out struct {
		Gateway json.RawMessage `json:"gateway"`
		Engine  struct {
			Models []struct{ Name, Path string } `json:"models"`
			Lib    string                        `json:"llama_lib"`
		} `json:"engine"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v (stderr %q)", r.stdout, err, r.stderr)
	}
	if len(out.Engine.Models) != 1 || out.Engine.Models[0].Name != "tiny:latest" || out.Engine.Models[0].Path != blob {
		t.Errorf("engine %+v", out.Engine)
	}
	// The status is 0 exactly when the engine's libraries are at hand.
	if (r.status == 0) != (out.Engine.Lib != "") {
		t.Errorf("status %d with libraries %q; stderr %q", r.status, out.Engine.Lib, r.stderr)
	}
	again := write(t, t.TempDir(), "resolved.json", string(out.Gateway))
	cfg, err := gateway.LoadConfig(again)
	if err != nil {
		t.Fatalf("the printed configuration does not load: %v", err)
	}
	if cfg.ModelsTTL != gateway.Duration(10e9) || len(cfg.Upstreams) != 2 || cfg.MaxOutputTokens != 4096 {
		t.Errorf("loaded back as %+v", cfg)
	}
	// A bad configuration fails the check with the reason.
	r = dragoman(t, "", isolated(home), "serve", "-check", "-upstream", "olama=http://127.0.0.1:1")
	if r.status != 2 || !strings.Contains(r.stderr, `unknown runtime kind "olama"`) {
		t.Errorf("bad kind: status %d, stderr %q", r.status, r.stderr)
	}
	r = dragoman(t, "", isolated(home), "serve", "-check", "-model", "nothing-of-that-name")
	if r.status != 2 || !strings.Contains(r.stderr, "no model of that name on this machine") {
		t.Errorf("unknown model: status %d, stderr %q", r.status, r.stderr)
	}
}

// With nothing served, serve names the GGUF models on this machine and how
// to serve one.
func TestServeNamesModelsOnDisk(t *testing.T) {
	home, _ := ollamaHome(t)
	lines := serveUntil(t, isolated(home), "GGUF models on this machine")
	if !strings.Contains(lines, "tiny:latest (ollama") || !strings.Contains(lines, "-model NAME") {
		t.Errorf("start-up lines %q", lines)
	}
}

// serveUntil runs `dragoman serve` with nothing to serve until it prints a
// line holding want (or 30 s pass), and returns what it printed.
func serveUntil(t *testing.T, env []string, want string) string {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "-listen", "127.0.0.1:0", "-no-discover", "-log-format", "off")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen strings.Builder
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return seen.String()
			}
			seen.WriteString(l + "\n")
			if strings.Contains(l, want) {
				return seen.String()
			}
		case <-timeout:
			t.Errorf("no line with %q in 30 s", want)
			return seen.String()
		}
	}
}
