package jinja

import "time"

// The compiler turns the syntax tree into Go closures once, when the template
// is compiled, so that a render runs no type switch over node kinds and looks
// no name up by string: operators, filters and tests are chosen here, and each
// name becomes the list of frame slots it may live in (then the render
// context, then the globals). This file compiles scopes and statements;
// compile_expr.go compiles expressions.

// execFn runs a compiled statement (or a body of them) in frame f.
type execFn func(r *renderer, f *frame) error

// evalFn evaluates a compiled expression in frame f.
type evalFn func(r *renderer, f *frame) (Value, error)

// assignFn binds a compiled for, set or with target to v in frame f.
type assignFn func(r *renderer, f *frame, v Value) error

// cscope is a frame as the compiler sees it: the names it may hold, each with
// its slot. Frames that could hold no name get no cscope, and no frame at run
// time either.
type cscope struct {
	parent *cscope
	slots  map[string]int
	// loopSlot is the slot of a for loop's loop variable, or -1;
	// loopEscapes is set when the body uses the variable other than to read a
	// field (loop.index) or call a method (loop.cycle(...)), which could keep
	// it (and so the loop's block) past the loop.
	loopSlot    int
	loopEscapes bool
}

func newScope(parent *cscope) *cscope {
	return &cscope{parent: parent, slots: map[string]int{}, loopSlot: -1}
}

func (s *cscope) declare(name string) {
	if _, ok := s.slots[name]; !ok {
		s.slots[name] = len(s.slots)
	}
}

// declareTarget declares the names a for, set or with target binds (a
// namespace attribute binds none).
func (s *cscope) declareTarget(t expr) {
	switch t := t.(type) {
	case *nameExpr:
		s.declare(t.name)
	case *tupleExpr:
		for _, it := range t.items {
			s.declareTarget(it)
		}
	}
}

// declareBody declares the names the statements of a body bind in the body's
// own frame: set targets and macros, also inside if blocks (which have no
// frame of their own), but not inside loops, macros, with, set-block or
// filter-block bodies, which do.
func (s *cscope) declareBody(body []stmt) {
	for _, st := range body {
		switch st := st.(type) {
		case *setStmt:
			s.declareTarget(st.target)
		case *setBlockStmt:
			s.declareTarget(st.target)
		case *macroStmt:
			s.declare(st.name)
		case *ifStmt:
			for ; st != nil; st = st.elif() {
				s.declareBody(st.body)
				if st.elif() == nil {
					s.declareBody(st.else_)
				}
			}
		}
	}
}

type compiler struct {
	sc   *cscope // the frame being compiled
	root *cscope
	// rootMacros counts the macros defined at the top level, which run once
	// per render: their Macro values live in the renderer (renderer.macros).
	rootMacros int
	// loopField is set while compiling the loop variable of loop.field or
	// loop.method(...), uses that cannot keep it.
	loopField bool
	free      map[string]*freeVar // the names looked up in the render context
	// constMode compiles for asConst: evaluation ahead of time, as Jinja2's
	// as_const does it (see compile_const.go).
	constMode bool
	// consts and renders keep, per node, its const-mode code and outcome
	// and whether it needs the render (see asConst); constDeadline bounds
	// the time all evaluation ahead of time may take.
	consts        map[expr]*constNode
	renders       map[expr]bool
	constDeadline time.Time
	// work counts the nodes asConst looks at and evaluates, which grows
	// with the template, not with the square of its longest chain (a test
	// checks it).
	work int
	// nodes counts the statements and expressions compiled since the
	// innermost loop or macro body began: what running that body once costs
	// (see budget.go and countBody).
	nodes int
}

// compileTemplate compiles a template body.
func compileTemplate(body []stmt) *Template {
	t, _ := compileCounting(body)
	return t
}

// compileCounting compiles a template body and returns the compiler's work
// count too.
func compileCounting(body []stmt) (*Template, int) {
	root := newScope(nil)
	root.declareBody(body)
	c := &compiler{sc: root, root: root, free: map[string]*freeVar{},
		consts: map[expr]*constNode{}, renders: map[expr]bool{}, constDeadline: time.Now().Add(DefaultLimits().Timeout)}
	code := c.body(body)
	return &Template{body: code, rootSlots: len(root.slots), rootMacros: c.rootMacros, freeNames: len(c.free)}, c.work
}

