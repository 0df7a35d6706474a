package jinja

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Value is any value a template can hold. The dynamic types follow Python:
//
//	nil        None
//	bool       bool
//	int        int (64-bit; Python's are unbounded, chat templates never notice)
//	float64    float
//	string     str
//	Markup     markupsafe.Markup (a str that is never escaped again)
//	*List      list (a reference, as in Python: list.pop mutates it)
//	Tuple      tuple
//	*Dict      dict (insertion-ordered)
//	*Generator a one-shot iterator, as Jinja2's map/select/reject filters return
//	Undefined  jinja2.Undefined
//	*Namespace the object namespace() returns
//	*Macro     a template macro
//	Func       a built-in callable (globals, bound methods, loop.cycle)
//	*LoopInfo  the loop variable
type Value = any

// Markup is a string already safe for output; it escapes what is added to it.
type Markup string

// Tuple is a Python tuple; it prints with parentheses.
type Tuple []Value

// Undefined is Jinja2's default Undefined: it prints as "", iterates as empty and
// is falsy, but any other use raises UndefinedError with the message Jinja2
// would give. The message is built only when it is raised.
type Undefined struct {
	// Hint, when set, is the whole message.
	Hint string
	// Unsafe marks the undefined the sandbox returns for a forbidden attribute:
	// using it raises SecurityError instead of UndefinedError.
	Unsafe bool

	name  string // the undefined variable, or the missing attribute
	key   Value  // the missing item, when it is not an attribute name
	owner string // the type name of the object that lacks it; "" for a variable
	isKey bool
}

// message is the text an erroring use raises, as Jinja2 words it.
func (u Undefined) message() string {
	switch {
	case u.Hint != "":
		return u.Hint
	case u.owner == "":
		return repr(u.name) + " is undefined"
	case u.isKey:
		return u.owner + " has no element " + repr(u.key)
	}
	return repr(u.owner) + " has no attribute " + repr(u.name)
}

// Func is a built-in callable. kwargs may be nil.
type Func func(r *renderer, args []Value, kwargs *Dict) (Value, error)

// Generator is a one-shot iterator. Jinja2's map, select and reject filters return
// generators: they iterate once, have no length, and json.dumps refuses them.
type Generator struct {
	items    []Value
	fill     func() ([]Value, error) // computes items on first iteration, as Python runs a generator's body
	consumed bool
	name     string // the Python function that made it, for repr
	// iterType, when set, makes this a plain iterator of that Python type
	// (reversed(x) gives list_reverseiterator, reversed, ...), not a generator.
	iterType string
}

// Namespace is what namespace() returns: the one object templates may assign into.
type Namespace struct{ attrs *Dict }

// Dict is a Python dict: insertion-ordered, keyed by hashable values. Small
// dicts (the messages and tool schemas of chat templates) are searched linearly;
// an index is built once a dict grows past smallDict entries.
type Dict struct {
	keys  []Value
	vals  []Value
	index map[any]int // hashKey(key) -> position; nil while the dict is small
}

// smallDict is the size up to which a linear scan beats hashing.
const smallDict = 8

// NewDict returns an empty dict with room for n entries. The keys and values
// share one backing array, allocated with the Dict itself when the dict is
// small: most dicts of a render are keyword arguments and JSON objects of a
// few entries.
func NewDict(n int) *Dict {
	switch {
	case n == 0:
		return &Dict{}
	case n <= 2:
		b := new(struct {
			d  Dict
			kv [4]Value
		})
		return b.d.backed(b.kv[:])
	case n <= 4:
		b := new(struct {
			d  Dict
			kv [8]Value
		})
		return b.d.backed(b.kv[:])
	case n <= smallDict:
		b := new(struct {
			d  Dict
			kv [2 * smallDict]Value
		})
		return b.d.backed(b.kv[:])
	}
	return new(Dict).backed(make([]Value, 2*n))
}

// backed gives d's keys and values the two halves of kv as room.
func (d *Dict) backed(kv []Value) *Dict {
	n := len(kv) / 2
	d.keys, d.vals = kv[:0:n], kv[n:n:2*n]
	return d
}

