package grammar

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"unsafe"
)

// Member is one declared property of an object schema, for tool-call formats that write each argument in
// markup of its own (<parameter=city>Paris</parameter>) instead of one JSON object.
type Member struct {
	Name     string
	Required bool
	// Type is the property's JSON type when the schema names one ("string", "integer", "number",
	// "boolean", "null", "object", "array"); "" when it names none or several.
	Type string
	// Enum holds the allowed values when the property is a string enum or const; the format writes them
	// as raw text.
	Enum []string
	// Value is the rule matching the property's value written as JSON; empty for a string enum or const
	// (Enum), which formats write as raw text.
	Value string
	// Properties are the declared members of an object-typed property (nested as deep as
	// maxMemberDepth), for formats that write nested objects in a syntax of their own; nil when the
	// schema declares none, and from AddMembers and Converter.Members (only NestedMembers fills them).
	Properties []Member
	// Items describes the elements of an array-typed property whose schema has "items" (Name empty,
	// Required true), from NestedMembers; nil otherwise.
	Items *Member
}

// AddMembers adds to g a rule for the JSON value of each declared property of an object schema and
// returns the properties in the schema's order (a required property missing from "properties" comes
// after them). $ref inside the schema is followed, also for the object itself. Warnings are AddSchema's.
func AddMembers(g *Grammar, prefix string, schema json.RawMessage, opts Options) ([]Member, []string, error) {
	return newSchemaGen(g, opts).addMembers(prefix, schema)
}

// Converter adds JSON Schemas to one grammar, as AddSchema and AddMembers do, keeping its working
// buffers from one schema to the next: the way to add many (a tool set's). Not safe for concurrent use.
type Converter struct{ sg *schemaGen }

// NewConverter returns a converter adding to g with the options.
func NewConverter(g *Grammar, opts Options) *Converter { return &Converter{newSchemaGen(g, opts)} }

// Reset empties the converter's grammar (Grammar.Reset) and sets the options for the schemas added
// next. The converter keeps its buffers: the way to build one grammar after another without growing
// them anew each time. Members returned before are no longer valid.
func (c *Converter) Reset(opts Options) {
	c.sg.g.Reset()
	*c.sg = schemaGen{
		g: c.sg.g, opts: newSchemaGen(nil, opts).opts,
		scratch: c.sg.scratch[:0], text: c.sg.text[:0], members: c.sg.members[:0],
		held: c.sg.held[:0], names: c.sg.names[:0], slab: c.sg.slab[:0],
		kept: c.sg.kept, // appended to, never written over: what keep returned stays as it was
	}
}

// Add is AddSchema.
func (c *Converter) Add(prefix string, schema json.RawMessage) (rule string, warnings []string, err error) {
	return c.sg.add(prefix, schema)
}

// Members is AddMembers. The members share memory that the converter reuses: they are valid until its
// next Members or NestedMembers call.
func (c *Converter) Members(prefix string, schema json.RawMessage) ([]Member, []string, error) {
	c.sg.nested = false
	return c.sg.addMembers(prefix, schema)
}

// NestedMembers is AddMembers that also describes nested values: each object-typed member's declared
// properties and each array-typed member's items (Member.Properties, Member.Items), with value rules of
// their own, for formats that write nested objects and arrays in a syntax of their own. They are valid
// until the next Members or NestedMembers call, as Members'.
func (c *Converter) NestedMembers(prefix string, schema json.RawMessage) ([]Member, []string, error) {
	c.sg.nested = true
	defer func() { c.sg.nested = false }()
	return c.sg.addMembers(prefix, schema)
}

