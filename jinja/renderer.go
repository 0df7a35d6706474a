package jinja

import (
	"strings"
	"time"
)

// renderer holds the state of one Render call. Compiled templates are shared
// between goroutines; everything mutable lives here.
type renderer struct {
	limits   Limits
	now      func() time.Time
	deadline time.Time // zero: no timeout

	root  *scope
	out   *strings.Builder // where output goes now; swapped to capture blocks
	frame scope            // the storage behind root

	written    int    // bytes written to any builder, for MaxOutputBytes
	pieces     int    // writes to the current builder, for Python's join errors
	joinErr    *Error // the error joining the current builder will raise
	iterations int    // loop iterations so far, for MaxIterations
	depth      int    // macro calls and recursive loops in progress, for MaxDepth
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
		idx, err := sliceBounds(s.start, s.stop, s.step, len(items))
		if err != nil {
			return nil, false, err
		}
		out := make([]Value, len(idx))
		for j, i := range idx {
			out[j] = items[i]
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

func strItem(s string, key Value) (Value, bool, error) {
	runes := []rune(s)
	if sk, ok := key.(*sliceKey); ok {
		idx, err := sliceBounds(sk.start, sk.stop, sk.step, len(runes))
		if err != nil {
			return nil, false, err
		}
		out := make([]rune, len(idx))
		for j, i := range idx {
			out[j] = runes[i]
		}
		return string(out), true, nil
	}
	i, ok := indexOf(key)
	if !ok {
		return nil, false, nil
	}
	i, ok = pyIndex(i, len(runes))
	if !ok {
		return nil, false, nil
	}
	return string(runes[i]), true, nil
}

// sliceItem is obj[a:b:c]. Jinja2 compiles a slice to plain Python
// subscription, not to its forgiving getitem, so a value that cannot be sliced
// raises instead of giving an Undefined.
func (r *renderer) sliceItem(obj Value, key *sliceKey) (Value, error) {
	switch o := obj.(type) {
	case Undefined:
		return nil, o.fail()
	case *Dict:
		return nil, typeError("unhashable type: 'slice'")
	case string, Markup, *List, Tuple, *Range:
		v, _, err := r.item(obj, key)
		return v, err
	}
	return nil, typeError("'%s' object is not subscriptable", typeName(obj))
}

// sliceKey is the key obj[a:b:c] looks up.
type sliceKey struct{ start, stop, step Value }
