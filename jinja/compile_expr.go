package jinja

// Expressions compiled to closures. Each case keeps the evaluation order of
// Jinja2's generated Python code, and attaches lines to errors exactly where
// the tree-walking evaluator did (see withLine): the conformance and oracle
// tests compare error messages too.

func (c *compiler) expr(e expr) evalFn {
	if c.constMode {
		return c.constCode(e, func() evalFn { return c.compileExpr(e) })
	}
	c.nodes++
	if v, ok := c.fold(e); ok {
		return func(*renderer, *frame) (Value, error) { return v, nil }
	}
	return c.compileExpr(e)
}

func (c *compiler) compileExpr(e expr) evalFn {
	if c.constMode {
		switch e.(type) {
		case *nameExpr, *callExpr:
			return impossible
		}
	}
	switch e := e.(type) {
	case *constExpr:
		v := e.v
		return func(*renderer, *frame) (Value, error) { return v, nil }
	case *nameExpr:
		return c.name(e)
	case *attrExpr:
		obj, key := c.loopUse(e.obj, loopFields[e.name]), newAttrKey(e.name)
		return func(r *renderer, f *frame) (Value, error) {
			o, err := obj(r, f)
			if err != nil {
				return nil, err
			}
			return key.get(r, o)
		}
	case *itemExpr:
		return c.item(e)
	case *listExpr:
		items := c.exprs(e.items)
		return func(r *renderer, f *frame) (Value, error) {
			out, err := evalAll(r, f, items)
			if err != nil {
				return nil, err
			}
			return NewList(out), nil
		}
	case *tupleExpr:
		items := c.exprs(e.items)
		return func(r *renderer, f *frame) (Value, error) {
			out, err := evalAll(r, f, items)
			if err != nil {
				return nil, err
			}
			return Tuple(out), nil
		}
	case *dictExpr:
		return c.dict(e)
	case *callExpr:
		return c.callExpr(e)
	case *filterExpr:
		node, call, line := c.expr(e.node), c.filterCall(e), e.line
		return func(r *renderer, f *frame) (Value, error) {
			v, err := node(r, f)
			if err != nil {
				return nil, err
			}
			v, err = call(r, f, v)
			return v, withLine(err, line)
		}
	case *testExpr:
		return c.test(e)
	case *condExpr:
		return c.cond(e)
	case *unaryExpr:
		return c.unary(e)
	case *binExpr:
		return c.binary(e)
	case *sumExpr:
		sum := c.sum(e.operands, e.lines)
		return sum.eval
	case *compareExpr:
		return c.compare(e)
	case *bigIntExpr:
		return bigInt(e)
	}
	return func(*renderer, *frame) (Value, error) {
		return nil, newError("TemplateError", "cannot evaluate %T", e)
	}
}

func (c *compiler) exprs(es []expr) []evalFn {
	out := make([]evalFn, len(es))
	for i, e := range es {
		out[i] = c.expr(e)
	}
	return out
}

// optExpr compiles an optional expression: nil stays nil.
func (c *compiler) optExpr(e expr) evalFn {
	if e == nil {
		return nil
	}
	return c.expr(e)
}

