// Package response implements transformers' response templates (spec version
// 1): a declarative `response_template`, shipped in a checkpoint's
// tokenizer_config.json, that says how to read the model's raw output back
// into a message. Load validates a template; Parse reads a whole output and
// NewParser streams one, on the same machinery, so chunking never changes
// the result. The spec is ../shared/response-templates/README.md; where
// Dragoman keeps text the reference throws away, or Go's regexp cannot say
// what Python's does, docs/RESPONSE-TEMPLATES.md says how and why.
package response

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Template is a loaded response template.
type Template struct {
	defaults  *Object
	fields    []*Field // by name, in code-point order (the tie rule)
	implicit  *Field
	anchor    *delim
	ndelims   int
	allDelims []*delim    // by id
	outside   []watchItem // what is watched outside every explicit region
	// Notes are load-time diagnostics: places where the template's regular
	// expressions are read in a way Python's regex module might not.
	Notes []string
}

// Field is one output key of a template.
type Field struct {
	Name          string
	index         int // in Template.fields
	open, close   *delim
	parser        string
	args          *Object
	repeats       bool
	join          *string
	optional      bool
	transform     any
	transformEach bool
	strip         bool
	// parsed content options
	tag         *rx
	tagErr      error
	valueParser *valueParser
	dirty       bool
	closeWatch  []watchItem
}

type valueParser struct {
	name string
	args *Object
}

// delim is an opener, a closer or the start anchor: literals or a pattern.
type delim struct {
	id     int      // index in the template's delimiters (the parser's search cache)
	lits   []string // longest first
	maxLen int
	rx     *rx
}

var contentParsers = []string{"bool", "float", "int", "json", "kv-lines", "text", "xml-inline"}

// Fields returns the template's fields in code-point order of their names.
func (t *Template) Fields() []*Field { return t.fields }

// Load reads a template: the JSON object under `response_template`.
func Load(data []byte) (*Template, error) {
	v, err := ParseJSON(string(data))
	if err != nil {
		return nil, fmt.Errorf("response_template is not valid JSON: %v", err)
	}
	return FromValue(v)
}

// FromValue validates a template already parsed by ParseJSON.
func FromValue(v any) (*Template, error) {
	obj, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("response_template must be an object, got %s", typeName(v))
	}
	t := &Template{defaults: NewObject()}
	for _, k := range obj.Keys {
		switch k {
		case "version", "defaults", "fields", "start_anchor", "start_anchor_pattern":
		default:
			return nil, fmt.Errorf("response_template has unknown key %q", k)
		}
	}
	if ver, ok := obj.Get("version"); ok {
		if n, isNum := ver.(Number); !isNum || n.Float || n.Lit != "1" {
			return nil, fmt.Errorf("Unsupported response_template version: %s", encodeValue(ver))
		}
	}
	if d, ok := obj.Get("defaults"); ok {
		dobj, isObj := d.(*Object)
		if !isObj {
			return nil, fmt.Errorf("response_template 'defaults' must be an object, got %s", typeName(d))
		}
		t.defaults = dobj
	}
	fv, ok := obj.Get("fields")
	fobj, isObj := fv.(*Object)
	switch {
	case !ok:
		return nil, errors.New("response_template must define 'fields'")
	case !isObj:
		return nil, fmt.Errorf("response_template 'fields' must be an object, got %s", typeName(fv))
	case fobj.Len() == 0:
		return nil, errors.New("response_template 'fields' must not be empty")
	}
	var implicit []string
	for _, name := range fobj.Keys {
		f, err := t.loadField(name, fobj.Val(name))
		if err != nil {
			return nil, err
		}
		if f.open == nil {
			implicit = append(implicit, name)
			t.implicit = f
		}
		t.fields = append(t.fields, f)
	}
	if len(implicit) > 1 {
		return nil, fmt.Errorf("At most one field may omit 'open'/'open_pattern' (that field becomes the implicit-open / leftover sink). Found: %s", strings.Join(implicit, ", "))
	}
	sort.Slice(t.fields, func(i, j int) bool { return t.fields[i].Name < t.fields[j].Name })
	for i, f := range t.fields {
		f.index = i
	}
	for _, f := range t.fields {
		if f.open != nil {
			t.outside = append(t.outside, watchItem{d: f.open, f: f, isOpen: true})
		}
		if f.close != nil {
			f.closeWatch = []watchItem{{d: f.close, f: f}}
		}
	}
	if im := t.implicit; im != nil && im.close != nil {
		t.outside = append(t.outside, watchItem{d: im.close, f: im})
	}
	a, hasA := obj.Get("start_anchor")
	ap, hasAP := obj.Get("start_anchor_pattern")
	switch {
	case hasA && hasAP:
		return nil, errors.New("response_template may define only one of 'start_anchor' and 'start_anchor_pattern'")
	case !hasA && !hasAP:
		return nil, errors.New("response_template must define 'start_anchor' or 'start_anchor_pattern'.")
	}
	d, err := t.loadDelim("response_template", "start_anchor", a, hasA, ap, hasAP, false)
	if err != nil {
		return nil, err
	}
	t.anchor = d
	return t, nil
}

