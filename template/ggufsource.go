package template

import (
	"fmt"
	"sort"
	"strings"
)

// GGUF metadata keys (llama.cpp's names, including its "seperator" spelling).
const (
	ggufKeyTemplate     = "tokenizer.chat_template"
	ggufKeyTemplateName = "tokenizer.chat_template." // + name
	ggufKeyTokens       = "tokenizer.ggml.tokens"
	ggufKeyName         = "general.name"
	ggufKeyArch         = "general.architecture"
)

// ggufTokenKeys maps the GGUF token-id keys to transformers' special token names.
var ggufTokenKeys = []struct{ key, attr string }{
	{"tokenizer.ggml.bos_token_id", "bos_token"},
	{"tokenizer.ggml.eos_token_id", "eos_token"},
	{"tokenizer.ggml.unknown_token_id", "unk_token"},
	{"tokenizer.ggml.seperator_token_id", "sep_token"},
	{"tokenizer.ggml.padding_token_id", "pad_token"},
	{"tokenizer.ggml.cls_token_id", "cls_token"},
	{"tokenizer.ggml.mask_token_id", "mask_token"},
}

// findGGUF reads the templates and special tokens of a GGUF file.
// tokenizer.chat_template is the default template; tokenizer.chat_template.<name>
// are named ones (llama.cpp's converter writes a model's named templates so, with
// "default" as tokenizer.chat_template). Token ids are resolved to their text
// through tokenizer.ggml.tokens.
func findGGUF(path string) (*Source, error) {
	g, err := ReadGGUFFile(path)
	if err != nil {
		return nil, err
	}
	return sourceFromGGUF(path, g)
}

func sourceFromGGUF(path string, g *GGUF) (*Source, error) {
	s := &Source{Kind: KindGGUF, Path: path}
	s.ModelName, _ = g.String(ggufKeyName)
	s.Architecture, _ = g.String(ggufKeyArch)

	var named []Copy
	for _, k := range g.Keys {
		name, ok := strings.CutPrefix(k, ggufKeyTemplateName)
		if !ok || name == "" {
			continue
		}
		text, ok := g.String(k)
		if !ok {
			s.Notes = append(s.Notes, fmt.Sprintf("%s is a %T, not a string; ignored", k, g.Values[k]))
			continue
		}
		named = append(named, Copy{Location: Location{Path: path, Field: k}, Name: name, Text: text, Used: true})
	}
	sort.SliceStable(named, func(i, j int) bool { return named[i].Name < named[j].Name })
	if text, ok := g.String(ggufKeyTemplate); ok {
		c := Copy{Location: Location{Path: path, Field: ggufKeyTemplate}, Text: text, Used: true}
		if len(named) > 0 {
			c.Name = "default"
		}
		s.Templates = append(s.Templates, c)
	} else if v, present := g.Values[ggufKeyTemplate]; present {
		s.Notes = append(s.Notes, fmt.Sprintf("%s is a %T, not a string; ignored", ggufKeyTemplate, v))
	}
	for _, c := range named {
		if c.Name == "default" && len(s.Templates) > 0 && s.Templates[0].Name == "default" {
			// Both tokenizer.chat_template and tokenizer.chat_template.default: keep
			// the former, report the latter if it differs.
			s.Copies = append(s.Copies, Copy{Location: c.Location, Name: c.Name, Text: c.Text})
			continue
		}
		s.Templates = append(s.Templates, c)
	}
	if len(s.Templates) == 0 {
		return nil, fmt.Errorf("%s: %w (GGUF metadata has no %s)", path, ErrNoTemplate, ggufKeyTemplate)
	}
	s.Copies = append(append([]Copy{}, s.Templates...), s.Copies...)
	var ignored []Copy
	for _, c := range s.Copies {
		if !c.Used {
			ignored = append(ignored, c)
		}
	}
	s.Conflicts = conflicts("", s.Templates, ignored)

	s.SpecialTokens = map[string]any{}
	tokens, haveTokens := g.Strings(ggufKeyTokens)
	for _, tk := range ggufTokenKeys {
		if _, present := g.Values[tk.key]; !present {
			continue
		}
		id, ok := g.Int(tk.key)
		switch {
		case !ok:
			s.Notes = append(s.Notes, fmt.Sprintf("%s is a %T, not an integer; %s left unset", tk.key, g.Values[tk.key], tk.attr))
		case !haveTokens:
			s.Notes = append(s.Notes, fmt.Sprintf("%s is %d but the file has no %s; %s left unset", tk.key, id, ggufKeyTokens, tk.attr))
		case id < 0 || id >= int64(len(tokens)):
			s.Notes = append(s.Notes, fmt.Sprintf("%s is %d, outside the %d tokens; %s left unset", tk.key, id, len(tokens), tk.attr))
		case tokens[id] != "":
			s.SpecialTokens[tk.attr] = tokens[id]
		}
	}
	return s, nil
}