func evalAll(r *renderer, f *frame, es []evalFn) ([]Value, error) {
	out := make([]Value, len(es))
	for i, e := range es {
		v, err := e(r, f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// loopFields are the attributes of the loop variable that give a value
// holding no reference to it; cycle and changed give functions that do, but
// calling them at once (loop.cycle(...)) keeps nothing.
var loopFields = map[string]bool{"index": true, "index0": true, "revindex": true, "revindex0": true,
	"first": true, "last": true, "length": true, "depth": true, "depth0": true, "previtem": true, "nextitem": true}

// loopUse compiles e, the object of an attribute or method call; field
// tells whether that use keeps no reference to it, should it be a loop
// variable.
func (c *compiler) loopUse(e expr, field bool) evalFn {
	if n, ok := e.(*nameExpr); ok && field && !c.constMode {
		c.loopField = true
		defer func() { c.loopField = false }()
		return c.name(n)
	}
	return c.expr(e)
}

// name compiles a variable reference: the slots of the enclosing frames that
// may bind it, innermost first, then the render context, then the globals.
func (c *compiler) name(e *nameExpr) evalFn {
	type ref struct{ up, slot int }
	var refs []ref
	up := 0
	for s := c.sc; s != nil; s = s.parent {
		if i, ok := s.slots[e.name]; ok {
			refs = append(refs, ref{up, i})
			if i == s.loopSlot && !c.loopField {
				s.loopEscapes = true
			}
		}
		up++
	}
	free := c.freeName(e.name)
	switch {
	case len(refs) == 0:
		return func(r *renderer, _ *frame) (Value, error) {
			return r.freeValue(free), nil
		}
	case len(refs) == 1 && refs[0].up == 0:
		slot := refs[0].slot
		return func(r *renderer, f *frame) (Value, error) {
			if v := f.slots[slot]; !isUnbound(v) {
				return v, nil
			}
			return r.freeValue(free), nil
		}
	}
	return func(r *renderer, f *frame) (Value, error) {
		at := 0
		for _, ref := range refs {
			for ; at < ref.up; at++ {
				f = f.parent
			}
			if v := f.slots[ref.slot]; !isUnbound(v) {
				return v, nil
			}
		}
		return r.freeValue(free), nil
	}
}

// freeVar is a name as the render context or the globals give it: a name
// no frame of the template binds, or one not bound (yet) where it is read.
type freeVar struct {
	index    int // in renderer.free, which caches the lookup for the render
	name     string
	fallback Value // the global of that name, or the Undefined for it
}

// freeName returns the freeVar of a name, one per name and template.
func (c *compiler) freeName(name string) *freeVar {
	if v, ok := c.free[name]; ok {
		return v
	}
	fallback := Value(Undefined{name: name}) // boxed once, not at every miss
	if g, ok := globals[name]; ok {
		fallback = g
	}
	v := &freeVar{index: len(c.free), name: name, fallback: fallback}
	c.free[name] = v
	return v
}

// freeValue looks a free name up in the render context, then the globals;
// the render context does not change during a render, so the first lookup
// is kept.
func (r *renderer) freeValue(fv *freeVar) Value {
	c := &r.free[fv.index]
	if c.render == r.render {
		return c.v
	}
	v, ok := r.vars.Lookup(fv.name)
	if !ok {
		v = fv.fallback
	}
	c.render, c.v = r.render, v
	return v
}

// freeCache is a free name's value, valid during the render numbered render.
type freeCache struct {
	render uint64
	v      Value
}

// attrKey is obj.name for a name known at compile time: Jinja2's sandboxed
// getattr (renderer.getAttr) with what depends on the name alone decided once.
type attrKey struct {
	name string
	// plain: not an underscore name, which the sandbox checks first.
	plain bool
	// itemFirst: a dict has no attribute of this name, so d.name is d["name"].
	itemFirst bool
	missing   Value // the Undefined of a dict without that key
}

func newAttrKey(name string) *attrKey {
	plain := name != "" && name[0] != '_'
	return &attrKey{name: name, plain: plain, itemFirst: plain && !dictAttrs[name],
		missing: Undefined{owner: "dict object", name: name}}
}

func (k *attrKey) get(r *renderer, o Value) (Value, error) {
	switch x := o.(type) {
	case *Dict:
		if k.itemFirst {
			if v, ok := x.GetStr(k.name); ok {
				return v, nil
			}
			return k.missing, nil
		}
	case *LoopInfo:
		if k.plain {
			if v, ok, err := x.attr(k.name); ok || err != nil {
				return v, err
			}
		}
	case *Namespace:
		if k.plain {
			if v, ok := x.attrs.GetStr(k.name); ok {
				return v, nil
			}
		}
	}
	return r.getAttr(o, k.name)
}

func (c *compiler) item(e *itemExpr) evalFn {
	obj := c.expr(e.obj)
	if sl, ok := e.key.(*sliceExpr); ok {
		start, stop, step := c.optExpr(sl.start), c.optExpr(sl.stop), c.optExpr(sl.step)
		folded := c.constMode // evaluated ahead of time: forgiving (see compile_const.go)
		return func(r *renderer, f *frame) (Value, error) {
			o, err := obj(r, f)
			if err != nil {
				return nil, err
			}
			var lo, hi, st Value
			if lo, err = evalOpt(r, f, start); err != nil {
				return nil, err
			}
			if hi, err = evalOpt(r, f, stop); err != nil {
				return nil, err
			}
			if st, err = evalOpt(r, f, step); err != nil {
				return nil, err
			}
			if folded {
				return r.getItem(o, &sliceKey{lo, hi, st})
			}
			return r.sliceItem(o, lo, hi, st)
		}
	}
	if k, ok := e.key.(*constExpr); ok {
		return constItem(obj, k.v)
	}
	key := c.expr(e.key)
	return func(r *renderer, f *frame) (Value, error) {
		o, err := obj(r, f)
		if err != nil {
			return nil, err
		}
		k, err := key(r, f)
		if err != nil {
			return nil, err
		}
		return r.getItem(o, k)
	}
}

// constItem is obj[key] for a literal key: messages[0], tool['function'].
func constItem(obj evalFn, key Value) evalFn {
	s, isStr := key.(string)
	i, isInt := key.(int)
	return func(r *renderer, f *frame) (Value, error) {
		o, err := obj(r, f)
		if err != nil {
			return nil, err
		}
		switch x := o.(type) {
		case *Dict:
			if isStr {
				if v, ok := x.GetStr(s); ok {
					return v, nil
				}
			}
		case *List:
			if isInt {
				if j, ok := pyIndex(i, len(x.Items)); ok {
					return x.Items[j], nil
				}
			}
		}
		return r.getItem(o, key)
	}
}

func evalOpt(r *renderer, f *frame, e evalFn) (Value, error) {
	if e == nil {
		return nil, nil
	}
	return e(r, f)
}

func (c *compiler) dict(e *dictExpr) evalFn {
	keys, vals := c.exprs(e.keys), c.exprs(e.vals)
	return func(r *renderer, f *frame) (Value, error) {
		d := NewDict(len(keys))
		for i := range keys {
			k, err := keys[i](r, f)
			if err != nil {
				return nil, err
			}
			v, err := vals[i](r, f)
			if err != nil {
				return nil, err
			}
			if err := d.Set(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
}

func (c *compiler) cond(e *condExpr) evalFn {
	cond, then, els := c.expr(e.cond), c.expr(e.then), c.optExpr(e.else_)
	var noElse Value = Undefined{Hint: "the inline if-expression on line evaluated to false and no else section was defined."}
	if els == nil && c.constMode {
		els = impossible // as_const leaves that Undefined to run time
	}
	return func(r *renderer, f *frame) (Value, error) {
		v, err := cond(r, f)
		if err != nil {
			return nil, err
		}
		if truthy(v) {
			return then(r, f)
		}
		if els == nil {
			return noElse, nil
		}
		return els(r, f)
	}
}

func (c *compiler) unary(e *unaryExpr) evalFn {
	operand, op := c.expr(e.e), e.op
	if op == "not" {
		return func(r *renderer, f *frame) (Value, error) {
			v, err := operand(r, f)
			if err != nil {
				return nil, err
			}
			return !truthy(v), nil
		}
	}
	return func(r *renderer, f *frame) (Value, error) {
		v, err := operand(r, f)
		if err != nil {
			return nil, err
		}
		return unary(op, v)
	}
}

func (c *compiler) binary(e *binExpr) evalFn {
	switch e.op {
	case "and", "or":
		left, right := c.expr(e.left), c.expr(e.right)
		isOr := e.op == "or"
		return func(r *renderer, f *frame) (Value, error) {
			v, err := left(r, f)
			if err != nil {
				return nil, err
			}
			if truthy(v) == isOr {
				return v, nil
			}
			return right(r, f)
		}
	case "~":
		return c.concat(e).eval
	case "+":
		return c.sum([]expr{e.left, e.right}, []int{e.line}).eval
	}
	left, right, op, line := c.expr(e.left), c.expr(e.right), e.op, e.line
	return func(r *renderer, f *frame) (Value, error) {
		a, err := left(r, f)
		if err != nil {
			return nil, err
		}
		b, err := right(r, f)
		if err != nil {
			return nil, err
		}
		if x, ok := a.(int); ok {
			if y, ok := b.(int); ok {
				switch op { // the common int cases, without arith's conversions
				case "-":
					if d := x - y; (d < x) == (y > 0) {
						return d, nil
					}
				case "*":
					if p, err := mulInt(x, y); err == nil {
						return p, nil
					}
				}
			}
		}
		v, err := binary(op, a, b)
		if err != nil {
			return nil, withLine(err, line)
		}
		return v, r.charge(weight(v))
	}
}

// sumCode is a + b + c ...: Python's '+' applied left to right. While the sum
// so far is a plain str it is kept as the list of its parts, so that a chain
// of strings is joined once, or written out without being joined at all.
type sumCode struct {
	ops   []evalFn
	lines []int // lines[i] is the line of the '+' before ops[i+1]
}

func (c *compiler) sum(operands []expr, lines []int) *sumCode {
	return chunkSum(c.exprs(operands), lines)
}

// chunkSum makes the sum of ops. A chain longer than maxParts becomes the sum
// of its first maxParts operands (evaluated first, as Python's '+' is
// left-associative) and the rest, so that run's buffer always suffices.
func chunkSum(ops []evalFn, lines []int) *sumCode {
	if len(ops) <= maxParts {
		return &sumCode{ops: ops, lines: lines}
	}
	head := chunkSum(ops[:maxParts], lines[:maxParts-1])
	rest := append([]evalFn{head.eval}, ops[maxParts:]...)
	return chunkSum(rest, lines[maxParts-1:])
}

// maxParts is the most operands of one sumCode or concatCode, so that their
// parts fit a buffer on the stack (longer chains are split at compile time).
const maxParts = 16

// run evaluates the sum and returns it, or with out set writes it and returns
// nil. The parts are stored straight into a local array: stores that need no
// GC write barrier.
func (s *sumCode) run(r *renderer, f *frame, out bool) (Value, error) {
	var parts [maxParts]string
	var acc Value // the sum so far, when it is not in parts
	n := 0        // the sum so far is parts[:n] when n > 0
	for i, op := range s.ops {
		v, err := op(r, f)
		if err != nil {
			return nil, err
		}
		str, isStr := v.(string)
		switch {
		case i == 0 && isStr:
			parts[0], n = str, 1
			continue
		case i == 0:
			acc = v
			continue
		case n > 0 && isStr:
			parts[n] = str
			n++
			continue
		case n > 0:
			if sumLen(parts[:n], 0) < 0 {
				return nil, tooLong("a string", maxValueBytes+1)
			}
			acc, n = r.joinText(parts[:n]), 0
		}
		if acc, err = binary("+", acc, v); err != nil {
			return nil, withLine(err, s.lines[i-1])
		}
		if str, ok := acc.(string); ok {
			parts[0], n = str, 1
		}
	}
	if n > 0 {
		size := sumLen(parts[:n], 0)
		if size < 0 {
			return nil, tooLong("a string", maxValueBytes+1)
		}
		if err := r.charge(size); err != nil {
			return nil, err
		}
	}
	switch {
	case n > 0 && out:
		return nil, r.writeParts(parts[:n])
	case n > 0:
		return r.joinText(parts[:n]), nil
	case out:
		return nil, r.writeValue(acc)
	}
	return acc, nil
}

func (s *sumCode) eval(r *renderer, f *frame) (Value, error) { return s.run(r, f, false) }

func (s *sumCode) write(r *renderer, f *frame) error {
	_, err := s.run(r, f, true)
	return err
}

// concatCode is a ~ b ~ c ...: the str() of each operand, joined.
type concatCode struct{ ops []evalFn }

func (c *compiler) concat(e *binExpr) *concatCode {
	var operands []expr
	var flatten func(e expr)
	flatten = func(e expr) {
		if b, ok := e.(*binExpr); ok && b.op == "~" {
			flatten(b.left)
			flatten(b.right)
			return
		}
		operands = append(operands, e)
	}
	flatten(e)
	ops := c.exprs(operands)
	for len(ops) > maxParts { // a prefix of maxParts operands is one operand
		head := &concatCode{ops: ops[:maxParts]}
		ops = append([]evalFn{head.eval}, ops[maxParts:]...)
	}
	return &concatCode{ops: ops}
}

// run evaluates the concatenation and returns it, or with out set writes it
// and returns nil.
func (cc *concatCode) run(r *renderer, f *frame, out bool) (Value, error) {
	var parts [maxParts]string
	for i, op := range cc.ops {
		v, err := op(r, f)
		if err != nil {
			return nil, err
		}
		parts[i] = toStr(v)
	}
	n := sumLen(parts[:len(cc.ops)], 0)
	if n < 0 {
		return nil, tooLong("a concatenation", maxValueBytes+1)
	}
	if err := r.charge(n); err != nil {
		return nil, err
	}
	if out {
		return nil, r.writeParts(parts[:len(cc.ops)])
	}
	return r.joinText(parts[:len(cc.ops)]), nil
}

func (cc *concatCode) eval(r *renderer, f *frame) (Value, error) { return cc.run(r, f, false) }

func (cc *concatCode) write(r *renderer, f *frame) error {
	_, err := cc.run(r, f, true)
	return err
}

// concatParts returns how to write e straight to the output when it is a
// string concatenation ('+' or '~'), or nil.
func (c *compiler) concatParts(e expr) interface {
	write(r *renderer, f *frame) error
} {
	switch e := e.(type) {
	case *sumExpr:
		return c.sum(e.operands, e.lines)
	case *binExpr:
		switch e.op {
		case "+":
			return c.sum([]expr{e.left, e.right}, []int{e.line})
		case "~":
			return c.concat(e)
		}
	}
	return nil
}

func (c *compiler) compare(e *compareExpr) evalFn {
	first, rest, ops, line := c.expr(e.first), c.exprs(e.rest), e.ops, e.line
	if len(ops) == 1 {
		right, op := rest[0], ops[0]
		if seq := constSeq(e.rest[0]); seq != nil && (op == "in" || op == "notin") {
			// x in ['a', 'b']: the list is only looked into, never seen by the
			// template, so one made at compile time serves every render.
			right = func(*renderer, *frame) (Value, error) { return seq, nil }
		}
		return func(r *renderer, f *frame) (Value, error) {
			a, err := first(r, f)
			if err != nil {
				return nil, err
			}
			b, err := right(r, f)
			if err != nil {
				return nil, err
			}
			ok, err := compareOp(op, a, b)
			if err != nil {
				return nil, withLine(err, line)
			}
			return ok, r.chargeValues(a, b)
		}
	}
	return func(r *renderer, f *frame) (Value, error) {
		left, err := first(r, f)
		if err != nil {
			return nil, err
		}
		for i, op := range ops {
			right, err := rest[i](r, f)
			if err != nil {
				return nil, err
			}
			ok, err := compareOp(op, left, right)
			if err == nil {
				err = r.chargeValues(left, right)
			}
			if err != nil {
				return nil, withLine(err, line)
			}
			if !ok {
				return false, nil
			}
			left = right
		}
		return true, nil
	}
}

// constSeq returns the value of a list or tuple literal of constants, or nil.
func constSeq(e expr) Value {
	var items []expr
	switch e := e.(type) {
	case *listExpr:
		items = e.items
	case *tupleExpr:
		items = e.items
	default:
		return nil
	}
	vals := make([]Value, len(items))
	for i, it := range items {
		k, ok := it.(*constExpr)
		if !ok {
			return nil
		}
		vals[i] = k.v
	}
	if _, isList := e.(*listExpr); isList {
		return NewList(vals)
	}
	return Tuple(vals)
}

func (c *compiler) test(e *testExpr) evalFn {
	node, line, fn := c.expr(e.node), e.line, e.fn
	if fn == nil && c.constMode {
		return impossible
	}
	if fn == nil {
		name := e.name
		return func(r *renderer, f *frame) (Value, error) {
			if _, err := node(r, f); err != nil {
				return nil, err
			}
			return nil, withLine(newError("TemplateRuntimeError", "No test named %s found.", repr(name)), line)
		}
	}
	if def, ok := testDefs[e.name]; ok && len(e.args) == def.arity && def.arity <= 1 {
		return c.directTest(node, def.fn, e.args, line)
	}
	args := &argsCode{pos: c.exprs(e.args)}
	return func(r *renderer, f *frame) (Value, error) {
		v, err := node(r, f)
		if err != nil {
			return nil, err
		}
		a, base, err := args.push(r, f) // tests keep no argument
		if err != nil {
			return nil, withLine(err, line)
		}
		ok, err := fn(r, v, a)
		if err == nil {
			err = r.chargeCall(v, a, nil)
		}
		r.argStack = r.argStack[:base]
		return ok, withLine(err, line)
	}
}

// directTest compiles a test called with the arguments it takes (none or
// one), which need no binding: x is defined, n is divisibleby(3).
func (c *compiler) directTest(node evalFn, fn func(*renderer, Value, Value) (bool, error), args []expr, line int) evalFn {
	if len(args) == 0 {
		return func(r *renderer, f *frame) (Value, error) {
			v, err := node(r, f)
			if err != nil {
				return nil, err
			}
			ok, err := fn(r, v, nil)
			if err == nil {
				err = r.charge(weight(v))
			}
			return ok, withLine(err, line)
		}
	}
	arg := c.expr(args[0])
	return func(r *renderer, f *frame) (Value, error) {
		v, err := node(r, f)
		if err != nil {
			return nil, err
		}
		x, err := arg(r, f)
		if err != nil {
			return nil, withLine(err, line)
		}
		ok, err := fn(r, v, x)
		if err == nil {
			err = r.chargeValues(v, x)
		}
		return ok, withLine(err, line)
	}
}

// filterCall is a compiled filter applied to a value.
type filterCall func(r *renderer, f *frame, v Value) (Value, error)

func (c *compiler) filterCall(e *filterExpr) filterCall {
	fn := e.fn
	if c.constMode && (fn == nil || contextFilters[e.name]) {
		return func(*renderer, *frame, Value) (Value, error) { return nil, notConst{} }
	}
	if fn == nil {
		name := e.name
		return func(*renderer, *frame, Value) (Value, error) {
			return nil, newError("TemplateRuntimeError", "No filter named %s found.", repr(name))
		}
	}
	args := c.args(e.args, e.kwNames, e.kwVals, nil, nil)
	if args.none() {
		return func(r *renderer, _ *frame, v Value) (Value, error) {
			out, err := fn(r, v, nil, nil)
			if err != nil {
				return nil, err
			}
			return out, r.chargeCall(v, nil, out)
		}
	}
	if keepsArgs[e.name] {
		return func(r *renderer, f *frame, v Value) (Value, error) {
			a, kw, err := args.eval(r, f)
			if err != nil {
				return nil, err
			}
			out, err := fn(r, v, a, kw)
			if err != nil {
				return nil, err
			}
			return out, r.chargeCall(v, a, out)
		}
	}
	return func(r *renderer, f *frame, v Value) (Value, error) {
		a, base, err := args.push(r, f)
		if err != nil {
			return nil, err
		}
		kw, err := args.keywords(r, f)
		var out Value
		if err == nil {
			out, err = fn(r, v, a, kw)
		}
		if err == nil {
			err = r.chargeCall(v, a, out)
		}
		r.argStack = r.argStack[:base]
		return out, err
	}
}

// keepsArgs are the filters that keep their positional arguments past the
// call (in the generator they return); the others get theirs on the
// argument stack.
var keepsArgs = map[string]bool{"map": true, "select": true, "reject": true, "selectattr": true, "rejectattr": true}

// argsCode is a call's compiled argument list.
type argsCode struct {
	pos                []evalFn
	kwNames            []Value // boxed at compile time
	kwVals             []evalFn
	dynArgs, dynKwargs evalFn // *args, **kwargs
}

func (c *compiler) args(pos []expr, kwNames []Value, kwVals []expr, dynArgs, dynKwargs expr) *argsCode {
	return &argsCode{pos: c.exprs(pos), kwNames: kwNames, kwVals: c.exprs(kwVals),
		dynArgs: c.optExpr(dynArgs), dynKwargs: c.optExpr(dynKwargs)}
}

func (a *argsCode) none() bool { return len(a.pos) == 0 && a.positionalOnly() }

// positionalOnly: no keyword, *args or **kwargs arguments.
func (a *argsCode) positionalOnly() bool {
	return len(a.kwNames) == 0 && a.dynArgs == nil && a.dynKwargs == nil
}

// eval evaluates the arguments into a fresh slice and keyword dict (nil when
// there are none), which the callee may keep.
func (a *argsCode) eval(r *renderer, f *frame) ([]Value, *Dict, error) {
	var pos []Value
	if len(a.pos) > 0 {
		var err error
		if pos, err = evalAll(r, f, a.pos); err != nil {
			return nil, nil, err
		}
	}
	if a.dynArgs != nil {
		v, err := a.dynArgs(r, f)
		if err != nil {
			return nil, nil, err
		}
		more, err := iterate(v)
		if err != nil {
			return nil, nil, err
		}
		pos = append(pos, more...)
	}
	kw, err := a.keywords(r, f)
	if err != nil {
		return nil, nil, err
	}
	return pos, kw, nil
}

// keywords evaluates the keyword arguments (and **kwargs) into a fresh dict,
// or nil when there are none.
func (a *argsCode) keywords(r *renderer, f *frame) (*Dict, error) {
	if len(a.kwNames) == 0 && a.dynKwargs == nil {
		return nil, nil
	}
	kw := NewDict(len(a.kwNames))
	for i, name := range a.kwNames {
		v, err := a.kwVals[i](r, f)
		if err != nil {
			return nil, err
		}
		kw.insert(name, name, v) // names are distinct: the parser checked
	}
	if a.dynKwargs != nil {
		v, err := a.dynKwargs(r, f)
		if err != nil {
			return nil, err
		}
		d, ok := v.(*Dict)
		if !ok {
			return nil, typeError("argument after ** must be a mapping, not %s", typeName(v))
		}
		for i, k := range d.keys {
			kw.Set(k, d.vals[i])
		}
	}
	return kw, nil
}

// push evaluates positional-only arguments onto the renderer's argument
// stack, for callees that keep no reference to them; the caller pops them
// (r.argStack = r.argStack[:base]) after the call.
func (a *argsCode) push(r *renderer, f *frame) (args []Value, base int, err error) {
	base = len(r.argStack)
	if len(a.pos) == 0 {
		return nil, base, nil
	}
	for _, p := range a.pos {
		v, err := p(r, f)
		if err != nil {
			r.argStack = r.argStack[:base]
			return nil, base, err
		}
		r.argStack = append(r.argStack, v)
	}
	top := len(r.argStack)
	return r.argStack[base:top:top], base, nil
}

// callValue evaluates the arguments and calls fn with them (and caller, for a
// call block). Macros keep nothing of their arguments, so theirs go on the
// argument stack.
func (a *argsCode) callValue(r *renderer, f *frame, fn Value, caller *Macro) (Value, error) {
	if m, ok := fn.(*Macro); ok && caller == nil && a.positionalOnly() {
		args, base, err := a.push(r, f)
		if err != nil {
			return nil, err
		}
		v, err := r.callMacro(m, args, nil)
		r.argStack = r.argStack[:base]
		return v, err
	}
	args, kw, err := a.eval(r, f)
	if err != nil {
		return nil, err
	}
	if caller != nil {
		if kw == nil {
			kw = NewDict(1)
		}
		kw.SetStr("caller", caller)
	}
	return r.call(fn, args, kw)
}

// call compiles a call; caller is the caller macro of a call block, or nil.
func (c *compiler) call(e *callExpr) func(r *renderer, f *frame, caller *Macro) (Value, error) {
	fn := c.expr(e.fn)
	args := c.args(e.args, e.kwNames, e.kwVals, e.dynArgs, e.dynKwargs)
	return func(r *renderer, f *frame, caller *Macro) (Value, error) {
		fv, err := fn(r, f)
		if err != nil {
			return nil, err
		}
		return args.callValue(r, f, fv, caller)
	}
}

func (c *compiler) callExpr(e *callExpr) evalFn {
	line := e.line
	if a, ok := e.fn.(*attrExpr); ok {
		return c.methodCall(e, a)
	}
	if ns := c.namespaceCall(e); ns != nil {
		return ns
	}
	call := c.call(e)
	return func(r *renderer, f *frame) (Value, error) {
		v, err := call(r, f, nil)
		return v, withLine(err, line)
	}
}

// methodCall compiles obj.name(args). When obj turns out to be a str or a
// dict with a method of that name, the method runs straight away, its
// arguments on the argument stack; otherwise obj.name is looked up as any
// attribute and called.
func (c *compiler) methodCall(e *callExpr, a *attrExpr) evalFn {
	obj := c.loopUse(a.obj, loopFields[a.name] || a.name == "cycle" || a.name == "changed")
	key, line := newAttrKey(a.name), e.line
	args := c.args(e.args, e.kwNames, e.kwVals, e.dynArgs, e.dynKwargs)
	var strM, markupM strImpl
	var dictM dictImpl
	if key.plain && args.positionalOnly() {
		strM, markupM, dictM = strImpls[a.name], markupImpls[a.name], dictImpls[a.name]
	}
	return func(r *renderer, f *frame) (Value, error) {
		o, err := obj(r, f)
		if err != nil {
			return nil, withLine(err, line)
		}
		var v Value
		switch x := o.(type) {
		case string:
			if strM != nil {
				v, err = args.callStr(r, f, strM, strRecv{s: x, boxed: o})
				return v, withLine(err, line)
			}
		case Markup:
			if markupM != nil {
				v, err = args.callStr(r, f, markupM, strRecv{s: string(x), markup: true, boxed: o})
				return v, withLine(err, line)
			}
		case *Dict:
			if dictM != nil {
				v, err = args.callDict(r, f, dictM, x)
				return v, withLine(err, line)
			}
		}
		fn, err := key.get(r, o)
		if err == nil {
			v, err = args.callValue(r, f, fn, nil)
		}
		return v, withLine(err, line)
	}
}

func (a *argsCode) callStr(r *renderer, f *frame, m strImpl, recv strRecv) (Value, error) {
	args, base, err := a.push(r, f)
	if err != nil {
		return nil, err
	}
	v, err := m(recv, r, args, nil)
	if err == nil {
		err = r.chargeCall(recv.boxed, args, v)
	}
	r.argStack = r.argStack[:base]
	return v, err
}

func (a *argsCode) callDict(r *renderer, f *frame, m dictImpl, d *Dict) (Value, error) {
	args, base, err := a.push(r, f)
	if err != nil {
		return nil, err
	}
	v, err := m(d, r, args, nil)
	if err == nil {
		err = r.chargeCall(d, args, v)
	}
	r.argStack = r.argStack[:base]
	return v, err
}

// namespaceCall compiles namespace(a=x, b=y), the global with keyword
// arguments only: the Namespace and its attributes in a block the renderer
// reuses (see newNamespace). It returns nil for any other call.
func (c *compiler) namespaceCall(e *callExpr) evalFn {
	n, ok := e.fn.(*nameExpr)
	if !ok || n.name != "namespace" || len(e.args) > 0 || len(e.kwNames) == 0 || e.dynArgs != nil || e.dynKwargs != nil {
		return nil
	}
	for s := c.sc; s != nil; s = s.parent {
		if _, bound := s.slots[n.name]; bound {
			return nil
		}
	}
	generic := c.call(e)
	names, vals, line := e.kwNames, c.exprs(e.kwVals), e.line
	return func(r *renderer, f *frame) (Value, error) {
		if _, shadowed := r.vars.Lookup("namespace"); shadowed {
			v, err := generic(r, f, nil)
			return v, withLine(err, line)
		}
		ns := r.newNamespace(len(names))
		for i, name := range names {
			v, err := vals[i](r, f)
			if err != nil {
				return nil, withLine(err, line)
			}
			ns.attrs.insert(name, name, v) // names are distinct: the parser checked
		}
		return ns, nil
	}
}
