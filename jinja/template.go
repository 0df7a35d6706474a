package jinja

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limits bound what an untrusted template may do in one render. A zero field
// means "no limit" for that resource.
type Limits struct {
	// MaxOutputBytes caps the rendered text, captured blocks included.
	MaxOutputBytes int
	// MaxIterations caps loop iterations summed over the whole render.
	MaxIterations int
	// MaxDepth caps nested macro calls and recursive loops. Zero (or more)
	// means the engine's own ceiling of 10000, never unlimited: a Go program
	// cannot recover from exhausting its stack.
	MaxDepth int
	// Timeout caps the wall time of one render, from its start. The clock is
	// read as the render's work adds up (see budget.go), so a render stops
	// shortly after its deadline whether it loops, recurses or builds large
	// values in straight-line code.
	Timeout time.Duration
}

// DefaultLimits are generous for any real chat template (the largest corpus
// render is about 40 KB and a few thousand iterations) and stop runaway ones
// quickly.
func DefaultLimits() Limits {
	return Limits{
		MaxOutputBytes: 16 << 20,
		MaxIterations:  1_000_000,
		MaxDepth:       200,
		Timeout:        5 * time.Second,
	}
}

// Options tune one Render call.
type Options struct {
	// Limits for this render; the zero value means DefaultLimits.
	Limits Limits
	// Now pins the clock strftime_now reads; nil means time.Now.
	Now func() time.Time
	// Context, when not nil, stops the render when it is done: the render
	// looks at it where it looks at its deadline, and returns an *Error of
	// Kind Canceled that unwraps to Context.Err().
	Context context.Context
}

// Template is a compiled template. It is immutable and safe for concurrent use.
type Template struct {
	body       execFn
	rootSlots  int // names the template assigns at the top level
	rootMacros int // macros it defines at the top level
	freeNames  int // names it looks up in the render context
}

// Compile parses a template source. Syntax errors come back as *Error with
// Kind TemplateSyntaxError (or TemplateAssertionError for an unknown filter or
// test), as Jinja2 raises them when transformers compiles the template.
func Compile(source string) (*Template, error) {
	toks, err := tokenize(source)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	body, err := p.parseTemplate()
	if err != nil {
		return nil, err
	}
	if err := checkDepth(body); err != nil {
		return nil, err
	}
	if err := checkNames(body, false); err != nil {
		return nil, err
	}
	return compileTemplate(body), nil
}

// Context supplies the variables of one render by name: Lookup reports a
// name's value, or false when the context has no such name (the globals are
// consulted next, then the name is undefined). It is called at most once per
// name and render, from the rendering goroutine, and must give the same answer
// for the whole render.
type Context interface {
	Lookup(name string) (Value, bool)
}

// Vars is a Context held in a map.
type Vars map[string]Value

// Lookup returns vars[name].
func (vars Vars) Lookup(name string) (Value, bool) {
	v, ok := vars[name]
	return v, ok
}

// Render renders the template with vars as its context. It is what
// ImmutableSandboxedEnvironment.from_string(source).render(**vars) returns, or
// the *Error that call raises.
func (t *Template) Render(vars map[string]Value, opts *Options) (string, error) {
	return t.RenderContext(Vars(vars), opts)
}

// RenderContext is Render with the variables supplied by ctx, for callers that
// hold them in a form of their own and would otherwise build a map per render.
func (t *Template) RenderContext(ctx Context, opts *Options) (_ string, err error) {
	r := rendererPool.Get().(*renderer)
	defer func() {
		// A panic here is a bug in the engine, not in the template; it must not
		// take a server down with it. The renderer is dropped, not reused.
		if p := recover(); p != nil {
			if rl, ok := p.(reprLimit); ok {
				err = rl.err // a value too large or deep for repr: the template's doing
				return
			}
			err = &Error{Kind: "InternalError", Message: fmt.Sprint("jinja: ", p)}
			return
		}
		r.release()
	}()
	r.reset(ctx, opts, t)
	if r.stop != nil {
		err = r.checkpoint() // a render asked for after its request ended
	}
	if err == nil {
		err = t.body(r, &r.root)
	}
	if err == nil && r.joinErr != nil {
		err = r.joinErr
	}
	if err != nil {
		if c, ok := err.(*ctrl); ok {
			return "", syntaxError(c.line, "'%s' outside of a loop", c.kind)
		}
		return "", r.detach(err)
	}
	return string(r.out), nil
}

var rendererPool = sync.Pool{New: func() any { return new(renderer) }}

// maxPooledOutput is the largest output buffer a pooled renderer keeps.
const maxPooledOutput = 1 << 20

// reset readies a pooled renderer for a render of ctx.
func (r *renderer) reset(ctx Context, opts *Options, t *Template) {
	r.limits, r.now = DefaultLimits(), time.Now
	var cctx context.Context
	if opts != nil {
		if opts.Limits != (Limits{}) {
			r.limits = opts.Limits
		}
		if opts.Now != nil {
			r.now = opts.Now
		}
		cctx = opts.Context
	}
	r.startClock(cctx)
	r.maxDepth = maxCallDepth
	if d := r.limits.MaxDepth; d > 0 && d < maxCallDepth {
		r.maxDepth = d
	}
	r.vars = ctx
	if cap(r.rootBuf) < t.rootSlots {
		r.rootBuf = make([]Value, t.rootSlots)
	}
	r.root = frame{slots: r.rootBuf[:t.rootSlots]}
	r.root.clear()
	r.render++ // makes every entry of free stale, without touching them
	if cap(r.free) < t.freeNames {
		r.free = make([]freeCache, t.freeNames)
	}
	r.free = r.free[:t.freeNames]
	if cap(r.macros) < t.rootMacros {
		r.macros = make([]Macro, t.rootMacros)
	}
	r.macros = r.macros[:t.rootMacros]
	r.out = r.out[:0]
	r.nsUsed = 0
	r.resetText()
	r.written, r.pieces, r.joinErr, r.iterations, r.depth = 0, 0, nil, 0, 0
}

// release returns r to the pool. The context and options go; values left
// in the root slots, on the argument stack and in namespace blocks stay until
// the next render overwrites them or a garbage collection empties the pool
// (clearing them here costs more than the rest of a small render).
func (r *renderer) release() {
	r.argStack = r.argStack[:0]
	r.vars, r.now, r.root.parent, r.joinErr = nil, nil, nil, nil
	r.ctx, r.stop = nil, nil
	if cap(r.out) > maxPooledOutput {
		r.out = nil
	}
	rendererPool.Put(r)
}
