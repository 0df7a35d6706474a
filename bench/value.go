package bench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is a JSON value's kind as the checker sees it: Python's type of the
// value json.loads would make (int and float apart, bool apart from both).
type Kind uint8

const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindList
	KindMap
	// KindTuple is a Python tuple, which only a prompting-mode answer
	// (DecodeText) can hold: it equals only a tuple, and is no list to the
	// type check, as in Python. Its JSON is a list.
	KindTuple
)

var kindNames = [...]string{"null", "bool", "int", "float", "string", "list", "map", "tuple"}

func (k Kind) String() string { return kindNames[k] }

// Value is a decoded JSON value that keeps what the checker needs and
// encoding/json's any loses: integers apart from floats (the lexical form
// decides, as in Python's json), member order, and numbers as written.
type Value struct {
	kind  Kind
	b     bool
	s     string   // a string's text, or a number's literal as written
	i     int64    // an integer that fits
	bigI  *big.Int // an integer that does not fit in int64
	f     float64  // a float's value
	items []Value  // a list's elements
	mems  []Member // a map's members, in first-seen order
}

// Member is one key of a map value.
type Member struct {
	Key   string
	Value Value
}

// Null, Bool, Int, Float, String, List and Map make values.
func Null() Value               { return Value{kind: KindNull} }
func Bool(b bool) Value         { return Value{kind: KindBool, b: b} }
func Int(i int64) Value         { return Value{kind: KindInt, i: i, s: strconv.FormatInt(i, 10)} }
func String(s string) Value     { return Value{kind: KindString, s: s} }
func List(items ...Value) Value { return Value{kind: KindList, items: items} }
func Map(mems ...Member) Value  { return Value{kind: KindMap, mems: mems} }

// Float makes a float value; it is written with a decimal point, so that it
// stays a float when encoded and read back.
func Float(f float64) Value {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return Value{kind: KindFloat, f: f, s: s}
}

func (v Value) Kind() Kind { return v.kind }

// Str is a string value's text ("" for other kinds).
func (v Value) Str() string {
	if v.kind != KindString {
		return ""
	}
	return v.s
}

// Items is a list's elements (nil for other kinds).
func (v Value) Items() []Value { return v.items }

// Members is a map's members in order (nil for other kinds).
func (v Value) Members() []Member { return v.mems }

// Get is a map's value for key.
func (v Value) Get(key string) (Value, bool) {
	for _, m := range v.mems {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// isEmptyMarker reports the acceptable-list marker "" ("may be omitted").
func (v Value) isEmptyMarker() bool { return v.kind == KindString && v.s == "" }

// asFloat turns an integer into the float Python's float() would make: the
// checker's int→float promotion.
func (v Value) asFloat() Value {
	if v.kind != KindInt {
		return v
	}
	if v.bigI != nil {
		f, _ := new(big.Float).SetInt(v.bigI).Float64()
		return Float(f)
	}
	return Float(float64(v.i))
}

// Equal is Python's == on the values json.loads makes: numbers by value across
// int and float, booleans equal to 1 and 0, maps by key set whatever the order,
// lists element by element.
func Equal(a, b Value) bool {
	if an, ok := a.number(); ok {
		bn, ok := b.number()
		return ok && numbersEqual(an, bn)
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindNull:
		return true
	case KindString:
		return a.s == b.s
	case KindList, KindTuple:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !Equal(a.items[i], b.items[i]) {
				return false
			}
		}
		return true
	case KindMap:
		if len(a.mems) != len(b.mems) {
			return false
		}
		for _, m := range a.mems {
			w, ok := b.Get(m.Key)
			if !ok || !Equal(m.Value, w) {
				return false
			}
		}
		return true
	}
	return false
}

// number is a bool, int or float as a number (Python's bool is an int).
func (v Value) number() (Value, bool) {
	switch v.kind {
	case KindBool:
		if v.b {
			return Int(1), true
		}
		return Int(0), true
	case KindInt, KindFloat:
		return v, true
	}
	return Value{}, false
}

// numbersEqual compares exactly, as Python compares int with float.
func numbersEqual(a, b Value) bool {
	if a.kind == KindFloat && b.kind == KindFloat {
		return a.f == b.f
	}
	if a.kind == KindInt && b.kind == KindInt && a.bigI == nil && b.bigI == nil {
		return a.i == b.i
	}
	x, y := a.exact(), b.exact()
	if x == nil || y == nil {
		return false // NaN or an infinity against a finite number
	}
	return x.Cmp(y) == 0
}

// exact is a number as an exact rational (nil for NaN and infinities).
func (v Value) exact() *big.Rat {
	switch {
	case v.kind == KindInt && v.bigI != nil:
		return new(big.Rat).SetInt(v.bigI)
	case v.kind == KindInt:
		return new(big.Rat).SetInt64(v.i)
	case math.IsNaN(v.f) || math.IsInf(v.f, 0):
		return nil
	}
	return new(big.Rat).SetFloat64(v.f)
}

// in is Python's `value in list`.
func in(v Value, list []Value) bool {
	for _, w := range list {
		if Equal(v, w) {
			return true
		}
	}
	return false
}

func (v Value) index(key string) int {
	for i, m := range v.mems {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// numberValue reads a JSON number: an integer when it has no fraction or
// exponent (Python's json makes an int of it, however large), else a float.
func numberValue(lit string) (Value, error) {
	if !strings.ContainsAny(lit, ".eE") {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return Value{kind: KindInt, i: i, s: lit}, nil
		}
		n, ok := new(big.Int).SetString(lit, 10)
		if !ok {
			return Value{}, fmt.Errorf("invalid JSON number %q", lit)
		}
		return Value{kind: KindInt, bigI: n, s: lit}, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Value{}, fmt.Errorf("invalid JSON number %q", lit)
	}
	return Value{kind: KindFloat, f: f, s: lit}, nil // out of range: ±Inf, as Python's float()
}

// MarshalJSON writes the value compactly, numbers as they were written and
// members in order, without encoding/json's HTML escaping.
func (v Value) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// UnmarshalJSON reads a value with ParseValue.
func (v *Value) UnmarshalJSON(data []byte) error {
	w, err := ParseValue(data)
	if err == nil {
		*v = w
	}
	return err
}

// AppendJSON appends the value's compact JSON.
func (v Value) AppendJSON(buf []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(buf, "null"...)
	case KindBool:
		return strconv.AppendBool(buf, v.b)
	case KindInt, KindFloat:
		return append(buf, v.s...)
	case KindString:
		return appendString(buf, v.s)
	case KindList, KindTuple:
		buf = append(buf, '[')
		for i, item := range v.items {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = item.AppendJSON(buf)
		}
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i, m := range v.mems {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, m.Key)
		buf = append(buf, ':')
		buf = m.Value.AppendJSON(buf)
	}
	return append(buf, '}')
}

// String is the value's JSON, for messages.
func (v Value) String() string { return string(v.AppendJSON(nil)) }

func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		case c < utf8.RuneSelf:
			buf = append(buf, c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, `\ufffd`...)
			} else {
				buf = append(buf, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(buf, '"')
}