func (sg *schemaGen) addMembers(prefix string, schema json.RawMessage) ([]Member, []string, error) {
	if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
		return nil, nil, nil
	}
	if err := sg.stopped(); err != nil {
		return nil, nil, err
	}
	r, doc, err := readSchema(schema)
	if err != nil {
		return nil, nil, schemaReadError(err)
	}
	defer r.release()
	sg.slab = sg.slab[:0] // the previous schema's members end here (Converter.Members)
	sg.start(doc, prefix)
	sg.top = sg.prefix // a "#" reference inside a property means the whole arguments object
	obj := sg.deref(doc)
	if obj == nil || obj.kind != jObject {
		return nil, nil, nil
	}
	out, err := sg.properties(obj, sg.prefix, 0)
	if err != nil {
		return nil, sg.warningsOut(), err
	}
	if bytes.Contains(schema, []byte(`"#"`)) && !sg.g.Has(sg.top) {
		// A property refers to the whole arguments object: give it its rule.
		top := sg.g.alloc(sg.top)
		e, err := sg.expr(doc, top)
		if err != nil {
			return nil, sg.warningsOut(), err
		}
		sg.rule(top, e.text)
	}
	if err := sg.overBytes(); err != nil {
		return nil, sg.warningsOut(), err
	}
	return out, sg.warningsOut(), nil
}

// maxMemberDepth bounds how deep Properties and Items describe nested values
// (recursive schemas would otherwise not end).
const maxMemberDepth = 8

