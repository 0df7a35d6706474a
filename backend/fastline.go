package backend

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/dragoman-dev/dragoman/internal/jsonesc"
)

// The per-token lines of a stream (a chunk whose only news is a piece of
// text or reasoning) are read by hand, without encoding/json's reflection.
// The reader takes a line only when it understands all of it: every key one
// it knows, spelt exactly, each once, each value of the type it expects;
// anything else (tool calls, usage, timings, errors, a finish reason, an
// unknown or repeated key, an escaped key, a number where a string was
// expected, a syntax error) makes it answer nil, and the line goes through
// json.Unmarshal as before. What it returns is what json.Unmarshal would have
// filled in (TestFastLinesMatchUnmarshal, FuzzFastLines).
//
// Keys it takes but ignores are ones the structs have no field for, even
// case-folded (encoding/json matches names without regard to case), so that
// Unmarshal ignores them too.

// lineScan reads one JSON line.
type lineScan struct {
	b []byte
	i int
	// buf holds a string being unescaped; kept between lines.
	buf []byte
	// arena holds the bytes of the strings str returned (intern).
	arena []byte
}

// The strings of a stream's tokens are a few bytes each, one or two a line:
// instead of an allocation each, they are cut from blocks, the first of
// arenaFirst bytes, each next twice the last up to arenaMost. A block is only
// ever appended to, never written over or reused, so a string made from it
// stays as it was for as long as anything holds it (and keeps its block
// alive); a string longer than arenaLarge gets its own.
const (
	arenaFirst = 256
	arenaMost  = 4 << 10
	arenaLarge = 256
)

// intern returns b's bytes as a string (see above).
func (p *lineScan) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaLarge {
		return string(b)
	}
	if cap(p.arena)-len(p.arena) < len(b) {
		p.arena = make([]byte, 0, min(max(2*cap(p.arena), arenaFirst), arenaMost))
	}
	at := len(p.arena)
	p.arena = append(p.arena, b...)
	return unsafe.String(&p.arena[at], len(b))
}

func (p *lineScan) reset(b []byte) { p.b, p.i = b, 0 }

// ws skips JSON's whitespace (only these four).
func (p *lineScan) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, 0 at the end.
func (p *lineScan) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// eat consumes c after whitespace.
func (p *lineScan) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// word consumes a literal: null, false.
func (p *lineScan) word(w string) bool {
	p.ws()
	if len(p.b)-p.i < len(w) || string(p.b[p.i:p.i+len(w)]) != w {
		return false
	}
	p.i += len(w)
	return true
}

// end reports whether only whitespace is left.
func (p *lineScan) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// object reads an object's members, handing each key to member (positioned
// at the value). A key with an escape, or any syntax error, ends it false.
func (p *lineScan) object(member func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		if !p.eat('"') {
			return false
		}
		start := p.i
		for p.i < len(p.b) && p.b[p.i] != '"' {
			if c := p.b[p.i]; c == '\\' || c < 0x20 {
				return false // an escaped key: not a spelling we know
			}
			p.i++
		}
		if p.i == len(p.b) {
			return false
		}
		key := p.b[start:p.i]
		p.i++
		if !p.eat(':') || !member(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// seen marks key number k read once; a second time is false.
func seen(mask *uint32, k uint) bool {
	if *mask&(1<<k) != 0 {
		return false
	}
	*mask |= 1 << k
	return true
}

// skipString checks a string that is ignored: JSON's syntax only.
func (p *lineScan) skipString() bool {
	if !p.eat('"') {
		return false
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return false
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if _, ok := jsonesc.Hex4(p.b, p.i+2); !ok {
					return false
				}
				p.i += 6
			default:
				return false
			}
		default:
			p.i++
		}
	}
	return false
}

