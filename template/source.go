package template

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Kind says what sort of thing a Source was found in.
type Kind string

// The kinds of place a template is found in.
const (
	KindHF   Kind = "hf"   // a Hugging Face model folder
	KindGGUF Kind = "gguf" // a GGUF file's metadata
	KindFile Kind = "file" // a plain template file
)

// Location is where one copy of a template lives.
type Location struct {
	Path  string // the file
	Field string // where in the file: "" for the whole file, a JSON field such as "chat_template" or "chat_template[1]", a GGUF key
}

func (l Location) String() string {
	if l.Field == "" {
		return l.Path
	}
	return l.Path + " (" + l.Field + ")"
}

// short names the location relative to dir, for messages about one model folder.
func (l Location) short(dir string) string {
	p := l.Path
	if dir != "" {
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
	}
	if l.Field == "" {
		return p
	}
	return p + " (" + l.Field + ")"
}

// Copy is one copy of a chat template found in a model.
type Copy struct {
	Location
	// Name is the template's name: "" for a model's only, unnamed template;
	// otherwise "default", "tool_use", "rag", ...
	Name string
	Text string
	// Used is true for the copies in the set transformers loads; lower-priority
	// copies (e.g. tokenizer_config.json's when chat_template.jinja exists) are
	// found and compared but never rendered.
	Used bool
}

// key is the name a copy is compared under: an unnamed template is the default.
func (c Copy) key() string {
	if c.Name == "" {
		return "default"
	}
	return c.Name
}

// Conflict is a disagreement between two copies of a template in one model.
type Conflict struct {
	Name  string   // the template's name ("default" for the unnamed one)
	Used  Location // the copy that is rendered
	Other Location // the copy that differs and is ignored
	// Missing is set when Other holds a template named Name that the used set
	// lacks altogether (Used is then the set's first copy).
	Missing bool
	// Diff is a unified-style line diff from Other (---) to Used (+++), at most
	// about 40 lines; empty when Missing.
	Diff string
	dir  string
}

// String is a message for people: which copy is used, which is ignored, the diff.
func (c Conflict) String() string {
	var b strings.Builder
	if c.Missing {
		fmt.Fprintf(&b, "chat template conflict: %s has a %q template, but %s takes priority and has none, so the %q template is ignored",
			c.Other.short(c.dir), c.Name, c.Used.short(c.dir), c.Name)
		if c.Name == "tool_use" {
			b.WriteString(" (requests with tools get the default template)")
		}
		b.WriteString(". Runtimes that read the other file will prompt the model differently.")
		return b.String()
	}
	which := "chat templates"
	if c.Name != "default" {
		which = fmt.Sprintf("%q chat templates", c.Name)
	}
	fmt.Fprintf(&b, "chat template conflict: %s and %s hold different %s; using %s (as transformers does) and ignoring %s. "+
		"Runtimes and converters that read the other copy prompt the model differently, which often makes it call tools worse.",
		c.Used.short(c.dir), c.Other.short(c.dir), which, c.Used.short(c.dir), c.Other.short(c.dir))
	if c.Diff != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(c.Diff, "\n"))
	}
	return b.String()
}

// Source is a model's chat template and where it came from.
type Source struct {
	Path string // what was given to Find
	Kind Kind
	// Name, Text and From are the template chosen for a request without tools
	// and without a requested name (Select("", false)). Text is empty when the
	// model has only named templates and none is called "default".
	Name string
	Text string
	From Location
	// Templates is the set of templates in use, in the order found. A model has
	// one unnamed template or several named ones.
	Templates []Copy
	// Copies is every copy found, in priority order, including ignored ones.
	Copies []Copy
	// SpecialTokens is the tokenizer's special_tokens_map as transformers passes
	// it to the template: bos_token, eos_token, unk_token, ... → string, and
	// additional_special_tokens → []string. Only tokens that are set appear.
	SpecialTokens map[string]any
	// Conflicts lists disagreements between copies in one model.
	Conflicts []Conflict
	// Notes are other things worth telling (tokens that could not be resolved, ...).
	Notes []string
	// ResponseTemplate is the model's response_template (transformers'
	// declarative parser of its output; format/response reads it), as raw
	// JSON, from tokenizer_config.json or else chat_template.json; nil when the
	// model carries none. ResponseTemplateFrom says where it was found.
	ResponseTemplate     []byte
	ResponseTemplateFrom Location
	// ModelName and Architecture are GGUF's general.name and general.architecture.
	ModelName    string
	Architecture string
}

// ErrNoTemplate is wrapped by Find's error when a model holds no chat template.
var ErrNoTemplate = errors.New("no chat template")

// Find locates the chat template for path: a Hugging Face model folder, a GGUF
// file (recognised by its magic), one of a folder's JSON files that hold
// templates (tokenizer_config.json, chat_template.json: their "chat_template"
// field), or else a plain template file.
func Find(path string) (*Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var s *Source
	switch {
	case fi.IsDir():
		s, err = findHF(path)
	case IsGGUF(path):
		s, err = findGGUF(path)
	case filepath.Base(path) == hfTokenizerCfg || filepath.Base(path) == hfTemplateJSON:
		s, err = findHFConfig(path)
	default:
		s, err = FromFile(path)
	}
	if err != nil {
		return nil, err
	}
	s.Path = path
	s.choose()
	return s, nil
}