// properties are the declared members of the object schema obj, in its order
// (a required property missing from "properties" after them), their value
// rules named after hint.
func (sg *schemaGen) properties(obj *jvalue, hint string, depth int) ([]Member, error) {
	order, namesMark := sg.requiredNames(obj)
	defer func() { sg.names = sg.names[:namesMark] }()
	props := obj.get("properties")
	if props != nil && props.kind != jObject {
		props = nil
	}
	var keys []string
	if props != nil {
		keys = props.keys
	}
	out := sg.memberSlice(len(keys) + len(order))
	required := newNameSet(order)
	for i, key := range keys {
		if props.firstPlace(key) != i {
			continue // a repeated key: the first place, the last schema (as get reads it, and objects do)
		}
		m, err := sg.property(key, props.get(key), required.has(key), hint, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	for _, key := range order {
		if props.get(key) == nil {
			m, err := sg.property(key, nil, true, hint, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// memberSlice is an empty slice with room for n members, carved from a slab
// the generator keeps and reuses from one schema to the next.
func (sg *schemaGen) memberSlice(n int) []Member {
	if n > cap(sg.slab)-len(sg.slab) {
		sg.slab = make([]Member, 0, max(n, 2*cap(sg.slab), 16))
	}
	start := len(sg.slab)
	sg.slab = sg.slab[:start+n]
	return sg.slab[start : start : start+n]
}

// property is member for the declared property key of an object whose
// value rules are named after hint, with its place in the schema path.
func (sg *schemaGen) property(key string, s *jvalue, required bool, hint string, depth int) (Member, error) {
	sg.push("properties", key)
	m, err := sg.member(key, s, required, hint, key, depth)
	sg.pop(2)
	return m, err
}

// member describes the value schema s of the member key: its JSON value rule
// (named hint-suffix, made only when a rule of its own is needed), its type
// and string enum. Described nested (Converter.NestedMembers), an object
// with declared properties and an array with an items schema get their
// nested members instead of a JSON rule: the formats that ask write them in
// a syntax of their own, member by member.
func (sg *schemaGen) member(key string, s *jvalue, required bool, hint, suffix string, depth int) (Member, error) {
	if err := sg.step(); err != nil {
		return Member{}, err
	}
	rule, ok := sg.scalar(s)
	if ok {
		m := Member{Name: sg.keep(key), Required: required, Value: rule}
		var err error
		m.Type, m.Enum, err = sg.memberType(s)
		return m, err
	}
	m := Member{Name: sg.keep(key), Required: required}
	var err error
	if m.Type, m.Enum, err = sg.memberType(s); err != nil || m.Enum != nil {
		return m, err // formats write a string enum's values as raw text
	}
	name := joinName(hint, suffix)
	if sg.nested && depth+1 < maxMemberDepth {
		switch d := sg.deref(s); {
		case m.Type == "object" && hasKeys(d.get("properties")):
			sg.warnNestedKeywords(d)
			props, err := sg.properties(d, name, depth+1)
			if err != nil {
				return Member{}, err
			}
			m.Properties = props
			return m, nil
		case m.Type == "array" && d.get("items") != nil && d.get("items").kind == jObject:
			sg.warnNestedKeywords(d)
			sg.push("items")
			it, err := sg.member("", d.get("items"), true, name, "item", depth+1)
			sg.pop(1)
			if err != nil {
				return Member{}, err
			}
			m.Items = &it
			return m, nil
		}
	}
	if m.Value, err = sg.valueAtom(s, name); err != nil {
		return Member{}, err
	}
	return m, nil
}

func hasKeys(v *jvalue) bool { return v != nil && v.kind == jObject && len(v.keys) > 0 }

// warnNestedKeywords warns about the keywords of an object or array schema
// that a nested description does not carry: what a format writing the
// members one by one cannot enforce (an array's length, further object
// members, …).
func (sg *schemaGen) warnNestedKeywords(s *jvalue) {
	for i, k := range s.keys {
		switch k {
		case "type", "properties", "required", "items", "description", "title", "default", "examples",
			"$comment", "deprecated", "$ref", "$defs", "definitions", "$schema", "$id":
		case "additionalProperties":
			if s.vals[i].kind != jFalse {
				sg.warn("additionalProperties not enforced: only the declared properties can be written")
			}
		default:
			sg.warn("keyword %q not enforced", k)
		}
	}
}

// deref follows $ref from s until it reaches a schema that is not a reference.
func (sg *schemaGen) deref(s *jvalue) *jvalue {
	for i := 0; i < 32 && s != nil && s.kind == jObject; i++ {
		ref := s.get("$ref")
		if ref == nil || ref.kind != jString {
			return s
		}
		s = sg.resolve(ref.str)
	}
	return s
}

// memberType reads a property schema's single JSON type and its string enum, if any. The enum's values
// count as grammar text (the formats write them), and an enum of more than MaxEnum values is an error.
func (sg *schemaGen) memberType(s *jvalue) (string, []string, error) {
	s = sg.deref(s)
	if s == nil || s.kind != jObject {
		return "", nil, nil
	}
	var enum []string
	if c := s.get("const"); c != nil {
		if c.kind != jString {
			return "", nil, nil
		}
		sg.grow(len(c.str))
		return "string", []string{sg.keep(c.str)}, nil
	}
	if e := s.get("enum"); e != nil && e.kind == jArray {
		for _, v := range e.vals {
			if v.kind != jString {
				return "", nil, nil
			}
		}
		if len(e.vals) > sg.opts.MaxEnum {
			return "", nil, sg.limit(LimitEnum, sg.opts.MaxEnum, "enum of %d values", len(e.vals))
		}
		enum = make([]string, 0, len(e.vals))
		for _, v := range e.vals {
			sg.grow(len(v.str) + 5)
			enum = append(enum, sg.keep(v.str))
		}
		if err := sg.overBytes(); err != nil {
			return "", nil, err
		}
		return "string", enum, nil
	}
	t := s.get("type")
	if t == nil {
		return "", nil, nil
	}
	var names []string
	switch t.kind {
	case jString:
		names = []string{t.str}
	case jArray:
		for _, v := range t.vals {
			if v.kind == jString && v.str != "null" {
				names = append(names, v.str)
			}
		}
	}
	if len(names) != 1 {
		return "", nil, nil
	}
	name := names[0]
	if alias, ok := typeAliases[name]; ok {
		return alias, nil, nil
	}
	switch name { // JSON Schema's names as constants, the others copied (keep)
	case "string":
		return "string", nil, nil
	case "integer":
		return "integer", nil, nil
	case "number":
		return "number", nil, nil
	case "boolean":
		return "boolean", nil, nil
	case "null":
		return "null", nil, nil
	case "object":
		return "object", nil, nil
	case "array":
		return "array", nil, nil
	}
	return sg.keep(name), nil, nil
}

// keep copies a string of the schema's tree that outlives the conversion
// (readSchema), into chunks of memory that are never written again.
func (sg *schemaGen) keep(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > cap(sg.kept)-len(sg.kept) {
		sg.kept = make([]byte, 0, max(len(s), 1024))
	}
	start := len(sg.kept)
	sg.kept = append(sg.kept, s...)
	return unsafe.String(&sg.kept[start], len(s))
}

// TextWithout returns the rule matching text that does not contain stop: the raw text of a value that
// stop ends (</parameter>), which may itself end with the start of stop ("a <" before "</parameter>": the
// value still ends where stop first occurs). The rule is added once per stop. When stop's first character
// recurs in it ("]]>"), the rule is stricter than that, never looser: it refuses any character of stop
// right after a run of stop's start, and a text ending with the start of stop.
func (g *Grammar) TextWithout(stop string) string {
	if name, ok := g.textWithout[stop]; ok {
		return name
	}
	if g.textWithout == nil {
		g.textWithout = make(map[string]string)
	}
	name := g.alloc("text")
	g.textWithout[stop] = name
	g.Rule(name, textWithoutExpr(stop))
	return name
}

// textWithoutExprs keeps TextWithout's expressions by stop: a family's few
// stops come back in every grammar. Bounded, as stops may come from callers.
var textWithoutExprs struct {
	sync.Mutex
	m map[string]string
}

const maxTextWithoutExprs = 256

// textWithoutExpr is TextWithout's expression for stop.
func textWithoutExpr(stop string) string {
	textWithoutExprs.Lock()
	e, ok := textWithoutExprs.m[stop]
	textWithoutExprs.Unlock()
	if ok {
		return e
	}
	e = buildTextWithout(stop)
	textWithoutExprs.Lock()
	if textWithoutExprs.m == nil {
		textWithoutExprs.m = make(map[string]string)
	}
	if len(textWithoutExprs.m) < maxTextWithoutExprs {
		textWithoutExprs.m[strings.Clone(stop)] = e
	}
	textWithoutExprs.Unlock()
	return e
}

func buildTextWithout(stop string) string {
	rs := []rune(stop)
	if len(rs) == 0 {
		return ".*"
	}
	first := rs[0]
	recurs := false // the first character occurs again in stop ("]]>")
	for _, r := range rs[1:] {
		recurs = recurs || r == first
	}
	// Each piece of the text ends where no part of stop can have begun: a character other than the first,
	// or the first k characters of stop (the first repeated: "<<" in code) and one that neither continues
	// them nor starts stop again. When the first character recurs, first+ may swallow characters of stop
	// itself, so the character that ends such a piece is none of stop's.
	ends := []Range{{first, first}}
	if recurs {
		ends = ends[:0]
		for _, r := range rs {
			ends = append(ends, Range{r, r})
		}
	}
	alts := []string{Class(true, Range{first, first})}
	for k := 1; k < len(rs); k++ {
		var b strings.Builder
		b.WriteString(Literal(string(first)))
		b.WriteString("+")
		if k > 1 {
			b.WriteString(" ")
			b.WriteString(Literal(string(rs[1:k])))
		}
		b.WriteString(" ")
		b.WriteString(Class(true, append([]Range{{rs[k], rs[k]}}, ends...)...))
		alts = append(alts, b.String())
	}
	if recurs || len(rs) < 3 {
		return "(" + strings.Join(alts, " | ") + ")*"
	}
	// The first character occurs once in stop: a partial stop (first+ and at least its second character)
	// may also be followed by the first character again, starting a piece of its own ("</<b>" for </p>),
	// and the text may end with one, or with a run of the first character ("a <" before "</parameter>":
	// the value still ends where stop first occurs). Each such partial holds a character after the run
	// of the first, so a text splits into pieces one way only.
	var partials []string
	for k := 2; k < len(rs); k++ {
		partials = append(partials, Literal(string(rs[1:k])))
	}
	partial := "(" + Literal(string(first)) + "+ (" + strings.Join(partials, " | ") + "))"
	restart := "(" + partial + "* (" + strings.Join(alts[1:], " | ") + "))"
	return "(" + alts[0] + " | " + restart + ")* " + partial + "* (" + Literal(string(first)) + "+)?"
}

// PrefixRule is Prefix for the language of the named rule instead of root.
func (g *Grammar) PrefixRule(rule, s string) bool {
	return g.recognise(rule, s, true)
}

// JSONWhitespace returns the whitespace rule JSON values use between tokens under opts ("" for compact
// JSON), adding it if the grammar has none yet.
func (g *Grammar) JSONWhitespace(opts Options) string {
	return (&schemaGen{g: g, opts: opts}).ws()
}

// Add adds a rule with the expression expr under a name based on base that the grammar does not use yet,
// and returns that name.
func (g *Grammar) Add(base, expr string) string {
	name := g.alloc(base)
	g.Rule(name, expr)
	return name
}
