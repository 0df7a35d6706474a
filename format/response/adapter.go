package response

import (
	"fmt"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// NewFormatParser streams one output through t as a format.Parser, the
// interface every family parser has, so that the gateway can use a model's
// response template where it would use its family's parser. It parses in
// Dragoman's mode (nothing dropped; see Options.Reference), and its result
// equals Run's: content and reasoning as the template's text fields give
// them, the calls, the diagnostics.
//
// Text regions mapped to content or reasoning stream as they arrive, less
// the whitespace the text parser strips (held back until more text follows),
// with the "\n\n" Dragoman joins repeated matches with; a call is announced
// when its region closes, whole. What only the finished message says (text
// kept from malformed regions, values of other content parsers) comes at
// Close, after what was streamed. newID makes the ids of calls the markup
// gives none; nil uses chat.NewCallID.
func (t *Template) NewFormatParser(opts Options, newID func() string) (format.Parser, error) {
	opts.Reference = false
	p, initial, err := NewParser(t, opts)
	if err != nil {
		return nil, err
	}
	if newID == nil {
		newID = chat.NewCallID
	}
	sp := &streamParser{p: p, t: t, newID: newID, reasoning: t.reasoningField()}
	sp.content.join, sp.thought.join = t.joinOf("content"), t.joinOf(sp.reasoning)
	// The prefix's text after the start anchor is the message's as if the
	// model had written it (a prefill): its events come with the first Feed.
	sp.translate(initial)
	sp.initial = append([]format.Event(nil), sp.fevs...)
	sp.fevs = sp.fevs[:0]
	return sp, nil
}

// reasoningField is the field Result reads reasoning from: the first of
// reasoningKeys the template declares.
func (t *Template) reasoningField() string {
	for _, f := range t.fields {
		if contains(reasoningKeys, f.Name) {
			return f.Name
		}
	}
	return ""
}

type streamParser struct {
	p         *Parser
	t         *Template
	newID     func() string
	reasoning string // the field that is reasoning ("" when none)

	initial []format.Event // the prefix's events, given with the first Feed
	fevs    []format.Event
	calls   int
	// Per streamed field (content, reasoning): what was emitted, and the
	// state of the region being read.
	content, thought streamed
	diags            []format.Diagnostic
	failed           bool // the template machine failed: the rest is content
}

// streamed follows one text field: its region's leading whitespace is
// dropped and trailing whitespace held until more text follows, as pyStrip
// does; a later region's text is joined to the earlier as store joins it
// (a repeated field's join string always, else "\n\n" between two values
// that are not empty).
type streamed struct {
	emitted  strings.Builder // all text emitted for the field
	join     *string         // a repeated field's join string
	produced bool            // a region of the field has closed
	inLead   bool            // at the start of a region: whitespace is dropped
	held     string          // trailing whitespace not yet emitted
	joined   bool            // the current region's separator is written
}

// open starts a region; it returns the separator to emit at once (a join
// string, which store writes whatever the region holds).
func (s *streamed) open() string {
	s.inLead, s.held, s.joined = true, "", false
	if s.join != nil && s.produced {
		s.joined = true
		s.emitted.WriteString(*s.join)
		return *s.join
	}
	return ""
}

// chunk returns the text to emit for a region chunk.
func (s *streamed) chunk(text string) string {
	if s.inLead {
		text = strings.TrimLeftFunc(text, isPySpace)
		if text == "" {
			return ""
		}
		s.inLead = false
	}
	body := strings.TrimRightFunc(text, isPySpace)
	if body == "" {
		s.held += text
		return ""
	}
	var b strings.Builder
	if !s.joined && s.emitted.Len() > 0 {
		b.WriteString("\n\n") // a plain field matched again
	}
	s.joined = true
	b.WriteString(s.held)
	b.WriteString(body)
	s.held = text[len(body):]
	out := b.String()
	s.emitted.WriteString(out)
	return out
}

// rest is what the finished message holds beyond what was emitted.
func (s *streamed) rest(final string) (string, bool) {
	got := s.emitted.String()
	if !strings.HasPrefix(final, got) {
		return "", false
	}
	return final[len(got):], true
}

func (sp *streamParser) Feed(chunk string) []format.Event {
	sp.fevs = append(sp.fevs[:0], sp.initial...)
	sp.initial = nil
	if sp.failed {
		return append(sp.fevs, format.Event{Kind: format.Content, Text: chunk})
	}
	evs, err := sp.p.Feed(chunk)
	sp.translate(evs)
	if err != nil {
		sp.fail(err)
	}
	return sp.fevs
}

func (sp *streamParser) Close() []format.Event {
	sp.fevs = sp.initial // nil unless nothing was fed
	sp.initial = nil
	if sp.failed {
		return nil
	}
	evs, err := sp.p.Finish()
	sp.translate(evs)
	if err != nil {
		sp.fail(err)
		return sp.fevs
	}
	final := Result(sp.p.Message(), sp.p.Diagnostics(), func() string { return "" })
	sp.finishText(&sp.thought, final.Reasoning, format.Reasoning, "reasoning")
	sp.finishText(&sp.content, final.Content, format.Content, "content")
	if len(final.ToolCalls) != sp.calls {
		sp.diags = append(sp.diags, format.Diagnostic{Code: "stream-mismatch", Message: fmt.Sprintf("the message holds %d calls, %d were announced while streaming", len(final.ToolCalls), sp.calls)})
	}
	sp.diags = append(final.Diagnostics, sp.diags...)
	return sp.fevs
}

// finishText emits what the finished message holds beyond what streamed.
func (sp *streamParser) finishText(s *streamed, final string, kind format.EventKind, name string) {
	rest, ok := s.rest(final)
	if !ok {
		// Never seen on the shared templates; said rather than hidden.
		sp.diags = append(sp.diags, format.Diagnostic{Code: "stream-mismatch", Message: fmt.Sprintf("the streamed %s is not the start of the message's %s; the message's is %q", name, name, final)})
		return
	}
	if rest != "" {
		sp.fevs = append(sp.fevs, format.Event{Kind: kind, Text: rest})
	}
}

func (sp *streamParser) Diagnostics() []format.Diagnostic { return sp.diags }

// fail turns the rest of the output into content: the text the template
// machine had not decided yet, and every later chunk. (In Dragoman's mode
// the machine fails only on a broken template; said, never hidden.)
func (sp *streamParser) fail(err error) {
	sp.failed = true
	sp.diags = append(sp.diags, format.Diagnostic{Code: "malformed-call", Message: "the response template failed (" + err.Error() + "); the rest of the output is content"})
	if rest := sp.p.text[min(sp.p.pos, len(sp.p.text)):]; rest != "" {
		sp.fevs = append(sp.fevs, format.Event{Kind: format.Content, Text: rest})
	}
}

// translate turns the template machine's events into format events.
func (sp *streamParser) translate(evs []Event) {
	for _, e := range evs {
		switch {
		case e.Field == "content" && sp.t.streams(e.Field):
			sp.text(&sp.content, e, format.Content)
		case e.Field == sp.reasoning && sp.reasoning != "" && sp.t.streams(e.Field):
			sp.text(&sp.thought, e, format.Reasoning)
		case e.Field == "tool_calls" && e.Type == "region_close":
			sp.announce(e.Value)
		}
	}
}

func (sp *streamParser) text(s *streamed, e Event, kind format.EventKind) {
	switch e.Type {
	case "region_open":
		if sep := s.open(); sep != "" {
			sp.fevs = append(sp.fevs, format.Event{Kind: kind, Text: sep})
		}
	case "region_close":
		s.produced = true
	case "region_chunk":
		if t := s.chunk(e.Text); t != "" {
			sp.fevs = append(sp.fevs, format.Event{Kind: kind, Text: t})
		}
	}
}

// announce emits the calls a closed tool_calls region holds.
func (sp *streamParser) announce(v any) {
	calls, ok := v.([]any)
	if !ok {
		calls = []any{v}
	}
	for _, c := range calls {
		tc, ok := toolCall(c, sp.newID)
		if !ok {
			continue // Result reports it (unmapped-field)
		}
		i := sp.calls
		sp.calls++
		sp.fevs = append(sp.fevs,
			format.Event{Kind: format.CallStart, Index: i, ID: tc.ID, Name: tc.Function.Name},
			format.Event{Kind: format.CallArgs, Index: i, Text: tc.Function.Arguments},
			format.Event{Kind: format.CallEnd, Index: i})
	}
}

// streams reports whether a field's regions can be streamed as their text
// arrives: a text field whose value is its stripped body (no transform, the
// default strip), a string even when it repeats (a join).
func (t *Template) streams(name string) bool {
	f := t.field(name)
	return f != nil && f.parser == "text" && f.transform == nil && !f.transformEach &&
		argBool(f.args, "strip", true) && (!f.repeats || f.join != nil)
}

func (t *Template) joinOf(name string) *string {
	if f := t.field(name); f != nil && f.repeats {
		return f.join
	}
	return nil
}

func (t *Template) field(name string) *Field {
	for _, f := range t.fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}
