package gateway

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The events a stream sends most, one per token (a delta of content or of
// reasoning), are written without encoding/json in every front: the fixed
// parts of the event are made once per stream (or per block or item), and
// each event puts the token's text, as a JSON string, and the few numbers
// that change between them. The bytes are the ones encoding/json writes for
// the same value (TestFastTokenEventsMatchEncoder, FuzzFastDelta). The
// per-front parts are next to each front's stream.

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off.
func appendJSONString(b []byte, s string) []byte {
	var q quoter
	return q.append(b, s)
}

// quoter appends JSON strings as encoding/json writes them, with HTML
// escaping (<, >, & as \u003c…) when html is set, as json.Marshal does, or
// off, as the event streams' encoder has it: as they are when nothing in
// them needs escaping (most tokens), else through an encoder kept for the
// texts that do (a token holding a newline or a quote, common in code), so
// that a stream makes one, not one per such token.
type quoter struct {
	html bool
	buf  bytes.Buffer
	enc  *json.Encoder
}

func (q *quoter) append(b []byte, s string) []byte {
	if plainJSONString(s, q.html) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	if q.enc == nil {
		q.enc = json.NewEncoder(&q.buf)
		q.enc.SetEscapeHTML(q.html)
	}
	q.buf.Reset()
	_ = q.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(q.buf.Bytes(), []byte("\n"))...)
}

// plainJSONString reports whether s is written in JSON as it is: valid UTF-8
// with no control character, quote, backslash, or U+2028/U+2029 (which
// encoding/json escapes), nor <, > or & when html is set.
func plainJSONString(s string, html bool) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\':
			return false
		case html && (c == '<' || c == '>' || c == '&'):
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.ValidString(s) && !strings.ContainsRune(s, '\u2028') && !strings.ContainsRune(s, '\u2029')
}

// tokenWriter puts one stream's token events together in a buffer it keeps:
// start, then the parts in order, then bytes, valid until the next start.
type tokenWriter struct {
	buf   []byte
	quote quoter
}

// start begins an event with its fixed head.
func (w *tokenWriter) start(head []byte) *tokenWriter {
	w.buf = append(w.buf[:0], head...)
	return w
}

// text appends s as a JSON string.
func (w *tokenWriter) text(s string) *tokenWriter {
	w.buf = w.quote.append(w.buf, s)
	return w
}

// raw appends b as it is.
func (w *tokenWriter) raw(b []byte) *tokenWriter {
	w.buf = append(w.buf, b...)
	return w
}

// int appends n.
func (w *tokenWriter) int(n int) *tokenWriter {
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	return w
}

func (w *tokenWriter) bytes() []byte { return w.buf }

// event is the usual token event: head, the text as a JSON string, tail.
func (w *tokenWriter) event(head []byte, text string, tail []byte) []byte {
	return w.start(head).text(text).raw(tail).bytes()
}