// keepsFrames reports whether running body may leave a reference to the
// frames it runs in behind: a macro or a call block's caller holds the frame
// it was defined in, a recursive loop's loop() the frame of the loop. Frames
// of code that keeps none are reused (renderer.child).
func keepsFrames(body []stmt) bool {
	for _, s := range body {
		switch s := s.(type) {
		case *macroStmt, *callBlockStmt:
			return true
		case *ifStmt:
			for ; s != nil; s = s.elif() {
				if keepsFrames(s.body) || (s.elif() == nil && keepsFrames(s.else_)) {
					return true
				}
			}
		case *forStmt:
			if s.recursive || keepsFrames(s.body) || keepsFrames(s.else_) {
				return true
			}
		case *setBlockStmt:
			if keepsFrames(s.body) {
				return true
			}
		case *filterBlockStmt:
			if keepsFrames(s.body) {
				return true
			}
		case *withStmt:
			if keepsFrames(s.body) {
				return true
			}
		}
	}
	return false
}

// open starts compiling a new frame that binds names and whatever body binds.
// It returns the frame's slot count, 0 when it binds nothing: such a frame is
// left out, its code compiled against the enclosing frame (see child). close
// ends it.
func (c *compiler) open(body []stmt, names ...string) int {
	sc := newScope(c.sc)
	for _, n := range names {
		sc.declare(n)
	}
	sc.declareBody(body)
	if len(sc.slots) == 0 {
		return 0
	}
	c.sc = sc
	return len(sc.slots)
}

func (c *compiler) close(n int) {
	if n > 0 {
		c.sc = c.sc.parent
	}
}

// targetNames lists the names a for, set or with target binds.
func targetNames(t expr) []string {
	s := newScope(nil)
	s.declareTarget(t)
	names := make([]string, len(s.slots))
	for n, i := range s.slots {
		names[i] = n
	}
	return names
}

func noop(*renderer, *frame) error { return nil }

func (c *compiler) body(stmts []stmt) execFn {
	fns := make([]execFn, 0, len(stmts))
	for _, s := range stmts {
		fns = append(fns, c.stmt(s))
	}
	switch len(fns) {
	case 0:
		return noop
	case 1:
		return fns[0]
	case 2:
		a, b := fns[0], fns[1]
		return func(r *renderer, f *frame) error {
			if err := a(r, f); err != nil {
				return err
			}
			return b(r, f)
		}
	}
	return func(r *renderer, f *frame) error {
		for _, fn := range fns {
			if err := fn(r, f); err != nil {
				return err
			}
		}
		return nil
	}
}

// countBody compiles a loop or macro body with compile, and returns the
// work units one run of it costs: fixed and bodyNodeCost for each node it
// runs, nested bodies included but for those of loops and macros, which
// are charged when they run.
func (c *compiler) countBody(fixed int, compile func()) int {
	saved := c.nodes
	c.nodes = 0
	compile()
	cost := fixed + c.nodes*bodyNodeCost
	c.nodes = saved
	return cost
}

func (c *compiler) stmt(s stmt) execFn {
	c.nodes++
	switch s := s.(type) {
	case *dataStmt:
		text := s.text
		return func(r *renderer, _ *frame) error { return r.write(text) }
	case *outputStmt:
		return c.output(s)
	case *ifStmt:
		return c.ifStmt(s)
	case *forStmt:
		return c.forStmt(s)
	case *setStmt:
		return c.setStmt(s)
	case *setBlockStmt:
		return c.setBlock(s)
	case *macroStmt:
		return c.macroStmt(s)
	case *callBlockStmt:
		return c.callBlock(s)
	case *filterBlockStmt:
		return c.filterBlock(s)
	case *withStmt:
		return c.withStmt(s)
	case *breakStmt:
		brk := &ctrl{kind: "break", line: s.line}
		return func(*renderer, *frame) error { return brk }
	case *continueStmt:
		cont := &ctrl{kind: "continue", line: s.line}
		return func(*renderer, *frame) error { return cont }
	}
	return func(*renderer, *frame) error { return newError("TemplateError", "unknown statement %T", s) }
}

// constText is toStr(v) at compile time, false when v's repr passes the
// bounds (bounds.go).
func constText(v Value) (text string, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, isLimit := p.(reprLimit); !isLimit {
				panic(p)
			}
			text, ok = "", false
		}
	}()
	return toStr(v), true
}