func (t *Template) loadDelim(field, key string, lit any, hasLit bool, pat any, hasPat bool, inField bool) (*delim, error) {
	where := "Field '" + field + "': "
	if !inField {
		where = "response_template: "
	}
	if hasLit && hasPat {
		return nil, fmt.Errorf("%sgive '%s' or '%s_pattern', not both", where, key, key)
	}
	if hasPat {
		s, ok := pat.(string)
		if !ok {
			return nil, fmt.Errorf("%s'%s_pattern' must be a string, got %s", where, key, typeName(pat))
		}
		r, err := compileRx(s, false)
		if err != nil {
			return nil, fmt.Errorf("%sinvalid '%s_pattern': %v", where, key, err)
		}
		t.Notes = append(t.Notes, r.notes...)
		t.ndelims++
		d := &delim{id: t.ndelims - 1, rx: r}
		t.allDelims = append(t.allDelims, d)
		return d, nil
	}
	if !hasLit {
		return nil, nil
	}
	var lits []string
	switch l := lit.(type) {
	case string:
		if l == "" {
			return nil, fmt.Errorf("%s'%s' literals cannot be empty strings", where, key)
		}
		lits = []string{l}
	case []any:
		if len(l) == 0 {
			return nil, fmt.Errorf("%s'%s' list must contain at least one literal", where, key)
		}
		seen := map[string]bool{}
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s'%s' list must contain only strings", where, key)
			}
			if s == "" {
				return nil, fmt.Errorf("%s'%s' literals cannot be empty strings", where, key)
			}
			if !seen[s] {
				seen[s] = true
				lits = append(lits, s)
			}
		}
	default:
		return nil, fmt.Errorf("%s'%s' must be a string or list of strings, got %s", where, key, typeName(lit))
	}
	sort.SliceStable(lits, func(i, j int) bool { return len(lits[i]) > len(lits[j]) })
	t.ndelims++
	d := &delim{id: t.ndelims - 1, lits: lits, maxLen: len(lits[0])}
	t.allDelims = append(t.allDelims, d)
	return d, nil
}

var fieldKeys = map[string]bool{"open": true, "open_pattern": true, "close": true, "close_pattern": true, "content": true,
	"content_args": true, "repeats": true, "join": true, "optional": true, "transform": true, "transform_each": true}

func (t *Template) loadField(name string, v any) (*Field, error) {
	spec, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("Field '%s' must be an object, got %s", name, typeName(v))
	}
	for _, k := range spec.Keys {
		if !fieldKeys[k] {
			return nil, fmt.Errorf("Field '%s': unknown key %q", name, k)
		}
	}
	f := &Field{Name: name, parser: "text", args: NewObject(), optional: true, strip: true}
	get := func(k string) (any, bool) { return spec.Get(k) }
	var err error
	o, hasO := get("open")
	op, hasOP := get("open_pattern")
	if f.open, err = t.loadDelim(name, "open", o, hasO, op, hasOP, true); err != nil {
		return nil, err
	}
	c, hasC := get("close")
	cp, hasCP := get("close_pattern")
	if f.close, err = t.loadDelim(name, "close", c, hasC, cp, hasCP, true); err != nil {
		return nil, err
	}
	if p, ok := get("content"); ok {
		s, isStr := p.(string)
		if !isStr || !contains(contentParsers, s) {
			return nil, fmt.Errorf("Field '%s': unknown content parser '%v'. Available: ['%s']", name, p, strings.Join(contentParsers, "', '"))
		}
		f.parser = s
	}
	f.dirty = f.parser == "json" || f.parser == "xml-inline" || f.parser == "kv-lines"
	if a, ok := get("content_args"); ok {
		ao, isObj := a.(*Object)
		if !isObj {
			return nil, fmt.Errorf("Field '%s': 'content_args' must be an object, got %s", name, typeName(a))
		}
		f.args = ao
	}
	if err := t.loadArgs(f); err != nil {
		return nil, err
	}
	boolKey := func(k string, def bool) (bool, error) {
		v, ok := get(k)
		if !ok {
			return def, nil
		}
		b, isBool := v.(bool)
		if !isBool {
			return false, fmt.Errorf("Field '%s': '%s' must be a boolean, got %s", name, k, typeName(v))
		}
		return b, nil
	}
	if f.repeats, err = boolKey("repeats", false); err != nil {
		return nil, err
	}
	if f.optional, err = boolKey("optional", true); err != nil {
		return nil, err
	}
	if j, ok := get("join"); ok {
		if !f.repeats {
			return nil, fmt.Errorf("Field '%s': 'join' requires 'repeats': true", name)
		}
		s, isStr := j.(string)
		if !isStr {
			return nil, fmt.Errorf("Field '%s': 'join' must be a string, got %s", name, typeName(j))
		}
		f.join = &s
	}
	if f.transformEach, err = boolKey("transform_each", false); err != nil {
		return nil, err
	}
	if tr, ok := get("transform"); ok {
		if err := checkTransform(name, tr); err != nil {
			return nil, err
		}
		f.transform = compileTransform(tr)
	} else if f.transformEach {
		return nil, fmt.Errorf("Field '%s': 'transform_each' requires 'transform'", name)
	}
	if f.transform == nil {
		var groups []string
		for _, d := range []*delim{f.open, f.close} {
			if d != nil && d.rx != nil {
				groups = append(groups, d.rx.namedGroups()...)
			}
		}
		if len(groups) > 0 {
			return nil, fmt.Errorf("Field '%s': open_pattern/close_pattern declares named group(s) ['%s'], but the field has no 'transform'. Named captures are only surfaced through a 'transform' template (where they appear alongside 'content'). Either add a 'transform' that uses the captures, or remove the named groups from the pattern.", name, strings.Join(groups, "', '"))
		}
	}
	return f, nil
}

