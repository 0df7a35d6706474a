package jinja

import (
	"math"
	"strings"
	"unicode/utf8"
)

// equal is Python's a == b.
func equal(a, b Value) bool {
	switch a.(type) {
	case *List, Tuple, *Dict:
		var st equality
		return st.equal(a, b)
	}
	return equalScalar(a, b)
}

func equalScalar(a, b Value) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool, int, float64:
		x, ok1 := number(a)
		y, ok2 := number(b)
		return ok1 && ok2 && x == y
	case string, Markup:
		s, _ := isString(a)
		t, ok := isString(b)
		return ok && s == t
	case Undefined:
		_, ok := b.(Undefined)
		return ok
	case *dictView:
		return a.equal(b)
	case *Range:
		o, ok := b.(*Range)
		return ok && a.equal(o)
	}
	return a == b
}

// equality is one comparison of lists, tuples and dicts. Like CPython's, it
// takes a container for equal to itself without looking inside (which is
// also what keeps [x, x] == [x, x] cheap). It nests at most maxValueDepth
// deep, Python's RecursionError, and past eqMemoAfter containers compared
// it notes the pairs found equal: two separately built values that share
// their parts (each level [p, p] of the one before) would otherwise take
// time exponential in their depth. Past the bounds it panics with a
// reprLimit, which the render turns into a LimitError.
type equality struct {
	depth, seen int
	equalPairs  map[[2]any]bool
}

const eqMemoAfter = 1 << 10

func (st *equality) equal(a, b Value) bool {
	switch a.(type) {
	case *List, Tuple, *Dict:
	default:
		return equalScalar(a, b)
	}
	if sameContainer(a, b) {
		return true
	}
	if st.depth++; st.depth > maxValueDepth {
		panic(reprLimit{limitError("comparison: the values nest deeper than %d", maxValueDepth)})
	}
	defer func() { st.depth-- }()
	key, memo := st.pair(a, b)
	if memo && st.equalPairs[key] {
		return true
	}
	ok := st.equalContainers(a, b)
	if ok && memo {
		st.equalPairs[key] = true
	}
	return ok
}

// pair is the memo key of comparing a and b, once enough containers have
// been compared to make noting them worth it.
func (st *equality) pair(a, b Value) ([2]any, bool) {
	if st.seen++; st.seen < eqMemoAfter {
		return [2]any{}, false
	}
	if st.equalPairs == nil {
		st.equalPairs = map[[2]any]bool{}
	}
	return [2]any{identity(a), identity(b)}, true
}

func (st *equality) equalContainers(a, b Value) bool {
	switch a := a.(type) {
	case *List:
		c, ok := b.(*List)
		return ok && st.equalSeq(a.Items, c.Items)
	case Tuple:
		c, ok := b.(Tuple)
		return ok && st.equalSeq(a, c)
	case *Dict:
		c, ok := b.(*Dict)
		if !ok || a.Len() != c.Len() {
			return false
		}
		for i, k := range a.keys {
			w, ok := c.Get(k)
			if !ok || !st.equal(a.vals[i], w) {
				return false
			}
		}
		return true
	}
	return false
}

