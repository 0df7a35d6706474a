// Package ondisk finds the GGUF models already on this machine, in the
// stores of the tools that downloaded them: Ollama's model store, LM
// Studio's models folder, the Hugging Face hub cache and llama.cpp's own
// download cache. `dragoman models` lists them and `dragoman serve -model
// NAME` serves one by name, so that a model pulled with another tool is
// served with no setup and no second copy.
package ondisk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Model is one GGUF file found.
type Model struct {
	// Name is how to ask for it: Ollama's "name:tag" ("qwen3:0.6b", with the
	// registry and namespace when not Ollama's library), else the file's
	// path inside its store ("Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf").
	Name string
	// Source is the store: "ollama", "lmstudio", "huggingface" or "llama.cpp".
	Source string
	Path   string
	Size   int64
}

// Stores are the folders searched; an empty field is not searched. Default
// fills them in as each tool resolves its own.
type Stores struct {
	Ollama      string   // OLLAMA_MODELS, else ~/.ollama/models
	LMStudio    []string // ~/.lmstudio/models, ~/.cache/lm-studio/models
	HuggingFace string   // HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
	LlamaCpp    string   // LLAMA_CACHE, else ~/.cache/llama.cpp
}

// Default returns the stores as the tools themselves find them, from the
// environment (getenv) and the user's home directory.
func Default(getenv func(string) string, home string) Stores {
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	cache := or(getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	hf := getenv("HF_HUB_CACHE")
	if hf == "" {
		hf = filepath.Join(or(getenv("HF_HOME"), filepath.Join(cache, "huggingface")), "hub")
	}
	return Stores{
		Ollama:      or(getenv("OLLAMA_MODELS"), filepath.Join(home, ".ollama", "models")),
		LMStudio:    []string{filepath.Join(home, ".lmstudio", "models"), filepath.Join(cache, "lm-studio", "models")},
		HuggingFace: hf,
		LlamaCpp:    or(getenv("LLAMA_CACHE"), filepath.Join(cache, "llama.cpp")),
	}
}

// Find lists the GGUF models in the stores, by source then name. A store
// that does not exist is skipped; unreadable entries are left out.
func Find(s Stores) []Model {
	var out []Model
	if s.Ollama != "" {
		out = append(out, ollama(s.Ollama)...)
	}
	for _, dir := range s.LMStudio {
		out = append(out, ggufsUnder(dir, "lmstudio", 3)...)
	}
	if s.HuggingFace != "" {
		out = append(out, huggingFace(s.HuggingFace)...)
	}
	if s.LlamaCpp != "" {
		out = append(out, ggufsUnder(s.LlamaCpp, "llama.cpp", 1)...)
	}
	return out
}

// ErrNotFound is returned by Resolve for a name no model has.
var ErrNotFound = errors.New("no model of that name on this machine")

// Resolve finds the model a user named: by its full name, else by the
// name's last part (an Ollama name without ":latest", a file name with or
// without ".gguf"), compared without regard to case. A name that fits
// several models is an error that lists them.
func Resolve(name string, ms []Model) (Model, error) {
	for _, m := range ms {
		if m.Name == name {
			return m, nil
		}
	}
	var fits []Model
	want := strings.ToLower(strings.TrimSuffix(name, ".gguf"))
	for _, m := range ms {
		if slices.Contains(shortNames(m), want) {
			fits = append(fits, m)
		}
	}
	switch len(fits) {
	case 0:
		return Model{}, fmt.Errorf("%q: %w (`dragoman models` lists them)", name, ErrNotFound)
	case 1:
		return fits[0], nil
	}
	names := make([]string, len(fits))
	for i, m := range fits {
		names[i] = m.Source + ": " + m.Name
	}
	return Model{}, fmt.Errorf("%q names %d models: %s; give the full name", name, len(fits), strings.Join(names, ", "))
}

// shortNames are the lower-case names a model also answers to.
func shortNames(m Model) []string {
	n := strings.ToLower(m.Name)
	out := []string{strings.TrimSuffix(n, ".gguf"), strings.TrimSuffix(filepath.Base(n), ".gguf")}
	if m.Source == "ollama" {
		out = append(out, strings.TrimSuffix(n, ":latest"), strings.TrimSuffix(filepath.Base(n), ":latest"))
	}
	return out
}

// ggufsUnder lists the .gguf files at most depth folders below dir, named by
// their path inside it. Multi-part files beyond the first (…-00002-of-00003)
// are left out: llama.cpp loads a split model from its first part.
func ggufsUnder(dir, source string, depth int) []Model {
	var out []Model
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel != "." && strings.Count(rel, string(filepath.Separator)) >= depth {
				return fs.SkipDir
			}
			return nil
		}
		if !isFirstGGUF(d.Name()) {
			return nil
		}
		if m, ok := model(p, filepath.ToSlash(rel), source); ok {
			out = append(out, m)
		}
		return nil
	})
	return out
}

