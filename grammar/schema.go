package grammar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Whitespace says what whitespace a generated grammar allows between JSON tokens.
type Whitespace uint8

const (
	// WhitespaceBounded (the default) allows, between any two JSON tokens, nothing, one space, or one
	// newline followed by at most MaxIndent spaces or tabs: enough for compact JSON, JSON with ", " and
	// ": ", and pretty-printed JSON up to ten levels deep at four spaces, while a model cannot fill its
	// output with whitespace (runs of blank lines, endless spaces), which unbounded whitespace invites.
	WhitespaceBounded Whitespace = iota
	// WhitespaceCompact allows no whitespace at all between tokens.
	WhitespaceCompact
	// WhitespaceSpace allows at most one space between tokens: the layout of
	// JSON written on one line with ", " and ": " (Python's json.dumps, and so
	// most chat templates' tojson), and nothing a model could fill.
	WhitespaceSpace
)

// MaxIndent is the most spaces or tabs WhitespaceBounded allows after a newline.
const MaxIndent = 40

// DefaultMaxRepetition is the largest length or item-count bound written into a grammar when
// Options.MaxRepetition is zero. llama.cpp expands a bounded repetition into one rule per optional
// occurrence and refuses counts above 2000, so larger bounds are dropped (with a warning) rather than
// written.
const DefaultMaxRepetition = 1000

// Options tune JSON-Schema conversion.
type Options struct {
	Whitespace Whitespace
	// MaxRepetition caps minLength, maxLength, minItems and maxItems: a bound above it is not enforced
	// (a minimum becomes MaxRepetition, a maximum is dropped) and a warning says so. 0 means
	// DefaultMaxRepetition.
	MaxRepetition int
	// MaxDepth, MaxEnum, MaxNodes and MaxBytes bound a conversion (0: DefaultMaxDepth,
	// DefaultMaxEnum, DefaultMaxNodes, DefaultMaxBytes): schemas nested deeper, an enum of more values,
	// more schemas and members to convert, or more grammar text are refused with a *LimitError. A
	// build is one FromJSONSchema or AddSchema call, one Tools call (all its tools together), or a
	// Converter's schemas from its making or its last Reset.
	MaxDepth, MaxEnum, MaxNodes, MaxBytes int
}

// Digit bounds of the number and integer rules, so that a model cannot write digits forever. They admit
// every number encoding/json writes for a float64 (up to 21 integer digits, 24 fraction digits, 3
// exponent digits) and every int64 and uint64.
const (
	maxIntDigits      = 21
	maxFractionDigits = 24
	maxExponentDigits = 3
	maxIntegerDigits  = 20
)

// FromJSONSchema converts a JSON Schema into a grammar whose root rule matches the JSON values the schema
// accepts (see AddSchema for what is supported). The warnings name what the grammar does not enforce.
func FromJSONSchema(schema json.RawMessage, opts Options) (*Grammar, []string, error) {
	return fromJSONSchema(nil, schema, opts)
}

// fromJSONSchema is FromJSONSchema under ctx (nil: never done).
func fromJSONSchema(ctx context.Context, schema json.RawMessage, opts Options) (*Grammar, []string, error) {
	g := New()
	sg := newSchemaGen(g, opts)
	sg.ctx = ctx
	_, warnings, err := sg.add("root", schema)
	if err != nil {
		return nil, warnings, err
	}
	return g, warnings, nil
}

// AddSchema adds to g the rules for the JSON values a JSON Schema accepts and returns the name of the
// rule that matches them: prefix itself if g has no rule of that name yet. Every other rule it adds is
// named prefix-…, except the shared JSON rules (ws, string, number, …), which several schemas in one
// grammar use together; a name already taken gets a numeric suffix, so several schemas can live in one
// grammar.
//
// Supported: type (one or a list; also the non-standard dict, float, int, bool, tuple, list, str, any),
// properties in the schema's order with required ones required and optional ones optional,
// additionalProperties (false: none; true or a schema: any number of further members after the declared
// ones; absent: none when the schema has "properties", even an empty one, so {"type":"object",
// "properties":{}} is the empty object, and any member when it has neither "properties" nor "required",
// so {"type":"object"} is a free-form object), enum and const of any JSON value (written as compact JSON, exactly), string with
// minLength and maxLength (counted in JSON characters: an escape sequence is one), number, integer (no
// fraction or exponent), boolean, null, array with items, minItems and maxItems, nested objects,
// anyOf and oneOf (as alternatives; oneOf's exclusivity is not enforced), allOf (object members merged),
// nullable, and $ref to any JSON pointer inside the schema (#/$defs/…, #/definitions/…, #), recursion
// included. Annotations (description, title, default, examples, …) are ignored; other keywords (pattern,
// format, minimum, maximum, multipleOf, uniqueItems, prefixItems, not, if/then/else, …) are not
// enforced and each gives a warning with its JSON pointer (the first maxWarnings of them; a last one
// counts the others). An error is returned for a schema that is not JSON or that no value can satisfy
// (an empty enum, false, maxItems below minItems, …: a *SchemaError), and for one past the options'
// bounds (a *LimitError); g may then hold some of the rules and should be discarded.
func AddSchema(g *Grammar, prefix string, schema json.RawMessage, opts Options) (rule string, warnings []string, err error) {
	return newSchemaGen(g, opts).add(prefix, schema)
}

// anySchema is the schema true, for an empty one (read only).
var anySchema = jvalue{kind: jTrue}

func newSchemaGen(g *Grammar, opts Options) *schemaGen {
	return &schemaGen{g: g, opts: opts.limited()}
}

