package jinja

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// FromJSON decodes JSON into template values as Python's json.loads does:
// objects become *Dict in document order (a repeated key keeps its first
// position and its last value), arrays *List, numbers without '.', 'e' or 'E'
// int and other numbers float64. Like Python it accepts NaN, Infinity and
// -Infinity. Integers beyond int64 become float64 (Python's are unbounded).
//
// The input is converted to a string once; strings without escapes are
// slices of it, so the values keep the whole input alive.
func FromJSON(data []byte) (Value, error) { return FromJSONAt(data, 0) }

// FromJSONAt decodes data as FromJSON does, as the value found depth levels
// down in a larger document (FromJSONMembers' members are at depth 1): the
// nesting bound counts those levels too, so that data fails here exactly
// where it would fail inside that document.
func FromJSONAt(data []byte, depth int) (Value, error) {
	d := jsonDecoder{data: string(data)}
	d.skipSpace()
	v, err := d.value(depth)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("extra data")
	}
	return v, nil
}

// JSONMember is one member of a JSON object, as FromJSONMembers reads it.
type JSONMember struct {
	Key   string
	Raw   []byte // the value's JSON text: a slice of the input
	Value Value  // the value, as FromJSON decodes it
}

// FromJSONMembers decodes data, a JSON object, as FromJSON does, and returns
// its members in document order (a repeated key as often as it appears), each
// with its value's raw text and its decoded value. That lets a caller both keep
// the JSON of a member and use its value without decoding it twice.
func FromJSONMembers(data []byte) ([]JSONMember, error) {
	d := jsonDecoder{data: string(data)}
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		if _, err := d.value(0); err != nil {
			return nil, err
		}
		return nil, errors.New("json: not an object")
	}
	var members []JSONMember
	err := d.eachMember(func(k string) error {
		start := d.pos
		v, err := d.value(1)
		members = append(members, JSONMember{Key: k, Raw: data[start:d.pos:d.pos], Value: v})
		return err
	})
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("extra data")
	}
	return members, nil
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

type jsonDecoder struct {
	data string
	pos  int
	// items and keys are stacks the containers being read collect their
	// members on, so that each list or dict is allocated once at its size.
	items []Value
	keys  []string
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("json: %s at offset %d", fmt.Sprintf(format, args...), d.pos)
}

func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// literal consumes word if the input continues with it.
func (d *jsonDecoder) literal(word string) bool {
	if strings.HasPrefix(d.data[d.pos:], word) {
		d.pos += len(word)
		return true
	}
	return false
}

func (d *jsonDecoder) value(depth int) (Value, error) {
	if depth > maxJSONDepth {
		return nil, d.errorf("nesting too deep")
	}
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		if d.literal("-Infinity") {
			return math.Inf(-1), nil
		}
		return d.number()
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.literal("null"):
		return nil, nil
	case d.literal("NaN"):
		return math.NaN(), nil
	case d.literal("Infinity"):
		return math.Inf(1), nil
	}
	return nil, d.errorf("unexpected character %q", d.data[d.pos])
}

func (d *jsonDecoder) object(depth int) (Value, error) {
	// The keys and values go on the stacks above those of the containers
	// this object is in.
	kbase, ibase := len(d.keys), len(d.items)
	defer func() { d.keys, d.items = d.keys[:kbase], d.items[:ibase] }()
	err := d.eachMember(func(k string) error {
		v, err := d.value(depth + 1)
		d.keys = append(d.keys, k)
		d.items = append(d.items, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	keys, vals := d.keys[kbase:], d.items[ibase:]
	obj := NewDict(len(keys))
	for i, k := range keys {
		obj.SetStr(k, vals[i])
	}
	return obj, nil
}

// eachMember reads the object at d.pos, calling member with each key once
// the ':' after it is read; member reads the value.
func (d *jsonDecoder) eachMember(member func(key string) error) error {
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.errorf("expecting property name")
		}
		k, err := d.str()
		if err != nil {
			return err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.errorf("expecting ':'")
		}
		d.pos++
		d.skipSpace()
		if err := member(k); err != nil {
			return err
		}
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return nil
		}
		return d.errorf("expecting ',' or '}'")
	}
}

