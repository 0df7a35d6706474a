package jinja

import (
	"math"
	"slices"
	"strings"
	"time"
)

// scope is one frame of variables. Jinja2 gives each loop iteration, macro call
// and with block a frame of its own; if blocks share their parent's. Reads fall
// through to the parent, writes stay in the frame, which is why a set inside a
// loop is gone after it and namespace() exists.
type scope struct {
	parent *scope
	binds  []binding
	inline [4]binding       // backing for binds: most frames hold a few names
	vars   map[string]Value // the render context, on the root frame only
}

type binding struct {
	name string
	val  Value
}

func (s *scope) lookup(name string) (Value, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		for i := len(sc.binds) - 1; i >= 0; i-- {
			if sc.binds[i].name == name {
				return sc.binds[i].val, true
			}
		}
		if sc.vars != nil {
			if v, ok := sc.vars[name]; ok {
				return v, true
			}
		}
	}
	v, ok := globals[name]
	return v, ok
}

func (s *scope) set(name string, v Value) {
	for i := len(s.binds) - 1; i >= 0; i-- {
		if s.binds[i].name == name {
			s.binds[i].val = v
			return
		}
	}
	if s.binds == nil {
		s.binds = s.inline[:0]
	}
	s.binds = append(s.binds, binding{name, v})
}

func (s *scope) lookupLocal(name string) (Value, bool) {
	for i := len(s.binds) - 1; i >= 0; i-- {
		if s.binds[i].name == name {
			return s.binds[i].val, true
		}
	}
	return nil, false
}

// ctrl carries break and continue out of nested statements to their loop.
type ctrl struct {
	kind string // "break" or "continue"
	line int
}

func (c *ctrl) Error() string { return c.kind }

// Macro is a macro bound to the frame it was defined in.
type Macro struct {
	name  string
	def   *macroDef
	scope *scope
}

func (r *renderer) write(s string) error {
	r.written += len(s)
	if r.limits.MaxOutputBytes > 0 && r.written > r.limits.MaxOutputBytes {
		return limitError("template output exceeds %d bytes", r.limits.MaxOutputBytes)
	}
	r.out.WriteString(s)
	r.pieces++
	return nil
}

// tick counts one loop iteration against the limits.
func (r *renderer) tick() error {
	r.iterations++
	if r.limits.MaxIterations > 0 && r.iterations > r.limits.MaxIterations {
		return limitError("template loops exceed %d iterations", r.limits.MaxIterations)
	}
	if r.iterations&1023 == 0 && !r.deadline.IsZero() && time.Now().After(r.deadline) {
		return limitError("template render exceeds %s", r.limits.Timeout)
	}
	return nil
}

func (r *renderer) enter() error {
	r.depth++
	if r.limits.MaxDepth > 0 && r.depth > r.limits.MaxDepth {
		return limitError("template recursion exceeds depth %d", r.limits.MaxDepth)
	}
	if !r.deadline.IsZero() && time.Now().After(r.deadline) {
		return limitError("template render exceeds %s", r.limits.Timeout)
	}
	return nil
}

func (r *renderer) leave() { r.depth-- }

// capture runs fn with output going to a fresh buffer and returns what it wrote.
func (r *renderer) capture(fn func() error) (string, error) {
	saved, savedPieces, savedJoinErr := r.out, r.pieces, r.joinErr
	var b strings.Builder
	r.out, r.pieces, r.joinErr = &b, 0, nil
	err := fn()
	if err == nil && r.joinErr != nil {
		err = r.joinErr
	}
	r.out, r.pieces, r.joinErr = saved, savedPieces, savedJoinErr
	return b.String(), err
}

// withLine attaches a template line to an error that has none.
func withLine(err error, line int) error {
	if e, ok := err.(*Error); ok && e.Line == 0 {
		e.Line = line
	}
	return err
}

