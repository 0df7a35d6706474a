package bench

import (
	"fmt"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// Type is a parameter's declared type, by BFCL's names. The checker's type
// and value rules hang on it (FORMAT.md §4.1, §7.6).
type Type string

const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeFloat   Type = "float"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
	TypeTuple   Type = "tuple"
	TypeDict    Type = "dict"
	TypeAny     Type = "any"
	// TypeUntyped is a user suite's parameter whose schema names no single
	// type (no "type", or a list of them): its values are only compared.
	TypeUntyped Type = ""
)

// declaredTypes reads a schema's type name: BFCL's eight, plus JSON Schema's
// own names for user suites (number is BFCL's float, object its dict).
var declaredTypes = map[string]Type{
	"string": TypeString, "integer": TypeInteger, "float": TypeFloat, "number": TypeFloat,
	"boolean": TypeBoolean, "array": TypeArray, "tuple": TypeTuple, "dict": TypeDict,
	"object": TypeDict, "any": TypeAny, "null": TypeUntyped,
}

// schemaTypes is the JSON Schema type each declared type is sent as
// (FORMAT.md §4.2, for the names that occur).
var schemaTypes = map[string]string{
	"string": "string", "any": "string", "integer": "integer", "float": "number", "number": "number",
	"boolean": "boolean", "array": "array", "tuple": "array", "dict": "object", "object": "object",
}

// kind is the Go-side kind a value of the declared type has (Python's type:
// any is str), and false for an untyped parameter.
func (t Type) kind() (Kind, bool) {
	switch t {
	case TypeString, TypeAny:
		return KindString, true
	case TypeInteger:
		return KindInt, true
	case TypeFloat:
		return KindFloat, true
	case TypeBoolean:
		return KindBool, true
	case TypeArray, TypeTuple:
		return KindList, true
	case TypeDict:
		return KindMap, true
	}
	return 0, false
}

func (t Type) isList() bool { return t == TypeArray || t == TypeTuple }

// Function is the checker's view of one offered tool: its name and its
// top-level parameters' declared types.
type Function struct {
	Name     string
	Params   []Param // in the schema's order
	Required []string
}

// Param is one top-level parameter.
type Param struct {
	Name string
	Type Type
	// Items is the element type of an array or tuple (TypeUntyped when the
	// schema gives none).
	Items Type
}

func (f *Function) param(name string) *Param {
	for i := range f.Params {
		if f.Params[i].Name == name {
			return &f.Params[i]
		}
	}
	return nil
}

// SanitizeName is a function name as most BFCL function-calling runs send it:
// dots replaced by underscores (FORMAT.md §3.4, §7.5).
func SanitizeName(name string) string { return strings.ReplaceAll(name, ".", "_") }

// SanitizedTools is tools with every name sanitized; check their answers with
// Options.SanitizedNames.
func SanitizedTools(tools []chat.Tool) []chat.Tool {
	out := make([]chat.Tool, len(tools))
	for i, t := range tools {
		t.Function.Name = SanitizeName(t.Function.Name)
		out[i] = t
	}
	return out
}

// pythonNote is the language hint BFCL appends to every function's
// description for the Python categories (FORMAT.md §3.4).
const pythonNote = " Note that the provided function is in Python 3 syntax."

// floatNote is what BFCL appends to a float property's description.
const floatNote = " This is a float type value."

// convertDoc makes a function description into the tool sent to the model and
// the checker's view of it. BFCL's docs get BFCL's additions (bfcl true);
// user suites' JSON Schemas pass through the same walk, on which JSON
// Schema's own type names are fixed points.
func convertDoc(doc Value, bfcl bool) (chat.Tool, Function, error) {
	name, _ := doc.Get("name")
	if name.Kind() != KindString || name.Str() == "" {
		return chat.Tool{}, Function{}, fmt.Errorf("function without a name")
	}
	fn := Function{Name: name.Str()}
	params, ok := doc.Get("parameters")
	if !ok {
		params = Map(Member{"type", String("object")}, Member{"properties", Map()})
	}
	if params.Kind() != KindMap {
		return chat.Tool{}, Function{}, fmt.Errorf("function %s: parameters is not an object", fn.Name)
	}
	if err := fn.readParams(params); err != nil {
		return chat.Tool{}, Function{}, fmt.Errorf("function %s: %w", fn.Name, err)
	}
	description, _ := doc.Get("description")
	text := description.Str()
	if bfcl {
		text += pythonNote
	}
	tool := chat.Tool{Type: "function", Function: chat.ToolFunction{
		Name:        fn.Name,
		Description: text,
		Parameters:  convertObject(params, bfcl).AppendJSON(nil),
	}}
	return tool, fn, nil
}

