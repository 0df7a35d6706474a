package ondisk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write makes a file (and its folders) holding body.
func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const gguf = "GGUF\x03\x00\x00\x00rest of the file"

// stores lays out one model in each tool's store, as each tool writes it,
// with the files each store also holds that are not models.
func stores(t *testing.T) Stores {
	root := t.TempDir()
	s := Stores{Ollama: filepath.Join(root, "ollama"), LMStudio: []string{filepath.Join(root, "lmstudio")},
		HuggingFace: filepath.Join(root, "hub"), LlamaCpp: filepath.Join(root, "llama.cpp")}
	digest := "sha256-" + strings.Repeat("ab", 32)
	write(t, filepath.Join(s.Ollama, "blobs", digest), gguf)
	write(t, filepath.Join(s.Ollama, "blobs", "sha256-"+strings.Repeat("cd", 32)), "a template, not weights")
	manifest := `{"layers":[{"mediaType":"application/vnd.ollama.image.template","digest":"sha256:` + strings.Repeat("cd", 32) + `"},` +
		`{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:` + strings.Repeat("ab", 32) + `"}]}`
	write(t, filepath.Join(s.Ollama, "manifests", "registry.ollama.ai", "library", "qwen3", "0.6b"), manifest)
	write(t, filepath.Join(s.Ollama, "manifests", "hf.co", "unsloth", "Qwen3-GGUF", "latest"), manifest)
	write(t, filepath.Join(s.LMStudio[0], "lmstudio-community", "Qwen3-0.6B-GGUF", "Qwen3-0.6B-Q8_0.gguf"), gguf)
	write(t, filepath.Join(s.LMStudio[0], "lmstudio-community", "Qwen3-0.6B-GGUF", "mmproj-Qwen3-F16.gguf"), gguf)
	write(t, filepath.Join(s.LMStudio[0], "lmstudio-community", "Qwen3-0.6B-GGUF", "README.md"), "# readme")
	repo := filepath.Join(s.HuggingFace, "models--Qwen--Qwen3-1.7B-GGUF")
	blob := filepath.Join(repo, "blobs", "0123")
	write(t, blob, gguf)
	write(t, filepath.Join(repo, "refs", "main"), "rev2\n")
	for _, rev := range []string{"rev1", "rev2"} {
		link := filepath.Join(repo, "snapshots", rev, "Qwen3-1.7B-Q8_0.gguf")
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(blob, link); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(s.LlamaCpp, "ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf"), gguf)
	write(t, filepath.Join(s.LlamaCpp, "big-00001-of-00002.gguf"), gguf)
	write(t, filepath.Join(s.LlamaCpp, "big-00002-of-00002.gguf"), gguf)
	write(t, filepath.Join(s.LlamaCpp, "broken.gguf"), "not a gguf")
	return s
}

func TestFindEachStore(t *testing.T) {
	s := stores(t)
	got := map[string]string{}
	for _, m := range Find(s) {
		got[m.Source+" "+m.Name] = m.Path
		if m.Size != int64(len(gguf)) {
			t.Errorf("%s: size %d", m.Name, m.Size)
		}
	}
	want := []string{
		"ollama qwen3:0.6b", "ollama hf.co/unsloth/Qwen3-GGUF:latest",
		"lmstudio lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
		"huggingface Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf",
		"llama.cpp ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf", "llama.cpp big-00001-of-00002.gguf",
	}
	for _, w := range want {
		if got[w] == "" {
			t.Errorf("missing %s", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("found %d models, want %d: %v", len(got), len(want), got)
	}
	if p := got["huggingface Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf"]; !strings.Contains(p, "rev2") {
		t.Errorf("Hugging Face model from %s, want the revision refs/main names", p)
	}
}

func TestFindMissingStores(t *testing.T) {
	root := t.TempDir()
	if ms := Find(Stores{Ollama: filepath.Join(root, "no"), LMStudio: []string{filepath.Join(root, "none")}, HuggingFace: root + "/x", LlamaCpp: root + "/y"}); len(ms) != 0 {
		t.Errorf("found %v", ms)
	}
}

func TestResolve(t *testing.T) {
	ms := Find(stores(t))
	for _, c := range []struct{ name, want string }{
		{"qwen3:0.6b", "qwen3:0.6b"},
		{"Qwen3-0.6B-Q8_0", "lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf"},
		{"qwen3-1.7b-q8_0.gguf", "Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf"},
		{"hf.co/unsloth/Qwen3-GGUF", "hf.co/unsloth/Qwen3-GGUF:latest"},
	} {
		m, err := Resolve(c.name, ms)
		if err != nil || m.Name != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.name, m.Name, err, c.want)
		}
	}
	if _, err := Resolve("nothing-like-it", ms); err == nil || !strings.Contains(err.Error(), "dragoman models") {
		t.Errorf("unknown name: %v", err)
	}
	twice := append(ms, Model{Name: "other/Qwen3-0.6B-Q8_0.gguf", Source: "llama.cpp"})
	if _, err := Resolve("Qwen3-0.6B-Q8_0", twice); err == nil || !strings.Contains(err.Error(), "names 2 models") {
		t.Errorf("ambiguous name: %v", err)
	}
}

func TestDefaultStores(t *testing.T) {
	env := map[string]string{"HF_HOME": "/hf", "LLAMA_CACHE": "/lc"}
	s := Default(func(k string) string { return env[k] }, "/home/u")
	if s.Ollama != "/home/u/.ollama/models" || s.HuggingFace != "/hf/hub" || s.LlamaCpp != "/lc" || s.LMStudio[0] != "/home/u/.lmstudio/models" {
		t.Errorf("stores %+v", s)
	}
	env = map[string]string{"OLLAMA_MODELS": "/om", "HF_HUB_CACHE": "/hub", "XDG_CACHE_HOME": "/xc"}
	s = Default(func(k string) string { return env[k] }, "/home/u")
	if s.Ollama != "/om" || s.HuggingFace != "/hub" || s.LlamaCpp != "/xc/llama.cpp" || s.LMStudio[1] != "/xc/lm-studio/models" {
		t.Errorf("stores %+v", s)
	}
}