// add is AddSchema with this generator; a generator adds one schema at a time and keeps its buffers
// for the next.
func (sg *schemaGen) add(prefix string, schema json.RawMessage) (rule string, warnings []string, err error) {
	if err := sg.stopped(); err != nil {
		return "", nil, err
	}
	doc := &anySchema
	if len(bytes.TrimSpace(schema)) > 0 {
		r, d, err := readSchema(schema)
		if err != nil {
			return "", nil, schemaReadError(err)
		}
		defer r.release()
		doc = d
	}
	sg.start(doc, prefix)
	top := sg.g.alloc(sg.prefix)
	sg.top = top
	e, err := sg.expr(doc, top)
	if err != nil {
		return "", sg.warningsOut(), err
	}
	sg.rule(top, e.text)
	if err := sg.overBytes(); err != nil {
		return "", sg.warningsOut(), err
	}
	return top, sg.warningsOut(), nil
}

// schemaReadError is the error for a schema the JSON reader refused: a *LimitError as it is, others
// wrapped.
func schemaReadError(err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("grammar: schema: %w", err)
}

// start readies the generator for the schema doc, whose rules are named after prefix.
func (sg *schemaGen) start(doc *jvalue, prefix string) {
	sg.doc, sg.prefix, sg.top = doc, sanitizeName(cutName(prefix)), ""
	sg.refs, sg.warnings, sg.depth, sg.dropped = nil, nil, 0, 0
	sg.path = sg.pathBuf[:0]
}

// warningsOut are the schema's warnings, with the count of those not kept.
func (sg *schemaGen) warningsOut() []string {
	if sg.dropped > 0 {
		sg.warnings = append(sg.warnings, strconv.Itoa(sg.dropped)+" more warnings not shown")
		sg.dropped = 0
	}
	return sg.warnings
}

// SchemaError is a schema no JSON value satisfies, or one the converter cannot read; Path is the JSON
// pointer of the offending schema.
type SchemaError struct {
	Path string
	Msg  string
}

func (e *SchemaError) Error() string {
	return "grammar: schema at " + e.Path + ": " + e.Msg
}

type schemaGen struct {
	g        *Grammar
	opts     Options
	doc      *jvalue
	prefix   string
	top      string
	refs     map[string]string // $ref → rule, made when the first $ref is met
	path     []string
	warnings []string
	depth    int
	scratch  []byte
	text     []byte   // where an object's text is built before it is made a string
	members  []byte   // the members' texts of the objects being built, innermost last
	held     []member // those objects' members, likewise
	pathBuf  [16]string
	names    []string // requiredNames' stack
	slab     []Member // memberSlice's
	kept     []byte   // keep's current chunk
	nested   bool     // members describe nested values too (Converter.NestedMembers)
	dropped  int      // warnings not kept (maxWarnings)
	// The build's progress, for its bounds: schema nodes converted and bytes of grammar text written
	// since the generator was made (or its Converter reset), and the context that stops it (nil: none).
	nodes, size int
	ctx         context.Context
}

// An expression under construction: its text and its shape, which decides whether it needs parentheses
// where it is used.
type expr struct {
	text string
	kind exprKind
}

type exprKind uint8

const (
	kAtom exprKind = iota // one element: a rule name, a literal, a class, a parenthesised group
	kSeq                  // elements in sequence
	kAlt                  // alternatives
)

func atom(s string) expr { return expr{s, kAtom} }

