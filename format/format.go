// Package format turns a model's raw output into content, reasoning and tool
// calls, one file per markup family of ../shared/FORMATS.md. Every parser
// streams: it takes the output in chunks as tokens arrive and returns events,
// and the result never depends on how the output was chunked. Nothing the
// model wrote is dropped silently: text that is not recognised markup stays in
// the content, and a diagnostic says what failed.
package format

import (
	"encoding/json"
	"sort"
	"strings"
	"unsafe"

	"github.com/dragoman-dev/dragoman/chat"
)

// EventKind says what an Event carries: chat's delta kinds, of which a
// parser makes the first six.
type EventKind = chat.DeltaKind

const (
	// Content is answer text.
	Content = chat.DeltaContent
	// Reasoning is thinking text.
	Reasoning = chat.DeltaReasoning
	// CallStart announces a tool call: its Index, ID and Name are known.
	CallStart = chat.DeltaCallStart
	// CallArgs carries a fragment of the call's arguments (JSON text).
	CallArgs = chat.DeltaCallArgs
	// CallEnd closes the call at Index; its arguments are complete.
	CallEnd = chat.DeltaCallEnd
	// CallWithdrawn takes back the call at Index, announced while its section
	// was still open (a family with live calls, stream.go), whose section
	// turned out malformed or different from what was streamed: it is not a
	// call. What the section held follows as content (with a malformed-call
	// diagnostic), or as a whole call when the section was valid after all.
	CallWithdrawn = chat.DeltaCallWithdrawn
)

// Event is one piece of parsed output: a chat.Delta of one of the kinds
// above, with Kind, Text, Index, ID and Name set (never Call or Finish).
type Event = chat.Delta

// Diagnostic reports markup that could not be parsed as intended, or a call
// that needs the user's attention (an undeclared tool): chat's, the one type
// the parsers, the gateway and the traces share.
type Diagnostic = chat.Diagnostic

// Options tell a parser what it cannot see in the output itself.
type Options struct {
	// Tools are the tools offered in the request: their schemas type the
	// values of families that write arguments as raw text, and a call to a
	// tool not among them gets an unknown-tool diagnostic.
	Tools []chat.Tool
	// ReasoningOpen says the rendered prompt ended inside the reasoning block
	// (the template forced it open), so the output starts as reasoning.
	ReasoningOpen bool
	// ReasoningDisabled says the request turned reasoning off: an output that
	// never opens reasoning keeps a stray close marker as content.
	ReasoningDisabled bool
	// NoCalls says the request offered no tools: the output is split into
	// reasoning and content only, and call markup stays content. Families
	// on the shared engine honour it; a hand-written parser may still
	// return calls, which the caller must treat as undeclared.
	NoCalls bool
	// NewID makes a call id where the markup carries none; nil uses
	// chat.NewCallID.
	NewID func() string
}

// Parser parses one output. Feed and Close return the events the input seen so
// far completes; after Close, Diagnostics holds everything that went wrong.
type Parser interface {
	// Feed takes the next chunk of output, which may split a marker or a
	// character anywhere. The returned slice belongs to the parser and is
	// valid until the next Feed; Close returns a slice of its own.
	Feed(chunk string) []Event
	// Close ends the output: held-back text is released, an open call is
	// accepted if its body is complete and otherwise kept as content.
	Close() []Event
	// Diagnostics returns what went wrong, in output order.
	Diagnostics() []Diagnostic
}

// Family is one markup family.
type Family struct {
	// ID is the canonical name of FORMATS.md.
	ID string
	// Aliases are other names the CLI accepts (peer registry names).
	Aliases []string
	// New starts a parser for one output.
	New func(Options) Parser
	// Detect reports whether a chat template renders this family's markup.
	// It sees the template source followed by the template's render of a probe
	// conversation whose assistant calls dragoman_probe({"probe_arg":
	// "probe_value"}) (probe.go), so it can match the rendered markup.
	Detect func(sourceAndProbe string) bool
	// Force, when not nil, says how to force one call of this family on a
	// runtime that constrains output only to a JSON Schema (force.go).
	Force *ForcedCall
	// Calls, when not nil, describes the family's call markup for
	// constraining it at sampling time (constrain.go), built in the family's
	// own file from its marker constants (callgrammar.go has the shared
	// pieces).
	Calls *CallSyntax
	// ThinkOpen is the marker that opens reasoning; a rendered prompt that
	// ends with it leaves reasoning open ("forced open"). Empty when the
	// family has no reasoning markup.
	ThinkOpen string
	// ResponseTemplate, when not nil, returns the family's markup as a
	// transformers response template (responsetemplate.go), built from the
	// family's own marker constants; format/response runs it, and its result
	// on the family's vectors equals the family parser's except where a test
	// lists why. `dragoman inspect --response-template` prints it.
	ResponseTemplate func() *ResponseTemplate
	// NoResponseTemplate says, in a phrase, why the spec cannot express the
	// family; a family has exactly one of the two.
	NoResponseTemplate string
}

