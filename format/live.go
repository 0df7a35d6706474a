package format

import "strings"

// Live calls: a family whose markup sets liveCall announces a call (CallStart)
// as soon as its open section shows the call's name and the start of its
// arguments object, and streams the arguments (CallArgs) as their bytes
// arrive, so that a client sees a long call being written. The arguments
// stream as the model wrote them, which is what the whole section's parse
// keeps (jsonObject, nameAndArgumentsFast), so the fragments add up to the
// final arguments. Only the object's bytes are streamed, never more: the
// fragments end with its closing brace, and a character split by a chunk
// waits for its last byte.
//
// When the section ends, its parse decides: the same call (name, arguments
// streamed, no id of its own) ends with CallEnd; anything else — a section
// that is not valid after all, a body whose members decode differently —
// withdraws the call (CallWithdrawn), and the section's text follows as the
// engine treats it today: content with a malformed-call diagnostic, or the
// calls it parses to, whole. The result after a withdrawal is the result
// without live calls (Run drops the withdrawn call).

// liveCall is the state of the call announced in the open section.
type liveCall struct {
	on, done bool // announced; its arguments object has ended
	index    int
	name     string
	// Offsets in the engine's buf, which starts with the open section.
	start, scanned, sent int // the arguments' start, how far scanned, how far streamed
	depth                int
	inString, escaped    bool
}

// liveAdvance announces the open section's call once its markup shows the
// name and the arguments, and streams the arguments that have arrived.
func (e *engine) liveAdvance() {
	l := &e.live
	if !l.on {
		name, at, ok := e.m.liveCall(e.buf)
		if !ok {
			return
		}
		*l = liveCall{on: true, index: e.calls, name: name, start: at, scanned: at, sent: at}
		e.out = append(e.out, Event{Kind: CallStart, Index: l.index, ID: e.newID(), Name: name})
	}
	if l.done {
		return
	}
	end := l.scanObject(e.buf)
	if !l.done {
		end = l.sent + safePrefix(e.buf[l.sent:], nil) // no split character
	}
	if end > l.sent {
		e.out = append(e.out, Event{Kind: CallArgs, Index: l.index, Text: e.buf[l.sent:end]})
		l.sent = end
	}
}

// scanObject reads buf from where it stopped, counting brackets outside
// strings; it returns len(buf), or the end of the arguments object once it
// has ended (and sets done).
func (l *liveCall) scanObject(buf string) int {
	for i := l.scanned; i < len(buf); i++ {
		c := buf[i]
		switch {
		case l.escaped:
			l.escaped = false
		case l.inString:
			l.escaped = c == '\\'
			l.inString = c != '"'
		case c == '"':
			l.inString = true
		case c == '{' || c == '[':
			l.depth++
		case c == '}' || c == ']':
			l.depth--
			if l.depth == 0 {
				l.done, l.scanned = true, i+1
				return i + 1
			}
		}
	}
	l.scanned = len(buf)
	return len(buf)
}

// confirmLive ends the announced call when the section's first call is the
// one streamed, and withdraws it otherwise; it returns the calls still to
// emit whole. buf still holds the section.
func (e *engine) confirmLive(calls []call, offset int) []call {
	l := e.live
	if !l.on {
		return calls
	}
	e.live = liveCall{}
	if len(calls) == 0 || calls[0].name != l.name || calls[0].id != "" || !l.done || calls[0].args != e.buf[l.start:l.sent] {
		e.out = append(e.out, Event{Kind: CallWithdrawn, Index: l.index})
		e.calls++
		return calls
	}
	if _, ok := toolSchema(e.opts.Tools, l.name); !ok && len(e.opts.Tools) > 0 {
		e.diag("unknown-tool", "the model called "+quote(l.name)+", which the request did not offer", offset)
	}
	e.out = append(e.out, Event{Kind: CallEnd, Index: l.index})
	e.calls++
	return calls[1:]
}

// withdrawLive takes back the announced call of a section that turned out
// not to be one.
func (e *engine) withdrawLive() {
	if e.live.on {
		e.out = append(e.out, Event{Kind: CallWithdrawn, Index: e.live.index})
		e.calls++
		e.live = liveCall{}
	}
}

// liveNameArguments is liveCall for sections whose body is the JSON object
// {"name": "NAME", "arguments": {...}} after the opener, members in that
// order (what the templates render and models write). A name with an escape
// is not announced: the parse decodes it.
func liveNameArguments(opener string) func(string) (string, int, bool) {
	return func(section string) (string, int, bool) {
		c := jsonCursor{s: section, i: len(opener)}
		if !c.lit("{") || !c.lit(`"name"`) || !c.lit(":") || !c.lit(`"`) {
			return "", 0, false
		}
		// A name longer than maxLiveName is left to the whole parse, so that
		// looking for its end on every chunk stays bounded.
		end := strings.IndexAny(section[c.i:min(len(section), c.i+maxLiveName)], `"\`)
		if end <= 0 || section[c.i+end] != '"' {
			return "", 0, false
		}
		name := section[c.i : c.i+end]
		c.i += end + 1
		if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) ||
			!c.lit(",") || !c.lit(`"arguments"`) || !c.lit(":") || !c.lit("{") {
			return "", 0, false
		}
		return name, c.i - 1, true
	}
}

const maxLiveName = 256

// jsonCursor matches literals separated by JSON whitespace.
type jsonCursor struct {
	s string
	i int
}

// lit skips whitespace and then want, reporting whether it was there.
func (c *jsonCursor) lit(want string) bool {
	for c.i < len(c.s) && isJSONSpace(c.s[c.i]) {
		c.i++
	}
	if !strings.HasPrefix(c.s[c.i:], want) {
		return false
	}
	c.i += len(want)
	return true
}