// loadArgs reads the content parser's options. Options the parser does not
// know are kept as notes, as the reference ignores them.
func (t *Template) loadArgs(f *Field) error {
	known := map[string][]string{
		"text": {"strip"}, "int": {"strip"}, "float": {"strip"}, "bool": {"strip"},
		"json":       {"strip", "unquoted_keys", "string_delims", "allow_non_json"},
		"xml-inline": {"tag_pattern", "value_parser", "merge_duplicates", "strict"},
		"kv-lines":   {"line_sep", "kv_sep", "strip", "value_parser"},
	}[f.parser]
	for _, k := range f.args.Keys {
		if !contains(known, k) {
			t.Notes = append(t.Notes, fmt.Sprintf("field %q: content_args key %q is not an option of %s and is ignored", f.Name, k, f.parser))
		}
	}
	if s, ok := f.args.Get("strip"); ok {
		b, isBool := s.(bool)
		if !isBool {
			return fmt.Errorf("Field '%s': content_args 'strip' must be a boolean", f.Name)
		}
		f.strip = b
	}
	if err := checkJSONArgs(f.Name, f.args); err != nil && f.parser == "json" {
		return err
	}
	if f.parser == "xml-inline" {
		if tp, ok := f.args.Get("tag_pattern"); ok {
			s, isStr := tp.(string)
			if !isStr {
				return fmt.Errorf("Field '%s': 'tag_pattern' must be a string", f.Name)
			}
			r, err := compileRx(s, true)
			if err != nil {
				return fmt.Errorf("Field '%s': invalid 'tag_pattern': %v", f.Name, err)
			}
			t.Notes = append(t.Notes, r.notes...)
			f.tag = r
		}
	}
	if vp, ok := f.args.Get("value_parser"); ok && (f.parser == "xml-inline" || f.parser == "kv-lines") {
		o, isObj := vp.(*Object)
		if !isObj {
			return fmt.Errorf("Field '%s': 'value_parser' must be an object {\"name\", \"args\"}", f.Name)
		}
		p := &valueParser{args: NewObject()}
		if n, ok := o.Get("name"); ok {
			p.name, _ = n.(string)
		}
		if a, ok := o.Get("args"); ok {
			if ao, isObj := a.(*Object); isObj {
				p.args = ao
			}
		}
		if !contains(contentParsers, p.name) {
			// The reference fails only when a value is parsed.
			t.Notes = append(t.Notes, fmt.Sprintf("field %q: value_parser %q is not a content parser; every value will fail", f.Name, p.name))
		}
		f.valueParser = p
	}
	return nil
}

func checkJSONArgs(field string, args *Object) error {
	if sd, ok := args.Get("string_delims"); ok {
		l, isList := sd.([]any)
		if !isList {
			return fmt.Errorf("Field '%s': 'string_delims' must be a list of [open, close] pairs", field)
		}
		for _, p := range l {
			pair, isList := p.([]any)
			if !isList || len(pair) != 2 {
				return fmt.Errorf("Field '%s': 'string_delims' must be a list of [open, close] pairs", field)
			}
			for _, s := range pair {
				if str, isStr := s.(string); !isStr || str == "" {
					return fmt.Errorf("Field '%s': 'string_delims' entries must be non-empty strings", field)
				}
			}
		}
	}
	return nil
}

var (
	placeholderRe = regexp.MustCompile(`^\{(\w+(?:\.\w+)*)\}$`)
	anyPlaceRe    = regexp.MustCompile(`\{\w+(?:\.\w+)*\}`)
)

func checkTransform(field string, v any) error {
	switch v := v.(type) {
	case string:
		if !placeholderRe.MatchString(v) && anyPlaceRe.MatchString(v) {
			return fmt.Errorf("Field '%s': transform string '%s' mixes a {placeholder} with literal text. Use either a whole-string placeholder (e.g. \"{content}\") or a plain literal; string interpolation is not supported.", field, v)
		}
	case *Object:
		for _, k := range v.Keys {
			if err := checkTransform(field, v.Val(k)); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := checkTransform(field, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
