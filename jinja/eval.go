package jinja

import (
	"strconv"
	"strings"
	"unsafe"
)

// The run-time side of the evaluator: frames, output, limits, calls. The
// template itself has been compiled to closures (compile.go, compile_expr.go)
// which call in here.

// frame is one scope of variables at run time. Jinja2 gives each loop
// iteration, macro call, with block, set-block and filter-block body and for-else
// a frame of its own; if blocks share their parent's. Reads fall through to the
// parent, writes stay in the frame, which is why a set inside a loop is gone
// after it and namespace() exists.
//
// Which names a frame may hold is known once the template is compiled, so a
// frame is an array of slots and every name in the template compiles to the
// slots it may be found in (see compiler.name). A slot holds unbound until its
// name is assigned.
type frame struct {
	parent *frame
	slots  []Value
	inline [4]Value // backing for slots: most frames hold a few names
	spill  []Value  // backing for more, kept when the frame is reused
}

// unboundSlot is the value of a slot whose name has not been assigned (yet) in
// this frame: lookups go on to the parent frame.
type unboundSlot struct{}

var unbound Value = unboundSlot{}

func isUnbound(v Value) bool {
	_, ok := v.(unboundSlot)
	return ok
}

// init makes f an empty frame of n slots under parent.
func (f *frame) init(parent *frame, n int) {
	f.parent = parent
	switch {
	case n <= len(f.inline):
		f.slots = f.inline[:n]
	case cap(f.spill) >= n:
		f.slots = f.spill[:n]
	default:
		f.spill = make([]Value, n)
		f.slots = f.spill
	}
	f.clear()
}

// clear unbinds every slot, for the next iteration of a loop.
func (f *frame) clear() {
	for i := range f.slots {
		f.slots[i] = unbound
	}
}

// child returns a new frame of n slots under f. A frame that can hold no name
// is left out: its code was compiled against the parent's slots. With reuse
// set, the frame comes from the renderer's free frames, and the caller gives
// it back (done) when the code that ran in it is over: the compiler sets
// reuse only for code that can keep no reference to its frame (keepsFrames).
func (r *renderer) child(f *frame, n int, reuse bool) *frame {
	if n == 0 {
		return f
	}
	if k := len(r.freeFrames); reuse && k > 0 {
		c := r.freeFrames[k-1]
		r.freeFrames = r.freeFrames[:k-1]
		c.init(f, n)
		return c
	}
	c := &frame{}
	c.init(f, n)
	return c
}

// done gives back a frame child made with reuse set.
func (r *renderer) done(f *frame, n int, reuse bool) {
	if n > 0 && reuse {
		r.freeFrames = append(r.freeFrames, f)
	}
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
	code  *macroCode
	scope *frame
}

func (r *renderer) write(s string) error {
	r.written += len(s)
	if r.limits.MaxOutputBytes > 0 && r.written > r.limits.MaxOutputBytes {
		return limitError("template output exceeds %d bytes", r.limits.MaxOutputBytes)
	}
	r.out = append(r.out, s...)
	r.pieces++
	return r.charge(len(s))
}

// writeValue writes str(v). An int is formatted straight into the output.
func (r *renderer) writeValue(v Value) error {
	n, ok := v.(int)
	if !ok {
		return r.write(toStr(v))
	}
	mark := len(r.out)
	r.out = strconv.AppendInt(r.out, int64(n), 10)
	return r.wrote(len(r.out) - mark)
}

// writeParts writes the operands of a string concatenation as one piece of
// output: what writing their sum would have written, without building it.
func (r *renderer) writeParts(parts []string) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	r.written += n
	if r.limits.MaxOutputBytes > 0 && r.written > r.limits.MaxOutputBytes {
		return limitError("template output exceeds %d bytes", r.limits.MaxOutputBytes)
	}
	for _, p := range parts {
		r.out = append(r.out, p...)
	}
	r.pieces++
	return nil // the concatenation paid for its parts (concatCode, sumCode)
}