func (r *renderer) execBody(body []stmt, sc *scope) error {
	for _, s := range body {
		if err := r.exec(s, sc); err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) exec(s stmt, sc *scope) error {
	switch s := s.(type) {
	case *dataStmt:
		return r.write(s.text)
	case *outputStmt:
		v, err := r.eval(s.e, sc)
		if err != nil {
			return withLine(err, s.line)
		}
		return r.write(toStr(v))
	case *ifStmt:
		for {
			c, err := r.eval(s.cond, sc)
			if err != nil {
				return err
			}
			if truthy(c) {
				return r.execBody(s.body, sc)
			}
			if len(s.else_) == 1 {
				if elif, ok := s.else_[0].(*ifStmt); ok {
					s = elif
					continue
				}
			}
			return r.execBody(s.else_, sc)
		}
	case *forStmt:
		return withLine(r.execFor(s, sc), s.line)
	case *setStmt:
		v, err := r.eval(s.value, sc)
		if err != nil {
			return withLine(err, s.line)
		}
		return withLine(r.assign(s.target, v, sc), s.line)
	case *setBlockStmt:
		inner := &scope{parent: sc} // sets in the body stay in the body
		text, err := r.capture(func() error { return r.execBody(s.body, inner) })
		if err != nil {
			return err
		}
		var v Value = text
		if v, err = r.applyFilters(s.filters, v, sc); err != nil {
			return withLine(err, s.line)
		}
		return withLine(r.assign(s.target, v, sc), s.line)
	case *macroStmt:
		sc.set(s.name, &Macro{name: s.name, def: s.m, scope: sc})
		return nil
	case *callBlockStmt:
		caller := &Macro{def: s.caller, scope: sc} // anonymous, as Jinja2's caller
		v, err := r.evalCall(s.call, sc, caller)
		if err != nil {
			return withLine(err, s.line)
		}
		return r.write(toStr(v))
	case *filterBlockStmt:
		inner := &scope{parent: sc}
		text, err := r.capture(func() error { return r.execBody(s.body, inner) })
		if err != nil {
			return err
		}
		v, err := r.applyFilters(s.filters, text, sc)
		if err != nil {
			return withLine(err, s.line)
		}
		out, ok := isString(v)
		if !ok {
			// Jinja2 yields the filtered value as it is, and joining the
			// output refuses anything but str: an error that surfaces only when
			// this buffer is joined, so a break before then never sees it.
			if r.joinErr == nil {
				r.joinErr = typeError("sequence item %d: expected str instance, %s found", r.pieces, typeName(v))
			}
			r.pieces++
			return nil
		}
		return r.write(out)
	case *withStmt:
		inner := &scope{parent: sc}
		for i, t := range s.targets {
			v, err := r.eval(s.values[i], sc)
			if err != nil {
				return err
			}
			if err := r.assign(t, v, inner); err != nil {
				return err
			}
		}
		return r.execBody(s.body, inner)
	case *breakStmt:
		return &ctrl{kind: "break", line: s.line}
	case *continueStmt:
		return &ctrl{kind: "continue", line: s.line}
	}
	return newError("TemplateError", "unknown statement %T", s)
}

// applyFilters runs a set or filter block's filter chain over its text.
func (r *renderer) applyFilters(filters []*filterExpr, v Value, sc *scope) (Value, error) {
	for _, f := range filters {
		var err error
		if v, err = r.callFilter(f, v, sc); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// assign binds a for or set target.
func (r *renderer) assign(target expr, v Value, sc *scope) error {
	switch t := target.(type) {
	case *nameExpr:
		sc.set(t.name, v)
		return nil
	case *attrExpr:
		obj, err := r.eval(t.obj, sc)
		if err != nil {
			return err
		}
		ns, ok := obj.(*Namespace)
		if !ok {
			return newError("TemplateRuntimeError", "cannot assign attribute on non-namespace object")
		}
		ns.attrs.SetStr(t.name, v)
		return nil
	case *tupleExpr:
		items, err := iterate(v)
		if err != nil {
			return typeError("cannot unpack non-iterable %s object", typeName(v))
		}
		if len(items) < len(t.items) {
			return valueError("not enough values to unpack (expected %d, got %d)", len(t.items), len(items))
		}
		if len(items) > len(t.items) {
			return valueError("too many values to unpack (expected %d)", len(t.items))
		}
		for i, sub := range t.items {
			if err := r.assign(sub, items[i], sc); err != nil {
				return err
			}
		}
		return nil
	}
	return newError("TemplateSyntaxError", "cannot assign to %T", target)
}

func (r *renderer) execFor(s *forStmt, sc *scope) error {
	seq, err := r.eval(s.iter, sc)
	if err != nil {
		return err
	}
	return r.loop(s, seq, sc, 0)
}

// loop runs a for loop's body over seq; depth counts recursive loop() calls.
func (r *renderer) loop(s *forStmt, seq Value, sc *scope, depth int) error {
	items, err := iterate(seq)
	if err != nil {
		return err
	}
	if s.filter != nil {
		kept := make([]Value, 0, len(items))
		for _, it := range items {
			fs := &scope{parent: sc}
			if err := r.assign(s.target, it, fs); err != nil {
				return err
			}
			ok, err := r.eval(s.filter, fs)
			if err != nil {
				return err
			}
			if truthy(ok) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if len(items) == 0 {
		return r.execBody(s.else_, &scope{parent: sc}) // the else block is a frame of its own
	}
	// The loop variable and the iteration frame live and die together: one
	// allocation for both.
	frame := &struct {
		info LoopInfo
		sc   scope
	}{info: LoopInfo{items: items, depth0: depth}, sc: scope{parent: sc}}
	info, iter := &frame.info, &frame.sc
	if s.recursive {
		info.recurse = func(seq Value) (Value, error) {
			if err := r.enter(); err != nil {
				return nil, err
			}
			defer r.leave()
			return r.capture(func() error { return r.loop(s, seq, sc, depth+1) })
		}
	}
	// As Jinja2 compiles it, the else block also runs when no iteration
	// reached the end of the body (each one ended in break or continue).
	completed := false
	for i, it := range items {
		if err := r.tick(); err != nil {
			return err
		}
		info.index = i
		iter.binds = iter.binds[:0]
		iter.set("loop", info)
		if err := r.assign(s.target, it, iter); err != nil {
			return err
		}
		err := r.execBody(s.body, iter)
		if c, ok := err.(*ctrl); ok {
			if c.kind == "break" {
				break
			}
			continue
		}
		if err != nil {
			return err
		}
		completed = true
		if info.exhausted {
			break
		}
	}
	if !completed && len(s.else_) > 0 {
		return r.execBody(s.else_, &scope{parent: sc})
	}
	return nil
}

// eval evaluates an expression.
func (r *renderer) eval(e expr, sc *scope) (Value, error) {
	switch e := e.(type) {
	case *constExpr:
		return e.v, nil
	case *nameExpr:
		if v, ok := sc.lookup(e.name); ok {
			return v, nil
		}
		return Undefined{name: e.name}, nil
	case *attrExpr:
		obj, err := r.eval(e.obj, sc)
		if err != nil {
			return nil, err
		}
		return r.getAttr(obj, e.name)
	case *itemExpr:
		obj, err := r.eval(e.obj, sc)
		if err != nil {
			return nil, err
		}
		var key Value
		if sl, ok := e.key.(*sliceExpr); ok {
			k := &sliceKey{}
			for i, part := range []expr{sl.start, sl.stop, sl.step} {
				if part == nil {
					continue
				}
				v, err := r.eval(part, sc)
				if err != nil {
					return nil, err
				}
				switch i {
				case 0:
					k.start = v
				case 1:
					k.stop = v
				case 2:
					k.step = v
				}
			}
			if e.folded {
				return r.getItem(obj, k)
			}
			return r.sliceItem(obj, k)
		} else if key, err = r.eval(e.key, sc); err != nil {
			return nil, err
		}
		return r.getItem(obj, key)
	case *listExpr:
		items := make([]Value, len(e.items))
		for i, it := range e.items {
			v, err := r.eval(it, sc)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return NewList(items), nil
	case *tupleExpr:
		items := make(Tuple, len(e.items))
		for i, it := range e.items {
			v, err := r.eval(it, sc)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return items, nil
	case *dictExpr:
		d := NewDict(len(e.keys))
		for i := range e.keys {
			k, err := r.eval(e.keys[i], sc)
			if err != nil {
				return nil, err
			}
			v, err := r.eval(e.vals[i], sc)
			if err != nil {
				return nil, err
			}
			if err := d.Set(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case *callExpr:
		v, err := r.evalCall(e, sc, nil)
		return v, withLine(err, e.line)
	case *filterExpr:
		v, err := r.eval(e.node, sc)
		if err != nil {
			return nil, err
		}
		v, err = r.callFilter(e, v, sc)
		return v, withLine(err, e.line)
	case *testExpr:
		v, err := r.eval(e.node, sc)
		if err != nil {
			return nil, err
		}
		ok, err := r.callTest(e, v, sc)
		return ok, withLine(err, e.line)
	case *condExpr:
		c, err := r.eval(e.cond, sc)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return r.eval(e.then, sc)
		}
		if e.else_ == nil {
			return Undefined{Hint: "the inline if-expression on line evaluated to false and no else section was defined."}, nil
		}
		return r.eval(e.else_, sc)
	case *unaryExpr:
		v, err := r.eval(e.e, sc)
		if err != nil {
			return nil, err
		}
		return unary(e.op, v)
	case *binExpr:
		return r.evalBinary(e, sc)
	case *sumExpr:
		return r.evalSum(e, sc)
	case *compareExpr:
		return r.evalCompare(e, sc)
	}
	return nil, newError("TemplateError", "cannot evaluate %T", e)
}

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
			return -x, nil
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

func (r *renderer) evalBinary(e *binExpr, sc *scope) (Value, error) {
	left, err := r.eval(e.left, sc)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "and":
		if !truthy(left) {
			return left, nil
		}
		return r.eval(e.right, sc)
	case "or":
		if truthy(left) {
			return left, nil
		}
		return r.eval(e.right, sc)
	}
	right, err := r.eval(e.right, sc)
	if err != nil {
		return nil, err
	}
	v, err := binary(e.op, left, right)
	return v, withLine(err, e.line)
}

// evalSum evaluates a chain a + b + c + ... left to right, as Python does, but
// joins runs of plain strings in one builder instead of allocating a new string
// at every '+'. Templates build prompts this way ('<|im_start|>' + role + '\n').
func (r *renderer) evalSum(e *sumExpr, sc *scope) (Value, error) {
	acc, err := r.eval(e.operands[0], sc)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	building := false // acc's text is in b
	for i, op := range e.operands[1:] {
		v, err := r.eval(op, sc)
		if err != nil {
			return nil, err
		}
		if s, ok := v.(string); ok {
			if building {
				b.WriteString(s)
				continue
			}
			if a, ok := acc.(string); ok {
				b.Grow(len(a) + len(s) + 32)
				b.WriteString(a)
				b.WriteString(s)
				building = true
				continue
			}
		}
		if building {
			acc, building = b.String(), false
			b = strings.Builder{}
		}
		if acc, err = binary("+", acc, v); err != nil {
			return nil, withLine(err, e.lines[i])
		}
	}
	if building {
		acc = b.String()
	}
	return acc, nil
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
		items := make([]Value, 0, len(x.Items)+len(y.Items))
		return NewList(append(append(items, x.Items...), y.Items...)), nil
	case Tuple:
		y, ok := b.(Tuple)
		if !ok {
			return nil, typeError("can only concatenate tuple (not \"%s\") to tuple", typeName(b))
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
	switch s := seq.(type) {
	case string:
		if len(s)*n > 64<<20 {
			return nil, limitError("string repetition too large")
		}
		return strings.Repeat(s, n), nil
	case Markup:
		return Markup(strings.Repeat(string(s), n)), nil
	case *List:
		out := make([]Value, 0, len(s.Items)*n)
		for i := 0; i < n; i++ {
			out = append(out, s.Items...)
		}
		return NewList(out), nil
	case Tuple:
		out := make(Tuple, 0, len(s)*n)
		for i := 0; i < n; i++ {
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, typeError("unsupported operand type(s) for *: '%s' and '%s'", typeName(a), typeName(b))
}

// arith applies an operator to two numbers with Python's int/float rules.
func arith(op string, a, b Value) (Value, error) {
	ai, aInt := asInt(a)
	bi, bInt := asInt(b)
	if aInt && bInt {
		switch op {
		case "+":
			return ai + bi, nil
		case "-":
			return ai - bi, nil
		case "*":
			return ai * bi, nil
		case "/":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "division by zero")
			}
			return float64(ai) / float64(bi), nil
		case "//":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "integer division or modulo by zero")
			}
			return floorDiv(ai, bi), nil
		case "%":
			if bi == 0 {
				return nil, newError("ZeroDivisionError", "integer modulo by zero")
			}
			return floorMod(ai, bi), nil
		case "**":
			if bi >= 0 {
				res := 1
				for i := 0; i < bi; i++ {
					res *= ai
				}
				return res, nil
			}
			return math.Pow(float64(ai), float64(bi)), nil
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
		return math.Pow(x, y), nil
	}
	return nil, typeError("unsupported operand type(s) for %s", op)
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

func (r *renderer) evalCompare(e *compareExpr, sc *scope) (Value, error) {
	left, err := r.eval(e.first, sc)
	if err != nil {
		return nil, err
	}
	for i, op := range e.ops {
		right, err := r.eval(e.rest[i], sc)
		if err != nil {
			return nil, err
		}
		ok, err := compareOp(op, left, right)
		if err != nil {
			return nil, withLine(err, e.line)
		}
		if !ok {
			return false, nil
		}
		left = right
	}
	return true, nil
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
	c, err := compare(op, a, b)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// evalArgs evaluates a call's positional and keyword arguments.
func (r *renderer) evalArgs(args []expr, kwNames []Value, kwVals []expr, dynArgs, dynKwargs expr, sc *scope) ([]Value, *Dict, error) {
	var pos []Value
	if len(args) > 0 {
		pos = make([]Value, 0, len(args))
	}
	for _, a := range args {
		v, err := r.eval(a, sc)
		if err != nil {
			return nil, nil, err
		}
		pos = append(pos, v)
	}
	if dynArgs != nil {
		v, err := r.eval(dynArgs, sc)
		if err != nil {
			return nil, nil, err
		}
		more, err := iterate(v)
		if err != nil {
			return nil, nil, err
		}
		pos = append(pos, more...)
	}
	var kw *Dict
	if len(kwNames) > 0 || dynKwargs != nil {
		kw = NewDict(len(kwNames))
		for i, name := range kwNames {
			v, err := r.eval(kwVals[i], sc)
			if err != nil {
				return nil, nil, err
			}
			kw.insert(name, name, v) // names are distinct: the parser checked
		}
		if dynKwargs != nil {
			v, err := r.eval(dynKwargs, sc)
			if err != nil {
				return nil, nil, err
			}
			d, ok := v.(*Dict)
			if !ok {
				return nil, nil, typeError("argument after ** must be a mapping, not %s", typeName(v))
			}
			for i, k := range d.keys {
				kw.Set(k, d.vals[i])
			}
		}
	}
	return pos, kw, nil
}

func (r *renderer) evalCall(e *callExpr, sc *scope, caller *Macro) (Value, error) {
	fn, err := r.eval(e.fn, sc)
	if err != nil {
		return nil, err
	}
	args, kw, err := r.evalArgs(e.args, e.kwNames, e.kwVals, e.dynArgs, e.dynKwargs, sc)
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

// call calls a macro or built-in callable.
func (r *renderer) call(fn Value, args []Value, kw *Dict) (Value, error) {
	switch f := fn.(type) {
	case Func:
		return f(r, args, kw)
	case *boundMethod:
		return f.fn(r, args, kw)
	case *Macro:
		return r.callMacro(f, args, kw)
	case *LoopInfo:
		if f.recurse == nil {
			return nil, typeError("The loop must be marked as recursive to be called with 'loop(...)'")
		}
		if len(args) != 1 {
			return nil, typeError("loop() takes exactly one argument")
		}
		return f.recurse(args[0])
	case *Joiner:
		return f.call(), nil
	case Undefined:
		return nil, f.fail()
	}
	return nil, typeError("'%s' object is not callable", typeName(fn))
}

func (r *renderer) callMacro(m *Macro, args []Value, kw *Dict) (Value, error) {
	d := m.def
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer r.leave()
	sc := &scope{parent: m.scope}
	if len(args) > len(d.params) && !d.usesVarargs {
		return nil, typeError("macro %s takes not more than %d argument(s)", repr(m.name), len(d.params))
	}
	firstDefault := len(d.params) - len(d.defaults)
	var used []string // parameters given by keyword
	for i, name := range d.params {
		switch {
		case i < len(args):
			sc.set(name, args[i])
		default:
			if kw != nil {
				if v, ok := kw.GetStr(name); ok {
					sc.set(name, v)
					used = append(used, name)
					continue
				}
			}
			if i >= firstDefault {
				v, err := r.eval(d.defaults[i-firstDefault], sc)
				if err != nil {
					return nil, err
				}
				sc.set(name, v)
			} else {
				sc.set(name, Undefined{Hint: "parameter " + repr(name) + " was not provided"})
			}
		}
	}
	var rest []Value
	if len(args) > len(d.params) {
		rest = args[len(d.params):]
	}
	if d.usesVarargs {
		sc.set("varargs", Tuple(rest))
	}
	var extra *Dict
	if d.usesKwargs {
		extra = NewDict(0)
	}
	if kw != nil {
		for i, k := range kw.keys {
			name, _ := k.(string)
			if slices.Contains(used, name) {
				continue
			}
			if name == "caller" && d.usesCaller {
				sc.set("caller", kw.vals[i])
				continue
			}
			if d.usesKwargs {
				extra.SetStr(name, kw.vals[i])
				continue
			}
			if isParam(d, name) {
				return nil, typeError("macro %s got multiple values for argument %s", repr(m.name), repr(name))
			}
			return nil, typeError("macro %s takes no keyword argument %s", repr(m.name), repr(name))
		}
	}
	if d.usesKwargs {
		sc.set("kwargs", extra)
	}
	if d.usesCaller {
		if _, ok := sc.lookupLocal("caller"); !ok {
			sc.set("caller", Undefined{Hint: "No caller defined"})
		}
	}
	out, err := r.capture(func() error { return r.execBody(d.body, sc) })
	if err != nil {
		if c, ok := err.(*ctrl); ok {
			return nil, syntaxError(c.line, "'%s' outside of a loop", c.kind)
		}
		return nil, err
	}
	return out, nil
}

func isParam(d *macroDef, name string) bool {
	for _, p := range d.params {
		if p == name {
			return true
		}
	}
	return false
}

func (r *renderer) callFilter(f *filterExpr, v Value, sc *scope) (Value, error) {
	if f.fn == nil {
		return nil, newError("TemplateRuntimeError", "No filter named %s found.", repr(f.name))
	}
	args, kw, err := r.evalArgs(f.args, f.kwNames, f.kwVals, nil, nil, sc)
	if err != nil {
		return nil, err
	}
	return f.fn(r, v, args, kw)
}

func (r *renderer) callTest(t *testExpr, v Value, sc *scope) (bool, error) {
	if t.fn == nil {
		return false, newError("TemplateRuntimeError", "No test named %s found.", repr(t.name))
	}
	var args []Value
	if len(t.args) > 0 {
		var err error
		if args, _, err = r.evalArgs(t.args, nil, nil, nil, nil, sc); err != nil {
			return false, err
		}
	}
	return t.fn(r, v, args)
}
