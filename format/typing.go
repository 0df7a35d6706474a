package format

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/dragoman-dev/dragoman/chat"
)

// Decision 7 of FORMATS.md: families that write each argument value as raw
// text (qwen3-coder-xml, seed-oss, glm-4.5-4.7, laguna, minimax-m2, …) type
// the values by the tool's JSON schema when the request gave one, and leave
// them as strings otherwise. A string value is kept exactly; typing a
// non-string trims surrounding whitespace and accepts the Python spellings
// templates produce with str(): True, False, None and single-quoted literals.
// A value that does not fit its schema stays the string the model wrote, as
// every peer does.

// typedArgs builds the JSON arguments object (keys in the order given) for a
// call to name, typing each raw-text value by that tool's JSON schema in
// tools. A key given twice keeps its first position and its last value (as a
// Python dict would). Returns the JSON object text.
func typedArgs(tools []chat.Tool, name string, keys, values []string) (string, error) {
	props := toolProperties(tools, name)
	typed := make([]any, len(keys))
	for i, k := range keys {
		v, err := typeValue(values[i], props[k])
		if err != nil {
			return "", err
		}
		typed[i] = v
	}
	return encodeArgs(keys, typed)
}

// encodeArgs encodes keys and their decoded values as a JSON object in the
// order given, laid out as json.dumps does. A key given twice keeps its first
// position and its last value.
func encodeArgs(keys []string, values []any) (string, error) {
	// Compact JSON with ", " and ": " between tokens, written token by token.
	b := make([]byte, 0, 64)
	b = append(b, '{')
	var last map[string]int // the last index of each key, for many keys
	if len(keys) > 16 {
		last = make(map[string]int, len(keys))
		for i, k := range keys {
			last[k] = i
		}
	}
	first := true
	for i, k := range keys {
		var v any
		if last != nil {
			j, ok := last[k]
			if !ok {
				continue // written at its first position
			}
			delete(last, k)
			v = values[j]
		} else {
			if slices.Contains(keys[:i], k) {
				continue // written at its first position
			}
			v = values[i]
			for j := i + 1; j < len(keys); j++ {
				if keys[j] == k {
					v = values[j] // the last value
				}
			}
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		var err error
		if b, err = appendSpacedJSON(b, k); err != nil {
			return "", err
		}
		b = append(b, ": "...)
		if b, err = appendSpacedJSON(b, v); err != nil {
			return "", err
		}
	}
	b = append(b, '}')
	return unsafe.String(unsafe.SliceData(b), len(b)), nil // b is not written again
}

// appendSpacedJSON appends v encoded as writeJSON does, laid out as
// appendSpaced does. The common values are written directly: a string of
// printable ASCII without quote or backslash (which encoding/json writes
// as is), a boolean, null, a valid number, and compact JSON text.
func appendSpacedJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		if plainASCII(v) {
			b = append(b, '"')
			b = append(b, v...)
			return append(b, '"'), nil
		}
	case bool:
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case nil:
		return append(b, "null"...), nil
	case json.Number:
		if end, ok := scanJSONNumber(string(v), 0); ok && end == len(v) {
			return append(b, v...), nil
		}
	case json.RawMessage:
		if len(v) > 0 && validJSON(string(v)) && isCompactJSON(v) {
			return appendSpaced(b, v), nil
		}
	}
	var tmp bytes.Buffer
	if err := writeJSON(&tmp, v); err != nil {
		return b, err
	}
	return appendSpaced(b, tmp.Bytes()), nil
}

// plainASCII reports whether s is printable ASCII without '"' or '\\'.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// isCompactJSON reports whether the JSON text b has no whitespace outside
// its strings, and no escape encoding/json would write differently (it
// leaves compact text without them as it is).
func isCompactJSON(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && isJSONSpace(c):
			return false
		case c >= 0x80 || c < 0x20:
			return false // leave unicode to encoding/json
		}
	}
	return true
}

// appendSpaced appends compact JSON laid out as Python's json.dumps does
// (", " and ": "), the arguments text vLLM and SGLang return.
func appendSpaced(b, compact []byte) []byte {
	inString := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		b = append(b, c)
		switch {
		case inString && c == '\\':
			i++
			if i < len(compact) {
				b = append(b, compact[i])
			}
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			b = append(b, ' ')
		}
	}
	return b
}

// writeJSON appends v as compact JSON without HTML escaping (a value's '<'
// stays '<').
func writeJSON(b *bytes.Buffer, v any) error {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
	return nil
}