// tick counts one loop iteration against the limits; cost is what running
// its body costs (see budget.go).
func (r *renderer) tick(cost int) error {
	r.iterations++
	if r.limits.MaxIterations > 0 && r.iterations > r.limits.MaxIterations {
		return limitError("template loops exceed %d iterations", r.limits.MaxIterations)
	}
	return r.charge(cost)
}

// enter counts one macro call or recursive loop against the limits; cost
// is what running its body costs.
func (r *renderer) enter(cost int) error {
	r.depth++
	if r.depth > r.maxDepth {
		return limitError("template recursion exceeds depth %d", r.maxDepth)
	}
	return r.charge(cost)
}

func (r *renderer) leave() { r.depth-- }

// capture runs body in f with its output set aside, and returns that output.
// Captured text goes on the end of the output buffer and is cut off again,
// into the text buffer (see textOf).
func (r *renderer) capture(body execFn, f *frame) (string, error) {
	mark, savedPieces, savedJoinErr := len(r.out), r.pieces, r.joinErr
	r.pieces, r.joinErr = 0, nil
	err := body(r, f)
	if err == nil && r.joinErr != nil {
		err = r.joinErr
	}
	text := r.textOf(r.out[mark:])
	r.out = r.out[:mark]
	r.pieces, r.joinErr = savedPieces, savedJoinErr
	return text, err
}

// The renderer's text buffer: room for a render's strings, grown between
// renders from minText up to maxText when a render fills it.
const (
	minText = 2 << 10
	maxText = 64 << 10
)

// joinText returns the concatenation of parts. Nothing a render makes
// outlives it but its output, which is a copy, and its error, whose message
// RenderContext copies out (see detach). So the bytes of strings built during
// a render go into one buffer of the renderer (when they fit), which the next
// render reuses from the start: building them allocates nothing. Bytes once
// in the buffer are never written again during the render.
func (r *renderer) joinText(parts []string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	switch {
	case n == 0:
		return ""
	case len(parts) == 1:
		return parts[0]
	case len(r.text)+n > cap(r.text):
		r.textShort = true
		return strings.Join(parts, "")
	}
	start := len(r.text)
	for _, p := range parts {
		r.text = append(r.text, p...)
	}
	return unsafe.String(&r.text[start], n)
}

// textOf returns b as a string, as string(b), with its bytes in the
// renderer's text buffer when they fit (see joinText).
func (r *renderer) textOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(r.text)+len(b) > cap(r.text) {
		r.textShort = true
		return string(b)
	}
	start := len(r.text)
	r.text = append(r.text, b...)
	return unsafe.String(&r.text[start], len(b))
}

// resetText readies the text buffer for the next render: the strings of the
// last one are gone with it.
func (r *renderer) resetText() {
	if r.textShort && cap(r.text) < maxText {
		r.text = make([]byte, 0, min(max(2*cap(r.text), minText), maxText))
	}
	r.text, r.textShort = r.text[:0], false
}

// inText reports whether s lies in the renderer's text buffer.
func (r *renderer) inText(s string) bool {
	if len(s) == 0 || cap(r.text) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r.text)))
	return p >= base && p < base+uintptr(cap(r.text))
}

// detach returns err with its message out of the renderer's text buffer,
// which the next render overwrites.
func (r *renderer) detach(err error) error {
	if e, ok := err.(*Error); ok && r.inText(e.Message) {
		e.Message = strings.Clone(e.Message)
	}
	return err
}

// withLine attaches a template line to an error that has none.
func withLine(err error, line int) error {
	if e, ok := err.(*Error); ok && e.Line == 0 {
		e.Line = line
	}
	return err
}

