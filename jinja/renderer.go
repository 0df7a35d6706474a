package jinja

import (
	"context"
	"time"
)

// renderer holds the state of one Render call. Compiled templates are shared
// between goroutines; everything mutable lives here. Renderers are pooled
// (template.go) and reset for each render.
type renderer struct {
	limits Limits
	now    func() time.Time

	// The time limit and the context (see budget.go): the render looks at
	// them when its budget of work units runs out.
	deadline    time.Time
	hasDeadline bool
	ctx         context.Context
	stop        <-chan struct{} // ctx.Done(), or nil
	budget      int

	vars     Context // the render context, under the root frame
	root     frame
	rootBuf  []Value     // backing for root.slots, kept between renders
	out      []byte      // the output; captured blocks append to it and cut it back
	argStack []Value     // arguments of calls in progress that keep none (see argsCode.push)
	macros   []Macro     // the template's top-level macros (see compiler.macroStmt)
	free     []freeCache // the render context's value of each free name, once looked up (see freeValue)
	render   uint64      // counts the renderer's renders: free's entries of earlier ones are stale

	// Frames and loop blocks free for reuse (see renderer.child).
	freeFrames []*frame
	freeLoops  []*loopBlock

	// Namespaces of this render, whose blocks the next render reuses (see
	// newNamespace): the first nsUsed are taken.
	namespaces []*nsBlock
	nsUsed     int

	// text holds the bytes of strings the render makes (see joinText); the
	// next render reuses it. textShort is set when it filled up.
	text      []byte
	textShort bool

	written    int    // bytes written, captured blocks included, for MaxOutputBytes
	pieces     int    // writes to the current capture, for Python's join errors
	joinErr    *Error // the error joining the current capture will raise
	iterations int    // loop iterations so far, for MaxIterations
	depth      int    // macro calls and recursive loops in progress, for MaxDepth
	maxDepth   int    // MaxDepth, or maxCallDepth when that is lower or MaxDepth 0
}

// fail is the error a use of u raises.
func (u Undefined) fail() *Error {
	if u.Unsafe {
		return securityError("%s", u.message())
	}
	return undefinedError(u.message())
}

// undefinedAttr is the Undefined Jinja2 returns for a missing attribute or item
// of obj, carrying the message Jinja2 would raise on its use.
func undefinedAttr(obj Value, name Value) Undefined {
	owner := "None"
	if obj != nil {
		owner = typeName(obj) + " object"
		if isGroupTuple(obj) {
			owner = "jinja2.filters._GroupTuple object"
		}
	}
	if s, ok := name.(string); ok {
		return Undefined{owner: owner, name: s}
	}
	return Undefined{owner: owner, key: name, isKey: true}
}

// unsafeAttr is the Undefined the immutable sandbox returns for an attribute that
// would mutate a list or dict (or any name starting with an underscore).
func unsafeAttr(obj Value, name string) Undefined {
	return Undefined{Unsafe: true, Hint: "access to attribute " + repr(name) + " of " + repr(typeName(obj)) + " object is unsafe."}
}

// dictAttrs are the attributes of a Python dict, which obj.name finds before
// the item of that name.
var dictAttrs = map[string]bool{"clear": true, "copy": true, "fromkeys": true, "get": true, "items": true,
	"keys": true, "pop": true, "popitem": true, "setdefault": true, "update": true, "values": true}

// mutatingMethods are the attributes ImmutableSandboxedEnvironment forbids,
// by Python type (jinja2.sandbox._mutable_spec).
var mutatingMethods = map[string]map[string]bool{
	"list": {"append": true, "clear": true, "pop": true, "reverse": true, "insert": true, "sort": true, "extend": true, "remove": true},
	"dict": {"clear": true, "pop": true, "popitem": true, "setdefault": true, "update": true},
}