// toolProperties returns the property schemas of the named tool's parameters
// (nil when the tool or its schema is missing).
func toolProperties(tools []chat.Tool, name string) map[string]json.RawMessage {
	params, ok := toolSchema(tools, name)
	if !ok || len(params) == 0 {
		return nil
	}
	return memoized(&schemaMemo.props, params, decodeProperties)
}

// decodeProperties decodes the property schemas of a parameters schema.
func decodeProperties(params json.RawMessage) map[string]json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(params, &s) != nil {
		return nil
	}
	return s.Properties
}

// typeValue types one raw value by a property schema (nil schema: string).
// The result is a string, bool, nil, json.Number, json.RawMessage (a JSON
// object or array as the model wrote it, compacted) or a parsed Python literal;
// each encodes with encoding/json in the order the model wrote. A value that
// does not fit its schema stays the raw string; the error is reserved for
// callers (none is returned today).
func typeValue(raw string, schema json.RawMessage) (any, error) {
	types := schemaTypes(schema, 0)
	if len(types) == 0 || types["string"] {
		// No schema, an untyped one, or a string parameter: kept exactly,
		// unless a union with object/array and the value is one.
		if types["object"] || types["array"] {
			if v, ok := typeContainer(raw, types); ok {
				return v, nil
			}
		}
		return raw, nil
	}
	t := strings.TrimSpace(raw)
	if types["object"] || types["array"] {
		if v, ok := typeContainer(t, types); ok {
			return v, nil
		}
	}
	if types["null"] && (t == "null" || t == "None") {
		return nil, nil
	}
	if types["boolean"] {
		switch strings.ToLower(t) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	if types["integer"] {
		if n, ok := parseInteger(t); ok {
			return n, nil
		}
	}
	if types["number"] {
		if n, ok := parseInteger(t); ok {
			return n, nil
		}
		if n, ok := parseNumber(t); ok {
			return n, nil
		}
	}
	// A non-nullable parameter given None/null: still null (the model said
	// there is no value; a string "None" would be worse).
	if t == "null" || t == "None" {
		return nil, nil
	}
	return raw, nil
}

// typeContainer parses a JSON (or, failing that, Python-literal) object or
// array whose kind the schema allows.
func typeContainer(s string, types map[string]bool) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	kind := ""
	switch s[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	default:
		return nil, false
	}
	if !types[kind] {
		return nil, false
	}
	if json.Valid([]byte(s)) {
		var b bytes.Buffer
		if json.Compact(&b, []byte(s)) == nil {
			return json.RawMessage(b.Bytes()), true
		}
	}
	if v, err := parsePyLiteral(s); err == nil {
		switch v.(type) {
		case []any:
			return v, kind == "array"
		case pyDict:
			return v, kind == "object"
		}
	}
	return nil, false
}

// parseInteger accepts what Python's int() accepts in practice (a sign,
// leading zeros, any size) and integral floats such as 5.0.
func parseInteger(t string) (json.Number, bool) {
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(n, 10)), true
	}
	if digits := strings.TrimPrefix(strings.TrimPrefix(t, "-"), "+"); typingDigits(digits) {
		if b, ok := new(big.Int).SetString(t, 10); ok {
			return json.Number(b.String()), true
		}
	}
	if f, ok := parseFloat(t); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	}
	return "", false
}