// FromFile reads a plain template file. Like Python's open() in text mode, it
// turns "\r\n" and "\r" into "\n".
func FromFile(path string) (*Source, error) {
	text, err := readTemplateFile(path)
	if err != nil {
		return nil, err
	}
	c := Copy{Location: Location{Path: path}, Text: text, Used: true}
	s := &Source{Path: path, Kind: KindFile, Templates: []Copy{c}, Copies: []Copy{c}}
	s.choose()
	return s, nil
}

// FromText makes a Source of a template given as text; where names its origin.
func FromText(text, where string) *Source {
	c := Copy{Location: Location{Path: where}, Text: text, Used: true}
	s := &Source{Path: where, Kind: KindFile, Templates: []Copy{c}, Copies: []Copy{c}}
	s.choose()
	return s
}

// choose fills Name, Text and From with the default selection.
func (s *Source) choose() {
	if c, err := s.Select("", false); err == nil {
		s.Name, s.Text, s.From = c.Name, c.Text, c.Location
	}
}

// Names lists the names of the templates in use ("" for an unnamed one).
func (s *Source) Names() []string {
	var names []string
	for _, c := range s.Templates {
		names = append(names, c.Name)
	}
	return names
}

// Select picks the template to render, following transformers'
// PreTrainedTokenizerBase.get_chat_template(chat_template=name, tools=tools):
//
//   - a model with a single (unnamed) template always uses it;
//   - with named templates, a requested name picks that template;
//   - with no name requested, "tool_use" is picked when the request passes tools
//     (tools is not None — an empty list counts) and the model has a "tool_use"
//     template; otherwise "default"; with no "default", it is an error.
//
// Two differences from transformers: where transformers would treat an unknown
// name as the text of a template, Select reports an error; and a name other than
// "default" requested of a single-template model is an error too.
// hasTools is whether the request's tools are not None.
func (s *Source) Select(name string, hasTools bool) (Copy, error) {
	if len(s.Templates) == 0 {
		return Copy{}, fmt.Errorf("%s: %w", s.Path, ErrNoTemplate)
	}
	if len(s.Templates) == 1 && s.Templates[0].Name == "" {
		if name != "" && name != "default" {
			return Copy{}, fmt.Errorf("%s has a single chat template, not one named %q", s.Path, name)
		}
		return s.Templates[0], nil
	}
	find := func(n string) (Copy, bool) {
		for _, c := range s.Templates {
			if c.key() == n {
				return c, true
			}
		}
		return Copy{}, false
	}
	if name != "" {
		if c, ok := find(name); ok {
			return c, nil
		}
		return Copy{}, fmt.Errorf("%s has no chat template named %q (it has %s)", s.Path, name, s.nameList())
	}
	if hasTools {
		if c, ok := find("tool_use"); ok {
			return c, nil
		}
	}
	if c, ok := find("default"); ok {
		return c, nil
	}
	return Copy{}, fmt.Errorf("%s has several chat templates and none named \"default\"; request one by name (it has %s)", s.Path, s.nameList())
}

func (s *Source) nameList() string {
	var names []string
	for _, c := range s.Templates {
		names = append(names, fmt.Sprintf("%q", c.key()))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// readTemplateFile reads a template as Python's open(path, encoding="utf-8").read()
// does: the bytes must be UTF-8, and universal newlines turn "\r\n" and "\r" into "\n".
func readTemplateFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: not valid UTF-8", path)
	}
	s := string(b)
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s, nil
}

// sameTemplate reports whether two copies render alike: Jinja drops one trailing
// newline of a template (keep_trailing_newline is off), so a copy saved with a
// final newline is the same template as one without.
func sameTemplate(a, b string) bool {
	return trimOneNewline(a) == trimOneNewline(b)
}

func trimOneNewline(s string) string {
	if strings.HasSuffix(s, "\r\n") {
		return s[:len(s)-2]
	}
	if strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\r") {
		return s[:len(s)-1]
	}
	return s
}

// conflicts compares the used set against every ignored copy.
func conflicts(dir string, used []Copy, ignored []Copy) []Conflict {
	var out []Conflict
	for _, o := range ignored {
		i := slices.IndexFunc(used, func(u Copy) bool { return u.key() == o.key() })
		if i < 0 {
			out = append(out, Conflict{Name: o.key(), Used: used[0].Location, Other: o.Location, Missing: true, dir: dir})
			continue
		}
		u := used[i]
		if sameTemplate(u.Text, o.Text) {
			continue
		}
		out = append(out, Conflict{
			Name: o.key(), Used: u.Location, Other: o.Location, dir: dir,
			Diff: LineDiff(trimOneNewline(o.Text), trimOneNewline(u.Text),
				o.short(dir)+" (ignored)", u.short(dir)+" (used)", 40),
		})
	}
	return out
}