func (d *jsonDecoder) array(depth int) (Value, error) {
	d.pos++ // '['
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return NewList([]Value{}), nil
	}
	// The items go on the stack above those of the containers this array
	// is in.
	base := len(d.items)
	defer func() { d.items = d.items[:base] }()
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, v)
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return NewList(slices.Clone(d.items[base:])), nil
		}
		return nil, d.errorf("expecting ',' or ']'")
	}
}

// number scans the JSON number grammar; the presence of a fraction or an
// exponent decides int versus float, as in Python.
func (d *jsonDecoder) number() (Value, error) {
	start := d.pos
	isFloat := false
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return nil, d.errorf("invalid number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		save := d.pos
		d.pos++
		if digits() == 0 {
			d.pos = save // Python stops the number before a bare '.'
		} else {
			isFloat = true
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		save := d.pos
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			d.pos = save
		} else {
			isFloat = true
		}
	}
	text := d.data[start:d.pos]
	if !isFloat {
		if i, err := strconv.Atoi(text); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, d.errorf("invalid number %q", text)
	}
	return f, nil
}

// str decodes a string literal. Lone surrogates, which Python keeps but UTF-8
// cannot hold, become U+FFFD.
func (d *jsonDecoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] != '"' && d.data[d.pos] != '\\' && d.data[d.pos] >= 0x20 {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		// No escapes: a slice of the input.
		s := d.data[start:d.pos]
		d.pos++
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		return s, nil
	}
	var b strings.Builder
	b.WriteString(d.data[start:d.pos])
	for {
		start := d.pos
		for d.pos < len(d.data) && d.data[d.pos] != '"' && d.data[d.pos] != '\\' && d.data[d.pos] >= 0x20 {
			d.pos++
		}
		b.WriteString(d.data[start:d.pos])
		if d.pos >= len(d.data) {
			return "", d.errorf("unterminated string")
		}
		switch c := d.data[d.pos]; {
		case c == '"':
			d.pos++
			s := b.String()
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return s, nil
		case c < 0x20:
			return "", d.errorf("invalid control character")
		}
		// A backslash escape.
		d.pos++
		if d.pos >= len(d.data) {
			return "", d.errorf("unterminated string")
		}
		c := d.data[d.pos]
		d.pos++
		switch c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) && r < 0xDC00 && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				save := d.pos
				d.pos += 2
				r2, err := d.hex4()
				if err != nil {
					return "", err
				}
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					r = pair
				} else {
					d.pos = save
				}
			}
			b.WriteRune(r) // a lone surrogate is written as U+FFFD
		default:
			return "", d.errorf("invalid \\escape")
		}
	}
}

func (d *jsonDecoder) hex4() (rune, error) {
	if d.pos+4 > len(d.data) {
		return 0, d.errorf("invalid \\uXXXX escape")
	}
	n, err := strconv.ParseUint(d.data[d.pos:d.pos+4], 16, 32)
	if err != nil {
		return 0, d.errorf("invalid \\uXXXX escape")
	}
	d.pos += 4
	return rune(n), nil
}

// FromGo converts plain Go data, as encoding/json produces it, into template
// values. Maps become dicts with sorted keys (Go maps have no order); values
// that already are template values pass through.
func FromGo(v any) Value {
	switch v := v.(type) {
	case nil, bool, string, float64, int, Markup, Undefined:
		return v
	case int8, int16, int32, int64, uint8, uint16, uint32:
		n, _ := strconv.Atoi(fmt.Sprint(v))
		return n
	case uint, uint64:
		if n, err := strconv.Atoi(fmt.Sprint(v)); err == nil {
			return n
		}
		f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
		return f
	case float32:
		return float64(v)
	case json.Number:
		if n, err := v.Int64(); err == nil && !strings.ContainsAny(string(v), ".eE") {
			return int(n)
		}
		f, _ := v.Float64()
		return f
	case []any:
		items := make([]Value, len(v))
		for i, e := range v {
			items[i] = FromGo(e)
		}
		return NewList(items)
	case []string:
		items := make([]Value, len(v))
		for i, e := range v {
			items[i] = e
		}
		return NewList(items)
	case map[string]any:
		return sortedDict(v, FromGo)
	case map[string]string:
		return sortedDict(v, func(s string) Value { return s })
	}
	return v // already a template value (*List, *Dict, Tuple, ...)
}

