package backend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeStore lays out an Ollama store as v0.17.4 does: a manifest per
// host/namespace/model/tag naming its layers, blobs as sha256-<hex>.
func writeStore(t *testing.T, dir, rel, hex string, withBlob bool) string {
	t.Helper()
	man := `{"schemaVersion":2,"layers":[` +
		`{"mediaType":"application/vnd.ollama.image.template","digest":"sha256:` + strings.Repeat("cd", 32) + `"},` +
		`{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:` + hex + `"}]}`
	p := filepath.Join(dir, "manifests", filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(dir, "blobs", "sha256-"+hex)
	if withBlob {
		os.MkdirAll(filepath.Dir(blob), 0o755)
		if err := os.WriteFile(blob, []byte("GGUF"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return blob
}

func TestOllamaGGUFPath(t *testing.T) {
	dir := t.TempDir()
	blob := writeStore(t, dir, "registry.ollama.ai/library/tiny-toolcall/latest", strings.Repeat("ab", 32), true)
	writeStore(t, dir, "registry.ollama.ai/me/custom/q4", strings.Repeat("ab", 32), true)
	writeStore(t, dir, "registry.ollama.ai/library/noblob/latest", strings.Repeat("ef", 32), false)
	cases := map[string]string{
		"tiny-toolcall":                   blob,
		"tiny-toolcall:latest":            blob,
		"me/custom:q4":                    blob,
		"registry.ollama.ai/me/custom:q4": blob,
		"noblob":                          "", // manifest without its blob
		"absent":                          "",
		"../../etc/passwd":                "",
		"a/b/c/d":                         "",
		"..":                              "",
		"library/..:latest":               "",
	}
	for name, want := range cases {
		if got := ollamaGGUFPath(dir, name); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}

// ModelInfo on a local Ollama: context length from /api/show model_info
// (<architecture>.context_length), the GGUF from the store, no template (the
// Go template is not the Jinja one, and v0.17.4 never returns
// tokenizer.chat_template).
func TestOllamaModelInfo(t *testing.T) {
	dir := t.TempDir()
	blob := writeStore(t, dir, "registry.ollama.ai/library/tiny-toolcall/latest", strings.Repeat("ab", 32), true)
	srv := fakeRuntime(t, map[string]string{
		"/api/show": `{"template":"{{ .Prompt }}","model_info":{"general.architecture":"qwen3","qwen3.context_length":40960,"tokenizer.ggml.tokens":[]}}`,
		"/api/tags": `{"models":[{"name":"tiny-toolcall:latest","model":"tiny-toolcall:latest"}]}`,
	})
	o := NewOllama(srv.URL, nil)
	o.ModelsDir = dir
	info, err := o.ModelInfo(context.Background(), "tiny-toolcall")
	if err != nil {
		t.Fatal(err)
	}
	if info.ContextLength != 40960 || info.GGUFPath != blob || info.Template != "" {
		t.Errorf("info = %+v", info)
	}
	models, err := o.Models(context.Background())
	if err != nil || len(models) != 1 || models[0].ID != "tiny-toolcall:latest" {
		t.Errorf("models %+v, %v", models, err)
	}

}

func TestOllamaDefaults(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", "/srv/ollama")
	o := NewOllama("127.0.0.1:11434/", nil)
	if o.ModelsDir != "/srv/ollama" || o.BaseURL() != "http://127.0.0.1:11434" || !o.CanComplete() || o.Kind() != Ollama {
		t.Errorf("%+v %s", o.ModelsDir, o.BaseURL())
	}
}

// The model store: $OLLAMA_MODELS, else the user's ~/.ollama/models when it
// holds models, else the Linux service's store when that exists.
func TestDefaultOllamaModels(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", "/somewhere")
	if got := defaultOllamaModels(); got != "/somewhere" {
		t.Errorf("with OLLAMA_MODELS: %q", got)
	}
	t.Setenv("OLLAMA_MODELS", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	own := filepath.Join(home, ".ollama", "models")
	if err := os.MkdirAll(filepath.Join(own, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := defaultOllamaModels(); got != own {
		t.Errorf("with a store in the home directory: %q, want %q", got, own)
	}
	empty := t.TempDir()
	t.Setenv("HOME", empty)
	want := filepath.Join(empty, ".ollama", "models")
	if _, err := os.Stat(filepath.Join(serviceOllamaModels, "manifests")); err == nil {
		want = serviceOllamaModels
	}
	if got := defaultOllamaModels(); got != want {
		t.Errorf("without a store in the home directory: %q, want %q", got, want)
	}
}
