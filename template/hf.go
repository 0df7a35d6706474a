package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// File names in a Hugging Face model folder, as transformers spells them.
const (
	hfJinjaFile      = "chat_template.jinja"       // CHAT_TEMPLATE_FILE
	hfExtraDir       = "additional_chat_templates" // CHAT_TEMPLATE_DIR: <name>.jinja per named template
	hfTemplateJSON   = "chat_template.json"        // LEGACY_PROCESSOR_CHAT_TEMPLATE_FILE
	hfTokenizerCfg   = "tokenizer_config.json"
	hfSpecialTokMap  = "special_tokens_map.json"
	hfTemplateField  = "chat_template"
	hfMaxConfigBytes = 64 << 20 // tokenizer_config.json with an embedded vocabulary can be large, not this large
)

// specialTokenAttrs is transformers' SPECIAL_TOKENS_ATTRIBUTES, in its order.
var specialTokenAttrs = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "additional_special_tokens"}

// findHF reads a Hugging Face model folder. The template set comes from the first
// of these that holds any template, as transformers' tokenizer loading does
// (template files "clobber" the config's template):
//
//  1. chat_template.jinja (the default) and additional_chat_templates/<name>.jinja;
//  2. chat_template.json's "chat_template" field;
//  3. tokenizer_config.json's "chat_template" field.
//
// A field may hold a string (the one template) or a list of {"name", "template"}
// (named templates; a {name: template} object is accepted too). Copies from the
// lower-priority places are kept in Copies and compared: a difference is a Conflict.
func findHF(dir string) (*Source, error) {
	s := &Source{Kind: KindHF}
	var groups [][]Copy

	// 1. Template files.
	var files []Copy
	jinjaPath := filepath.Join(dir, hfJinjaFile)
	if text, err := readTemplateFile(jinjaPath); err == nil {
		files = append(files, Copy{Location: Location{Path: jinjaPath}, Text: text})
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	extras, err := filepath.Glob(filepath.Join(dir, hfExtraDir, "*.jinja"))
	if err != nil {
		return nil, err
	}
	sort.Strings(extras)
	for _, p := range extras {
		text, err := readTemplateFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, Copy{Location: Location{Path: p}, Name: strings.TrimSuffix(filepath.Base(p), ".jinja"), Text: text})
	}
	// transformers keeps a lone chat_template.jinja as a plain string; with extra
	// files it becomes {"default": ..., <name>: ...}.
	if len(files) > 1 || (len(files) == 1 && files[0].Name != "") {
		for i := range files {
			if files[i].Name == "" {
				files[i].Name = "default"
			}
		}
	}
	groups = append(groups, files)

	// 2. chat_template.json.
	tj, err := readJSONObject(filepath.Join(dir, hfTemplateJSON))
	if err != nil {
		return nil, err
	}
	cs, err := templatesFromField(filepath.Join(dir, hfTemplateJSON), tj)
	if err != nil {
		return nil, err
	}
	groups = append(groups, cs)

	// 3. tokenizer_config.json.
	cfgPath := filepath.Join(dir, hfTokenizerCfg)
	cfg, err := readJSONObject(cfgPath)
	if err != nil {
		return nil, err
	}
	cs, err = templatesFromField(cfgPath, cfg)
	if err != nil {
		return nil, err
	}
	groups = append(groups, cs)

	var used []Copy
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		if used == nil {
			for i := range g {
				g[i].Used = true
			}
			used = g
		}
		s.Copies = append(s.Copies, g...)
	}
	if used == nil {
		return nil, fmt.Errorf("%s: %w (looked for %s, %s/*.jinja, %s and %s's %q)", dir, ErrNoTemplate,
			hfJinjaFile, hfExtraDir, hfTemplateJSON, hfTokenizerCfg, hfTemplateField)
	}
	s.Templates = used
	var ignored []Copy
	for _, c := range s.Copies {
		if !c.Used {
			ignored = append(ignored, c)
		}
	}
	s.Conflicts = conflicts(dir, used, ignored)

	stm, err := readJSONObject(filepath.Join(dir, hfSpecialTokMap))
	if err != nil {
		return nil, err
	}
	s.SpecialTokens, s.Notes = hfSpecialTokens(cfg, stm)
	s.setResponseTemplate(cfgPath, cfg)
	if s.ResponseTemplate == nil {
		s.setResponseTemplate(filepath.Join(dir, hfTemplateJSON), tj)
	} else if other, ok := tj[hfResponseField]; ok && !jsonEqual(other, s.ResponseTemplate) {
		s.Notes = append(s.Notes, fmt.Sprintf("%s and %s hold different %q; using %s's", hfTokenizerCfg, hfTemplateJSON, hfResponseField, hfTokenizerCfg))
	}
	return s, nil
}

// hfResponseField is where transformers saves a tokenizer's response template.
const hfResponseField = "response_template"

// setResponseTemplate takes obj's response_template field, when it holds
// anything but null.
func (s *Source) setResponseTemplate(path string, obj map[string]json.RawMessage) {
	raw, ok := obj[hfResponseField]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return
	}
	s.ResponseTemplate = []byte(raw)
	s.ResponseTemplateFrom = Location{Path: path, Field: hfResponseField}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// readJSONObject reads a JSON object file; a missing file gives a nil map.