// readParams takes the declared types and the required list.
func (fn *Function) readParams(params Value) error {
	props, _ := params.Get("properties")
	for _, m := range props.Members() {
		p := Param{Name: m.Key}
		var err error
		if p.Type, err = declaredType(m.Value); err != nil {
			return fmt.Errorf("parameter %s: %w", m.Key, err)
		}
		if items, ok := m.Value.Get("items"); ok && p.Type.isList() {
			if p.Items, err = declaredType(items); err != nil {
				return fmt.Errorf("parameter %s's items: %w", m.Key, err)
			}
		}
		fn.Params = append(fn.Params, p)
	}
	required, _ := params.Get("required")
	for _, r := range required.Items() {
		if r.Kind() != KindString {
			return fmt.Errorf("required holds %s", r)
		}
		fn.Required = append(fn.Required, r.Str())
	}
	return nil
}

// declaredType reads a schema's "type": a name outside the known set is an
// error, as it would crash upstream's checker (FORMAT.md §4.2).
func declaredType(schema Value) (Type, error) {
	t, ok := schema.Get("type")
	if !ok || t.Kind() != KindString {
		return TypeUntyped, nil
	}
	d, ok := declaredTypes[t.Str()]
	if !ok {
		return "", fmt.Errorf("unknown type %q", t.Str())
	}
	return d, nil
}

// convertObject is the parameters object with BFCL's type names mapped
// (FORMAT.md §4.2): the root's type, then its properties.
func convertObject(params Value, bfcl bool) Value {
	out := mapTypeMember(params)
	if props, ok := out.Get("properties"); ok && props.Kind() == KindMap {
		out = with(out, "properties", convertProperties(props, bfcl))
	}
	return out
}

// convertProperties walks properties as upstream does: each property's type;
// an array's or object's nested properties; else its items' type, one level
// further for arrays of arrays, and the items' properties for arrays of
// objects. Everything else (descriptions, enum, default, required, the
// non-standard optional, format) passes untouched, odd types included.
func convertProperties(props Value, bfcl bool) Value {
	out := Value{kind: KindMap, mems: make([]Member, len(props.mems))}
	for i, m := range props.mems {
		out.mems[i] = Member{m.Key, convertProperty(m.Value, bfcl)}
	}
	return out
}

func convertProperty(p Value, bfcl bool) Value {
	if p.Kind() != KindMap {
		return p
	}
	t, _ := p.Get("type")
	out := mapTypeMember(p)
	if bfcl && t.Str() == "float" {
		out = floatAnnotations(out)
	}
	sent, _ := out.Get("type")
	if sent.Str() != "array" && sent.Str() != "object" {
		return out
	}
	if props, ok := out.Get("properties"); ok && props.Kind() == KindMap {
		return with(out, "properties", convertProperties(props, bfcl))
	}
	items, ok := out.Get("items")
	if !ok || items.Kind() != KindMap {
		return out
	}
	items = mapTypeMember(items)
	itemType, _ := items.Get("type")
	switch inner, ok := items.Get("items"); {
	case itemType.Str() == "array" && ok && inner.Kind() == KindMap:
		items = with(items, "items", mapTypeMember(inner))
	case itemType.Str() == "object":
		if props, ok := items.Get("properties"); ok && props.Kind() == KindMap {
			items = with(items, "properties", convertProperties(props, bfcl))
		}
	}
	return with(out, "items", items)
}

// floatAnnotations adds what BFCL tells a model about a float: format float
// and a sentence in the description.
func floatAnnotations(p Value) Value {
	d, ok := p.Get("description")
	if ok && d.Kind() == KindString {
		p = with(p, "description", String(d.Str()+floatNote))
	} else {
		p = with(p, "description", String(strings.TrimSpace(floatNote)))
	}
	return with(p, "format", String("float"))
}

// mapTypeMember is a schema with its type name mapped to JSON Schema's; an
// unknown or absent type is left as it is.
func mapTypeMember(schema Value) Value {
	t, ok := schema.Get("type")
	if !ok || t.Kind() != KindString {
		return schema
	}
	sent, ok := schemaTypes[t.Str()]
	if !ok || sent == t.Str() {
		return schema
	}
	return with(schema, "type", String(sent))
}

// with is a copy of a map with key set to v: in its place when present, at
// the end when not (as a Python dict assignment does).
func with(m Value, key string, v Value) Value {
	out := Value{kind: KindMap, mems: make([]Member, len(m.mems), len(m.mems)+1)}
	copy(out.mems, m.mems)
	if i := out.index(key); i >= 0 {
		out.mems[i].Value = v
		return out
	}
	out.mems = append(out.mems, Member{key, v})
	return out
}
