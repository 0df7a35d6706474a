package format

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// call is one parsed tool call, before it becomes events.
type call struct {
	id, name string
	args     string // a JSON object
}

// sectionFunc parses the tool-call section at the start of buf, which begins
// with one of the family's call openers. It returns how many bytes the section
// takes and its calls. When the section is not complete yet it returns
// needMore (never when final is set: at the end of the output it decides). An
// error means the text is not a valid section: it stays content, and the error
// becomes a diagnostic.
type sectionFunc func(buf string, final bool) (n int, calls []call, needMore bool, err error)

// markup describes a family whose output is optional reasoning between two
// markers, then content in which tool-call sections appear, opened by a marker.
// Most families are this shape; a family file fills one in and calls newEngine.
type markup struct {
	thinkOpen, thinkClose string
	// callOpen are the markers that start a tool-call section.
	callOpen []string
	// callEndsThinking: a call opener inside open reasoning ends the
	// reasoning (Qwen3 emits calls before </think>).
	callEndsThinking bool
	// spacedCalls: the family's templates put whitespace (a newline) between
	// consecutive call sections, so whitespace between two sections is layout,
	// not content.
	spacedCalls bool
	section     sectionFunc
}

type engineState uint8

const (
	atStart    engineState = iota // nothing emitted yet: reasoning may open
	inThinking                    // inside reasoning
	afterThink                    // reasoning just closed: whitespace before the content is dropped
	inContent
)

// engine is the streaming parser of a markup family.
type engine struct {
	scanBuffer // the unconsumed output, its offset, markup count and diagnostics
	m          *markup
	opts       Options
	state      engineState

	closed bool

	calls        int
	afterSection bool   // a call section just ended: whitespace may be layout before another
	thinkBegun   bool   // reasoning text has been emitted (leading whitespace is dropped until then)
	thinkSpace   string // trailing whitespace of the reasoning, held until more reasoning follows
}

func newEngine(m *markup, opts Options) *engine {
	e := &engine{m: m, opts: opts}
	if opts.ReasoningOpen && m.thinkClose != "" {
		e.state = inThinking
	}
	return e
}

func (e *engine) Feed(chunk string) []Event {
	e.buf += chunk
	return e.run()
}

func (e *engine) Close() []Event {
	e.closed = true
	return e.run()
}

// run turns as much of buf into events as can be decided.
func (e *engine) run() []Event {
	var out []Event
	for {
		events, progressed := e.step()
		out = append(out, events...)
		if !progressed {
			return out
		}
	}
}

func (e *engine) step() ([]Event, bool) {
	switch e.state {
	case atStart:
		return e.stepStart()
	case inThinking:
		return e.stepThinking()
	case afterThink:
		trimmed := strings.TrimLeftFunc(e.buf, unicode.IsSpace)
		e.consume(len(e.buf) - len(trimmed))
		if (e.buf == "" || !utf8.FullRuneInString(e.buf)) && !e.closed {
			return nil, false // the next character may be more whitespace
		}
		e.state = inContent
		return nil, true
	}
	return e.stepContent()
}

// stepStart decides whether the output opens reasoning: an open marker after
// nothing but whitespace.
func (e *engine) stepStart() ([]Event, bool) {
	if e.m.thinkOpen == "" {
		e.state = inContent
		return nil, true
	}
	trimmed := strings.TrimLeftFunc(e.buf, unicode.IsSpace)
	switch {
	case trimmed != "" && !utf8.FullRuneInString(trimmed) && !e.closed:
		return nil, false // a split character: whitespace or not, it decides
	case strings.HasPrefix(trimmed, e.m.thinkOpen):
		e.consume(len(e.buf) - len(trimmed) + len(e.m.thinkOpen))
		e.state = inThinking
		return nil, true
	case strings.HasPrefix(e.m.thinkOpen, trimmed) && !e.closed:
		return nil, false // could still become the open marker
	}
	e.state = inContent
	return nil, true
}

// stepThinking emits reasoning up to the close marker (or a call opener, when
// that ends reasoning), dropping the whitespace at its edges.
func (e *engine) stepThinking() ([]Event, bool) {
	if !e.thinkBegun && e.offset == 0 && strings.HasPrefix(e.buf, e.m.thinkOpen) && e.m.thinkOpen != "" {
		// Forced open, and the model wrote the open marker anyway.
		e.consume(len(e.m.thinkOpen))
	} else if !e.thinkBegun && e.offset == 0 && strings.HasPrefix(e.m.thinkOpen, e.buf) && !e.closed && e.buf != "" {
		return nil, false
	}
	markers := []string{e.m.thinkClose}
	if e.m.callEndsThinking {
		markers = append(markers, e.m.callOpen...)
	}
	pos, marker := indexAny(e.buf, markers)
	if pos < 0 {
		n := len(e.buf)
		if !e.closed {
			n = safePrefix(e.buf, markers)
		}
		text := e.take(n)
		events := e.thinkText(text, e.closed)
		return events, n > 0
	}
	events := e.thinkText(e.take(pos), true)
	e.thinkSpace = ""
	if marker == e.m.thinkClose {
		e.consume(len(marker))
		e.state = afterThink
	} else {
		e.state = inContent // the call opener stays in buf for stepContent
	}
	return events, true
}