func (st *equality) equalSeq(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !st.equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func equalSeq(a, b []Value) bool {
	var st equality
	return st.equalSeq(a, b)
}

// identity is what makes a list, tuple or dict the object it is: its
// pointer, or a tuple's array and length.
func identity(v Value) any {
	switch x := v.(type) {
	case Tuple:
		if len(x) == 0 {
			return tupleID{}
		}
		return tupleID{&x[0], len(x)}
	}
	return v
}

type tupleID struct {
	first *Value
	n     int
}

// sameContainer reports whether a and b are the same list, tuple or dict.
func sameContainer(a, b Value) bool {
	switch x := a.(type) {
	case *List:
		y, ok := b.(*List)
		return ok && x == y
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	case Tuple:
		y, ok := b.(Tuple)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return false
}

// number returns v as a float64 when it is a bool, int or float.
func number(v Value) (float64, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// isNumber reports whether v is a Python number (bool counts, as in Python).
func isNumber(v Value) bool {
	switch v.(type) {
	case bool, int, float64:
		return true
	}
	return false
}

// compare is Python's ordering of a and b for <, <=, >, >=: -1, 0 or 1.
func compare(op string, a, b Value) (int, error) {
	if _, ok := a.(Undefined); ok {
		return 0, a.(Undefined).fail()
	}
	if _, ok := b.(Undefined); ok {
		return 0, b.(Undefined).fail()
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			ai, aInt := a.(int)
			bi, bInt := b.(int)
			if aInt && bInt {
				return cmpInt(ai, bi), nil
			}
			switch {
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
	}
	if s, ok := isString(a); ok {
		if t, ok := isString(b); ok {
			return strings.Compare(s, t), nil
		}
	}
	as, aok := asSeq(a)
	bs, bok := asSeq(b)
	if aok && bok && sameKind(a, b) {
		for i := 0; i < len(as) && i < len(bs); i++ {
			if !equal(as[i], bs[i]) {
				return compare(op, as[i], bs[i])
			}
		}
		return cmpInt(len(as), len(bs)), nil
	}
	return 0, typeError("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))
}

func sameKind(a, b Value) bool {
	_, al := a.(*List)
	_, bl := b.(*List)
	return al == bl
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// asSeq returns the items of a list or tuple.
func asSeq(v Value) ([]Value, bool) {
	switch v := v.(type) {
	case *List:
		return v.Items, true
	case Tuple:
		return v, true
	}
	return nil, false
}

// iterate is Python's iter(v) drained into a slice: a dict yields its keys, a
// str its characters, Undefined nothing; other values raise TypeError.
func iterate(v Value) ([]Value, error) {
	switch v := v.(type) {
	case *List:
		return v.Items, nil
	case Tuple:
		return v, nil
	case *Dict:
		return v.keys, nil
	case string:
		return strChars(v)
	case Markup:
		// Markup inherits str.__iter__: its characters are plain str.
		return strChars(string(v))
	case *Generator:
		if v.consumed {
			return nil, nil
		}
		v.consumed = true
		if v.fill != nil {
			items, err := v.fill()
			v.fill = nil
			if err != nil {
				return nil, err
			}
			v.items = items
		}
		return v.items, nil
	case *dictView:
		return v.items(), nil
	case *Range:
		return v.items(), nil
	case *LoopInfo:
		// The loop object is the loop's own iterator: iterating it takes the
		// items the loop has not reached, and the loop ends after this pass.
		rest := v.items[min(v.index+1, len(v.items)):]
		v.exhausted = true
		return rest, nil
	case Undefined:
		return nil, nil
	}
	return nil, typeError("'%s' object is not iterable", typeName(v))
}

// strChars is a str's characters, each a str. Python makes them one at a
// time; here they are a list, bounded as any list an operation makes.
func strChars(s string) ([]Value, error) {
	n := utf8.RuneCountInString(s)
	if n > maxValueItems {
		return nil, limitError("the %d characters of a string exceed the limit of %d items", n, maxValueItems)
	}
	out := make([]Value, 0, n)
	for _, r := range s {
		out = append(out, string(r))
	}
	return out, nil
}

// length is Python's len(v).
func length(v Value) (int, error) {
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v), nil
	case Markup:
		return utf8.RuneCountInString(string(v)), nil
	case *List:
		return len(v.Items), nil
	case Tuple:
		return len(v), nil
	case *Dict:
		return v.Len(), nil
	case *dictView:
		return v.d.Len(), nil
	case *Range:
		return v.Len(), nil
	case Undefined:
		return 0, nil
	}
	return 0, typeError("object of type '%s' has no len()", typeName(v))
}

// contains is Python's needle in haystack.
func contains(haystack, needle Value) (bool, error) {
	switch h := haystack.(type) {
	case string, Markup:
		hs, _ := isString(h)
		n, ok := isString(needle)
		if !ok {
			return false, typeError("'in <string>' requires string as left operand, not %s", typeName(needle))
		}
		return strings.Contains(hs, n), nil
	case *Dict:
		if _, err := hashKey(needle); err != nil {
			return false, err
		}
		_, ok := h.Get(needle)
		return ok, nil
	case *dictView:
		return h.contains(needle)
	case Undefined:
		// Undefined has no __contains__, so Python iterates it: nothing is in it.
		return false, nil
	}
	items, err := iterate(haystack)
	if err != nil {
		return false, typeError("argument of type '%s' is not iterable", typeName(haystack))
	}
	for _, it := range items {
		if equal(it, needle) {
			return true, nil
		}
	}
	return false, nil
}

// pyIndex resolves a Python index (negative counts from the end) against n.
func pyIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// sliceBounds resolves Python slice bounds (nil for an omitted bound) against a
// length n and returns the indices to take, in order.
func sliceBounds(start, stop, step Value, n int) ([]int, error) {
	lo, hi, st, err := sliceIndices(start, stop, step, n)
	if err != nil {
		return nil, err
	}
	var idx []int
	if st > 0 {
		for i := lo; i < hi; i += st {
			idx = append(idx, i)
		}
	} else {
		for i := lo; i > hi; i += st {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// sliceIndices is Python's slice(start, stop, step).indices(n): the bounds
// clamped to a sequence of length n.
func sliceIndices(start, stop, step Value, n int) (int, int, int, error) {
	st := 1
	if step != nil {
		s, ok := indexOf(step)
		if !ok {
			return 0, 0, 0, typeError("slice indices must be integers or None or have an __index__ method")
		}
		if s == 0 {
			return 0, 0, 0, valueError("slice step cannot be zero")
		}
		st = s
	}
	clamp := func(v Value, def int) (int, error) {
		if v == nil {
			return def, nil
		}
		i, ok := indexOf(v)
		if !ok {
			return 0, typeError("slice indices must be integers or None or have an __index__ method")
		}
		if i < 0 {
			i += n
			if i < 0 {
				if st < 0 {
					return -1, nil
				}
				return 0, nil
			}
		} else if i >= n {
			if st < 0 {
				return n - 1, nil
			}
			return n, nil
		}
		return i, nil
	}
	lo, hi := 0, n
	if st < 0 {
		lo, hi = n-1, -1
	}
	var err error
	if lo, err = clamp(start, lo); err != nil {
		return 0, 0, 0, err
	}
	if hi, err = clamp(stop, hi); err != nil {
		return 0, 0, 0, err
	}
	return lo, hi, st, nil
}

// floorDiv and floorMod follow Python: the result of // rounds toward -inf and %
// takes the sign of the divisor.
func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int) int {
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}

// floatDivmod is CPython's float divmod: the floor quotient is computed from
// fmod, not as floor(x / y), so 3 // 0.1 is 29.0 while 3 / 0.1 is 30.0.
func floatDivmod(x, y float64) (div, mod float64) {
	mod = math.Mod(x, y)
	div = (x - mod) / y
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			mod += y
			div -= 1
		}
	} else {
		mod = math.Copysign(0, y)
	}
	if div != 0 {
		floor := math.Floor(div)
		if div-floor > 0.5 {
			floor++
		}
		div = floor
	} else {
		div = math.Copysign(0, x/y)
	}
	return div, mod
}

// ---------------------------------------------------------------------------
// Operators

func unary(op string, v Value) (Value, error) {
	if op == "not" {
		return !truthy(v), nil
	}
	if u, ok := v.(Undefined); ok {
		return nil, u.fail()
	}
	switch x := v.(type) {
	case bool:
		i := 0
		if x {
			i = 1
		}
		if op == "-" {
			return -i, nil
		}
		return i, nil
	case int:
		if op == "-" {
			return negInt(x)
		}
		return x, nil
	case float64:
		if op == "-" {
			return -x, nil
		}
		return x, nil
	}
	return nil, typeError("bad operand type for unary %s: '%s'", op, typeName(v))
}

// binary applies a Python arithmetic operator (and Jinja2's ~).
func binary(op string, a, b Value) (Value, error) {
	if op == "~" {
		return toStr(a) + toStr(b), nil
	}
	if u, ok := a.(Undefined); ok {
		return nil, u.fail()
	}
	if u, ok := b.(Undefined); ok {
		if _, isStr := isString(a); !isStr || op != "%" {
			return nil, u.fail()
		}
		// str % x only asks x for str() or repr(), which an Undefined answers.
	}
	if isNumber(a) && isNumber(b) {
		return arith(op, a, b)
	}
	switch op {
	case "+":
		return add(a, b)
	case "*":
		return repeat(a, b)
	case "%":
		if s, ok := isString(a); ok {
			_, isMarkup := a.(Markup)
			out, err := pyPercent(s, b, isMarkup)
			if err != nil {
				return nil, err
			}
			if isMarkup {
				return Markup(out), nil
			}
			return out, nil
		}
	}
	return nil, typeError("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(a), typeName(b))
}

func add(a, b Value) (Value, error) {
	switch x := a.(type) {
	case string:
		switch y := b.(type) {
		case string:
			if n := len(x) + len(y); n > maxValueBytes {
				return nil, tooLong("a string", n)
			}
			return x + y, nil
		case Markup:
			return Markup(string(escapeValue(x)) + string(y)), nil
		}
		return nil, typeError("can only concatenate str (not \"%s\") to str", typeName(b))
	case Markup:
		if _, ok := isString(b); ok {
			return x + escapeValue(b), nil
		}
		return nil, typeError("unsupported operand type(s) for +: 'Markup' and '%s'", typeName(b))
	case *List:
		y, ok := b.(*List)
		if !ok {
			return nil, typeError("can only concatenate list (not \"%s\") to list", typeName(b))
		}
		if n := len(x.Items) + len(y.Items); n > maxValueItems {
			return nil, limitError("a list of %d items exceeds the limit of %d", n, maxValueItems)
		}
		items := make([]Value, 0, len(x.Items)+len(y.Items))
		return NewList(append(append(items, x.Items...), y.Items...)), nil
	case Tuple:
		y, ok := b.(Tuple)
		if !ok {
			return nil, typeError("can only concatenate tuple (not \"%s\") to tuple", typeName(b))
		}
		if n := len(x) + len(y); n > maxValueItems {
			return nil, limitError("a tuple of %d items exceeds the limit of %d", n, maxValueItems)
		}
		items := make(Tuple, 0, len(x)+len(y))
		return append(append(items, x...), y...), nil
	}
	if _, ok := b.(Markup); ok {
		// Markup.__radd__ escapes the left operand only when it is a str.
		return nil, typeError("unsupported operand type(s) for +: '%s' and 'Markup'", typeName(a))
	}
	return nil, typeError("unsupported operand type(s) for +: '%s' and '%s'", typeName(a), typeName(b))
}

// repeat is sequence * int in either order.
func repeat(a, b Value) (Value, error) {
	n, ok := b.(int)
	seq := a
	if !ok {
		if bb, isB := b.(bool); isB {
			n, ok = map[bool]int{false: 0, true: 1}[bb], true
		}
	}
	if !ok {
		n, ok = a.(int)
		seq = b
	}
	if !ok {
		return nil, typeError("can't multiply sequence by non-int of type '%s'", typeName(b))
	}
	if n < 0 {
		n = 0
	}
	// Checked before anything is made, without overflow: n can be 10**18.
	size := func(unit, limit int, what string) error {
		if unit > 0 && n > limit/unit {
			if what == "" {
				return limitError("a sequence of %d × %d items exceeds the limit of %d", unit, n, maxValueItems)
			}
			return limitError("%s repetition of %d × %d bytes exceeds the limit of %d", what, unit, n, maxValueBytes)
		}
		return nil
	}
	switch s := seq.(type) {
	case string:
		if err := size(len(s), maxValueBytes, "string"); err != nil {
			return nil, err
		}
		return strings.Repeat(s, n), nil
	case Markup:
		if err := size(len(s), maxValueBytes, "string"); err != nil {
			return nil, err
		}
		return Markup(strings.Repeat(string(s), n)), nil
	case *List:
		if err := size(len(s.Items), maxValueItems, ""); err != nil {
			return nil, err
		}
		return NewList(repeatItems(s.Items, n)), nil
	case Tuple:
		if err := size(len(s), maxValueItems, ""); err != nil {
			return nil, err
		}
		return Tuple(repeatItems(s, n)), nil
	}
	return nil, typeError("unsupported operand type(s) for *: '%s' and '%s'", typeName(a), typeName(b))
}

// repeatItems is items n times over, copied in doublings: [0] * 3000000
// is a few copies, not three million.
func repeatItems(items []Value, n int) []Value {
	total := len(items) * n
	out := make([]Value, 0, total)
	if total == 0 {
		return out
	}
	out = append(out, items...)
	for len(out) < total {
		out = append(out, out[:min(len(out), total-len(out))]...)
	}
	return out
}

// arith applies an operator to two numbers with Python's int/float rules.
func arith(op string, a, b Value) (Value, error) {
	ai, aInt := asInt(a)
	bi, bInt := asInt(b)
	if aInt && bInt {
		switch op {
		case "+":
			return addInt(ai, bi)
		case "-":
			return subInt(ai, bi)
		case "*":
			return mulInt(ai, bi)
		case "/":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "division by zero")
			}
			return float64(ai) / float64(bi), nil
		case "//":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "integer division or modulo by zero")
			}
			return floorDivInt(ai, bi)
		case "%":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "integer modulo by zero")
			}
			return floorMod(ai, bi), nil
		case "**":
			if bi >= 0 {
				return powInt(ai, bi)
			}
			return floatPow(float64(ai), float64(bi))
		}
	}
	x, _ := number(a)
	y, _ := number(b)
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		if y == 0 {
			return nil, newError("ZeroDivisionError", "float division by zero")
		}
		return x / y, nil
	case "//":
		if y == 0 {
			return nil, newError("ZeroDivisionError", "float floor division by zero")
		}
		div, _ := floatDivmod(x, y)
		return div, nil
	case "%":
		if y == 0 {
			return nil, newError("ZeroDivisionError", "float modulo")
		}
		_, mod := floatDivmod(x, y)
		return mod, nil
	case "**":
		return floatPow(x, y)
	}
	return nil, typeError("unsupported operand type(s) for %s", op)
}

// floatPow is x ** y for floats: zero to a negative power raises, as in
// Python.
func floatPow(x, y float64) (Value, error) {
	if x == 0 && y < 0 {
		return nil, newError("ZeroDivisionError", "0.0 cannot be raised to a negative power")
	}
	return math.Pow(x, y), nil
}

func asInt(v Value) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func compareOp(op string, a, b Value) (bool, error) {
	switch op {
	case "==":
		return equal(a, b), nil
	case "!=":
		return !equal(a, b), nil
	case "in":
		return contains(b, a)
	case "notin":
		ok, err := contains(b, a)
		return !ok, err
	}
	return pyCmp(op, a, b)
}