// getAttr is Jinja2's sandboxed getattr, what obj.name does: the Python attribute
// first (a method of str, list or dict, a loop or namespace field), then obj[name].
func (r *renderer) getAttr(obj Value, name string) (Value, error) {
	if d, ok := obj.(*Dict); ok && !dictAttrs[name] && name != "" && name[0] != '_' {
		// The common case, message.content: a dict has no such attribute, so
		// this is the item.
		if v, ok := d.GetStr(name); ok {
			return v, nil
		}
		return Undefined{owner: "dict object", name: name}, nil
	}
	if u, ok := obj.(Undefined); ok {
		return nil, u.fail()
	}
	if v, ok, err := r.attribute(obj, name); ok || err != nil {
		return v, err
	}
	if v, ok, err := r.item(obj, name); ok || err != nil {
		return v, err
	}
	return undefinedAttr(obj, name), nil
}

// getItem is Jinja2's sandboxed getitem, what obj[key] does: the item first,
// then, for a string key, the Python attribute.
func (r *renderer) getItem(obj Value, key Value) (Value, error) {
	if u, ok := obj.(Undefined); ok {
		return nil, u.fail()
	}
	if s, ok := isString(obj); ok {
		// A str is indexed by code points: finding one reads the string.
		if err := r.charge(len(s)); err != nil {
			return nil, err
		}
	}
	if v, ok, err := r.item(obj, key); ok || err != nil {
		return v, err
	}
	if s, ok := key.(string); ok {
		if v, ok, err := r.attribute(obj, s); ok || err != nil {
			return v, err
		}
	}
	return undefinedAttr(obj, key), nil
}

// attribute returns the Python attribute name of obj, if it has one.
func (r *renderer) attribute(obj Value, name string) (Value, bool, error) {
	if len(name) > 0 && name[0] == '_' {
		if _, ok := methodOf(obj, name); ok {
			return unsafeAttr(obj, name), true, nil
		}
		return nil, false, nil
	}
	if m := mutatingMethods[typeName(obj)]; m[name] {
		return unsafeAttr(obj, name), true, nil
	}
	if v, ok := groupAttr(obj, name); ok {
		return v, true, nil
	}
	switch o := obj.(type) {
	case *Namespace:
		v, ok := o.attrs.GetStr(name)
		return v, ok, nil
	case *LoopInfo:
		return o.attr(name)
	case *Cycler:
		return o.attr(name)
	case *Range:
		if f, ok := o.method(name); ok {
			return &boundMethod{name: name, owner: "range", fn: f}, true, nil
		}
		return nil, false, nil
	}
	if v, ok := numberAttr(obj, name); ok {
		return v, true, nil
	}
	if f, ok := methodOf(obj, name); ok {
		return &boundMethod{name: name, owner: typeName(obj), fn: f}, true, nil
	}
	return nil, false, nil
}

// boundMethod is a method of a str, list or dict taken as a value (d.items).
type boundMethod struct {
	name, owner string
	fn          Func
}

// item returns obj[key] when obj has that item. Python raises TypeError or
// LookupError for a missing one, which Jinja2 turns into an Undefined; other
// errors (a bad slice, an unhashable key) surface.
func (r *renderer) item(obj Value, key Value) (Value, bool, error) {
	switch o := obj.(type) {
	case *Dict:
		if s, ok := key.(string); ok {
			v, ok := o.GetStr(s)
			return v, ok, nil
		}
		v, ok := o.Get(key)
		return v, ok, nil
	case *List:
		return seqItem(o.Items, key)
	case Tuple:
		v, ok, err := seqItem(o, key)
		if _, isSlice := key.(*sliceKey); isSlice && ok {
			v = Tuple(v.(*List).Items)
		}
		return v, ok, err
	case string:
		return strItem(o, key)
	case Markup:
		v, ok, err := strItem(string(o), key)
		if s, isS := v.(string); isS {
			v = Markup(s)
		}
		return v, ok, err
	case *Range:
		return o.item(key)
	}
	return nil, false, nil
}