// output compiles {{ e }}. A concatenation is written operand by operand,
// which saves building the string it would print.
func (c *compiler) output(s *outputStmt) execFn {
	line := s.line
	if v, ok := c.asConst(s.e); ok {
		// Jinja2 prints what it can compute ahead of time as template data;
		// a value whose text passes the bounds is left to the render, which
		// reports it.
		if text, ok := constText(v); ok {
			return func(r *renderer, _ *frame) error { return r.write(text) }
		}
	}
	if call, ok := s.e.(*callExpr); ok {
		if _, isMethod := call.fn.(*attrExpr); !isMethod {
			return c.outputCall(call)
		}
	}
	if fe, ok := s.e.(*filterExpr); ok && fe.name == "tojson" && fe.fn != nil {
		return c.outputJSON(s, fe)
	}
	if parts := c.concatParts(s.e); parts != nil {
		return func(r *renderer, f *frame) error {
			return withLine(parts.write(r, f), line)
		}
	}
	e := c.expr(s.e)
	return func(r *renderer, f *frame) error {
		v, err := e(r, f)
		if err != nil {
			return withLine(err, line)
		}
		return r.writeValue(v)
	}
}

// outputCall compiles {{ f(args) }}. A macro called with positional
// arguments writes its output in place (see writeMacro).
func (c *compiler) outputCall(e *callExpr) execFn {
	fn := c.expr(e.fn)
	args := c.args(e.args, e.kwNames, e.kwVals, e.dynArgs, e.dynKwargs)
	line := e.line // the call's line, which the call's errors carry
	return func(r *renderer, f *frame) error {
		fv, err := fn(r, f)
		if err != nil {
			return withLine(err, line)
		}
		if m, ok := fv.(*Macro); ok && args.positionalOnly() {
			a, base, err := args.push(r, f)
			if err != nil {
				return withLine(err, line)
			}
			n, err := r.writeMacro(m, a)
			r.argStack = r.argStack[:base]
			if err != nil {
				return withLine(err, line)
			}
			return r.wrote(n)
		}
		v, err := args.callValue(r, f, fv, nil)
		if err != nil {
			return withLine(err, line)
		}
		return r.writeValue(v)
	}
}

// outputJSON compiles {{ x | tojson(args) }}: the JSON is encoded straight
// into the output (see writeJSON).
func (c *compiler) outputJSON(s *outputStmt, fe *filterExpr) execFn {
	node, args := c.expr(fe.node), c.args(fe.args, fe.kwNames, fe.kwVals, nil, nil)
	line, filterLine := s.line, fe.line
	return func(r *renderer, f *frame) error {
		v, err := node(r, f)
		if err != nil {
			return withLine(err, line)
		}
		a, base, err := args.push(r, f)
		if err != nil {
			return withLine(err, filterLine)
		}
		kw, err := args.keywords(r, f)
		n := 0
		if err == nil {
			n, err = r.writeJSON(v, a, kw)
		}
		r.argStack = r.argStack[:base]
		if err != nil {
			return withLine(err, filterLine)
		}
		return r.wrote(n)
	}
}

func (c *compiler) ifStmt(s *ifStmt) execFn {
	var conds []evalFn
	var bodies []execFn
	for {
		conds = append(conds, c.expr(s.cond))
		bodies = append(bodies, c.body(s.body))
		elif := s.elif()
		if elif == nil {
			break
		}
		s = elif
	}
	els := c.body(s.else_)
	if len(conds) == 1 {
		cond, body := conds[0], bodies[0]
		return func(r *renderer, f *frame) error {
			v, err := cond(r, f)
			if err != nil {
				return err
			}
			if truthy(v) {
				return body(r, f)
			}
			return els(r, f)
		}
	}
	return func(r *renderer, f *frame) error {
		for i, cond := range conds {
			v, err := cond(r, f)
			if err != nil {
				return err
			}
			if truthy(v) {
				return bodies[i](r, f)
			}
		}
		return els(r, f)
	}
}

// forCode is a compiled for loop.
type forCode struct {
	reuse        bool // the loop block and frames may be reused (see loopBlock)
	elseReuse    bool
	iter         evalFn
	filter       evalFn   // the "if" filter, or nil
	filterSlots  int      // the filter's frame: the target's names
	filterTarget assignFn // binds the target in the filter's frame
	slots        int      // the iteration frame: loop, the target, and the body's sets
	loopSlot     int
	target       assignFn
	body         execFn
	else_        execFn
	hasElse      bool
	elseSlots    int
	recursive    bool
	cost         int // what an iteration costs (see countBody)
}