// str reads a string as encoding/json unquotes it: escapes resolved, a
// surrogate pair joined, a lone surrogate and each byte of invalid UTF-8
// replaced by U+FFFD.
func (p *lineScan) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.intern(p.b[start:p.i])
			p.i++
			return s, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	buf := append(p.buf[:0], p.b[start:p.i]...)
	defer func() {
		if cap(buf) <= 64<<10 { // a rare long string's room is not kept
			p.buf = buf[:0]
		}
	}()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.intern(buf), true
		case c < 0x20:
			return "", false
		case c == '\\':
			var ok bool
			if buf, p.i, ok = jsonesc.Append(buf, p.b, p.i); !ok {
				return "", false
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, p.b[p.i:p.i+n]...)
			}
			p.i += n
		}
	}
	return "", false
}

// strPtr reads a string or null into a *string field: null leaves it nil,
// as Unmarshal does.
func (p *lineScan) strPtr(dst **string, store *string) bool {
	if p.peek() == 'n' {
		return p.word("null")
	}
	s, ok := p.str()
	if !ok {
		return false
	}
	*store = s
	*dst = store
	return true
}

// strOrNull reads a string or null into a string field: null leaves it as
// it was, as Unmarshal does.
func (p *lineScan) strOrNull(dst *string) bool {
	if p.peek() == 'n' {
		return p.word("null")
	}
	s, ok := p.str()
	*dst = s
	return ok
}

// digits reads -?(0|[1-9][0-9]*), and returns its span.
func (p *lineScan) digits() (neg bool, ds []byte, ok bool) {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '-' {
		neg = true
		p.i++
	}
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	ds = p.b[start:p.i]
	if len(ds) == 0 || len(ds) > 1 && ds[0] == '0' {
		return false, nil, false
	}
	return neg, ds, true
}

// number checks an ignored number: JSON's syntax only.
func (p *lineScan) number() bool {
	if _, _, ok := p.digits(); !ok {
		return false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.someDigits() {
			return false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.someDigits() {
			return false
		}
	}
	return true
}

func (p *lineScan) someDigits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// integer reads a number into an int field: only plain integers of at most
// 18 digits, which fit whatever int is; a fraction or an exponent (which
// Unmarshal refuses for an int) is false.
func (p *lineScan) integer(dst *int) bool {
	neg, ds, ok := p.digits()
	if !ok || len(ds) > 18 {
		return false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return false
	}
	n := 0
	for _, c := range ds {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*dst = n
	return true
}

// numbers checks an ignored array of numbers (llama-server's "tokens").
func (p *lineScan) numbers() bool {
	if !p.eat('[') {
		return false
	}
	if p.eat(']') {
		return true
	}
	for {
		if !p.number() {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// rawNull is what Unmarshal stores in a json.RawMessage field for null.
var rawNull = json.RawMessage("null")

// sseFast reads an sseStream's per-token chunks: chat deltas of content and
// reasoning, /v1/completions text, llama-server /completion content. The
// chunk it returns is its own, valid until the next line.
type sseFast struct {
	p      lineScan
	chunk  sseChunk
	choice [1]sseChoice
	delta  sseDelta
	// strs back the delta's *string fields.
	strs [4]string
}

// line returns the chunk Unmarshal would make of payload, or nil when it
// does not take the line.
func (f *sseFast) line(payload []byte) *sseChunk {
	f.p.reset(payload)
	f.chunk = sseChunk{}
	var keys uint32
	ok := f.p.object(func(key []byte) bool {
		p := &f.p
		switch string(key) {
		case "id":
			return seen(&keys, 0) && p.skipString()
		case "object":
			return seen(&keys, 1) && p.skipString()
		case "model":
			return seen(&keys, 2) && p.skipString()
		case "system_fingerprint":
			return seen(&keys, 3) && p.skipString()
		case "created":
			return seen(&keys, 4) && p.number()
		case "choices":
			return seen(&keys, 5) && f.choices()
		case "usage":
			return seen(&keys, 6) && p.word("null") // nil, as it was
		case "content": // llama-server /completion
			return seen(&keys, 7) && p.strOrNull(&f.chunk.Content)
		case "stop":
			return seen(&keys, 8) && p.word("false")
		case "index":
			return seen(&keys, 9) && p.number()
		case "id_slot":
			return seen(&keys, 10) && p.number()
		case "tokens":
			return seen(&keys, 11) && p.numbers()
		case "tokens_predicted":
			return seen(&keys, 12) && p.integer(&f.chunk.TokensPredicted)
		case "tokens_evaluated":
			return seen(&keys, 13) && p.integer(&f.chunk.TokensEvaluated)
		}
		return false
	})
	if !ok || !f.p.end() {
		return nil
	}
	return &f.chunk
}

// choices reads a list of exactly one choice without a finish reason.
func (f *sseFast) choices() bool {
	p := &f.p
	if !p.eat('[') {
		return false
	}
	f.choice[0] = sseChoice{}
	f.delta = sseDelta{}
	ch := &f.choice[0]
	var keys uint32
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			return seen(&keys, 0) && p.integer(&ch.Index)
		case "delta":
			if !seen(&keys, 1) {
				return false
			}
			if p.peek() == 'n' {
				return p.word("null")
			}
			ch.Delta = &f.delta
			return f.deltaObject()
		case "text":
			return seen(&keys, 2) && p.strOrNull(&ch.Text)
		case "finish_reason":
			return seen(&keys, 3) && p.word("null")
		case "logprobs":
			return seen(&keys, 4) && p.word("null")
		case "stop_reason":
			ch.StopReason = rawNull
			return seen(&keys, 5) && p.word("null")
		case "matched_stop":
			ch.MatchedStop = rawNull
			return seen(&keys, 6) && p.word("null")
		}
		return false
	})
	if !ok || !p.eat(']') {
		return false
	}
	f.chunk.Choices = f.choice[:]
	return true
}

func (f *sseFast) deltaObject() bool {
	p := &f.p
	d := &f.delta
	var keys uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			if !seen(&keys, 0) {
				return false
			}
			if p.peek() == 'n' {
				return p.word("null")
			}
			return p.skipString()
		case "content":
			return seen(&keys, 1) && p.strPtr(&d.Content, &f.strs[0])
		case "reasoning_content":
			return seen(&keys, 2) && p.strPtr(&d.ReasoningContent, &f.strs[1])
		case "reasoning":
			return seen(&keys, 3) && p.strPtr(&d.Reasoning, &f.strs[2])
		case "thinking":
			return seen(&keys, 4) && p.strPtr(&d.Thinking, &f.strs[3])
		case "tool_calls": // SGLang's null in every delta
			return seen(&keys, 5) && p.word("null")
		}
		return false
	})
}