// thinkText emits reasoning text: leading whitespace of the reasoning and its
// trailing whitespace are dropped; whitespace at the end of what has arrived is
// held until more reasoning follows (or dropped when ending).
func (e *engine) thinkText(text string, ending bool) []Event {
	if !e.thinkBegun {
		trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
		e.markupBytes += len(text) - len(trimmed)
		text = trimmed
		if text == "" {
			return nil
		}
		e.thinkBegun = true
	}
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	space := text[len(body):]
	if body == "" {
		if ending {
			e.markupBytes += len(e.thinkSpace) + len(space)
			e.thinkSpace = ""
		} else {
			e.thinkSpace += space
		}
		return nil
	}
	out := e.thinkSpace + body
	e.thinkSpace = space
	if ending {
		e.markupBytes += len(space)
		e.thinkSpace = ""
	}
	return []Event{{Kind: Reasoning, Text: out}}
}

// stepContent emits content up to the next call opener and parses the section
// it opens.
func (e *engine) stepContent() ([]Event, bool) {
	if e.buf == "" {
		return nil, false
	}
	if e.afterSection && e.m.spacedCalls {
		// Whitespace between two call sections is layout (the templates put a
		// newline between calls); before anything else it is content.
		space := len(e.buf) - len(strings.TrimLeftFunc(e.buf, unicode.IsSpace))
		rest := e.buf[space:]
		switch {
		case (rest == "" || !utf8.FullRuneInString(rest)) && !e.closed:
			return nil, false
		case space > 0 && startsWithAny(rest, e.m.callOpen):
			e.consume(space)
			return nil, true
		case space > 0 && couldStartAny(rest, e.m.callOpen) && !e.closed:
			return nil, false
		}
		e.afterSection = false
	}
	pos, _ := indexAny(e.buf, e.m.callOpen)
	if pos < 0 {
		n := len(e.buf)
		if !e.closed {
			n = safePrefix(e.buf, e.m.callOpen)
		}
		if n == 0 {
			return nil, false
		}
		return []Event{{Kind: Content, Text: e.take(n)}}, true
	}
	if pos > 0 {
		return []Event{{Kind: Content, Text: e.take(pos)}}, true
	}
	n, calls, needMore, err := e.m.section(e.buf, e.closed)
	switch {
	case err != nil:
		// Not a section after all: the opener is text, and scanning goes on
		// after it.
		e.diag("malformed-call", err.Error(), e.offset)
		_, opener := indexAny(e.buf, e.m.callOpen)
		return []Event{{Kind: Content, Text: e.take(len(opener))}}, true
	case needMore:
		return nil, false
	}
	sectionOffset := e.offset
	e.consume(n)
	e.afterSection = true
	var events []Event
	for _, c := range calls {
		if _, ok := toolSchema(e.opts.Tools, c.name); !ok && len(e.opts.Tools) > 0 {
			e.diag("unknown-tool", "the model called "+quote(c.name)+", which the request did not offer", sectionOffset)
		}
		if c.id == "" {
			c.id = e.newID()
		}
		events = append(events, callEvents(e.calls, c.id, c.name, c.args)...)
		e.calls++
	}
	return events, true
}

func (e *engine) newID() string {
	if e.opts.NewID != nil {
		return e.opts.NewID()
	}
	return NewCallID()
}

// scanBuffer is the part of a streaming parser that every parser shares: the
// output not yet turned into events, where it starts, how much of what was
// consumed was markup (for the no-byte-lost check) and the diagnostics.
type scanBuffer struct {
	buf         string // input not yet turned into events
	offset      int    // output offset of buf[0]
	markupBytes int    // bytes recognised as markup (or layout the family drops)
	diagnostics []Diagnostic
}

// consume drops n bytes of buf that were markup (or layout the family drops).
func (b *scanBuffer) consume(n int) {
	b.buf = b.buf[n:]
	b.offset += n
	b.markupBytes += n
}

// take removes and returns n bytes of buf that become text.
func (b *scanBuffer) take(n int) string {
	s := b.buf[:n]
	b.buf = b.buf[n:]
	b.offset += n
	return s
}

func (b *scanBuffer) diag(code, msg string, offset int) {
	b.diagnostics = append(b.diagnostics, Diagnostic{Code: code, Message: msg, Offset: offset})
}

// Diagnostics returns what went wrong, in output order.
func (b *scanBuffer) Diagnostics() []Diagnostic { return b.diagnostics }

// markupLen is how many bytes of the output were recognised as markup (or
// layout the family drops); with the content and reasoning it accounts for
// every byte of the output.
func (b *scanBuffer) markupLen() int { return b.markupBytes }

// indexAny returns the earliest position of any marker in s, and the marker.
func indexAny(s string, markers []string) (int, string) {
	best, which := -1, ""
	for _, m := range markers {
		if m == "" {
			continue
		}
		if i := strings.Index(s, m); i >= 0 && (best < 0 || i < best || (i == best && len(m) > len(which))) {
			best, which = i, m
		}
	}
	return best, which
}

// safePrefix returns how much of s can be released as text now: all of it but
// a suffix that could be the start of a marker, or an incomplete UTF-8
// character.
func safePrefix(s string, markers []string) int {
	n := len(s)
	for _, m := range markers {
		for k := min(len(m)-1, len(s)); k > 0; k-- {
			if strings.HasSuffix(s, m[:k]) {
				n = min(n, len(s)-k)
				break
			}
		}
	}
	// Do not split a character between events.
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:n]) {
				n = i
			}
			break
		}
	}
	return n
}

func quote(s string) string { return "\"" + s + "\"" }

func startsWithAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// couldStartAny reports whether s is a proper prefix of one of the markers.
func couldStartAny(s string, markers []string) bool {
	for _, m := range markers {
		if len(s) < len(m) && strings.HasPrefix(m, s) {
			return true
		}
	}
	return false
}