func (c *compiler) forStmt(s *forStmt) execFn {
	fc := &forCode{iter: c.expr(s.iter), recursive: s.recursive, hasElse: len(s.else_) > 0}
	names := targetNames(s.target)
	if s.filter != nil {
		fc.filterSlots = c.open(nil, names...)
		fc.filterTarget = c.assign(s.target)
		fc.filter = c.expr(s.filter)
		c.close(fc.filterSlots)
	}
	fc.slots = c.open(s.body, append([]string{"loop"}, names...)...)
	iter := c.sc
	fc.loopSlot = iter.slots["loop"]
	iter.loopSlot = fc.loopSlot
	fc.cost = c.countBody(iterCost, func() {
		fc.target = c.assign(s.target)
		fc.body = c.body(s.body)
	})
	c.close(fc.slots)
	fc.reuse = !s.recursive && !keepsFrames(s.body) && !iter.loopEscapes
	fc.elseSlots = c.open(s.else_)
	fc.else_ = c.body(s.else_)
	fc.elseReuse = !keepsFrames(s.else_)
	c.close(fc.elseSlots)
	line := s.line
	return func(r *renderer, f *frame) error {
		seq, err := fc.iter(r, f)
		if err == nil {
			err = r.runFor(fc, seq, f, 0)
		}
		return withLine(err, line)
	}
}

func (c *compiler) setStmt(s *setStmt) execFn {
	value := c.expr(s.value)
	line := s.line
	if t, ok := s.target.(*nameExpr); ok {
		slot := c.slot(t.name)
		return func(r *renderer, f *frame) error {
			v, err := value(r, f)
			if err != nil {
				return withLine(err, line)
			}
			f.slots[slot] = v
			return nil
		}
	}
	assign := c.assign(s.target)
	return func(r *renderer, f *frame) error {
		v, err := value(r, f)
		if err != nil {
			return withLine(err, line)
		}
		return withLine(assign(r, f, v), line)
	}
}

// slot is the slot of a name the frame being compiled binds.
func (c *compiler) slot(name string) int {
	i, ok := c.sc.slots[name]
	if !ok {
		panic("jinja: compiler: " + name + " was not declared in its frame")
	}
	return i
}