// ollamaFast reads Ollama's per-token lines: /api/chat's message content and
// thinking, /api/generate's response and thinking, done:false. The chunk it
// returns is its own, valid until the next line.
type ollamaFast struct {
	p     lineScan
	chunk ollamaChunk
	msg   ollamaChunkMessage
}

// line returns the chunk Unmarshal would make of line, or nil when it does
// not take the line.
func (f *ollamaFast) line(line []byte) *ollamaChunk {
	p := &f.p
	p.reset(line)
	f.chunk = ollamaChunk{}
	var keys uint32
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return seen(&keys, 0) && p.skipString()
		case "created_at":
			return seen(&keys, 1) && p.skipString()
		case "response":
			return seen(&keys, 2) && p.strOrNull(&f.chunk.Response)
		case "thinking":
			return seen(&keys, 3) && p.strOrNull(&f.chunk.Thinking)
		case "done":
			return seen(&keys, 4) && p.word("false")
		case "message":
			if !seen(&keys, 5) {
				return false
			}
			if p.peek() == 'n' {
				return p.word("null")
			}
			f.msg = ollamaChunkMessage{}
			f.chunk.Message = &f.msg
			return f.message()
		}
		return false
	})
	if !ok || !p.end() {
		return nil
	}
	return &f.chunk
}

func (f *ollamaFast) message() bool {
	p := &f.p
	var keys uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return seen(&keys, 0) && p.skipString()
		case "content":
			return seen(&keys, 1) && p.strOrNull(&f.msg.Content)
		case "thinking":
			return seen(&keys, 2) && p.strOrNull(&f.msg.Thinking)
		}
		return false
	})
}