// call calls a macro or built-in callable.
func (r *renderer) call(fn Value, args []Value, kw *Dict) (Value, error) {
	switch f := fn.(type) {
	case Func:
		return r.callFunc(f, args, kw)
	case *boundMethod:
		return r.callFunc(f.fn, args, kw)
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

// callFunc calls a built-in function or method, and charges the call.
func (r *renderer) callFunc(f Func, args []Value, kw *Dict) (Value, error) {
	out, err := f(r, args, kw)
	if err != nil {
		return nil, err
	}
	return out, r.chargeCall(nil, args, out)
}

// callMacro calls a macro as Jinja2's Macro.__call__ does: its parameters
// bound in a new frame under the one it was defined in, it returns its output.
// args is not kept (it may live on the renderer's argument stack).
func (r *renderer) callMacro(m *Macro, args []Value, kw *Dict) (Value, error) {
	if err := r.enter(m.code.cost); err != nil {
		return nil, err
	}
	defer r.leave()
	f, err := r.macroFrame(m, args, kw)
	if err != nil {
		return nil, err
	}
	out, err := r.capture(m.code.body, f)
	if err != nil {
		return nil, macroError(err)
	}
	r.done(f, m.code.slots, m.code.reuse)
	return out, nil
}

// writeMacro is the call in {{ m(args) }}: callMacro, but with the macro
// writing its output in place instead of into a string; it returns the
// length of that output. It keeps what capture does for Python's join errors;
// the caller then counts the text as written (see wrote), as writing the
// string would.
func (r *renderer) writeMacro(m *Macro, args []Value) (int, error) {
	if err := r.enter(m.code.cost); err != nil {
		return 0, err
	}
	defer r.leave()
	f, err := r.macroFrame(m, args, nil)
	if err != nil {
		return 0, err
	}
	mark, savedPieces, savedJoinErr := len(r.out), r.pieces, r.joinErr
	r.pieces, r.joinErr = 0, nil
	err = m.code.body(r, f)
	if err == nil && r.joinErr != nil {
		err = r.joinErr
	}
	r.pieces, r.joinErr = savedPieces, savedJoinErr
	if err != nil {
		return 0, macroError(err)
	}
	r.done(f, m.code.slots, m.code.reuse)
	return len(r.out) - mark, nil
}

// wrote accounts for n bytes already in the output as one more write.
func (r *renderer) wrote(n int) error {
	r.written += n
	if r.limits.MaxOutputBytes > 0 && r.written > r.limits.MaxOutputBytes {
		return limitError("template output exceeds %d bytes", r.limits.MaxOutputBytes)
	}
	r.pieces++
	return r.charge(n)
}

// macroError is the error a macro call raises for an error of its body: a
// break or continue outside a loop is a syntax error there.
func macroError(err error) error {
	if c, ok := err.(*ctrl); ok {
		return syntaxError(c.line, "'%s' outside of a loop", c.kind)
	}
	return err
}

// macroFrame makes the frame of a call of m: its parameters bound to the
// arguments, keyword arguments or defaults, and varargs, kwargs and caller
// where the body uses them.
func (r *renderer) macroFrame(m *Macro, args []Value, kw *Dict) (*frame, error) {
	code := m.code
	d := code.def
	if len(args) > len(d.params) && !d.usesVarargs {
		return nil, typeError("macro %s takes not more than %d argument(s)", repr(m.name), len(d.params))
	}
	f := r.child(m.scope, code.slots, code.reuse)
	firstDefault := len(d.params) - len(d.defaults)
	for i, name := range d.params {
		slot := code.params[i]
		if i < len(args) {
			f.slots[slot] = args[i]
			continue
		}
		if kw != nil {
			if v, ok := kw.GetStr(name); ok {
				f.slots[slot] = v
				continue
			}
		}
		if i < firstDefault {
			f.slots[slot] = code.missing[i]
			continue
		}
		v, err := code.defaults[i-firstDefault](r, f)
		if err != nil {
			return nil, err
		}
		f.slots[slot] = v
	}
	if d.usesVarargs {
		var rest Tuple
		if len(args) > len(d.params) {
			rest = append(Tuple(nil), args[len(d.params):]...)
		}
		f.slots[code.varargs] = rest
	}
	var extra *Dict
	if d.usesKwargs {
		extra = NewDict(0)
	}
	if kw != nil {
		for i, k := range kw.keys {
			name, _ := k.(string)
			if code.givenByKeyword(name, len(args)) {
				continue
			}
			if name == "caller" && d.usesCaller {
				f.slots[code.caller] = kw.vals[i]
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
		f.slots[code.kwargs] = extra
	}
	if d.usesCaller && isUnbound(f.slots[code.caller]) {
		f.slots[code.caller] = noCaller
	}
	return f, nil
}

var noCaller Value = Undefined{Hint: "No caller defined"}

func isParam(d *macroDef, name string) bool {
	for _, p := range d.params {
		if p == name {
			return true
		}
	}
	return false
}

// givenByKeyword reports whether a call with nargs positional arguments bound
// parameter name from its keyword arguments.
func (code *macroCode) givenByKeyword(name string, nargs int) bool {
	for i := nargs; i < len(code.def.params); i++ {
		if code.def.params[i] == name {
			return true
		}
	}
	return false
}

// loopBlock is the loop variable and the iteration frame of a loop: they live
// and die together, one allocation for both.
type loopBlock struct {
	info LoopInfo
	fr   frame
}

// runFor runs a for loop over seq in frame f; depth counts recursive loop()
// calls.
func (r *renderer) runFor(fc *forCode, seq Value, f *frame, depth int) error {
	items, err := iterate(seq)
	if err != nil {
		return err
	}
	if fc.filter != nil {
		if items, err = r.filterItems(fc, items, f); err != nil {
			return err
		}
	}
	if len(items) == 0 {
		return r.forElse(fc, f) // the else block is a frame of its own
	}
	block := r.loopBlock(fc.reuse)
	block.info = LoopInfo{items: items, depth0: depth}
	info, iter := &block.info, &block.fr
	iter.init(f, fc.slots)
	if fc.recursive {
		info.recurse = func(seq Value) (Value, error) {
			if err := r.enter(callCost); err != nil {
				return nil, err
			}
			defer r.leave()
			return r.capture(func(r *renderer, f *frame) error { return r.runFor(fc, seq, f, depth+1) }, f)
		}
	}
	// As Jinja2 compiles it, the else block also runs when no iteration
	// reached the end of the body (each one ended in break or continue).
	completed := false
	for i, it := range items {
		if err := r.tick(fc.cost); err != nil {
			return err
		}
		info.index = i
		if i > 0 {
			iter.clear()
		}
		iter.slots[fc.loopSlot] = info
		if err := fc.target(r, iter, it); err != nil {
			return err
		}
		err := fc.body(r, iter)
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
	if fc.reuse {
		r.freeLoops = append(r.freeLoops, block)
	}
	if !completed && fc.hasElse {
		return r.forElse(fc, f)
	}
	return nil
}

// loopBlock returns a loop block, a free one when reuse is set: the
// compiler sets it for loops whose frame and loop variable nothing can keep
// (keepsFrames, cscope.loopEscapes).
func (r *renderer) loopBlock(reuse bool) *loopBlock {
	if k := len(r.freeLoops); reuse && k > 0 {
		b := r.freeLoops[k-1]
		r.freeLoops = r.freeLoops[:k-1]
		return b
	}
	return &loopBlock{}
}

func (r *renderer) forElse(fc *forCode, f *frame) error {
	g := r.child(f, fc.elseSlots, fc.elseReuse)
	if err := fc.else_(r, g); err != nil {
		return err
	}
	r.done(g, fc.elseSlots, fc.elseReuse)
	return nil
}

// filterItems keeps the items that pass a loop's "if" filter, which sees
// the loop target in a frame of its own (and no loop variable).
func (r *renderer) filterItems(fc *forCode, items []Value, f *frame) ([]Value, error) {
	kept := make([]Value, 0, len(items))
	ff := &frame{}
	ff.init(f, fc.filterSlots)
	for i, it := range items {
		if i > 0 {
			ff.clear()
		}
		if err := fc.filterTarget(r, ff, it); err != nil {
			return nil, err
		}
		ok, err := fc.filter(r, ff)
		if err != nil {
			return nil, err
		}
		if truthy(ok) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}
