package jinja

import "math"

// Jinja2 evaluates constant expressions when it compiles a template, not when
// it renders it. Its optimizer replaces every expression whose value it can
// compute ahead of time (as_const) and write back as a literal by that
// literal, bottom-up; and an output tag whose expression it can compute
// prints the value computed. That evaluation differs from a render's in one
// way: every subscript, slices included, goes through the sandbox's
// forgiving getitem, so where a slice would raise at run time
// (none[1:], {'a': 1}[:2]) the folded one gives an Undefined.
//
// The compiler does the same. asConst evaluates an expression at compile time
// in const mode, where what Jinja2 cannot evaluate ahead of time (names,
// calls, filters given the render context) raises notConst and slices are
// forgiving; the laziness of and, or, if-else and comparison chains, which
// as_const shares, comes with the evaluation.

// notConst is what evaluating an expression in const mode raises where Jinja2
// raises Impossible.
type notConst struct{}

func (notConst) Error() string { return "not a constant" }

func impossible(*renderer, *frame) (Value, error) { return nil, notConst{} }

// asConst is Jinja2's as_const: e's value, when it can be computed ahead of
// time.
func (c *compiler) asConst(e expr) (v Value, ok bool) {
	if needsRender(e) {
		return nil, false
	}
	saved := c.constMode
	c.constMode = true
	fn := c.expr(e)
	c.constMode = saved
	defer func() {
		if recover() != nil {
			v, ok = nil, false // an engine bug: leave it to run time, which reports it
		}
	}()
	r := &renderer{limits: DefaultLimits()}
	v, err := fn(r, &r.root)
	return v, err == nil
}

// fold returns e's value when Jinja2's optimizer replaces e by a literal: it
// can compute it and the value has a safe repr. Only scalars are folded:
// Python builds a new list, tuple or dict each time their literal is
// evaluated, which is what compiling them as expressions does (their items
// are folded on their own).
func (c *compiler) fold(e expr) (Value, bool) {
	switch e.(type) {
	case *attrExpr, *itemExpr, *filterExpr, *testExpr, *condExpr, *unaryExpr, *binExpr, *sumExpr, *compareExpr:
	default:
		return nil, false
	}
	v, ok := c.asConst(e)
	if !ok {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool, int, string, Markup:
		return v, true
	case float64:
		// repr(inf) and repr(nan) do not read back as Python literals.
		return v, !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	return nil, false
}

// needsRender reports whether evaluating e surely evaluates a name or a call,
// which as_const cannot: then there is no need to try. Operands that may go
// unevaluated (the branches of if-else, the right of and and or, the rest of
// a comparison chain) are not looked into.
func needsRender(e expr) bool {
	switch e := e.(type) {
	case *nameExpr, *callExpr:
		return true
	case *attrExpr:
		return needsRender(e.obj)
	case *itemExpr:
		return needsRender(e.obj) || needsRender(e.key)
	case *sliceExpr:
		return anyNeedsRender(e.start, e.stop, e.step)
	case *filterExpr:
		return e.node == nil || needsRender(e.node) || anyNeedsRender(e.args...) || anyNeedsRender(e.kwVals...)
	case *testExpr:
		return needsRender(e.node) || anyNeedsRender(e.args...)
	case *unaryExpr:
		return needsRender(e.e)
	case *binExpr:
		if e.op == "and" || e.op == "or" {
			return needsRender(e.left)
		}
		return needsRender(e.left) || needsRender(e.right)
	case *sumExpr:
		return anyNeedsRender(e.operands...)
	case *compareExpr:
		return needsRender(e.first) || needsRender(e.rest[0])
	case *condExpr:
		return needsRender(e.cond)
	case *listExpr:
		return anyNeedsRender(e.items...)
	case *tupleExpr:
		return anyNeedsRender(e.items...)
	case *dictExpr:
		return anyNeedsRender(e.keys...) || anyNeedsRender(e.vals...)
	}
	return false
}

func anyNeedsRender(es ...expr) bool {
	for _, e := range es {
		if e != nil && needsRender(e) {
			return true
		}
	}
	return false
}
