package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The bounds of a conversion (issue #16): a schema a client sends may be as large as its request, so the
// work a conversion does is bounded, and a schema past a bound is refused with a *LimitError, not
// converted at whatever cost. Each default is far above what real tool sets need (see docs/DECISIONS.md,
// "Grammar building: linear, bounded, cancellable"): Claude Code's 25 tools are about 64 KB of schemas,
// nested five levels deep at most, their largest enum a dozen values; 100 of BFCL's tools, 59 KB of
// schemas, make a 48 KB grammar of 322 rules.
const (
	// DefaultMaxDepth bounds how deeply schemas nest: every schema inside another (a property's, an
	// array's items, an anyOf branch, a $ref's target, an allOf's merged schema) is one level deeper.
	// A nesting of models through $ref costs two levels a model (three when the $ref is wrapped in an
	// allOf, as pydantic 1 writes a field with a description), so this admits 32 (or 21) models one
	// inside the next, twice the deepest real tool schemas; and at two JSON levels a schema level it
	// binds before the JSON reader's own bound (maxJSONDepth), so a deep schema is always refused with
	// the path where it went too deep.
	DefaultMaxDepth = 64
	// DefaultMaxEnum bounds the values of one enum: lists of countries, currencies, time zones or icon
	// names run from a few hundred to about two thousand.
	DefaultMaxEnum = 10_000
	// DefaultMaxNodes bounds the schemas one build converts, counting every object member and every
	// schema each time it is converted (allOf copies its branches' members into the merged schema, and
	// nested members are described at every place they are used): a tool set of a few hundred KB has
	// some thousands.
	DefaultMaxNodes = 100_000
	// DefaultMaxBytes bounds the grammar text one build writes, counting text each time it is built
	// (an anyOf inside another is copied into it): 16 MiB, some hundred times the grammar of 100 tools.
	DefaultMaxBytes = 16 << 20
)

// maxJSONDepth is the JSON reader's bound on nesting (arrays and objects inside one another).
const maxJSONDepth = 200

// maxWarnings bounds the warnings kept for one schema; the others are counted in a last warning.
const maxWarnings = 100

// maxRuleName bounds a rule name's base: longer ones (a tool's name or a property's of any length) are
// cut, the numeric suffix keeping them apart. The longest rule names of the 400 first BFCL tools in
// every family are 84 bytes.
const maxRuleName = 128

// maxPathSegment bounds one segment of the JSON pointers in warnings and errors: a longer member name is
// cut and ends with "…".
const maxPathSegment = 128

// The bounds' names, LimitError.Limit.
const (
	LimitDepth = "depth" // Options.MaxDepth, or the JSON reader's nesting
	LimitEnum  = "enum"  // Options.MaxEnum
	LimitNodes = "nodes" // Options.MaxNodes
	LimitBytes = "bytes" // Options.MaxBytes
)

// ErrLimit is what every *LimitError matches with errors.Is.
var ErrLimit = errors.New("grammar: schema past a bound")

// LimitError is a schema past one of the conversion's bounds: the client's request is at fault (an HTTP
// 400), and no grammar is made.
type LimitError struct {
	Limit string // LimitDepth, LimitEnum, LimitNodes or LimitBytes
	Max   int    // the bound in force
	Path  string // JSON pointer of the schema being converted when it was reached ("" when unknown)
	Msg   string // what went past it
}

func (e *LimitError) Error() string {
	where := "grammar: schema: "
	if e.Path != "" {
		where = "grammar: schema at " + e.Path + ": "
	}
	return where + e.Msg + " (bound " + e.Limit + " = " + strconv.Itoa(e.Max) + ")"
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// limited fills in the options' zero bounds with the defaults.
func (o Options) limited() Options {
	if o.MaxRepetition <= 0 {
		o.MaxRepetition = DefaultMaxRepetition
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxEnum <= 0 {
		o.MaxEnum = DefaultMaxEnum
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// limit is the *LimitError for the bound name at the current schema.
func (sg *schemaGen) limit(name string, max int, format string, args ...any) error {
	return &LimitError{Limit: name, Max: max, Path: sg.pointer(), Msg: fmt.Sprintf(format, args...)}
}

// ctxCheckEvery is how many schema nodes a build converts between two looks at its context.
const ctxCheckEvery = 256

// step counts one schema node converted: the bounds on nodes and bytes are checked here, and the context
// every ctxCheckEvery nodes.
func (sg *schemaGen) step() error {
	sg.nodes++
	if sg.nodes > sg.opts.MaxNodes {
		return sg.limit(LimitNodes, sg.opts.MaxNodes, "more than %d schemas and members to convert", sg.opts.MaxNodes)
	}
	if err := sg.overBytes(); err != nil {
		return err
	}
	if sg.nodes%ctxCheckEvery == 0 {
		return sg.stopped()
	}
	return nil
}

// stopped is the error of a build whose context is done (wrapping context.Canceled or
// context.DeadlineExceeded), nil while it goes on.
func (sg *schemaGen) stopped() error {
	if sg.ctx == nil {
		return nil
	}
	if err := sg.ctx.Err(); err != nil {
		return fmt.Errorf("grammar: building stopped: %w", err)
	}
	return nil
}

// grow counts n bytes of grammar text written.
func (sg *schemaGen) grow(n int) { sg.size += n }

// overBytes is the error for a build that has written more than MaxBytes of grammar text: looked at
// with every node (step), and where text is written after the nodes inside it are done (an anyOf's
// alternation, a schema's last rule).
func (sg *schemaGen) overBytes() error {
	if sg.size > sg.opts.MaxBytes {
		return sg.limit(LimitBytes, sg.opts.MaxBytes, "more than %d bytes of grammar", sg.opts.MaxBytes)
	}
	return nil
}

// rule sets a rule's expression, counting its bytes.
func (sg *schemaGen) rule(name, text string) {
	sg.size += len(text)
	sg.g.Rule(name, text)
}

// SetContext makes the converter stop when ctx is done: the schema being converted then fails with an
// error wrapping ctx.Err(). ctx is looked at before each schema and every few hundred schema nodes.
// Reset forgets it.
func (c *Converter) SetContext(ctx context.Context) { c.sg.ctx = ctx }

// FromJSONSchemaContext is FromJSONSchema stopping when ctx is done (an error wrapping ctx.Err()).
func FromJSONSchemaContext(ctx context.Context, schema json.RawMessage, opts Options) (*Grammar, []string, error) {
	return fromJSONSchema(ctx, schema, opts)
}

// AddSchemaContext is AddSchema stopping when ctx is done (an error wrapping ctx.Err()).
func AddSchemaContext(ctx context.Context, g *Grammar, prefix string, schema json.RawMessage, opts Options) (rule string, warnings []string, err error) {
	sg := newSchemaGen(g, opts)
	sg.ctx = ctx
	return sg.add(prefix, schema)
}