// sortedDict is a Go map as a dict, its values converted by conv, its keys in
// sorted order (Go maps have none).
func sortedDict[V any](m map[string]V, conv func(V) Value) *Dict {
	d := NewDict(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		d.SetStr(k, conv(m[k]))
	}
	return d
}

// toJSON is Python's json.dumps(v, ensure_ascii=..., indent=indent,
// separators=separators, sort_keys=sortKeys), byte for byte, errors included.
func toJSON(v Value, indent Value, separators Value, sortKeys bool, ensureASCII bool) (string, error) {
	e := getEncoder()
	defer putEncoder(e)
	if err := e.dump(v, indent, separators, sortKeys, ensureASCII); err != nil {
		return "", err
	}
	return string(e.buf), nil
}

// appendToJSON is toJSON appending to dst, for {{ x | tojson }}: the encoder
// writes into dst itself.
func appendToJSON(dst []byte, v Value, indent Value, separators Value, sortKeys bool, ensureASCII bool) ([]byte, error) {
	e := getEncoder()
	own := e.buf
	e.buf = dst
	err := e.dump(v, indent, separators, sortKeys, ensureASCII)
	out := e.buf
	e.buf = own // the pool must not keep dst
	putEncoder(e)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// dump appends json.dumps(v, ...) to e.buf.
func (e *jsonEncoder) dump(v Value, indent Value, separators Value, sortKeys bool, ensureASCII bool) error {
	e.sortKeys, e.ascii = sortKeys, ensureASCII
	if indent != nil {
		e.itemSep = ","
	}
	// JSONEncoder.__init__ unpacks the separators first.
	var seps []Value
	if separators != nil {
		items, err := iterate(separators)
		if err != nil {
			return typeError("cannot unpack non-iterable %s object", typeName(separators))
		}
		switch {
		case len(items) < 2:
			return valueError("not enough values to unpack (expected 2, got %d)", len(items))
		case len(items) > 2:
			return valueError("too many values to unpack (expected 2)")
		}
		seps = items
	}
	// A lone str is encoded directly, before indent or separators are used.
	if s, ok := isString(v); ok {
		e.buf = appendPyJSONString(e.buf, s, ensureASCII)
		return nil
	}
	if indent != nil {
		ind, err := jsonIndent(indent)
		if err != nil {
			return err
		}
		e.indent, e.pretty = ind, true
	}
	if seps != nil {
		if err := e.setSeparators(seps[0], seps[1]); err != nil {
			return err
		}
	}
	return e.encode(v, 0)
}

// jsonEncoders keeps encoders, with their buffers, between tojson calls, so
// that encoding allocates little more than its result.
var jsonEncoders = sync.Pool{New: func() any { return new(jsonEncoder) }}

// maxPooledJSON is the largest buffer put back in the pool.
const maxPooledJSON = 64 << 10

func getEncoder() *jsonEncoder {
	e := jsonEncoders.Get().(*jsonEncoder)
	*e = jsonEncoder{buf: e.buf[:0], open: e.open[:0], itemSep: ", ", keySep: ": "}
	return e
}

func putEncoder(e *jsonEncoder) {
	if cap(e.buf) <= maxPooledJSON {
		e.sepErr, e.keySepErr = nil, nil
		jsonEncoders.Put(e)
	}
}

// jsonIndent turns the indent argument into the per-level string: Python uses
// a str as is and multiplies ' ' by anything else.
func jsonIndent(indent Value) (string, error) {
	switch v := indent.(type) {
	case string:
		return v, nil
	case Markup:
		return string(v), nil
	case bool:
		if v {
			return " ", nil
		}
		return "", nil
	case int:
		if v > maxValueBytes {
			return "", tooLong("an indent", v)
		}
		return strings.Repeat(" ", max(v, 0)), nil
	}
	return "", typeError("can't multiply sequence by non-int of type '%s'", typeName(indent))
}

// setSeparators installs the separators. The C encoder (indent None) rejects
// a non-str one up front; the pure-Python encoder used with an indent only
// fails once it concatenates it, so there the error is kept for later.
func (e *jsonEncoder) setSeparators(item, key Value) error {
	for i, s := range []Value{key, item} {
		if _, ok := isString(s); !ok && !e.pretty {
			return typeError("make_encoder() argument %d must be str, not %s", 5+i, typeName(s))
		}
	}
	if s, ok := isString(item); ok {
		e.itemSep = s
	} else {
		e.sepErr = typeError("unsupported operand type(s) for +: '%s' and 'str'", typeName(item))
	}
	if s, ok := isString(key); ok {
		e.keySep = s
	} else {
		// Python's error names the position of the separator among the
		// output chunks; 2 is right when the first key written is a
		// top-level one.
		e.keySepErr = typeError("sequence item 2: expected str instance, %s found", typeName(key))
	}
	return nil
}

type jsonEncoder struct {
	buf []byte
	// open holds the lists and dicts being encoded, outermost first: one
	// met again inside itself is a circular reference (Python's ValueError).
	open            []any
	sortKeys, ascii bool
	pretty          bool   // indent was given
	indent          string // one level of indentation
	itemSep, keySep string
	// sepErr and keySepErr are raised when a non-empty list or dict, or a
	// dict's first key, needs the bad separator (indent mode only).
	sepErr, keySepErr error
}

// enter notes that the list or dict c is being encoded, refusing a circular
// reference, a nesting past maxValueDepth and output past maxValueBytes.
func (e *jsonEncoder) enter(c any) error {
	for _, o := range e.open {
		if o == c {
			return valueError("Circular reference detected")
		}
	}
	if len(e.open) >= maxValueDepth {
		return limitError("tojson: the value nests deeper than %d", maxValueDepth)
	}
	if len(e.buf) > maxValueBytes {
		return tooLong("tojson's output", len(e.buf))
	}
	e.open = append(e.open, c)
	return nil
}

func (e *jsonEncoder) leave() { e.open = e.open[:len(e.open)-1] }

// newline starts a line at level, refusing output past maxValueBytes (an
// indent of millions of spaces at each level adds up fast).
func (e *jsonEncoder) newline(level int) error {
	if len(e.buf)+len(e.indent)*level > maxValueBytes {
		return tooLong("tojson's output", len(e.buf)+len(e.indent)*level)
	}
	e.buf = append(e.buf, '\n')
	for i := 0; i < level; i++ {
		e.buf = append(e.buf, e.indent...)
	}
	return nil
}

func (e *jsonEncoder) encode(v Value, level int) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		if v {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case float64:
		e.buf = append(e.buf, jsonFloat(v)...)
	case string:
		e.buf = appendPyJSONString(e.buf, v, e.ascii)
	case Markup:
		e.buf = appendPyJSONString(e.buf, string(v), e.ascii)
	case *List:
		if err := e.enter(v); err != nil {
			return err
		}
		defer e.leave()
		return e.encodeList(v.Items, level)
	case Tuple:
		if len(e.open) >= maxValueDepth {
			return limitError("tojson: the value nests deeper than %d", maxValueDepth)
		}
		return e.encodeList(v, level)
	case *Dict:
		if err := e.enter(v); err != nil {
			return err
		}
		defer e.leave()
		return e.encodeDict(v, level)
	default:
		return typeError("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func (e *jsonEncoder) encodeList(items []Value, level int) error {
	if len(items) == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	if e.sepErr != nil {
		return e.sepErr
	}
	e.buf = append(e.buf, '[')
	for i, it := range items {
		if i > 0 {
			e.buf = append(e.buf, e.itemSep...)
		}
		if e.pretty {
			if err := e.newline(level + 1); err != nil {
				return err
			}
		}
		if err := e.encode(it, level+1); err != nil {
			return err
		}
		if len(e.buf) > maxValueBytes {
			return tooLong("tojson's output", len(e.buf))
		}
	}
	if e.pretty {
		if err := e.newline(level); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *jsonEncoder) encodeDict(d *Dict, level int) error {
	if d.Len() == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	if e.sepErr != nil {
		return e.sepErr
	}
	keys, vals := d.Keys(), d.Values()
	if e.sortKeys {
		// Python sorts the (key, value) pairs; keys are distinct, so only
		// keys are ever compared.
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		err := pySort(order, func(a, b int) (bool, error) {
			c, err := compare("<", keys[a], keys[b])
			return c < 0, err
		})
		if err != nil {
			return err
		}
		ks, vs := make([]Value, len(keys)), make([]Value, len(keys))
		for i, j := range order {
			ks[i], vs[i] = keys[j], vals[j]
		}
		keys, vals = ks, vs
	}
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		ks, err := jsonKey(k)
		if err != nil {
			return err
		}
		if i > 0 {
			e.buf = append(e.buf, e.itemSep...)
		}
		if e.pretty {
			if err := e.newline(level + 1); err != nil {
				return err
			}
		}
		e.buf = appendPyJSONString(e.buf, ks, e.ascii)
		if e.keySepErr != nil {
			return e.keySepErr
		}
		e.buf = append(e.buf, e.keySep...)
		if err := e.encode(vals[i], level+1); err != nil {
			return err
		}
		if len(e.buf) > maxValueBytes {
			return tooLong("tojson's output", len(e.buf))
		}
	}
	if e.pretty {
		if err := e.newline(level); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// jsonKey is the text json.dumps gives a dict key.
func jsonKey(k Value) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case Markup:
		return string(k), nil
	case nil:
		return "null", nil
	case bool, int, float64:
		var e jsonEncoder
		_ = e.encode(k, 0) // scalars cannot fail
		return string(e.buf), nil
	}
	return "", typeError("keys must be str, int, float, bool or None, not %s", typeName(k))
}

// jsonFloat is float.__repr__ with JSON's names for the non-finite values.
func jsonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return formatFloat(f)
}

// appendPyJSONString appends s as a JSON string literal the way Python writes
// it: only '"', '\\' and control characters are escaped unless ascii is set,
// in which case everything outside ASCII is written as \uXXXX (UTF-16 units).
// Runs that need no escaping are copied whole; invalid UTF-8 becomes U+FFFD.
func appendPyJSONString(b []byte, s string, ascii bool) []byte {
	const hex = "0123456789abcdef"
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
	}
	b = append(b, '"')
	start := 0 // s[start:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !ascii && (r != utf8.RuneError || size > 1) {
				i += size
				continue
			}
		} else if c == 0x7f && !ascii {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		i += size
		start = i
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			switch {
			case r < 0x20:
				b = u4(b, r)
			case !ascii:
				b = utf8.AppendRune(b, r) // invalid UTF-8
			case r < 0x10000:
				b = u4(b, r)
			default:
				hi, lo := utf16.EncodeRune(r)
				b = u4(u4(b, hi), lo)
			}
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// pySort sorts items stably with less, as CPython's list.sort does. For short
// lists it performs CPython's exact comparisons (a run scan, then binary
// insertion), so a TypeError from mixed types names the operands in the same
// order Python does; longer lists use a merge sort. The first error stops it.
func pySort[T any](items []T, less func(a, b T) (bool, error)) error {
	var firstErr error
	lt := func(a, b T) bool {
		if firstErr != nil {
			return false
		}
		ok, err := less(a, b)
		if err != nil {
			firstErr = err
		}
		return ok
	}
	n := len(items)
	if n < 2 {
		return nil
	}
	if n >= 64 {
		sort.SliceStable(items, func(i, j int) bool { return lt(items[i], items[j]) })
		return firstErr
	}
	// count_run: the longest ascending or strictly descending prefix.
	run := 2
	if lt(items[1], items[0]) {
		for run < n && lt(items[run], items[run-1]) {
			run++
		}
		for i, j := 0, run-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	} else {
		for run < n && !lt(items[run], items[run-1]) {
			run++
		}
	}
	if firstErr != nil {
		return firstErr
	}
	// binarysort of the rest into the run.
	for start := run; start < n; start++ {
		pivot := items[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)/2
			if lt(pivot, items[p]) {
				r = p
			} else {
				l = p + 1
			}
		}
		if firstErr != nil {
			return firstErr
		}
		copy(items[l+1:start+1], items[l:start])
		items[l] = pivot
	}
	return nil
}