// assign compiles a for, set or with target.
func (c *compiler) assign(target expr) assignFn {
	switch t := target.(type) {
	case *nameExpr:
		slot := c.slot(t.name)
		return func(_ *renderer, f *frame, v Value) error {
			f.slots[slot] = v
			return nil
		}
	case *attrExpr:
		obj, name := c.expr(t.obj), t.name
		return func(r *renderer, f *frame, v Value) error {
			o, err := obj(r, f)
			if err != nil {
				return err
			}
			ns, ok := o.(*Namespace)
			if !ok {
				return newError("TemplateRuntimeError", "cannot assign attribute on non-namespace object")
			}
			ns.attrs.SetStr(name, v)
			return nil
		}
	case *tupleExpr:
		subs := make([]assignFn, len(t.items))
		for i, it := range t.items {
			subs[i] = c.assign(it)
		}
		return func(r *renderer, f *frame, v Value) error {
			items, err := iterate(v)
			if err != nil {
				return typeError("cannot unpack non-iterable %s object", typeName(v))
			}
			if len(items) < len(subs) {
				return valueError("not enough values to unpack (expected %d, got %d)", len(subs), len(items))
			}
			if len(items) > len(subs) {
				return valueError("too many values to unpack (expected %d)", len(subs))
			}
			for i, sub := range subs {
				if err := sub(r, f, items[i]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return func(*renderer, *frame, Value) error {
		return newError("TemplateSyntaxError", "cannot assign to %T", target)
	}
}

func (c *compiler) setBlock(s *setBlockStmt) execFn {
	n := c.open(s.body) // sets in the body stay in the body
	body := c.body(s.body)
	c.close(n)
	reuse := !keepsFrames(s.body)
	filters := c.filterChain(s.filters)
	assign := c.assign(s.target)
	line := s.line
	return func(r *renderer, f *frame) error {
		g := r.child(f, n, reuse)
		text, err := r.capture(body, g)
		if err != nil {
			return err
		}
		r.done(g, n, reuse)
		v, err := filters(r, f, text)
		if err != nil {
			return withLine(err, line)
		}
		return withLine(assign(r, f, v), line)
	}
}

// filterChain compiles the filters of a set or filter block, applied in turn
// to the captured text.
func (c *compiler) filterChain(filters []*filterExpr) func(r *renderer, f *frame, v Value) (Value, error) {
	fns := make([]filterCall, len(filters))
	for i, fe := range filters {
		fns[i] = c.filterCall(fe)
	}
	return func(r *renderer, f *frame, v Value) (Value, error) {
		for _, fn := range fns {
			var err error
			if v, err = fn(r, f, v); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
}

// macroCode is a compiled macro (or call block's caller).
type macroCode struct {
	def      *macroDef
	slots    int      // the call's frame
	params   []int    // the slot of each parameter
	missing  []Value  // what a parameter without default holds when not passed
	defaults []evalFn // evaluated in the call's frame, after the parameters before them
	varargs  int      // slots of varargs, kwargs and caller, where the body uses them
	kwargs   int
	caller   int
	body     execFn
	reuse    bool // the call's frame may be reused (see renderer.child)
	cost     int  // what a call costs (see countBody)
}

func (c *compiler) macro(d *macroDef) *macroCode {
	names := append([]string(nil), d.params...)
	for _, special := range []struct {
		used bool
		name string
	}{{d.usesVarargs, "varargs"}, {d.usesKwargs, "kwargs"}, {d.usesCaller, "caller"}} {
		if special.used {
			names = append(names, special.name)
		}
	}
	m := &macroCode{def: d}
	m.slots = c.open(d.body, names...)
	for _, p := range d.params {
		m.params = append(m.params, c.sc.slots[p])
		m.missing = append(m.missing, Undefined{Hint: "parameter " + repr(p) + " was not provided"})
	}
	m.varargs, m.kwargs, m.caller = c.sc.slots["varargs"], c.sc.slots["kwargs"], c.sc.slots["caller"]
	m.cost = c.countBody(callCost, func() {
		for _, e := range d.defaults {
			m.defaults = append(m.defaults, c.expr(e))
		}
		m.body = c.body(d.body)
	})
	c.close(m.slots)
	m.reuse = !keepsFrames(d.body)
	return m
}

func (c *compiler) macroStmt(s *macroStmt) execFn {
	code := c.macro(s.m)
	slot, name := c.slot(s.name), s.name
	if c.sc == c.root {
		// The top level runs once per render: the Macro lives in the renderer.
		k := c.rootMacros
		c.rootMacros++
		return func(r *renderer, f *frame) error {
			m := &r.macros[k]
			*m = Macro{name: name, code: code, scope: f}
			f.slots[slot] = m
			return nil
		}
	}
	return func(_ *renderer, f *frame) error {
		f.slots[slot] = &Macro{name: name, code: code, scope: f}
		return nil
	}
}

func (c *compiler) callBlock(s *callBlockStmt) execFn {
	caller := c.macro(s.caller)
	call := c.call(s.call)
	line := s.line
	return func(r *renderer, f *frame) error {
		// Anonymous, as Jinja2's caller.
		v, err := call(r, f, &Macro{code: caller, scope: f})
		if err != nil {
			return withLine(err, line)
		}
		return r.writeValue(v)
	}
}

func (c *compiler) filterBlock(s *filterBlockStmt) execFn {
	n := c.open(s.body)
	body := c.body(s.body)
	c.close(n)
	reuse := !keepsFrames(s.body)
	filters := c.filterChain(s.filters)
	line := s.line
	return func(r *renderer, f *frame) error {
		g := r.child(f, n, reuse)
		text, err := r.capture(body, g)
		if err != nil {
			return err
		}
		r.done(g, n, reuse)
		v, err := filters(r, f, text)
		if err != nil {
			return withLine(err, line)
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
	}
}

func (c *compiler) withStmt(s *withStmt) execFn {
	values := make([]evalFn, len(s.values))
	for i, v := range s.values {
		values[i] = c.expr(v) // in the enclosing frame
	}
	var names []string
	for _, t := range s.targets {
		names = append(names, targetNames(t)...)
	}
	n := c.open(s.body, names...)
	targets := make([]assignFn, len(s.targets))
	for i, t := range s.targets {
		targets[i] = c.assign(t)
	}
	body := c.body(s.body)
	c.close(n)
	reuse := !keepsFrames(s.body)
	return func(r *renderer, f *frame) error {
		inner := r.child(f, n, reuse)
		for i, value := range values {
			v, err := value(r, f)
			if err != nil {
				return err
			}
			if err := targets[i](r, inner, v); err != nil {
				return err
			}
		}
		if err := body(r, inner); err != nil {
			return err
		}
		r.done(inner, n, reuse)
		return nil
	}
}