var laterPart = regexp.MustCompile(`-0*([2-9]|[1-9]\d+)-of-\d+\.gguf$`)

func isFirstGGUF(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".gguf") && !laterPart.MatchString(name)
}

// model describes the file at p if it is a GGUF file (symbolic links, which
// the Hugging Face cache is made of, followed) and not a vision projector
// (mmproj-*.gguf, which LM Studio and Hugging Face repositories keep beside
// the model: it is no chat model of its own).
func model(p, name, source string) (Model, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || strings.HasPrefix(strings.ToLower(filepath.Base(p)), "mmproj") || !hasGGUFMagic(p) {
		return Model{}, false
	}
	return Model{Name: name, Source: source, Path: p, Size: st.Size()}, true
}

// hasGGUFMagic reports whether the file starts as every GGUF file does.
func hasGGUFMagic(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == "GGUF"
}

// huggingFace lists the GGUFs of the hub cache: models--ORG--NAME/snapshots/
// REVISION/FILE, named ORG/NAME/FILE. Several revisions of one file are one
// model: the one refs/main points at, else the first found.
func huggingFace(hub string) []Model {
	repos, _ := filepath.Glob(filepath.Join(hub, "models--*"))
	var out []Model
	for _, repo := range repos {
		id := strings.ReplaceAll(strings.TrimPrefix(filepath.Base(repo), "models--"), "--", "/")
		main, _ := os.ReadFile(filepath.Join(repo, "refs", "main"))
		revs, _ := filepath.Glob(filepath.Join(repo, "snapshots", "*"))
		if rev := strings.TrimSpace(string(main)); rev != "" {
			slices.SortStableFunc(revs, func(a, b string) int { return boolRank(filepath.Base(b) == rev) - boolRank(filepath.Base(a) == rev) })
		}
		seen := map[string]bool{}
		for _, rev := range revs {
			for _, m := range ggufsUnder(rev, "huggingface", 2) {
				if seen[m.Name] {
					continue
				}
				seen[m.Name] = true
				m.Name = id + "/" + m.Name
				out = append(out, m)
			}
		}
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ollama lists the models of Ollama's store: each manifest under
// manifests/HOST/NAMESPACE/MODEL/TAG names its weights layer (media type
// application/vnd.ollama.image.model), stored as blobs/sha256-HEX. Models of
// Ollama's own library are named MODEL:TAG, as `ollama list` shows them.
func ollama(store string) []Model {
	root := filepath.Join(store, "manifests")
	var out []Model
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 4 {
			return nil
		}
		blob, ok := OllamaWeights(store, p)
		if !ok {
			return nil
		}
		name := parts[2] + ":" + parts[3]
		if parts[0] != "registry.ollama.ai" || parts[1] != "library" {
			name = strings.Join(parts[:3], "/") + ":" + parts[3]
		}
		if m, ok := model(blob, name, "ollama"); ok {
			out = append(out, m)
		}
		return nil
	})
	return out
}

var sha256Digest = regexp.MustCompile(`^sha256[:-][0-9a-fA-F]{64}$`)

// OllamaWeights reads the manifest file of a model in Ollama's store and
// returns where its weights layer (media type
// application/vnd.ollama.image.model) is stored: blobs/sha256-HEX. The file
// may not exist.
func OllamaWeights(store, manifest string) (string, bool) {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return "", false
	}
	var man struct {
		Layers []struct {
			MediaType string `json:"mediaType"`
			Digest    string `json:"digest"`
		} `json:"layers"`
	}
	if json.Unmarshal(b, &man) != nil {
		return "", false
	}
	for _, l := range man.Layers {
		if l.MediaType == "application/vnd.ollama.image.model" && sha256Digest.MatchString(l.Digest) {
			return filepath.Join(store, "blobs", strings.Replace(l.Digest, ":", "-", 1)), true
		}
	}
	return "", false
}
