package format

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// rawScan walks a tool-call section of the families whose arguments are raw
// text between tags (qwen3-coder-xml, seed-oss, glm-4.5-4.7, laguna,
// minimax-m2, minimax-m3). Its methods return errNeedMore only while the
// output has not ended and what is left could still become what they expect;
// at the end of the output (final) they decide. Any other error is final: the
// section is malformed whatever follows.
type rawScan struct {
	s     string
	i     int
	final bool
}

func (c *rawScan) rest() string { return c.s[c.i:] }
func (c *rawScan) atEnd() bool  { return c.i >= len(c.s) }

// space skips ASCII whitespace.
func (c *rawScan) space() {
	for c.i < len(c.s) && isJSONSpace(c.s[c.i]) {
		c.i++
	}
}

// peek consumes tok if the rest starts with it and reports whether it did.
// errNeedMore: the rest is a proper prefix of tok and the output goes on.
func (c *rawScan) peek(tok string) (bool, error) {
	r := c.rest()
	if strings.HasPrefix(r, tok) {
		c.i += len(tok)
		return true, nil
	}
	if !c.final && strings.HasPrefix(tok, r) {
		return false, errNeedMore
	}
	return false, nil
}

// expect consumes tok or fails, naming what was expected.
func (c *rawScan) expect(tok, what string) error { return c.expectOf(tok, what, "", "") }

// expectOf is expect with what written as the concatenation of its parts
// (built only for the error).
func (c *rawScan) expectOf(tok, what, what2, what3 string) error {
	ok, err := c.peek(tok)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("expected " + what + what2 + what3 + " (" + tok + ")" + c.found())
	}
	return nil
}

// found describes the text at the cursor for an error message: only the end
// of the output, so that the message does not depend on the chunking.
func (c *rawScan) found() string {
	if c.atEnd() && c.final {
		return ", found the end of the output"
	}
	return ""
}

// until returns the text up to tok and consumes both.
func (c *rawScan) until(tok, what string) (string, error) { return c.untilOf(tok, what, "") }

// untilOf is until with what written as the concatenation of its parts
// (built only for the error).
func (c *rawScan) untilOf(tok, what, what2 string) (string, error) {
	r := c.rest()
	j := strings.Index(r, tok)
	if j < 0 {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New(what + what2 + " is not closed by " + tok)
	}
	c.i += j + len(tok)
	return r[:j], nil
}

// upto returns the text up to tok (not consumed).
func (c *rawScan) upto(tok, what string) (string, error) {
	r := c.rest()
	j := strings.Index(r, tok)
	if j < 0 {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New(what + " is not closed by " + tok)
	}
	c.i += j
	return r[:j], nil
}

// name reads a name up to the byte end (consumed), at most maxName bytes,
// without newlines or '<'. It is trimmed; an empty name is an error.
func (c *rawScan) name(end byte, what string) (string, error) {
	r := c.rest()
	for j := 0; j < len(r); j++ {
		switch ch := r[j]; {
		case ch == end:
			c.i += j + 1
			n := strings.TrimFunc(r[:j], unicode.IsSpace)
			if n == "" {
				return "", errors.New(what + " is empty")
			}
			return n, nil
		case ch == '\n' || ch == '<' || j >= maxRawName:
			return "", errors.New(what + " does not end with " + strconv.Quote(string(end)))
		}
	}
	if !c.final {
		return "", errNeedMore
	}
	return "", errors.New(what + " does not end with " + strconv.Quote(string(end)))
}

// attr reads an attribute value after `name=`: double-quoted, single-quoted
// or bare up to '>' (not consumed for bare values).
func (c *rawScan) attr(what string) (string, error) {
	if c.atEnd() {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New(what + " is missing")
	}
	if q := c.s[c.i]; q == '"' || q == '\'' {
		c.i++
		return c.name(q, what)
	}
	v, err := c.name('>', what)
	if err == nil {
		c.i-- // leave the '>' for the caller
	}
	return v, err
}

// maxRawName bounds a function or parameter name, so that prose after an
// opener is rejected at once instead of held back to the end.
const maxRawName = 512

// finishInvokes ends a section of invoke elements once no further invoke
// follows at the cursor: the close tag takes the section to after it; the end
// of the output, or other text after at least one call, ends it after the last
// call (end); anything else is malformed.
func (c *rawScan) finishInvokes(calls []call, end int, closeTag string) (int, []call, bool, error) {
	if c.atEnd() && c.final && len(calls) > 0 {
		return len(c.s), calls, false, nil
	}
	closed, err := c.peek(closeTag)
	if err != nil {
		return sectionResult(0, nil, err)
	}
	if closed {
		return c.i, calls, false, nil
	}
	if len(calls) > 0 {
		return end, calls, false, nil
	}
	return 0, nil, false, errors.New("expected an invoke element or " + closeTag + c.found())
}

// leadingClose wraps a family's engine when the request neither forced
// reasoning open nor turned it off: an output that starts (after ASCII
// whitespace) with the reasoning close marker had nothing to reason about.
// The templates of GLM-4.7, Laguna and MiniMax-M3 render a past turn
// without reasoning as the close marker followed by the answer, so the model
// writes one when it decides not to think. The marker and the whitespace
// around it are dropped; everything else goes to the engine unchanged.
type leadingClose struct {
	inner   *engine
	close   string
	state   uint8 // 0 deciding, 1 skipping whitespace after the marker, 2 passing through
	pending string
	dropped int
}

// withLeadingClose returns e, wrapped as leadingClose when the options leave
// the reasoning state unknown.
func withLeadingClose(e *engine, close string, o Options) Parser {
	if o.ReasoningOpen || o.ReasoningDisabled {
		return e
	}
	return &leadingClose{inner: e, close: close}
}

func (l *leadingClose) Feed(chunk string) []Event {
	switch l.state {
	case 1:
		return l.skip(chunk)
	case 2:
		return l.inner.Feed(chunk)
	}
	l.pending += chunk
	trimmed := strings.TrimLeft(l.pending, " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, l.close):
		l.dropped = len(l.pending) - len(trimmed) + len(l.close)
		l.pending, l.state = "", 1
		return l.skip(trimmed[len(l.close):])
	case strings.HasPrefix(l.close, trimmed):
		return nil
	}
	p := l.pending
	l.pending, l.state = "", 2
	return l.inner.Feed(p)
}

func (l *leadingClose) skip(s string) []Event {
	t := strings.TrimLeft(s, " \t\r\n")
	l.dropped += len(s) - len(t)
	if t == "" {
		return nil
	}
	l.state = 2
	return l.inner.Feed(t)
}

func (l *leadingClose) Close() []Event {
	var out []Event
	if l.state == 0 && l.pending != "" {
		out = l.inner.Feed(l.pending)
		l.pending = ""
	}
	l.state = 2
	if out == nil {
		return l.inner.Close()
	}
	return append(out, l.inner.Close()...)
}

func (l *leadingClose) Diagnostics() []Diagnostic {
	d := l.inner.Diagnostics()
	if l.dropped == 0 || len(d) == 0 {
		return d
	}
	out := make([]Diagnostic, len(d))
	for i, x := range d {
		x.Offset += l.dropped
		out[i] = x
	}
	return out
}

func (l *leadingClose) markupLen() int { return l.inner.markupLen() + l.dropped }