// hashKey maps a key to the Go map key that Python's hash equality gives it:
// True, 1 and 1.0 are the same key; a Markup and a str with the same text too.
func hashKey(key Value) (any, error) {
	switch k := key.(type) {
	case nil:
		return hashNone{}, nil
	case bool:
		if k {
			return 1, nil
		}
		return 0, nil
	case int:
		return key, nil
	case float64:
		if k == math.Trunc(k) && math.Abs(k) < 1<<62 {
			return int(k), nil
		}
		return k, nil
	case string, Markup:
		// Return the string still boxed: re-boxing it would allocate.
		if m, isMarkup := k.(Markup); isMarkup {
			return string(m), nil
		}
		return key, nil
	case Tuple:
		var b strings.Builder
		if err := writeTupleKey(&b, k, 1); err != nil {
			return nil, err
		}
		return hashTuple(b.String()), nil
	case Undefined:
		// Every Undefined hashes and compares equal to every other.
		return hashUndefined{}, nil
	case *Range:
		if n := k.Len(); n <= 1 {
			return hashRange{start: k.start * n, n: n}, nil
		}
		return hashRange{start: k.start, n: k.Len(), step: k.step}, nil
	case *Generator, *Namespace, *Macro, *LoopInfo, *Cycler, *Joiner, *boundMethod:
		// Objects without __eq__ hash by identity.
		return key, nil
	}
	return nil, typeError("unhashable type: '%s'", typeName(key))
}

// writeTupleKey writes the key of a tuple: its items' keys, each marked
// with its kind (a string's also with its length, so that no two tuples
// share a key), nested tuples in brackets. One pass, bounded as a repr is:
// a tuple that holds itself at every level twice ((t, t), nested) has a key
// exponential in its depth.
func writeTupleKey(b *strings.Builder, t Tuple, depth int) error {
	if depth > maxValueDepth {
		return limitError("a tuple key nests deeper than %d", maxValueDepth)
	}
	b.WriteByte('(')
	for _, e := range t {
		if b.Len() > maxValueBytes {
			return tooLong("a tuple key", b.Len())
		}
		if inner, ok := e.(Tuple); ok {
			if err := writeTupleKey(b, inner, depth+1); err != nil {
				return err
			}
			continue
		}
		h, err := hashKey(e)
		if err != nil {
			return err
		}
		writeItemKey(b, h)
	}
	b.WriteByte(')')
	return nil
}

func writeItemKey(b *strings.Builder, h any) {
	switch h := h.(type) {
	case string:
		fmt.Fprintf(b, "s%d:", len(h))
		b.WriteString(h)
	case int:
		fmt.Fprintf(b, "i%d;", h)
	case float64:
		fmt.Fprintf(b, "f%x;", math.Float64bits(h))
	case hashNone:
		b.WriteString("N;")
	case hashUndefined:
		b.WriteString("U;")
	case hashRange:
		fmt.Fprintf(b, "r%d,%d,%d;", h.start, h.n, h.step)
	default:
		fmt.Fprintf(b, "p%T%p;", h, h) // an object that hashes by identity
	}
}

type hashNone struct{}
type hashUndefined struct{}
type hashRange struct{ start, n, step int }
type hashTuple string

// findStr returns the position of a str key.
func (d *Dict) findStr(k string) (int, bool) {
	if d.index != nil {
		i, ok := d.index[k]
		return i, ok
	}
	for i, key := range d.keys {
		switch key := key.(type) {
		case string:
			if key == k {
				return i, true
			}
		case Markup:
			if string(key) == k {
				return i, true
			}
		}
	}
	return 0, false
}

// find returns the position of any key; h is hashKey(k).
func (d *Dict) find(h any) (int, bool) {
	if s, ok := h.(string); ok {
		return d.findStr(s)
	}
	if d.index != nil {
		i, ok := d.index[h]
		return i, ok
	}
	for i, key := range d.keys {
		if kh, _ := hashKey(key); kh == h {
			return i, true
		}
	}
	return 0, false
}

// insertStr appends a new str key, boxing it once for both uses.
func (d *Dict) insertStr(k string, v Value) {
	var key Value = k
	d.insert(key, key, v)
}

