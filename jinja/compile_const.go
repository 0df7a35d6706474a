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
//
// The compiler asks for every expression, from the top of each tree down,
// so each node's const-mode code and outcome are kept (constNode): a chain
// x.a.a… or 'a'|f|f… of n links then costs O(n) to compile, not O(n²).
func (c *compiler) asConst(e expr) (v Value, ok bool) {
	if c.needsRender(e) {
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
	r := &renderer{limits: DefaultLimits(), deadline: c.constDeadline, hasDeadline: true}
	v, err := fn(r, &r.root)
	return v, err == nil
}

// constNode is an expression compiled in const mode, with its outcome once
// it has one that may be reused: an error (evaluation ahead of time has no
// side effects, so it fails the same way again) or a value no evaluation can
// change (shareable). Jinja2's optimizer, which folds bottom-up, reuses the
// same way what it folded.
type constNode struct {
	fn   evalFn
	done bool
	v    Value
	ok   bool
	work *int // the compiler's count of nodes evaluated
}

// constCode returns e compiled in const mode, once per node (a literal,
// which costs nothing to compile again, is not kept).
func (c *compiler) constCode(e expr, compile func() evalFn) evalFn {
	if _, ok := e.(*constExpr); ok {
		return compile()
	}
	if n, ok := c.consts[e]; ok {
		return n.eval
	}
	n := &constNode{work: &c.work}
	c.consts[e] = n
	n.fn = compile()
	return n.eval
}

func (n *constNode) eval(r *renderer, f *frame) (v Value, err error) {
	if n.done {
		if !n.ok {
			return nil, notConst{}
		}
		return n.v, nil
	}
	defer func() {
		if p := recover(); p != nil {
			n.done = true // a value past the bounds: so it stays
			v, err = nil, notConst{}
		}
	}()
	*n.work++
	v, err = n.fn(r, f)
	if err != nil || shareable(v) {
		n.done, n.v, n.ok = true, v, err == nil
	}
	return v, err
}

// shareable reports whether v may be handed to more than one consumer: no
// one-shot generator in it. A value too large to look through is not.
func shareable(v Value) bool {
	budget := 1 << 12
	var walk func(v Value) bool
	walk = func(v Value) bool {
		if budget--; budget < 0 {
			return false
		}
		switch x := v.(type) {
		case nil, bool, int, float64, string, Markup, Undefined, *Range:
			return true
		case *List:
			return all(x.Items, walk)
		case Tuple:
			return all(x, walk)
		case *Dict:
			return all(x.keys, walk) && all(x.vals, walk)
		}
		return false
	}
	return walk(v)
}

func all(vs []Value, ok func(Value) bool) bool {
	for _, v := range vs {
		if !ok(v) {
			return false
		}
	}
	return true
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
//
// The compiler asks about every node of a tree, top down: a small tree is
// walked again each time, a large one's answers are kept per node.
func (c *compiler) needsRender(e expr) bool {
	w := &renderWalk{budget: 64, work: &c.work}
	if v := w.needsRender(e); w.budget >= 0 {
		return v
	}
	return (&renderWalk{memo: c.renders, work: &c.work}).needsRender(e)
}

// renderWalk is one needsRender walk: within a budget of nodes, or with
// the compiler's memo.
type renderWalk struct {
	budget int
	memo   map[expr]bool
	work   *int // the compiler's count of nodes looked at
}

func (w *renderWalk) needsRender(e expr) bool {
	if e == nil {
		return false
	}
	*w.work++
	if w.memo == nil {
		if w.budget--; w.budget < 0 {
			return false // too large: the caller walks again with the memo
		}
		return w.find(e)
	}
	if v, ok := w.memo[e]; ok {
		return v
	}
	v := w.find(e)
	w.memo[e] = v
	return v
}

func (w *renderWalk) find(e expr) bool {
	needsRender, anyNeedsRender := w.needsRender, w.anyNeedsRender
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

func (w *renderWalk) anyNeedsRender(es ...expr) bool {
	for _, e := range es {
		if w.needsRender(e) {
			return true
		}
	}
	return false
}