// Seq joins the non-empty parts with single spaces: GBNF expressions in
// sequence, which the caller has put in parentheses where they hold
// alternatives.
func Seq(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

func seqExpr(parts ...string) expr {
	n := 0
	for _, p := range parts {
		if p != "" {
			n++
		}
	}
	if n == 1 {
		return expr{Seq(parts...), kAtom}
	}
	return expr{Seq(parts...), kSeq}
}

// alts joins alternatives, flattening nested alternations.
func alts(es []expr) expr {
	if len(es) == 1 {
		return es[0]
	}
	n := 0
	for _, e := range es {
		n += len(e.text) + 3
	}
	var b strings.Builder
	b.Grow(n)
	for i, e := range es {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(e.text)
	}
	return expr{b.String(), kAlt}
}

// pointer is the JSON pointer of the schema being converted ("/" for the whole), each segment cut to
// maxPathSegment bytes.
func (sg *schemaGen) pointer() string {
	if len(sg.path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range sg.path {
		b.WriteByte('/')
		if len(p) > maxPathSegment {
			cut := maxPathSegment
			for cut > 0 && !utf8.RuneStart(p[cut]) {
				cut--
			}
			p = p[:cut] + "…"
		}
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (sg *schemaGen) warn(format string, args ...any) {
	if len(sg.warnings) >= maxWarnings {
		sg.dropped++
		return
	}
	sg.warnings = append(sg.warnings, sg.pointer()+": "+fmt.Sprintf(format, args...))
}

func (sg *schemaGen) fail(format string, args ...any) error {
	return &SchemaError{Path: sg.pointer(), Msg: fmt.Sprintf(format, args...)}
}

func (sg *schemaGen) push(segs ...string) { sg.path = append(sg.path, segs...) }
func (sg *schemaGen) pop(n int)           { sg.path = sg.path[:len(sg.path)-n] }

// ws is the whitespace rule's name, or "" when no whitespace is allowed.
func (sg *schemaGen) ws() string {
	switch sg.opts.Whitespace {
	case WhitespaceCompact:
		return ""
	case WhitespaceSpace:
		return sg.shared("ws-space", "ws", func() string { return wsSpaceDef })
	}
	return sg.shared("ws", "ws", func() string { return wsDef })
}

// The shared rules that use no other rule, written once.
var (
	wsSpaceDef = Literal(" ") + "?"
	wsDef      = Repeat("("+Literal(" ")+" | "+Literal("\n")+" "+
		Repeat(Class(false, Range{' ', ' '}, Range{'\t', '\t'}), 0, MaxIndent)+")", 0, 1)
	charDef = Class(true, Range{'"', '"'}, Range{'\\', '\\'}, Range{0, 0x1f}) + " | " + Literal(`\`) + " (" +
		Class(false, Range{'"', '"'}, Range{'\\', '\\'}, Range{'/', '/'}, Range{'b', 'b'},
			Range{'f', 'f'}, Range{'n', 'n'}, Range{'r', 'r'}, Range{'t', 't'}) + " | " + Literal("u") + " " +
		Repeat(Class(false, Range{'0', '9'}, Range{'a', 'f'}, Range{'A', 'F'}), 4, 4) + ")"
	integerDef = Seq(Repeat(Literal("-"), 0, 1),
		"("+Literal("0")+" | "+digitsRule(true)+" "+Repeat(digitsRule(false), 0, maxIntegerDigits-1)+")")
	numberDef = Seq(Repeat(Literal("-"), 0, 1),
		"("+Literal("0")+" | "+digitsRule(true)+" "+Repeat(digitsRule(false), 0, maxIntDigits-1)+")",
		Repeat("("+Literal(".")+" "+Repeat(digitsRule(false), 1, maxFractionDigits)+")", 0, 1),
		Repeat("("+Class(false, Range{'e', 'e'}, Range{'E', 'E'})+" "+
			Repeat(Class(false, Range{'-', '-'}, Range{'+', '+'}), 0, 1)+" "+
			Repeat(digitsRule(false), 1, maxExponentDigits)+")", 0, 1))
	booleanDef = Literal("true") + " | " + Literal("false")
	nullDef    = Literal("null")
)

// shared returns the rule for key, adding it (named after base, defined by def) the first time a
// grammar needs it.
func (sg *schemaGen) shared(key, base string, def func() string) string {
	if sg.g.shared == nil {
		sg.g.shared = make(map[string]string)
	}
	if name, ok := sg.g.shared[key]; ok {
		return name
	}
	name := sg.g.alloc(base)
	sg.g.shared[key] = name
	sg.g.Rule(name, def())
	return name
}

func (sg *schemaGen) char() string {
	return sg.shared("char", "char", func() string { return charDef })
}

func (sg *schemaGen) stringRule(min, max int) string {
	if min == 0 && max < 0 {
		return sg.shared("string", "string", func() string {
			return Seq(Literal(`"`), Repeat(sg.char(), 0, -1), Literal(`"`))
		})
	}
	key := "string{" + strconv.Itoa(min) + "," + strconv.Itoa(max) + "}"
	base := "string-" + strconv.Itoa(min) + "-"
	if max >= 0 {
		base += strconv.Itoa(max)
	}
	return sg.shared(key, base, func() string {
		return Seq(Literal(`"`), Repeat(sg.char(), min, max), Literal(`"`))
	})
}

func digitsRule(first bool) string {
	if first {
		return Class(false, Range{'1', '9'})
	}
	return Class(false, Range{'0', '9'})
}

func (sg *schemaGen) integerRule() string {
	return sg.shared("integer", "integer", func() string { return integerDef })
}

func (sg *schemaGen) numberRule() string {
	return sg.shared("number", "number", func() string { return numberDef })
}

func (sg *schemaGen) booleanRule() string {
	return sg.shared("boolean", "boolean", func() string { return booleanDef })
}

func (sg *schemaGen) nullRule() string {
	return sg.shared("null", "null", func() string { return nullDef })
}

// valueRule is any JSON value; objectRule and arrayRule any object and any array.
func (sg *schemaGen) valueRule() string {
	if name, ok := sg.g.shared["value"]; ok {
		return name
	}
	name := sg.shared("value", "value", func() string { return "" })
	obj, arr := sg.objectRule(), sg.arrayRule()
	sg.g.Rule(name, strings.Join([]string{obj, arr, sg.stringRule(0, -1), sg.numberRule(), sg.booleanRule(), sg.nullRule()}, " | "))
	return name
}

func (sg *schemaGen) objectRule() string {
	if name, ok := sg.g.shared["object"]; ok {
		return name
	}
	name := sg.shared("object", "object", func() string { return "" })
	ws, str, val := sg.ws(), sg.stringRule(0, -1), sg.valueRule()
	member := Seq(str, ws, Literal(":"), ws, val, ws)
	sg.g.Rule(name, Seq(Literal("{"), ws, Repeat("("+Seq(member, Repeat("("+Seq(Literal(","), ws, member)+")", 0, -1))+")", 0, 1), Literal("}")))
	return name
}

func (sg *schemaGen) arrayRule() string {
	if name, ok := sg.g.shared["array"]; ok {
		return name
	}
	name := sg.shared("array", "array", func() string { return "" })
	ws, val := sg.ws(), sg.valueRule()
	sg.g.Rule(name, Seq(Literal("["), ws, Repeat("("+Seq(val, ws, Repeat("("+Seq(Literal(","), ws, val, ws)+")", 0, -1))+")", 0, 1), Literal("]")))
	return name
}

// enum is the alternation of the values' literals, each value once, in their order.
func (sg *schemaGen) enum(vals []*jvalue) (expr, error) {
	if len(vals) > sg.opts.MaxEnum {
		return expr{}, sg.limit(LimitEnum, sg.opts.MaxEnum, "enum of %d values", len(vals))
	}
	// Each literal is written after the alternation so far in sg.text; one already there is dropped.
	// The first few are compared one by one; past them, the literals written are kept in a set, whose
	// keys are the literals' bytes in b: those bytes are never written again while the set is used
	// (what follows them is only appended, and a grown b leaves the old bytes as they were).
	b := sg.text[:0]
	var lits [16][2]int // the first literals' places, to find repeats without a map
	var seen map[string]struct{}
	n := 0
	for k, v := range vals {
		if k%4096 == 4095 {
			if err := sg.stopped(); err != nil {
				return expr{}, err
			}
			if sg.size+len(b) > sg.opts.MaxBytes {
				sg.grow(len(b))
				return expr{}, sg.overBytes()
			}
		}
		sep := len(b)
		if n > 0 {
			b = append(b, " | "...)
		}
		start := len(b)
		sg.scratch = appendJSON(sg.scratch[:0], v)
		b = append(b, '"')
		b = appendLiteralBody(b, sg.scratch)
		b = append(b, '"')
		lit := b[start:]
		repeat := false
		if n < len(lits) {
			for _, l := range lits[:n] {
				if string(b[l[0]:l[1]]) == string(lit) {
					repeat = true
					break
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, len(vals)-k+len(lits))
				for _, l := range lits {
					seen[unsafe.String(&b[l[0]], l[1]-l[0])] = struct{}{}
				}
			}
			_, repeat = seen[unsafe.String(&lit[0], len(lit))]
		}
		if repeat {
			b = b[:sep]
			continue
		}
		if n < len(lits) {
			lits[n] = [2]int{start, len(b)}
		} else {
			seen[unsafe.String(&b[start], len(b)-start)] = struct{}{}
		}
		n++
	}
	sg.text = b
	sg.grow(len(b))
	if n == 1 {
		return atom(string(b)), nil
	}
	return expr{string(b), kAlt}, nil
}

// jsonLiteral is the GBNF literal for v written as compact JSON.
func (sg *schemaGen) jsonLiteral(v *jvalue) string {
	sg.scratch = appendJSON(sg.scratch[:0], v)
	n := len(sg.scratch)
	sg.scratch = append(sg.scratch, '"')
	// The literal is written after the JSON in the same buffer; the JSON part is only read.
	sg.scratch = appendLiteralBody(sg.scratch, sg.scratch[:n])
	sg.scratch = append(sg.scratch, '"')
	sg.grow(len(sg.scratch) - n)
	return string(sg.scratch[n:])
}

// knownKeyword reports whether the converter reads the keyword or ignores it as an annotation.
func knownKeyword(k string) bool {
	switch k {
	case "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
		"minLength", "maxLength", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "$defs",
		"definitions", "nullable":
		return true
	}
	return annotation(k)
}

// annotation reports whether the keyword is one the converter ignores.
func annotation(k string) bool {
	switch k {
	case "description", "title", "default", "examples", "example", "$schema", "$id", "id", "$comment",
		"deprecated", "readOnly", "writeOnly", "$anchor", "contentMediaType", "contentEncoding", "strict":
		return true
	}
	return false
}

// typeAliases are non-standard type names seen in the wild (BFCL's Python-flavoured ones among them).
var typeAliases = map[string]string{
	"dict": "object", "float": "number", "double": "number", "int": "integer", "bool": "boolean",
	"tuple": "array", "list": "array", "str": "string", "any": "",
}

func (sg *schemaGen) expr(s *jvalue, hint string) (expr, error) {
	sg.depth++
	defer func() { sg.depth-- }()
	if sg.depth > sg.opts.MaxDepth {
		return expr{}, sg.limit(LimitDepth, sg.opts.MaxDepth, "schemas nested more than %d deep", sg.opts.MaxDepth)
	}
	if err := sg.step(); err != nil {
		return expr{}, err
	}
	switch {
	case s == nil || s.kind == jTrue:
		return atom(sg.valueRule()), nil
	case s.kind == jFalse:
		return expr{}, sg.fail("schema false admits no value")
	case s.kind != jObject:
		sg.warn("schema is not an object; any value accepted")
		return atom(sg.valueRule()), nil
	}
	for _, k := range s.keys {
		if !knownKeyword(k) {
			sg.warn("keyword %q not enforced", k)
		}
	}
	if ref := s.get("$ref"); ref != nil {
		if ref.kind != jString {
			return expr{}, sg.fail("$ref is not a string")
		}
		return sg.ref(ref.str)
	}
	if c := s.get("const"); c != nil {
		return atom(sg.jsonLiteral(c)), nil
	}
	if e := s.get("enum"); e != nil {
		if e.kind != jArray || len(e.vals) == 0 {
			return expr{}, sg.fail("enum is not a non-empty array")
		}
		e, err := sg.enum(e.vals)
		if err != nil {
			return expr{}, err
		}
		return sg.nullable(s, e), nil
	}
	for _, kw := range [...]string{"anyOf", "oneOf"} {
		if a := s.get(kw); a != nil {
			if a.kind != jArray || len(a.vals) == 0 {
				return expr{}, sg.fail("%s is not a non-empty array", kw)
			}
			for _, k := range [...]string{"properties", "items", "type"} {
				if s.get(k) != nil {
					sg.warn("%q beside %s ignored", k, kw)
				}
			}
			var es []expr
			for i, b := range a.vals {
				sg.push(kw, strconv.Itoa(i))
				e, err := sg.expr(b, hint+"-"+strconv.Itoa(i))
				sg.pop(2)
				if err != nil {
					return expr{}, err
				}
				es = append(es, e)
			}
			e := alts(es)
			sg.grow(len(e.text))
			if err := sg.overBytes(); err != nil {
				return expr{}, err
			}
			return sg.nullable(s, e), nil
		}
	}
	if a := s.get("allOf"); a != nil {
		merged, err := sg.mergeAllOf(s, a)
		if err != nil {
			return expr{}, err
		}
		return sg.expr(merged, hint)
	}
	t := s.get("type")
	if t != nil && t.kind == jString { // the usual case, without the list
		e, err := sg.typed(s, t.str, hint)
		if err != nil {
			return expr{}, err
		}
		return sg.nullable(s, e), nil
	}
	var types []string
	switch {
	case t == nil:
		types = []string{sg.inferType(s)}
	case t.kind == jString:
		types = []string{t.str}
	case t.kind == jArray:
		for _, v := range t.vals {
			if v.kind == jString {
				types = append(types, v.str)
			}
		}
		if len(types) == 0 {
			return expr{}, sg.fail("type is an empty list")
		}
	default:
		return expr{}, sg.fail("type is neither a string nor a list")
	}
	var es []expr
	for i, ty := range types {
		h := hint
		if len(types) > 1 {
			h = hint + "-" + strconv.Itoa(i)
		}
		e, err := sg.typed(s, ty, h)
		if err != nil {
			return expr{}, err
		}
		es = append(es, e)
	}
	return sg.nullable(s, alts(es)), nil
}

// nullable adds null to e when the schema says nullable: true (OpenAPI).
func (sg *schemaGen) nullable(s *jvalue, e expr) expr {
	if n := s.get("nullable"); n != nil && n.kind == jTrue {
		return alts([]expr{e, atom(sg.nullRule())})
	}
	return e
}

func (sg *schemaGen) inferType(s *jvalue) string {
	switch {
	case s.get("properties") != nil || s.get("additionalProperties") != nil || s.get("required") != nil:
		return "object"
	case s.get("items") != nil || s.get("minItems") != nil || s.get("maxItems") != nil:
		return "array"
	case s.get("minLength") != nil || s.get("maxLength") != nil:
		return "string"
	}
	return ""
}

func (sg *schemaGen) typed(s *jvalue, ty, hint string) (expr, error) {
	if alias, ok := typeAliases[ty]; ok {
		if ty != "any" {
			sg.warn("non-standard type %q read as %q", ty, alias)
		}
		ty = alias
	}
	switch ty {
	case "":
		return atom(sg.valueRule()), nil
	case "string":
		min, max, err := sg.bounds(s, "minLength", "maxLength")
		if err != nil {
			return expr{}, err
		}
		return atom(sg.stringRule(min, max)), nil
	case "number":
		return atom(sg.numberRule()), nil
	case "integer":
		return atom(sg.integerRule()), nil
	case "boolean":
		return atom(sg.booleanRule()), nil
	case "null":
		return atom(sg.nullRule()), nil
	case "object":
		return sg.object(s, hint)
	case "array":
		return sg.array(s, hint)
	}
	sg.warn("unknown type %q; any value accepted", ty)
	return atom(sg.valueRule()), nil
}

// bounds reads a minimum and maximum count (max -1 when absent), capped at MaxRepetition.
func (sg *schemaGen) bounds(s *jvalue, minKey, maxKey string) (int, int, error) {
	min, max := 0, -1
	for i, key := range [2]string{minKey, maxKey} {
		v := s.get(key)
		if v == nil {
			continue
		}
		f, err := strconv.ParseFloat(v.str, 64)
		if v.kind != jNumber || err != nil || f < 0 {
			sg.warn("%s is not a non-negative number; ignored", key)
			continue
		}
		n := int(math.Floor(f)) // a maximum rounds down
		if i == 0 {
			n = int(math.Ceil(f)) // a minimum up
		}
		if f > float64(sg.opts.MaxRepetition) {
			sg.warn("%s %s above %d not enforced", key, v.str, sg.opts.MaxRepetition)
			if i == 0 {
				min = sg.opts.MaxRepetition
			}
			continue
		}
		if i == 0 {
			min = n
		} else {
			max = n
		}
	}
	if max >= 0 && max < min {
		return 0, 0, sg.fail("%s below %s", maxKey, minKey)
	}
	return min, max, nil
}

// valueAtom is the expression for a member value or array item, as one element: a complex expression
// gets a rule of its own, named after hint.
func (sg *schemaGen) valueAtom(s *jvalue, hint string) (string, error) {
	var name string
	if complexSchema(s) {
		name = sg.g.alloc(hint)
	}
	e, err := sg.expr(s, hint)
	if err != nil {
		return "", err
	}
	if name == "" {
		if e.kind == kAtom {
			return e.text, nil
		}
		name = sg.g.alloc(hint)
	}
	sg.rule(name, e.text)
	return name, nil
}

// complexSchema guesses whether a schema's expression is more than one element, so that its rule can be
// added before the rules it uses (a wrong guess only changes the order of the rules).
func complexSchema(s *jvalue) bool {
	if s == nil || s.kind != jObject || s.get("$ref") != nil || s.get("const") != nil {
		return false
	}
	if e := s.get("enum"); e != nil {
		return e.kind == jArray && len(e.vals) > 1
	}
	if s.get("anyOf") != nil || s.get("oneOf") != nil || s.get("properties") != nil || s.get("items") != nil {
		return true
	}
	if t := s.get("type"); t != nil {
		switch t.str {
		case "object", "array", "dict", "tuple", "list":
			return true
		}
		return t.kind == jArray
	}
	return false
}

// member is one member of an object body: its text ("key" ws ":" ws value ws), or for the additional
// members the name of the rule for one of them (extra set), held in sg.members[start:end].
type member struct {
	start, end int
	optional   bool
	extra      bool
}

// kv is the member's text.
func (sg *schemaGen) kv(m member) []byte { return sg.members[m.start:m.end] }

// first writes m when nothing precedes it in the object.
func (sg *schemaGen) first(b []byte, m member, ws string) []byte {
	b = append(b, sg.kv(m)...)
	if m.extra {
		b = append(b, ' ')
		b = sg.more(b, m, ws)
	}
	return b
}

// follow writes m after something, with its leading comma; optional members may be left out.
func (sg *schemaGen) follow(b []byte, m member, ws string) []byte {
	if m.extra {
		return sg.more(b, m, ws)
	}
	if m.optional {
		b = append(b, '(')
	}
	b = append(b, `"," `...)
	if ws != "" {
		b = append(b, ws...)
		b = append(b, ' ')
	}
	b = append(b, sg.kv(m)...)
	if m.optional {
		b = append(b, ")?"...)
	}
	return b
}

// more writes any number of further additional members, each with its leading comma.
func (sg *schemaGen) more(b []byte, m member, ws string) []byte {
	b = append(b, `("," `...)
	if ws != "" {
		b = append(b, ws...)
		b = append(b, ' ')
	}
	b = append(b, sg.kv(m)...)
	return append(b, ")*"...)
}

// addMember writes a member's text to sg.members: "key" ws ":" ws value ws.
func (sg *schemaGen) addMember(key, value, ws string, optional bool) member {
	start := len(sg.members)
	sg.scratch = appendJSONString(sg.scratch[:0], key)
	b := append(sg.members, '"')
	b = appendLiteralBody(b, sg.scratch)
	b = append(b, `" `...)
	if ws != "" {
		b = append(append(b, ws...), ' ')
	}
	b = append(b, `":" `...)
	if ws != "" {
		b = append(append(b, ws...), ' ')
	}
	b = append(b, value...)
	if ws != "" {
		b = append(append(b, ' '), ws...)
	}
	sg.members = b
	return member{start: start, end: len(b), optional: optional}
}

func (sg *schemaGen) object(s *jvalue, hint string) (expr, error) {
	ws := sg.ws()
	props := s.get("properties")
	if props != nil && props.kind != jObject {
		sg.warn("properties is not an object; ignored")
		props = nil
	}
	reqOrder, namesMark := sg.requiredNames(s)
	defer func() { sg.names = sg.names[:namesMark] }()
	addl := s.get("additionalProperties")
	extra := addl == nil && props == nil && len(reqOrder) == 0 ||
		addl != nil && (addl.kind == jTrue || addl.kind == jObject)
	var extraSchema *jvalue
	if addl != nil && addl.kind == jObject {
		extraSchema = addl
	}
	if extra && extraSchema == nil && (props == nil || len(props.keys) == 0) && len(reqOrder) == 0 {
		return atom(sg.objectRule()), nil
	}

	// The members' texts go on sg.members after whatever enclosing objects keep there, and are
	// dropped when this object's text is made.
	mark, held := len(sg.members), len(sg.held)
	defer func() { sg.members, sg.held = sg.members[:mark], sg.held[:held] }()
	var keys []string
	if props != nil {
		keys = props.keys
	}
	required := newNameSet(reqOrder)
	for i, key := range keys {
		if props.firstPlace(key) != i {
			continue // a repeated key: the first place, the last schema (as get reads it)
		}
		sg.push("properties", key)
		m, ok, err := sg.objectMember(props.get(key), hint, key, ws, required.has(key))
		sg.pop(2)
		if err != nil {
			return expr{}, err
		}
		if ok {
			sg.held = append(sg.held, m)
		}
	}
	for _, key := range reqOrder {
		if props.firstPlace(key) >= 0 {
			continue
		}
		sg.warn("required property %q is not in properties; added after them", key)
		sg.push("required")
		m, ok, err := sg.objectMember(extraSchema, hint, key, ws, true)
		sg.pop(1)
		if err != nil {
			return expr{}, err
		}
		if ok {
			sg.held = append(sg.held, m)
		}
	}
	if extra {
		var v string
		if extraSchema == nil {
			v = sg.valueRule()
		} else {
			sg.push("additionalProperties")
			var err error
			v, err = sg.valueAtom(extraSchema, hint+"-value")
			sg.pop(1)
			if err != nil {
				return expr{}, err
			}
		}
		name := sg.g.alloc(hint + "-extra")
		sg.rule(name, Seq(sg.stringRule(0, -1), ws, Literal(":"), ws, v, ws))
		start := len(sg.members)
		sg.members = append(sg.members, name...)
		sg.held = append(sg.held, member{start: start, end: len(sg.members), optional: true, extra: true})
	}
	members := sg.held[held:]
	b := append(sg.text[:0], `"{" `...)
	if ws != "" {
		b = append(append(b, ws...), ' ')
	}
	if len(members) > 0 {
		b = append(sg.appendBody(b, members, hint), ' ')
	}
	b = append(b, `"}"`...)
	sg.text = b
	return expr{string(b), kSeq}, nil
}

// objectMember is the member key with schema vs (nil: any value); ok is false for a property whose
// schema is false, which the object then lacks.
func (sg *schemaGen) objectMember(vs *jvalue, hint, key, ws string, required bool) (m member, ok bool, err error) {
	if err := sg.step(); err != nil {
		return member{}, false, err
	}
	if vs != nil && vs.kind == jFalse {
		if required {
			return member{}, false, sg.fail("required property %q has schema false", key)
		}
		return member{}, false, nil
	}
	v, ok := sg.scalar(vs)
	if !ok {
		if v, err = sg.valueAtom(vs, joinName(hint, key)); err != nil {
			return member{}, false, err
		}
	}
	return sg.addMember(key, v, ws, !required), true, nil
}

// scalar is the shared rule for the most common member schema, a standard scalar type with nothing
// but annotations beside it ({"type": "string", "description": …}), which expr would reach after
// every other keyword's test: ok is false for any other schema.
func (sg *schemaGen) scalar(s *jvalue) (rule string, ok bool) {
	if s == nil || s.kind != jObject {
		return "", false
	}
	var ty string
	for i, k := range s.keys {
		switch k {
		case "type":
			if s.vals[i].kind != jString || ty != "" {
				return "", false
			}
			ty = s.vals[i].str
		case "description", "title", "default", "examples", "example", "$comment", "deprecated":
		default:
			return "", false
		}
	}
	switch ty {
	case "string":
		return sg.stringRule(0, -1), true
	case "integer":
		return sg.integerRule(), true
	case "number":
		return sg.numberRule(), true
	case "boolean":
		return sg.booleanRule(), true
	case "null":
		return sg.nullRule(), true
	}
	return "", false
}

// requiredNames are the names an object schema's "required" lists, each once,
// in its order. Objects have few members: slices searched in order cost less
// than maps here, up to nameSetFrom names.
// They are appended to sg.names, a stack shared by the objects being read
// (nested ones included), which the caller truncates to mark once done.
func (sg *schemaGen) requiredNames(s *jvalue) (names []string, mark int) {
	mark = len(sg.names)
	r := s.get("required")
	if r == nil || r.kind != jArray {
		return nil, mark
	}
	var seen map[string]struct{}
	if len(r.vals) > nameSetFrom {
		seen = make(map[string]struct{}, len(r.vals))
	}
	for _, v := range r.vals {
		if v.kind != jString {
			continue
		}
		if seen != nil {
			if _, ok := seen[v.str]; ok {
				continue
			}
			seen[v.str] = struct{}{}
		} else if slices.Contains(sg.names[mark:], v.str) {
			continue
		}
		sg.names = append(sg.names, v.str)
	}
	return sg.names[mark:len(sg.names):len(sg.names)], mark
}

// nameSetFrom is the most names a nameSet searches one by one.
const nameSetFrom = 32

// nameSet tells whether a name is in a list: searched in order when the list is short, through a map
// when it is long.
type nameSet struct {
	list []string
	m    map[string]struct{}
}

func newNameSet(list []string) nameSet {
	s := nameSet{list: list}
	if len(list) > nameSetFrom {
		s.m = make(map[string]struct{}, len(list))
		for _, n := range list {
			s.m[n] = struct{}{}
		}
	}
	return s
}

func (s nameSet) has(name string) bool {
	if s.m != nil {
		_, ok := s.m[name]
		return ok
	}
	return slices.Contains(s.list, name)
}

// joinName is hint-key as a rule name (characters a name may not hold written as '-'), at most
// maxRuleName bytes of it.
func joinName(hint, key string) string {
	hint = hint[:min(len(hint), maxRuleName)]
	key = key[:min(len(key), maxRuleName-min(len(hint)+1, maxRuleName))]
	var b strings.Builder
	b.Grow(len(hint) + 1 + len(key))
	b.WriteString(hint)
	b.WriteByte('-')
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isNameByte(c) {
			c = '-'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// appendBody writes an object's members between its braces: the members in order, each optional one
// possibly left out, commas exactly between those present. Everything before the first required member
// may be left out, so the body is one alternative per member that can come first, each followed by the
// rest of the members with their leading commas; when there is more than one such alternative the rests
// are shared through a chain of rules hint-rest1, hint-rest2, … (rest i = member i then rest i+1).
func (sg *schemaGen) appendBody(b []byte, ms []member, hint string) []byte {
	ws := sg.ws()
	firstRequired := len(ms)
	for i, m := range ms {
		if !m.optional {
			firstRequired = i
			break
		}
	}
	if firstRequired == 0 {
		b = sg.first(b, ms[0], ws)
		for _, m := range ms[1:] {
			b = append(b, ' ')
			b = sg.follow(b, m, ws)
		}
		return b
	}
	if len(ms) == 1 {
		return append(sg.first(append(b, '('), ms[0], ws), ")?"...)
	}
	rest := make([]string, len(ms)+1) // rest[i]: members i.. after something, as one element
	for i := 1; i < len(ms); i++ {
		rest[i] = sg.g.alloc(hint + "-rest" + strconv.Itoa(i))
	}
	for i := len(ms) - 1; i >= 1; i-- {
		r := sg.follow(sg.scratch[:0], ms[i], ws)
		if rest[i+1] != "" {
			r = append(append(r, ' '), rest[i+1]...)
		}
		sg.scratch = r
		sg.rule(rest[i], string(r))
	}
	last := firstRequired
	if last == len(ms) {
		last = len(ms) - 1
	}
	b = append(b, '(')
	for i := 0; i <= last; i++ {
		if i > 0 {
			b = append(b, " | "...)
		}
		b = sg.first(b, ms[i], ws)
		if rest[i+1] != "" {
			b = append(append(b, ' '), rest[i+1]...)
		}
	}
	b = append(b, ')')
	if firstRequired == len(ms) {
		b = append(b, '?')
	}
	return b
}

func (sg *schemaGen) array(s *jvalue, hint string) (expr, error) {
	ws := sg.ws()
	if s.get("prefixItems") != nil {
		sg.warn("prefixItems not enforced")
	}
	items := s.get("items")
	if items != nil && items.kind == jArray {
		sg.warn("items as a list (tuple) not enforced; any items accepted")
		items = nil
	}
	min, max, err := sg.bounds(s, "minItems", "maxItems")
	if err != nil {
		return expr{}, err
	}
	if items != nil && items.kind == jFalse {
		if min > 0 {
			return expr{}, sg.fail("items false with minItems %d", min)
		}
		max = 0
	}
	if max == 0 {
		return seqExpr(Literal("["), ws, Literal("]")), nil
	}
	var item string
	if items == nil {
		item = sg.valueRule()
	} else {
		sg.push("items")
		item, err = sg.valueAtom(items, hint+"-item")
		sg.pop(1)
		if err != nil {
			return expr{}, err
		}
	}
	if min == 0 && max < 0 && item == sg.g.shared["value"] {
		return atom(sg.arrayRule()), nil
	}
	restMin, restMax := 0, -1
	if min > 0 {
		restMin = min - 1
	}
	if max > 0 {
		restMax = max - 1
	}
	var rest string
	switch {
	case restMin == 1 && restMax == 1:
		rest = Seq(Literal(","), ws, item, ws)
	case restMax != 0:
		rest = Repeat("("+Seq(Literal(","), ws, item, ws)+")", restMin, restMax)
	}
	elems := Seq(item, ws, rest)
	if min == 0 {
		elems = Repeat("("+elems+")", 0, 1)
	}
	return seqExpr(Literal("["), ws, elems, Literal("]")), nil
}

// mergeAllOf merges allOf's branches (and the schema's own keywords) into one object schema: properties
// in order, required lists joined, the last additionalProperties and type seen. A branch that is not an
// object schema after resolving $ref makes the merge a warning and only the first branch is used.
func (sg *schemaGen) mergeAllOf(s, all *jvalue) (*jvalue, error) {
	if all.kind != jArray || len(all.vals) == 0 {
		return nil, sg.fail("allOf is not a non-empty array")
	}
	if len(all.vals) == 1 && onlyAnnotationsBeside(s, "allOf") {
		// One branch and annotations (pydantic's {"allOf": [{"$ref": …}], "description": …}): the
		// branch itself, so that a $ref keeps its one rule instead of a copy of its target at every
		// use, which for models used in several places inside one another grows exponentially.
		return all.vals[0], nil
	}
	out := &jvalue{kind: jObject}
	props := &jvalue{kind: jObject}
	req := &jvalue{kind: jArray}
	var parts []*jvalue
	parts = append(parts, s)
	for _, b := range all.vals {
		for i := 0; b != nil && b.kind == jObject && b.get("$ref") != nil && i < 32; i++ {
			r := sg.resolve(b.get("$ref").str)
			if r == nil {
				break
			}
			b = r
		}
		parts = append(parts, b)
	}
	for _, p := range parts {
		if p == nil || p.kind != jObject {
			if p != nil && p.kind == jTrue {
				continue
			}
			sg.warn("allOf branch is not an object schema; first branch used")
			return all.vals[0], nil
		}
		for i, k := range p.keys {
			v := p.vals[i]
			switch k {
			case "allOf", "$ref":
			case "properties":
				if v.kind == jObject {
					for j, pk := range v.keys {
						props.set(pk, v.vals[j])
					}
				}
			case "required":
				if v.kind == jArray {
					req.vals = append(req.vals, v.vals...)
				}
			default:
				out.set(k, v)
			}
		}
	}
	if len(props.keys) > 0 {
		out.set("properties", props)
	}
	if len(req.vals) > 0 {
		out.set("required", req)
	}
	return out, nil
}

// onlyAnnotationsBeside reports whether every keyword of the object schema s but kw is an annotation.
func onlyAnnotationsBeside(s *jvalue, kw string) bool {
	for _, k := range s.keys {
		if k != kw && !annotation(k) {
			return false
		}
	}
	return true
}

// resolve finds the schema a local JSON pointer ("#", "#/$defs/a", …) names.
func (sg *schemaGen) resolve(ref string) *jvalue {
	if ref == "#" {
		return sg.doc
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	v := sg.doc
	for _, seg := range strings.Split(ref[2:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch {
		case v == nil:
			return nil
		case v.kind == jObject:
			v = v.get(seg)
		case v.kind == jArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v.vals) {
				return nil
			}
			v = v.vals[i]
		default:
			return nil
		}
	}
	return v
}

var errRef = errors.New("unresolvable $ref")

// ref is the rule for the schema a $ref names: one rule per target, added the first time, so recursive
// schemas become recursive rules.
func (sg *schemaGen) ref(ref string) (expr, error) {
	if ref == "#" {
		return atom(sg.top), nil
	}
	if name, ok := sg.refs[ref]; ok {
		return atom(name), nil
	}
	if sg.refs == nil {
		sg.refs = make(map[string]string)
	}
	target := sg.resolve(ref)
	if target == nil {
		if !strings.HasPrefix(ref, "#") {
			sg.warn("external $ref %q not followed; any value accepted", ref)
			return atom(sg.valueRule()), nil
		}
		return expr{}, sg.fail("%v %q", errRef, ref)
	}
	base := ref[strings.LastIndexByte(ref, '/')+1:]
	name := sg.g.alloc(sg.prefix + "-" + base)
	sg.refs[ref] = name
	saved := sg.path
	sg.path = nil
	for _, seg := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		sg.path = append(sg.path, strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~"))
	}
	e, err := sg.expr(target, name)
	sg.path = saved
	if err != nil {
		return expr{}, err
	}
	sg.rule(name, e.text)
	return atom(name), nil
}
