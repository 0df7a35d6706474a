package jinja

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Limits bound what an untrusted template may do in one render. A zero field
// means "no limit" for that resource.
type Limits struct {
	// MaxOutputBytes caps the rendered text, captured blocks included.
	MaxOutputBytes int
	// MaxIterations caps loop iterations summed over the whole render.
	MaxIterations int
	// MaxDepth caps nested macro calls and recursive loops.
	MaxDepth int
	// Timeout caps the wall time of one render.
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
}

// Template is a compiled template. It is immutable and safe for concurrent use.
type Template struct {
	body []stmt
	// sizeHint is the length of a recent output, to size the next one's buffer.
	sizeHint atomic.Int64
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
	if err := checkNames(body, false); err != nil {
		return nil, err
	}
	return &Template{body: body}, nil
}

// Render renders the template with vars as its context. It is what
// ImmutableSandboxedEnvironment.from_string(source).render(**vars) returns, or
// the *Error that call raises.
func (t *Template) Render(vars map[string]Value, opts *Options) (_ string, err error) {
	defer func() {
		// A panic here is a bug in the engine, not in the template; it must not
		// take a server down with it.
		if p := recover(); p != nil {
			err = &Error{Kind: "InternalError", Message: fmt.Sprint("jinja: ", p)}
		}
	}()
	r := newRenderer(vars, opts)
	var out strings.Builder
	out.Grow(int(t.sizeHint.Load()))
	r.out = &out
	err = r.execBody(t.body, r.root)
	if err == nil && r.joinErr != nil {
		err = r.joinErr
	}
	if err != nil {
		if c, ok := err.(*ctrl); ok {
			return "", syntaxError(c.line, "'%s' outside of a loop", c.kind)
		}
		return "", err
	}
	t.sizeHint.Store(int64(out.Len()))
	return out.String(), nil
}

func newRenderer(vars map[string]Value, opts *Options) *renderer {
	r := &renderer{limits: DefaultLimits(), now: time.Now}
	if opts != nil {
		if opts.Limits != (Limits{}) {
			r.limits = opts.Limits
		}
		if opts.Now != nil {
			r.now = opts.Now
		}
	}
	if r.limits.Timeout > 0 {
		r.deadline = time.Now().Add(r.limits.Timeout)
	}
	r.frame.vars = vars
	r.root = &r.frame
	return r
}