// findHFConfig reads the templates of one JSON file of a Hugging Face folder,
// named on its own: its "chat_template" field, and for tokenizer_config.json
// the special tokens, with special_tokens_map.json beside it. (Read as a plain
// template, the JSON text itself would be the template.)
func findHFConfig(path string) (*Source, error) {
	obj, err := readJSONObject(path)
	if err != nil {
		return nil, err
	}
	used, err := templatesFromField(path, obj)
	if err != nil {
		return nil, err
	}
	if len(used) == 0 {
		return nil, fmt.Errorf("%s: %w (no %q field)", path, ErrNoTemplate, hfTemplateField)
	}
	for i := range used {
		used[i].Used = true
	}
	s := &Source{Kind: KindHF, Templates: used, Copies: used}
	s.setResponseTemplate(path, obj)
	if filepath.Base(path) == hfTokenizerCfg {
		stm, err := readJSONObject(filepath.Join(filepath.Dir(path), hfSpecialTokMap))
		if err != nil {
			return nil, err
		}
		s.SpecialTokens, s.Notes = hfSpecialTokens(obj, stm)
	}
	return s, nil
}

func readJSONObject(path string) (map[string]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > hfMaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, hfMaxConfigBytes)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m == nil { // the file holds null
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	return m, nil
}

// templatesFromField reads obj["chat_template"]: absent or null gives none; a
// string is the one template; a list of {"name", "template"} or an object
// {name: template} gives named templates.
func templatesFromField(path string, obj map[string]json.RawMessage) ([]Copy, error) {
	raw, ok := obj[hfTemplateField]
	if !ok || isNull(raw) {
		return nil, nil
	}
	bad := func(what string) error {
		return fmt.Errorf("%s: %q must be a string or a list of {\"name\", \"template\"} (%s)", path, hfTemplateField, what)
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []Copy{{Location: Location{Path: path, Field: hfTemplateField}, Text: one}}, nil
	}
	var list []struct {
		Name     *string `json:"name"`
		Template *string `json:"template"`
	}
	if json.Unmarshal(raw, &list) == nil {
		var out []Copy
		for i, e := range list {
			if e.Name == nil || e.Template == nil {
				return nil, bad(fmt.Sprintf("entry %d lacks a string name or template", i))
			}
			out = append(out, Copy{Location: Location{Path: path, Field: fmt.Sprintf("%s[%d]", hfTemplateField, i)}, Name: *e.Name, Text: *e.Template})
		}
		return dedupNames(out), nil
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return nil, bad(err.Error())
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, bad("an object whose values are not all strings")
	}
	var out []Copy
	for _, k := range keys {
		out = append(out, Copy{Location: Location{Path: path, Field: hfTemplateField + "." + k}, Name: k, Text: m[k]})
	}
	return out, nil
}

// dedupNames keeps the last entry of each name at the first one's place, as a
// Python dict comprehension over the list does.
func dedupNames(cs []Copy) []Copy {
	var out []Copy
	at := map[string]int{}
	for _, c := range cs {
		if i, ok := at[c.Name]; ok {
			out[i] = c
			continue
		}
		at[c.Name] = len(out)
		out = append(out, c)
	}
	return out
}

// hfSpecialTokens builds transformers' special_tokens_map from tokenizer_config.json
// (and, for legacy configs without "added_tokens_decoder", special_tokens_map.json,
// whose entries then override the config's, as transformers' loader does).
// A token may be a string or an AddedToken object {"content": ...}; tokens that are
// null or empty are left out, as special_tokens_map leaves out falsy attributes.
//
// Not reproduced: defaults a tokenizer class sets in its constructor (e.g. a slow
// Llama tokenizer's "<unk>") when the config does not name the token.
func hfSpecialTokens(cfg, stm map[string]json.RawMessage) (map[string]any, []string) {
	merged := map[string]json.RawMessage{}
	for k, v := range cfg {
		merged[k] = v
	}
	if _, modern := cfg["added_tokens_decoder"]; !modern {
		for k, v := range stm {
			merged[k] = v
		}
	}
	out := map[string]any{}
	var notes []string
	for _, attr := range specialTokenAttrs {
		raw, ok := merged[attr]
		if !ok || isNull(raw) {
			continue
		}
		if attr == "additional_special_tokens" {
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) != nil {
				notes = append(notes, fmt.Sprintf("%s is not a list; ignored", attr))
				continue
			}
			var toks []string
			for _, e := range list {
				if t, ok := tokenString(e); ok {
					toks = append(toks, t)
				}
			}
			if len(toks) > 0 {
				out[attr] = toks
			}
			continue
		}
		t, ok := tokenString(raw)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s is neither a string nor {\"content\": ...}; ignored", attr))
			continue
		}
		if t != "" {
			out[attr] = t
		}
	}
	return out, notes
}

// tokenString reads a token written as a string or as {"content": "..."}.
func tokenString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		return *obj.Content, true
	}
	return "", false
}

func isNull(raw json.RawMessage) bool {
	if len(raw) > 0 {
		if c := raw[0]; c > ' ' && c < utf8.RuneSelf && c != 'n' {
			return false // the common case: a value, not even space before it
		}
	}
	return string(bytes.TrimSpace(raw)) == "null"
}

// objectKeys lists the keys of a JSON object in order, each once (at its first
// place, as a Python dict built from the object keeps it).
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