func (d *Dict) insert(h any, k, v Value) {
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	switch {
	case d.index != nil:
		d.index[h] = len(d.keys) - 1
	case len(d.keys) > smallDict:
		d.index = make(map[any]int, 2*len(d.keys))
		for i, key := range d.keys {
			kh, _ := hashKey(key)
			d.index[kh] = i
		}
	}
}

// Set stores v under k.
func (d *Dict) Set(k, v Value) error {
	if s, ok := k.(string); ok {
		d.SetStr(s, v)
		return nil
	}
	h, err := hashKey(k)
	if err != nil {
		return err
	}
	if i, ok := d.find(h); ok {
		d.vals[i] = v
		return nil
	}
	d.insert(h, k, v)
	return nil
}

// SetStr stores v under a string key.
func (d *Dict) SetStr(k string, v Value) {
	if i, ok := d.findStr(k); ok {
		d.vals[i] = v
		return
	}
	d.insertStr(k, v)
}

// Get returns the value stored under k.
func (d *Dict) Get(k Value) (Value, bool) {
	if s, ok := k.(string); ok {
		return d.GetStr(s)
	}
	h, err := hashKey(k)
	if err != nil {
		return nil, false
	}
	i, ok := d.find(h)
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// GetStr returns the value stored under a string key.
func (d *Dict) GetStr(k string) (Value, bool) {
	i, ok := d.findStr(k)
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.keys) }

// Keys returns the keys in insertion order; the slice must not be modified.
func (d *Dict) Keys() []Value { return d.keys }

// Values returns the values in insertion order; the slice must not be modified.
func (d *Dict) Values() []Value { return d.vals }

// Copy returns a shallow copy.
func (d *Dict) Copy() *Dict {
	c := &Dict{keys: append([]Value(nil), d.keys...), vals: append([]Value(nil), d.vals...)}
	if d.index != nil {
		c.index = make(map[any]int, len(d.index))
		for h, i := range d.index {
			c.index[h] = i
		}
	}
	return c
}

// typeName is Python's type(v).__name__.
func typeName(v Value) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case Markup:
		return "Markup"
	case *List:
		return "list"
	case Tuple:
		return "tuple"
	case *Dict:
		return "dict"
	case *Generator:
		if v.iterType != "" {
			return v.iterType
		}
		return "generator"
	case *dictView:
		return v.typeName()
	case *Range:
		return "range"
	case Undefined:
		return "Undefined"
	case *Namespace:
		return "Namespace"
	case *Macro:
		return "Macro"
	case Func, *boundMethod:
		return "builtin_function_or_method"
	case *LoopInfo:
		return "LoopContext"
	case *Cycler:
		return "Cycler"
	case *Joiner:
		return "Joiner"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// truthy is Python's bool(v).
func truthy(v Value) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case Markup:
		return v != ""
	case *List:
		return len(v.Items) > 0
	case Tuple:
		return len(v) > 0
	case *Dict:
		return v.Len() > 0
	case *dictView:
		return v.d.Len() > 0
	case *Range:
		return v.Len() > 0
	case Undefined:
		return false
	}
	return true
}

// isString reports whether v is a str (Markup included) and returns its text.
func isString(v Value) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case Markup:
		return string(v), true
	}
	return "", false
}

// toStr is Python's str(v), the text {{ v }} prints.
func toStr(v Value) string {
	switch v := v.(type) {
	case string:
		return v
	case Markup:
		return string(v)
	case Undefined:
		return ""
	case int:
		return strconv.Itoa(v) // no allocation below 100
	case bool:
		if v {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	}
	return repr(v)
}

// repr is Python's repr(v).
func repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v Value) { (&reprState{b: b}).write(v) }

// reprState is one repr in progress: the lists and dicts being written, so
// that one inside itself is written as Python writes it ([...], {...}), and
// bounds on the nesting and the text (see bounds.go), past which it panics
// with a reprLimit that the render turns into a LimitError.
type reprState struct {
	b     *strings.Builder
	open  []any
	depth int
}

// inside reports whether c is being written already, else notes it.
func (s *reprState) inside(c any) bool {
	for _, o := range s.open {
		if o == c {
			return true
		}
	}
	s.open = append(s.open, c)
	return false
}