func indexOf(key Value) (int, bool) {
	switch k := key.(type) {
	case int:
		return k, true
	case bool:
		if k {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func seqItem(items []Value, key Value) (Value, bool, error) {
	if s, ok := key.(*sliceKey); ok {
		out, err := sliceSeq(items, s.start, s.stop, s.step)
		if err != nil {
			return nil, false, err
		}
		return NewList(out), true, nil
	}
	i, ok := indexOf(key)
	if !ok {
		return nil, false, nil
	}
	i, ok = pyIndex(i, len(items))
	if !ok {
		return nil, false, nil
	}
	return items[i], true, nil
}

// sliceSeq is items[start:stop:step]. A slice with step 1 shares items'
// array (lists and tuples are never changed in place, and its capacity ends
// where it does, so that an append copies); any other is a new slice.
func sliceSeq(items []Value, start, stop, step Value) ([]Value, error) {
	lo, hi, st, err := sliceIndices(start, stop, step, len(items))
	if err != nil {
		return nil, err
	}
	if st == 1 {
		hi = max(lo, hi)
		return items[lo:hi:hi], nil
	}
	out := make([]Value, 0, sliceLen(lo, hi, st))
	for i := lo; (st > 0 && i < hi) || (st < 0 && i > hi); i += st {
		out = append(out, items[i])
	}
	return out, nil
}

// sliceLen is the number of indices from lo towards hi by st.
func sliceLen(lo, hi, st int) int {
	switch {
	case st > 0 && hi > lo:
		return (hi - lo + st - 1) / st
	case st < 0 && lo > hi:
		return (lo - hi - st - 1) / -st
	}
	return 0
}

func strItem(s string, key Value) (Value, bool, error) {
	if sk, ok := key.(*sliceKey); ok {
		out, err := sliceStr(s, sk.start, sk.stop, sk.step)
		if err != nil {
			return nil, false, err
		}
		return out, true, nil
	}
	i, ok := indexOf(key)
	if !ok {
		return nil, false, nil
	}
	if isASCII(s) {
		if i, ok = pyIndex(i, len(s)); !ok {
			return nil, false, nil
		}
		return s[i : i+1], true, nil
	}
	runes := []rune(s)
	i, ok = pyIndex(i, len(runes))
	if !ok {
		return nil, false, nil
	}
	return string(runes[i]), true, nil
}

// sliceStr is s[start:stop:step], by code points. An ASCII string is sliced
// by bytes: a plain slice shares s's memory.
func sliceStr(s string, start, stop, step Value) (string, error) {
	if isASCII(s) {
		lo, hi, st, err := sliceIndices(start, stop, step, len(s))
		if err != nil {
			return "", err
		}
		if st == 1 {
			return s[lo:max(lo, hi)], nil
		}
		out := make([]byte, 0, sliceLen(lo, hi, st))
		for i := lo; (st > 0 && i < hi) || (st < 0 && i > hi); i += st {
			out = append(out, s[i])
		}
		return string(out), nil
	}
	runes := []rune(s)
	lo, hi, st, err := sliceIndices(start, stop, step, len(runes))
	if err != nil {
		return "", err
	}
	out := make([]rune, 0, sliceLen(lo, hi, st))
	for i := lo; (st > 0 && i < hi) || (st < 0 && i > hi); i += st {
		out = append(out, runes[i])
	}
	return string(out), nil
}

// sliceItem is obj[a:b:c]. Jinja2 compiles a slice to plain Python
// subscription, not to its forgiving getitem, so a value that cannot be sliced
// raises instead of giving an Undefined.
func (r *renderer) sliceItem(obj, start, stop, step Value) (Value, error) {
	if err := r.charge(weight(obj)); err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case Undefined:
		return nil, o.fail()
	case *Dict:
		return nil, typeError("unhashable type: 'slice'")
	case *List:
		items, err := sliceSeq(o.Items, start, stop, step)
		if err != nil {
			return nil, err
		}
		return NewList(items), nil
	case Tuple:
		items, err := sliceSeq(o, start, stop, step)
		if err != nil {
			return nil, err
		}
		return Tuple(items), nil
	case string:
		return sliceStr(o, start, stop, step)
	case Markup:
		s, err := sliceStr(string(o), start, stop, step)
		if err != nil {
			return nil, err
		}
		return Markup(s), nil
	case *Range:
		v, _, err := o.item(&sliceKey{start, stop, step})
		return v, err
	}
	return nil, typeError("'%s' object is not subscriptable", typeName(obj))
}

// sliceKey is the key obj[a:b:c] looks up.
type sliceKey struct{ start, stop, step Value }