// parseNumber accepts a finite decimal number, kept as written when it is
// valid JSON.
func parseNumber(t string) (json.Number, bool) {
	f, ok := parseFloat(t)
	if !ok {
		return "", false
	}
	if json.Valid([]byte(t)) {
		return json.Number(t), true
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// parseFloat accepts a finite decimal float (no hex, no underscores, no
// inf/nan, which JSON cannot carry).
func parseFloat(t string) (float64, bool) {
	if t == "" || strings.ContainsAny(t, "xXpP_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// typingDigits reports whether s is one or more ASCII digits.
func typingDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// schemaPart returns the schema of a property (field "properties", key) or
// of the items (field "items") of a schema, looking into anyOf/oneOf/allOf
// branches when the schema itself has none. Nil when there is none.
func schemaPart(schema json.RawMessage, field, key string, depth int) json.RawMessage {
	if len(schema) == 0 || depth > 8 {
		return nil
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	if raw, ok := s[field]; ok {
		if field != "properties" {
			return raw
		}
		var props map[string]json.RawMessage
		if json.Unmarshal(raw, &props) == nil {
			if p, ok := props[key]; ok {
				return p
			}
		}
	}
	for _, union := range []string{"anyOf", "oneOf", "allOf"} {
		var branches []json.RawMessage
		if json.Unmarshal(s[union], &branches) != nil {
			continue
		}
		for _, b := range branches {
			if p := schemaPart(b, field, key, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// typeAliases maps the type names tool authors write besides JSON Schema's
// (Python and SQL spellings, as vLLM accepts them) to JSON Schema types.
var typeAliases = map[string]string{
	"string": "string", "str": "string", "text": "string", "varchar": "string", "char": "string", "enum": "string",
	"integer": "integer", "int": "integer", "uint": "integer", "long": "integer", "short": "integer", "unsigned": "integer",
	"number": "number", "float": "number", "double": "number", "num": "number", "decimal": "number",
	"boolean": "boolean", "bool": "boolean", "binary": "boolean",
	"object": "object", "dict": "object", "map": "object",
	"array": "array", "list": "array", "arr": "array", "sequence": "array",
	"null": "null", "none": "null",
}

// schemaTypes returns the JSON types a property schema allows: its "type"
// (a name or a list), the union over anyOf/oneOf branches and allOf parts,
// the kinds of its enum or const values, or object/array when only
// "properties" or "items" is given. Empty means untyped.
func schemaTypes(schema json.RawMessage, depth int) map[string]bool {
	if len(schema) == 0 || depth > 8 {
		return nil
	}
	if depth == 0 {
		return memoized(&schemaMemo.types, schema, func(s json.RawMessage) map[string]bool { return decodeTypes(s, 0) })
	}
	return decodeTypes(schema, depth)
}

// schemaMemo keeps what typing reads from tool schemas, by schema text: a
// request's tools come again with every call, and decoding a schema costs
// more than parsing the call. The maps it returns are shared: read only.
var schemaMemo struct {
	sync.Mutex
	props map[string]map[string]json.RawMessage
	types map[string]map[string]bool
}

// schemaMemoMax bounds each memo; a full one starts again.
const schemaMemoMax = 1024

// memoized returns decode(schema), from the memo m (a map of schemaMemo)
// when it is there.
func memoized[V any](m *map[string]V, schema json.RawMessage, decode func(json.RawMessage) V) V {
	schemaMemo.Lock()
	v, ok := (*m)[string(schema)]
	schemaMemo.Unlock()
	if ok {
		return v
	}
	v = decode(schema)
	schemaMemo.Lock()
	if *m == nil || len(*m) >= schemaMemoMax {
		*m = make(map[string]V)
	}
	(*m)[string(schema)] = v
	schemaMemo.Unlock()
	return v
}

// decodeTypes is schemaTypes without the memo.
func decodeTypes(schema json.RawMessage, depth int) map[string]bool {
	var s struct {
		Type       json.RawMessage   `json:"type"`
		AnyOf      []json.RawMessage `json:"anyOf"`
		OneOf      []json.RawMessage `json:"oneOf"`
		AllOf      []json.RawMessage `json:"allOf"`
		Enum       []json.RawMessage `json:"enum"`
		Const      json.RawMessage   `json:"const"`
		Properties json.RawMessage   `json:"properties"`
		Items      json.RawMessage   `json:"items"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := map[string]bool{}
	add := func(name string) {
		if t, ok := typeAliases[strings.ToLower(strings.TrimSpace(name))]; ok {
			out[t] = true
		} else {
			// An unknown type name: treat the value as text.
			out["string"] = true
		}
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(s.Type, &one) == nil:
		add(one)
	case json.Unmarshal(s.Type, &many) == nil:
		for _, n := range many {
			add(n)
		}
	}
	for _, branches := range [][]json.RawMessage{s.AnyOf, s.OneOf, s.AllOf} {
		for _, b := range branches {
			for t := range schemaTypes(b, depth+1) {
				out[t] = true
			}
		}
	}
	if len(out) == 0 {
		values := s.Enum
		if len(s.Const) > 0 {
			values = append(values, s.Const)
		}
		for _, v := range values {
			if k := jsonKind(v); k != "" {
				out[k] = true
			}
		}
	}
	if len(out) == 0 {
		if len(s.Properties) > 0 {
			out["object"] = true
		}
		if len(s.Items) > 0 {
			out["array"] = true
		}
	}
	return out
}

// jsonKind names the JSON type of a value.
func jsonKind(v json.RawMessage) string {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(t, ".eE") {
		return "number"
	}
	return "integer"
}