var registry = map[string]*Family{}

// register adds a family; each family file calls it from init.
func register(f *Family) {
	for _, name := range append([]string{f.ID}, f.Aliases...) {
		if _, dup := registry[name]; dup {
			panic("format: duplicate family name " + name)
		}
		registry[name] = f
	}
}

// Lookup finds a family by canonical name or alias, in any case.
func Lookup(name string) (*Family, bool) {
	if f, ok := registry[name]; ok {
		return f, true
	}
	for key, f := range registry {
		if strings.EqualFold(key, name) {
			return f, true
		}
	}
	return nil, false
}

// Families lists the registered families by canonical id.
func Families() []*Family {
	seen := map[*Family]bool{}
	var out []*Family
	for _, f := range registry {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Result is a whole parsed output, OpenAI-shaped.
type Result struct {
	Content     string          `json:"content"`
	Reasoning   string          `json:"reasoning_content"`
	ToolCalls   []chat.ToolCall `json:"tool_calls"`
	Diagnostics []Diagnostic    `json:"diagnostics"`
}

// Run feeds chunks to p in order, closes it and assembles the result.
func Run(p Parser, chunks ...string) Result { return collect(p, true, chunks) }

// collect is Run; with end false the output is left open: the result is
// what the Feed calls released, without Close's.
func collect(p Parser, end bool, chunks []string) Result {
	var c collector
	for _, ch := range chunks {
		c.apply(p.Feed(ch))
	}
	if end {
		c.apply(p.Close())
	}
	c.setArgs() // a call still open when the output is left open
	r := c.r
	r.Content, r.Reasoning = c.content.String(), c.reasoning.String()
	r.Diagnostics = p.Diagnostics()
	if r.ToolCalls == nil {
		r.ToolCalls = []chat.ToolCall{}
	}
	if r.Diagnostics == nil {
		r.Diagnostics = []Diagnostic{}
	}
	return r
}

// collector assembles a Result from events. Calls stream one at a time:
// args joins the last one's fragments (a long call comes in many), set on
// it when it ends.
type collector struct {
	r                        Result
	content, reasoning, args joiner
	open                     bool // the last call is still being written
}

func (c *collector) apply(events []Event) {
	for _, e := range events {
		switch e.Kind {
		case Content:
			c.content.add(e.Text)
		case Reasoning:
			c.reasoning.add(e.Text)
		case CallStart:
			c.r.ToolCalls = append(c.r.ToolCalls, chat.ToolCall{ID: e.ID, Type: "function", Function: chat.FunctionCall{Name: e.Name}})
			c.args, c.open = joiner{}, true
		case CallArgs:
			c.args.add(e.Text)
		case CallEnd:
			c.setArgs()
			c.open = false
		case CallWithdrawn:
			// The withdrawn call is the last.
			c.r.ToolCalls = c.r.ToolCalls[:len(c.r.ToolCalls)-1]
			c.open = false
		}
	}
}

func (c *collector) setArgs() {
	if c.open {
		c.r.ToolCalls[len(c.r.ToolCalls)-1].Function.Arguments = c.args.String()
	}
}

// joiner concatenates text: a single piece costs no copy.
type joiner struct {
	s string
	b []byte
}

func (j *joiner) add(t string) {
	switch {
	case t == "":
	case j.b == nil && j.s == "":
		j.s = t
	default:
		if j.b == nil {
			j.b = make([]byte, 0, max(2*(len(j.s)+len(t)), 64))
			j.b = append(j.b, j.s...)
		}
		if n := len(j.b) + len(t); n > cap(j.b) {
			// Twice the size (append grows large slices by a quarter): a
			// call streamed in small fragments is copied a few times, not
			// a dozen.
			b := make([]byte, len(j.b), max(2*cap(j.b), n))
			copy(b, j.b)
			j.b = b
		}
		j.b = append(j.b, t...)
	}
}

func (j *joiner) String() string {
	if j.b == nil {
		return j.s
	}
	return unsafe.String(unsafe.SliceData(j.b), len(j.b)) // j.b is not written again
}

// appendCallEvents appends the events of one complete call to dst.
func appendCallEvents(dst []Event, index int, id, name, args string) []Event {
	return append(dst,
		Event{Kind: CallStart, Index: index, ID: id, Name: name},
		Event{Kind: CallArgs, Index: index, Text: args},
		Event{Kind: CallEnd, Index: index},
	)
}

// toolSchema returns the parameters schema of the named tool, if offered.
func toolSchema(tools []chat.Tool, name string) (json.RawMessage, bool) {
	for _, t := range tools {
		if t.Function.Name == name {
			return t.Function.Parameters, true
		}
	}
	return nil, false
}