func (s *reprState) write(v Value) {
	b := s.b
	if s.depth++; s.depth > maxValueDepth {
		panic(reprLimit{limitError("repr: the value nests deeper than %d", maxValueDepth)})
	}
	defer func() { s.depth-- }()
	if b.Len() > maxValueBytes {
		panic(reprLimit{tooLong("a repr", b.Len())})
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		b.WriteString(strconv.Itoa(v))
	case float64:
		b.WriteString(formatFloat(v))
	case string:
		writeStrRepr(b, v)
	case Markup:
		b.WriteString("Markup(")
		writeStrRepr(b, string(v))
		b.WriteString(")")
	case *List:
		if s.inside(v) {
			b.WriteString("[...]")
			return
		}
		defer s.leave()
		b.WriteByte('[')
		for i, e := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			s.write(e)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			s.write(e)
		}
		if len(v) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case *Dict:
		if s.inside(v) {
			b.WriteString("{...}")
			return
		}
		defer s.leave()
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			s.write(k)
			b.WriteString(": ")
			s.write(v.vals[i])
		}
		b.WriteByte('}')
	case Undefined:
		b.WriteString("Undefined")
	case *dictView:
		b.WriteString(v.typeName())
		b.WriteByte('(')
		s.write(NewList(v.items()))
		b.WriteByte(')')
	case *Range:
		b.WriteString(v.repr())
	case *Generator:
		if v.iterType != "" {
			b.WriteString("<" + v.iterType + " object at 0x7f0000000000>")
		} else {
			b.WriteString("<generator object " + v.name + " at 0x7f0000000000>")
		}
	case *Namespace:
		b.WriteString("<Namespace ")
		s.write(v.attrs)
		b.WriteString(">")
	case *Macro:
		if v.name == "" {
			b.WriteString("<Macro anonymous>") // a call block's caller
		} else {
			b.WriteString("<Macro '" + v.name + "'>")
		}
	case *boundMethod:
		b.WriteString("<built-in method " + v.name + " of " + v.owner + " object at 0x7f0000000000>")
	case *LoopInfo:
		fmt.Fprintf(b, "<LoopContext %d/%d>", v.index+1, v.length())
	default:
		fmt.Fprintf(b, "<%s object>", typeName(v))
	}
}

func (s *reprState) leave() { s.open = s.open[:len(s.open)-1] }

// writeStrRepr writes a str as Python's repr does: single quotes unless the text
// holds a single quote and no double quote; non-printable characters escaped.
func writeStrRepr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		// Printable ASCII other than the quote and the backslash is written
		// as it is: a run of it at once.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != quote && s[j] != '\\' {
			j++
		}
		b.WriteString(s[i:j])
		if j == len(s) {
			break
		}
		r, w := utf8.DecodeRuneInString(s[j:])
		writeRuneRepr(b, r, quote)
		i = j + w
	}
	b.WriteByte(quote)
}

func writeRuneRepr(b *strings.Builder, r rune, quote byte) {
	switch {
	case r == rune(quote) || r == '\\':
		b.WriteByte('\\')
		b.WriteRune(r)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case isPrintable(r):
		b.WriteRune(r)
	case r < 0x100:
		fmt.Fprintf(b, `\x%02x`, r)
	case r < 0x10000:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// formatFloat is Python's repr(float): the shortest text that reads back as the
// same float, in positional notation for 1e-4 <= |x| < 1e16 and as d.ddde±XX
// otherwise, always with a '.0' or an exponent so it reads as a float.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	// Shortest round-trip digits and the decimal exponent.
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.dddde±XX
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		out += fmt.Sprintf("e%s%02d", sign, exp)
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if len(digits) <= exp+1 {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// List is a Python list. It is a reference, as in Python: the sandbox forbids
// append and friends, but list.pop is allowed and mutates every holder's view.
type List struct{ Items []Value }

// NewList wraps items as a list.
func NewList(items []Value) *List { return &List{Items: items} }

// isPrintable is Python's str.isprintable for one character: what repr leaves
// unescaped.
func isPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	return unicode.IsPrint(r)
}
