package format

import (
	"encoding/json"
	"errors"
	"strings"
	"unsafe"
)

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
	id, name string // id: the call's own, written in the section (Kimi), or none
	// Offsets in the engine's buf, which starts with the open section.
	start, scanned, sent int // the arguments' start, how far scanned, how far streamed
	depth                int
	inString, escaped    bool
	tagged               bool         // a tagged call (liveTags), streamed as tags
	tags                 *taggedState // its state (the engine's, reused from call to call)
	// refused: the open section's head is not one liveTags streams; it is
	// not read again until the section ends.
	refused bool
}

// liveAdvance announces the open section's call once its markup shows the
// name and the arguments, and streams the arguments that have arrived.
func (e *engine) liveAdvance() {
	l := &e.live
	if !l.on {
		id, name, at, ok := "", "", 0, false
		if e.m.liveCall != nil {
			id, name, at, ok = e.m.liveCall(e.buf)
		}
		tagged := false
		if !ok && e.m.liveTags != nil && !l.refused {
			opener := ""
			for _, o := range e.m.callOpen {
				if strings.HasPrefix(e.buf, o) {
					opener = o
					break
				}
			}
			if opener == "" {
				return
			}
			if e.tagState == nil {
				e.tagState = new(taggedState) // only engines that meet a tagged call pay for it
			}
			c := &e.tagState.scan
			*c = rawScan{s: e.buf, i: len(opener)}
			var err error
			if name, err = e.m.liveTags.head(c); err != nil {
				l.refused = !errors.Is(err, errNeedMore)
				return
			}
			ok, tagged, at = true, true, c.i
		}
		if !ok {
			return
		}
		*l = liveCall{on: true, index: e.calls, id: id, name: name, start: at, scanned: at, sent: at, tagged: tagged}
		if tagged {
			*e.tagState = taggedState{at: at}
			l.tags = e.tagState
			l.tags.segs = l.tags.segBuf[:0]
		}
		if id == "" {
			id = e.newID()
		}
		e.out = append(e.out, Event{Kind: CallStart, Index: l.index, ID: id, Name: name})
	}
	if l.done {
		return
	}
	if l.tagged {
		e.liveTagsAdvance(false)
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
	l := &e.live
	if !l.on {
		l.refused = false // the section has ended
		return calls
	}
	if l.tagged && !l.done && e.closed {
		e.liveTagsAdvance(true) // the end of the output may end the call
	}
	same := len(calls) > 0 && calls[0].name == l.name && calls[0].id == l.id && l.done
	if same && l.tagged {
		same = l.tags.matches(calls[0].args, e.buf)
	} else if same {
		same = calls[0].args == e.buf[l.start:l.sent]
	}
	index, name := l.index, l.name
	e.live = liveCall{} // l's segs point into it: read them first
	if !same {
		e.out = append(e.out, Event{Kind: CallWithdrawn, Index: index})
		e.calls++
		return calls
	}
	if _, ok := toolSchema(e.opts.Tools, name); !ok && len(e.opts.Tools) > 0 {
		e.diag("unknown-tool", "the model called "+quote(name)+", which the request did not offer", offset)
	}
	e.out = append(e.out, Event{Kind: CallEnd, Index: index})
	e.calls++
	return calls[1:]
}

// withdrawLive takes back the announced call of a section that turned out
// not to be one.
func (e *engine) withdrawLive() {
	if e.live.on {
		e.out = append(e.out, Event{Kind: CallWithdrawn, Index: e.live.index})
		e.calls++
	}
	e.live = liveCall{}
}

// liveNameArguments is liveCall for sections whose body is the JSON object
// {"name": "NAME", "arguments": {...}} after the opener, members in that
// order (what the templates render and models write). A name with an escape
// is not announced: the parse decodes it.
func liveNameArguments(opener string) func(string) (string, string, int, bool) {
	return func(section string) (string, string, int, bool) {
		if !strings.HasPrefix(section, opener) {
			return "", "", 0, false // another opener's section (a bare element, say)
		}
		c := jsonCursor{s: section, i: len(opener)}
		if !c.lit("{") || !c.lit(`"name"`) || !c.lit(":") || !c.lit(`"`) {
			return "", "", 0, false
		}
		// A name longer than maxLiveName is left to the whole parse, so that
		// looking for its end on every chunk stays bounded.
		end := strings.IndexAny(section[c.i:min(len(section), c.i+maxLiveName)], `"\`)
		if end <= 0 || section[c.i+end] != '"' {
			return "", "", 0, false
		}
		name := section[c.i : c.i+end]
		c.i += end + 1
		if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' }) ||
			!c.lit(",") || !c.lit(`"arguments"`) || !c.lit(":") || !c.lit("{") {
			return "", "", 0, false
		}
		return "", name, c.i - 1, true
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

// Live calls of tagged families: the arguments are not written as JSON but
// as one tagged element per parameter, its value raw text typed by the
// tool's schema (Decision 7), and the arguments the whole parse returns are
// the JSON object encodeArgs builds from them: `{"k": v, "k2": v2}`, keys in
// the order written. The stream writes that object in the same order,
// element by element, and sends a fragment only once it is final:
//
//   - the call is announced when its name has been read;
//   - a parameter whose value is kept as a string whatever it holds (the
//     schema says string and neither object nor array, or there is no
//     schema) sends `{"k": "` (or `, "k": "`) as soon as its key is read, then
//     its value's JSON-escaped text as it arrives, less what could still be
//     layout or the start of its close tag, and `"` at the close tag;
//   - any other parameter is sent whole, `{"k": v` typed and encoded as the
//     parse does, at its close tag, since its type depends on all of it;
//   - `}` (or `{}`) at the end of the call's element.
//
// Escaping a string piece by piece gives the escaping of the whole (JSON
// escapes one character at a time, and no piece splits a character), so the
// fragments join to what encodeArgs writes, as long as the parse reads the
// call as the stream did. When it does not (a key given twice, text the
// stream stopped at, a section cut short), the call is withdrawn as for JSON
// bodies (confirmLive compares the fragments with the parse's arguments).
type liveTags struct {
	// head reads the call's opening from the section's start (c.i is after
	// the opener): its name; errNeedMore while it may still come, another
	// error for a section the stream leaves to the whole parse.
	head func(c *rawScan) (name string, err error)
	// param reads the opening of a parameter at c, layout first: its key
	// and how its value is typed, with c after the tag that starts the
	// value; ok is false when no parameter opens there.
	param func(c *rawScan) (key string, mode valueMode, ok bool, err error)
	// end reads the end of the call's element at c, layout first.
	end        func(c *rawScan) (bool, error)
	valueClose string // ends a value
	layout     bool   // one newline at each edge of a value is layout
	// value types a raw value as the parse does (nil: typeValue).
	value func(props map[string]json.RawMessage, key, raw string) (any, error)
}

// valueMode says how a parameter's value is typed.
type valueMode uint8

const (
	bySchema   valueMode = iota // by the tool's schema (Decision 7)
	verbatim                    // a string, whatever it holds (DSML's string="true")
	jsonOrType                  // JSON when valid, else by the schema (DSML's string="false")
)

// taggedState is the stream's place in a tagged call.
type taggedState struct {
	at       int // where the next element starts, in buf
	params   int // parameters sent
	inValue  bool
	key      string
	mode     valueMode
	valueAt  int  // the open value's first byte (after a layout newline)
	leadSeen bool // the value's first byte has been seen (layout newline decided)
	stream   bool // the open value is a string, streamed as it arrives
	sentRaw  int  // bytes of the open value sent
	searched int  // where looking for the value's close tag resumes
	// segs are the fragments sent, in order: fixed text, and the ranges of
	// buf sent as a string's escaped inside (a long value is one range).
	segs   []liveSeg
	segBuf [8]liveSeg // backs segs while they fit
	scan   rawScan    // the element readers' cursor (kept here: they are called through func values)
}

// maxLiveGap bounds the markup between two elements that the stream waits
// through; past it the stream stops and the parse decides.
const maxLiveGap = maxRawName + 256

// liveTagsAdvance streams what the open section's tagged call has made
// final; final is set at the end of the output.
func (e *engine) liveTagsAdvance(final bool) {
	l, t, tags := &e.live, e.live.tags, e.m.liveTags
	buf := e.buf
	for !l.done {
		if t.inValue {
			if !t.leadSeen {
				if t.valueAt >= len(buf) {
					return
				}
				if tags.layout && buf[t.valueAt] == '\n' {
					t.valueAt++
				}
				t.leadSeen, t.searched = true, t.valueAt
			}
			j := strings.Index(buf[t.searched:], tags.valueClose)
			if j < 0 {
				t.searched = max(t.valueAt, len(buf)-len(tags.valueClose)+1)
				if t.stream {
					rest := buf[t.valueAt+t.sentRaw:]
					n := safePrefix(rest, []string{tags.valueClose})
					if tags.layout && n > 0 && rest[n-1] == '\n' {
						n-- // may be the layout before the close tag
					}
					if n > 0 {
						e.liveRaw(t.valueAt+t.sentRaw, t.valueAt+t.sentRaw+n)
						t.sentRaw += n
					}
				}
				return
			}
			raw := buf[t.valueAt : t.searched+j]
			if tags.layout {
				raw = strings.TrimSuffix(raw, "\n")
			}
			if t.stream {
				e.liveRaw(t.valueAt+t.sentRaw, t.valueAt+len(raw))
				e.liveText(`"`)
			} else if !e.liveValue(t.key, raw) {
				l.done = true // the parse decides
				return
			}
			t.at, t.inValue = t.searched+j+len(tags.valueClose), false
			t.params++
			continue
		}
		c := &t.scan
		*c = rawScan{s: buf, i: t.at, final: final}
		key, mode, ok, err := tags.param(c)
		if err == nil && ok {
			t.inValue, t.key, t.mode, t.valueAt, t.leadSeen, t.sentRaw = true, key, mode, c.i, false, 0
			if types := schemaTypes(toolProperties(e.opts.Tools, l.name)[key], 0); mode == verbatim ||
				mode == bySchema && (len(types) == 0 || types["string"]) && !types["object"] && !types["array"] {
				t.stream = true
				b := append(e.appendLiveKey(make([]byte, 0, len(key)+8), key), '"')
				e.liveText(unsafe.String(unsafe.SliceData(b), len(b))) // b is not written again
			} else {
				t.stream = false
			}
			continue
		}
		if err == nil {
			*c = rawScan{s: buf, i: t.at, final: final}
			ok, err = tags.end(c)
		}
		switch {
		case errors.Is(err, errNeedMore) && len(buf)-t.at <= maxLiveGap:
			return
		case err == nil && ok:
			if t.params == 0 {
				e.liveText("{}")
			} else {
				e.liveText("}")
			}
		}
		l.done = true
	}
}

// appendLiveKey appends what comes before a parameter's value: `{"k": `
// or `, "k": `.
func (e *engine) appendLiveKey(b []byte, key string) []byte {
	if e.live.tags.params == 0 {
		b = append(b, '{')
	} else {
		b = append(b, ", "...)
	}
	b, _ = appendSpacedJSON(b, key) // a string always encodes
	return append(b, ": "...)
}

// liveValue sends a whole parameter, typed as the parse types it.
func (e *engine) liveValue(key, raw string) bool {
	props := toolProperties(e.opts.Tools, e.live.name)
	var v any
	var err error
	switch t := strings.TrimSpace(raw); {
	case e.live.tags.mode == jsonOrType && json.Valid([]byte(t)):
		v = json.RawMessage(t)
	case e.m.liveTags.value != nil:
		v, err = e.m.liveTags.value(props, key, raw)
	default:
		v, err = typeValue(raw, props[key])
	}
	if err != nil {
		return false
	}
	b, err := appendSpacedJSON(e.appendLiveKey(make([]byte, 0, len(key)+16), key), v)
	if err != nil {
		return false
	}
	e.liveText(unsafe.String(unsafe.SliceData(b), len(b))) // b is not written again
	return true
}

// liveSeg is one fragment of a tagged call's arguments: text, or (to >
// from) the range of buf whose bytes went out escaped as a string's inside.
type liveSeg struct {
	text     string
	from, to int
}

// liveText streams a fixed fragment of the tagged call's arguments.
func (e *engine) liveText(text string) {
	t := e.live.tags
	t.segs = append(t.segs, liveSeg{text: text})
	e.out = append(e.out, Event{Kind: CallArgs, Index: e.live.index, Text: text})
}

// liveRaw streams buf[from:to], a piece of a string value, escaped; pieces
// that follow each other in buf make one segment.
func (e *engine) liveRaw(from, to int) {
	t := e.live.tags
	if to <= from {
		return
	}
	if n := len(t.segs); n > 0 && t.segs[n-1].to > t.segs[n-1].from && t.segs[n-1].to == from {
		t.segs[n-1].to = to
	} else {
		t.segs = append(t.segs, liveSeg{from: from, to: to})
	}
	text := e.buf[from:to] // written as it is, mostly
	if !plainASCII(text) {
		b := appendJSONStringText(nil, text)
		text = unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	}
	e.out = append(e.out, Event{Kind: CallArgs, Index: e.live.index, Text: text})
}

// matches reports whether the fragments sent join to args; buf still holds
// the section.
func (t *taggedState) matches(args, buf string) bool {
	for _, s := range t.segs {
		text := s.text
		if s.to > s.from {
			text = buf[s.from:s.to]
			if !plainASCII(text) {
				text = string(appendJSONStringText(nil, text))
			}
		}
		if !strings.HasPrefix(args, text) {
			return false
		}
		args = args[len(text):]
	}
	return args == ""
}

// appendJSONStringText appends s as the inside of a JSON string, escaped as
// appendSpacedJSON escapes a string value.
func appendJSONStringText(b []byte, s string) []byte {
	if plainASCII(s) {
		return append(b, s...)
	}
	q, _ := appendSpacedJSON(nil, s) // a string always encodes
	return append(b, q[1:len(q)-1]...)
}
