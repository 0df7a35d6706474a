package gateway

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The events a stream sends most, one per token (a Chat Completions delta
// of content or reasoning), written without encoding/json: the fixed part of
// the chunk is made once per stream, and each event appends the token's
// text as a JSON string between it and the fixed end. The bytes are the
// ones encoding/json writes for the same chunk (TestFastDeltaMatchesEncoder).

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off: as it is when nothing in it needs escaping (most
// tokens), else as the encoder writes it.
func appendJSONString(b []byte, s string) []byte {
	var q quoter
	return q.append(b, s)
}

// quoter is appendJSONString with the encoder kept for the texts that need
// escaping (a token holding a newline or a quote, common in code), so that
// a stream makes one, not one per such token.
type quoter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (q *quoter) append(b []byte, s string) []byte {
	if plainJSONString(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	if q.enc == nil {
		q.enc = json.NewEncoder(&q.buf)
		q.enc.SetEscapeHTML(false)
	}
	q.buf.Reset()
	_ = q.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(q.buf.Bytes(), []byte("\n"))...)
}

// plainJSONString reports whether s is written in JSON as it is: valid UTF-8
// with no control character, quote, backslash, or U+2028/U+2029 (which
// encoding/json escapes).
func plainJSONString(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.ValidString(s) && !strings.ContainsRune(s, '\u2028') && !strings.ContainsRune(s, '\u2029')
}

// deltaEvent is the fixed part of a stream's one-field delta events: the
// chunk up to the field's value, and after it.
type deltaEvent struct {
	content, reasoning []byte // "data: {…"delta":{"content":
	end                []byte // },"finish_reason":null}]}\n\n
	buf                []byte
	quote              quoter
}

// newDeltaEvent makes the fixed parts for a stream's id, creation time and
// model, in openAIChunk's field order.
func newDeltaEvent(id string, created int64, model string) *deltaEvent {
	head := []byte(`data: {"id":`)
	head = appendJSONString(head, id)
	head = append(head, `,"object":"chat.completion.chunk","created":`...)
	head = strconv.AppendInt(head, created, 10)
	head = append(head, `,"model":`...)
	head = appendJSONString(head, model)
	head = append(head, `,"choices":[{"index":0,"delta":{`...)
	return &deltaEvent{
		content:   append(append([]byte(nil), head...), `"content":`...),
		reasoning: append(append([]byte(nil), head...), `"reasoning_content":`...),
		end:       []byte("},\"finish_reason\":null}]}\n\n"),
	}
}

// event is the whole event for text in the field whose head is given; the
// slice is valid until the next call.
func (d *deltaEvent) event(head []byte, text string) []byte {
	d.buf = append(d.buf[:0], head...)
	d.buf = d.quote.append(d.buf, text)
	d.buf = append(d.buf, d.end...)
	return d.buf
}
