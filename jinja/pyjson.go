package jinja

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// FromJSON decodes JSON into template values as Python's json.loads does:
// objects become *Dict in document order (a repeated key keeps its first
// position and its last value), arrays *List, numbers without '.', 'e' or 'E'
// int and other numbers float64. Like Python it accepts NaN, Infinity and
// -Infinity. Integers beyond int64 become float64 (Python's are unbounded).
func FromJSON(data []byte) (Value, error) {
	d := jsonDecoder{data: data}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.errorf("extra data")
	}
	return v, nil
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

type jsonDecoder struct {
	data []byte
	pos  int
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
	if strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+len(word))]), word) {
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
	d.pos++ // '{'
	obj := NewDict(4)
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("expecting property name")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("expecting ':'")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj.SetStr(k, v)
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == '}' {
			d.pos++
			return obj, nil
		}
		return nil, d.errorf("expecting ',' or '}'")
	}
}

func (d *jsonDecoder) array(depth int) (Value, error) {
	d.pos++ // '['
	items := []Value{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return NewList(items), nil
	}
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		d.skipSpace()
		if d.pos < len(d.data) && d.data[d.pos] == ',' {
			d.pos++
			continue
		}
		if d.pos < len(d.data) && d.data[d.pos] == ']' {
			d.pos++
			return NewList(items), nil
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
	text := string(d.data[start:d.pos])
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
	var b strings.Builder
	for {
		start := d.pos
		for d.pos < len(d.data) && d.data[d.pos] != '"' && d.data[d.pos] != '\\' && d.data[d.pos] >= 0x20 {
			d.pos++
		}
		b.Write(d.data[start:d.pos])
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
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
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
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict(len(keys))
		for _, k := range keys {
			d.SetStr(k, FromGo(v[k]))
		}
		return d
	case map[string]string:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict(len(keys))
		for _, k := range keys {
			d.SetStr(k, v[k])
		}
		return d
	}
	return v // already a template value (*List, *Dict, Tuple, ...)
}

// toJSON is Python's json.dumps(v, ensure_ascii=..., indent=indent,
// separators=separators, sort_keys=sortKeys), byte for byte, errors included.
func toJSON(v Value, indent Value, separators Value, sortKeys bool, ensureASCII bool) (string, error) {
	e := jsonEncoder{sortKeys: sortKeys, ascii: ensureASCII, itemSep: ", ", keySep: ": "}
	if indent != nil {
		e.itemSep = ","
	}
	// JSONEncoder.__init__ unpacks the separators first.
	var seps []Value
	if separators != nil {
		items, err := iterate(separators)
		if err != nil {
			return "", typeError("cannot unpack non-iterable %s object", typeName(separators))
		}
		switch {
		case len(items) < 2:
			return "", valueError("not enough values to unpack (expected 2, got %d)", len(items))
		case len(items) > 2:
			return "", valueError("too many values to unpack (expected 2)")
		}
		seps = items
	}
	// A lone str is encoded directly, before indent or separators are used.
	if s, ok := isString(v); ok {
		writeJSONString(&e.b, s, ensureASCII)
		return e.b.String(), nil
	}
	if indent != nil {
		ind, err := jsonIndent(indent)
		if err != nil {
			return "", err
		}
		e.indent, e.pretty = ind, true
	}
	if seps != nil {
		if err := e.setSeparators(seps[0], seps[1]); err != nil {
			return "", err
		}
	}
	if err := e.encode(v, 0); err != nil {
		return "", err
	}
	return e.b.String(), nil
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
	b               strings.Builder
	sortKeys, ascii bool
	pretty          bool   // indent was given
	indent          string // one level of indentation
	itemSep, keySep string
	// sepErr and keySepErr are raised when a non-empty list or dict, or a
	// dict's first key, needs the bad separator (indent mode only).
	sepErr, keySepErr error
}

func (e *jsonEncoder) newline(level int) {
	e.b.WriteByte('\n')
	for i := 0; i < level; i++ {
		e.b.WriteString(e.indent)
	}
}

func (e *jsonEncoder) encode(v Value, level int) error {
	switch v := v.(type) {
	case nil:
		e.b.WriteString("null")
	case bool:
		e.b.WriteString(map[bool]string{true: "true", false: "false"}[v])
	case int:
		e.b.WriteString(strconv.Itoa(v))
	case float64:
		e.b.WriteString(jsonFloat(v))
	case string:
		writeJSONString(&e.b, v, e.ascii)
	case Markup:
		writeJSONString(&e.b, string(v), e.ascii)
	case *List:
		return e.encodeList(v.Items, level)
	case Tuple:
		return e.encodeList(v, level)
	case *Dict:
		return e.encodeDict(v, level)
	default:
		return typeError("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func (e *jsonEncoder) encodeList(items []Value, level int) error {
	if len(items) == 0 {
		e.b.WriteString("[]")
		return nil
	}
	if e.sepErr != nil {
		return e.sepErr
	}
	e.b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			e.b.WriteString(e.itemSep)
		}
		if e.pretty {
			e.newline(level + 1)
		}
		if err := e.encode(it, level+1); err != nil {
			return err
		}
	}
	if e.pretty {
		e.newline(level)
	}
	e.b.WriteByte(']')
	return nil
}

func (e *jsonEncoder) encodeDict(d *Dict, level int) error {
	if d.Len() == 0 {
		e.b.WriteString("{}")
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
	e.b.WriteByte('{')
	for i, k := range keys {
		ks, err := jsonKey(k)
		if err != nil {
			return err
		}
		if i > 0 {
			e.b.WriteString(e.itemSep)
		}
		if e.pretty {
			e.newline(level + 1)
		}
		writeJSONString(&e.b, ks, e.ascii)
		if e.keySepErr != nil {
			return e.keySepErr
		}
		e.b.WriteString(e.keySep)
		if err := e.encode(vals[i], level+1); err != nil {
			return err
		}
	}
	if e.pretty {
		e.newline(level)
	}
	e.b.WriteByte('}')
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
		return e.b.String(), nil
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

// writeJSONString writes s as a JSON string literal the way Python does:
// only '"', '\\' and control characters are escaped unless ascii is set, in
// which case everything outside ASCII is written as \uXXXX (UTF-16 units).
func writeJSONString(b *strings.Builder, s string, ascii bool) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		b.WriteByte(hex[r>>12&0xF])
		b.WriteByte(hex[r>>8&0xF])
		b.WriteByte(hex[r>>4&0xF])
		b.WriteByte(hex[r&0xF])
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				u4(r)
			case !ascii || r < 0x7F:
				b.WriteRune(r)
			case r < 0x10000:
				u4(r)
			default:
				hi, lo := utf16.EncodeRune(r)
				u4(hi)
				u4(lo)
			}
		}
	}
	b.WriteByte('"')
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
