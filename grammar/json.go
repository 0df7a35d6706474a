package grammar

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/dragoman-dev/dragoman/internal/ascii"
	"github.com/dragoman-dev/dragoman/internal/jsonesc"
)

// A small JSON reader for schemas: it keeps the order of object members (properties are generated in
// the schema's order), keeps numbers as written, and slices strings without escapes from the input.

type jkind uint8

const (
	jNull jkind = iota
	jFalse
	jTrue
	jNumber
	jString
	jArray
	jObject
)

type jvalue struct {
	kind jkind
	str  string // the decoded string, or a number's text
	keys []string
	vals []*jvalue // object member values (parallel to keys) or array elements
	// hashes has bit keyHash(k) set for each member name k: a lookup of a keyword the schema does
	// not use (most of them, at every node) ends here.
	hashes uint64
	// index places the members of an object of more than indexFrom of them, made by the first lookup:
	// the members of a large "properties" or "$defs" are each looked up, and searching them one by one
	// would make that quadratic.
	index map[string]place
}

// place is where a member name occurs among an object's keys: first and last.
type place struct{ first, last int32 }

// indexFrom is the most members an object is searched through one by one.
const indexFrom = 32

// places is the object's index, made the first time.
func (v *jvalue) places() map[string]place {
	if v.index == nil {
		v.index = make(map[string]place, len(v.keys))
		for i, k := range v.keys {
			p, ok := v.index[k]
			if !ok {
				p.first = int32(i)
			}
			p.last = int32(i)
			v.index[k] = p
		}
	}
	return v.index
}

// keyHash spreads member names over 64 bits by length and first and last byte.
func keyHash(k string) uint64 {
	if k == "" {
		return 1
	}
	return 1 << ((uint(len(k))*7 + uint(k[0]) + 3*uint(k[len(k)-1])) & 63)
}

// set appends the member key: value to an object built outside the reader.
func (v *jvalue) set(key string, val *jvalue) {
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
	v.hashes |= keyHash(key)
	if v.index != nil {
		p, ok := v.index[key]
		if !ok {
			p.first = int32(len(v.keys) - 1)
		}
		p.last = int32(len(v.keys) - 1)
		v.index[key] = p
	}
}

// get returns the value of the member key of an object (the last one if the key repeats).
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject || v.hashes&keyHash(key) == 0 {
		return nil
	}
	if len(v.keys) > indexFrom {
		if p, ok := v.places()[key]; ok {
			return v.vals[p.last]
		}
		return nil
	}
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return v.vals[i]
		}
	}
	return nil
}

// firstPlace is the index of the first member named key of an object, -1 when it has none.
func (v *jvalue) firstPlace(key string) int {
	if v == nil || v.kind != jObject || v.hashes&keyHash(key) == 0 {
		return -1
	}
	if len(v.keys) > indexFrom {
		if p, ok := v.places()[key]; ok {
			return int(p.first)
		}
		return -1
	}
	for i, k := range v.keys {
		if k == key {
			return i
		}
	}
	return -1
}

type jreader struct {
	s   string
	pos int
	// Nodes and the members' slices are carved from arenas that the reader keeps between documents
	// (readers are pooled), so reading a schema allocates almost nothing once the pool is warm. A
	// document's tree is valid until its reader is put back.
	nodes  [][]jvalue // chunks of nodes; chunk ci is in use up to ni
	ci     int
	ni     int
	keys   []string  // members gathered while an object is read, copied out once it ends
	vals   []*jvalue // members' values or array elements, likewise
	karena []string  // where objects' keys are copied
	varena []*jvalue // where objects' values and arrays' elements are copied
}

var readers = sync.Pool{New: func() any { return new(jreader) }}

// readJSON reads the JSON document s with a pooled reader; release the reader once the tree is no
// longer used (nothing of the tree may be kept then; its strings may, they point into s).
// readSchema is readJSON over a schema's bytes, read in place: the tree's
// strings share the bytes' memory, so nothing that outlives the conversion
// may keep one of them (schemaGen.keep copies those that do).
func readSchema(b []byte) (*jreader, *jvalue, error) {
	if len(b) == 0 {
		return readJSON("")
	}
	return readJSON(unsafe.String(&b[0], len(b)))
}

func readJSON(s string) (*jreader, *jvalue, error) {
	r := readers.Get().(*jreader)
	r.reset(s)
	r.ws()
	v, err := r.value(0)
	if err == nil {
		r.ws()
		if r.pos != len(r.s) {
			err = r.fail("trailing text")
		}
	}
	if err != nil {
		r.release()
		return nil, nil, err
	}
	return r, v, nil
}

func (r *jreader) release() {
	r.s = ""
	readers.Put(r)
}

func (r *jreader) reset(s string) {
	r.s, r.pos, r.ci, r.ni = s, 0, 0, 0
	r.keys, r.vals = r.keys[:0], r.vals[:0]
	r.karena, r.varena = r.karena[:0], r.varena[:0]
}

func (r *jreader) fail(what string) error {
	return errors.New("invalid JSON at byte " + strconv.Itoa(r.pos) + ": " + what)
}

func (r *jreader) alloc() *jvalue {
	for r.ci < len(r.nodes) && r.ni == len(r.nodes[r.ci]) {
		r.ci, r.ni = r.ci+1, 0
	}
	if r.ci == len(r.nodes) {
		// Size the first chunk from the document: every value but the first follows a ':', a ',' or
		// a '[' (those inside strings make it an overestimate).
		n := 256
		if r.ci == 0 {
			n = max(16, 1+strings.Count(r.s, ":")+strings.Count(r.s, ",")+strings.Count(r.s, "["))
		}
		r.nodes = append(r.nodes, make([]jvalue, n))
		r.ni = 0
	}
	v := &r.nodes[r.ci][r.ni]
	r.ni++
	*v = jvalue{}
	return v
}

// copyKeys and copyVals copy a finished object's or array's members into the arenas. The arenas are
// append-only while a document is read: a full one is replaced, never moved, so earlier slices stay.
func (r *jreader) copyKeys(ks []string) []string {
	if len(r.karena)+len(ks) > cap(r.karena) {
		r.karena = make([]string, 0, max(256, 2*cap(r.karena), len(ks)))
	}
	n := len(r.karena)
	r.karena = append(r.karena, ks...)
	return r.karena[n:len(r.karena):len(r.karena)]
}

func (r *jreader) copyVals(vs []*jvalue) []*jvalue {
	if len(r.varena)+len(vs) > cap(r.varena) {
		r.varena = make([]*jvalue, 0, max(256, 2*cap(r.varena), len(vs)))
	}
	n := len(r.varena)
	r.varena = append(r.varena, vs...)
	return r.varena[n:len(r.varena):len(r.varena)]
}

func (r *jreader) ws() {
	for r.pos < len(r.s) {
		switch r.s[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *jreader) value(depth int) (*jvalue, error) {
	if depth > maxJSONDepth {
		return nil, &LimitError{Limit: LimitDepth, Max: maxJSONDepth,
			Msg: "JSON nested more than " + strconv.Itoa(maxJSONDepth) + " deep at byte " + strconv.Itoa(r.pos)}
	}
	if r.pos >= len(r.s) {
		return nil, r.fail("unexpected end")
	}
	switch c := r.s[r.pos]; {
	case c == '{':
		r.pos++
		v := r.alloc()
		v.kind = jObject
		r.ws()
		if r.pos < len(r.s) && r.s[r.pos] == '}' {
			r.pos++
			return v, nil
		}
		kbase, base := len(r.keys), len(r.vals)
		for {
			r.ws()
			if r.pos >= len(r.s) || r.s[r.pos] != '"' {
				return nil, r.fail("expected a member name")
			}
			k, err := r.string()
			if err != nil {
				return nil, err
			}
			r.ws()
			if r.pos >= len(r.s) || r.s[r.pos] != ':' {
				return nil, r.fail("expected :")
			}
			r.pos++
			r.ws()
			e, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			r.keys = append(r.keys, k)
			r.vals = append(r.vals, e)
			r.ws()
			if r.pos < len(r.s) && r.s[r.pos] == ',' {
				r.pos++
				continue
			}
			if r.pos < len(r.s) && r.s[r.pos] == '}' {
				r.pos++
				v.keys = r.copyKeys(r.keys[kbase:])
				for _, k := range v.keys {
					v.hashes |= keyHash(k)
				}
				v.vals = r.copyVals(r.vals[base:])
				r.keys, r.vals = r.keys[:kbase], r.vals[:base]
				return v, nil
			}
			return nil, r.fail("expected , or }")
		}
	case c == '[':
		r.pos++
		v := r.alloc()
		v.kind = jArray
		r.ws()
		if r.pos < len(r.s) && r.s[r.pos] == ']' {
			r.pos++
			return v, nil
		}
		base := len(r.vals)
		for {
			r.ws()
			e, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			r.vals = append(r.vals, e)
			r.ws()
			if r.pos < len(r.s) && r.s[r.pos] == ',' {
				r.pos++
				continue
			}
			if r.pos < len(r.s) && r.s[r.pos] == ']' {
				r.pos++
				v.vals = r.copyVals(r.vals[base:])
				r.vals = r.vals[:base]
				return v, nil
			}
			return nil, r.fail("expected , or ]")
		}
	case c == '"':
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		v := r.alloc()
		v.kind, v.str = jString, s
		return v, nil
	case c == 't' || c == 'f' || c == 'n':
		for _, w := range [...]struct {
			text string
			kind jkind
		}{{"true", jTrue}, {"false", jFalse}, {"null", jNull}} {
			if len(r.s)-r.pos >= len(w.text) && r.s[r.pos:r.pos+len(w.text)] == w.text {
				r.pos += len(w.text)
				v := r.alloc()
				v.kind = w.kind
				return v, nil
			}
		}
		return nil, r.fail("unknown literal")
	case c == '-' || c >= '0' && c <= '9':
		start := r.pos
		if c == '-' {
			r.pos++
		}
		if r.pos < len(r.s) && r.s[r.pos] == '0' {
			r.pos++
		} else if !r.digits() {
			return nil, r.fail("bad number")
		}
		if r.pos < len(r.s) && r.s[r.pos] == '.' {
			r.pos++
			if !r.digits() {
				return nil, r.fail("bad number")
			}
		}
		if r.pos < len(r.s) && (r.s[r.pos] == 'e' || r.s[r.pos] == 'E') {
			r.pos++
			if r.pos < len(r.s) && (r.s[r.pos] == '+' || r.s[r.pos] == '-') {
				r.pos++
			}
			if !r.digits() {
				return nil, r.fail("bad number")
			}
		}
		v := r.alloc()
		v.kind, v.str = jNumber, r.s[start:r.pos]
		return v, nil
	}
	return nil, r.fail("unexpected character")
}

func (r *jreader) digits() bool {
	start := r.pos
	for r.pos < len(r.s) && r.s[r.pos] >= '0' && r.s[r.pos] <= '9' {
		r.pos++
	}
	return r.pos > start
}

// string reads a JSON string starting at its opening quote.
func (r *jreader) string() (string, error) {
	r.pos++
	start := r.pos
	// Most strings have no escape. Short ones (member names, type names) are read byte by byte; a long
	// one is searched for its closing quote, then checked.
	for i := start; i < len(r.s) && i < start+24; i++ {
		switch c := r.s[i]; {
		case c == '"':
			r.pos = i + 1
			return r.s[start:i], nil
		case c == '\\' || c < 0x20:
			return r.slowString(start)
		}
	}
	if q := strings.IndexByte(r.s[start:], '"'); q >= 0 {
		seg := r.s[start : start+q]
		if strings.IndexByte(seg, '\\') < 0 && !ascii.HasControl(seg) {
			r.pos = start + q + 1
			return seg, nil
		}
	}
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch {
		case c == '"':
			s := r.s[start:r.pos]
			r.pos++
			return s, nil
		case c == '\\':
			return r.slowString(start)
		case c < 0x20:
			return "", r.fail("control character in string")
		}
		r.pos++
	}
	return "", r.fail("unterminated string")
}

func (r *jreader) slowString(start int) (string, error) {
	b := []byte(r.s[start:r.pos])
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch {
		case c == '"':
			r.pos++
			return string(b), nil
		case c < 0x20:
			return "", r.fail("control character in string")
		case c != '\\':
			b = append(b, c)
			r.pos++
			continue
		}
		if r.pos+1 >= len(r.s) {
			break
		}
		var ok bool
		if b, r.pos, ok = jsonesc.Append(b, r.s, r.pos); !ok {
			if r.s[r.pos+1] == 'u' {
				return "", r.fail("bad \\u escape")
			}
			return "", r.fail("bad escape")
		}
	}
	return "", r.fail("unterminated string")
}

// appendJSON writes v as compact JSON: members in order, numbers as written, strings escaped as
// encoding/json escapes them with HTML escaping off (", \, \n, \r, \t, other control characters as
// \u00XX, U+2028 and U+2029 as \u2028 and \u2029, invalid UTF-8 as \ufffd).
func appendJSON(b []byte, v *jvalue) []byte {
	switch v.kind {
	case jNull:
		return append(b, "null"...)
	case jTrue:
		return append(b, "true"...)
	case jFalse:
		return append(b, "false"...)
	case jNumber:
		return append(b, v.str...)
	case jString:
		return appendJSONString(b, v.str)
	case jArray:
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, k := range v.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSON(b, v.vals[i])
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexLower[c>>4], hexLower[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexLower[r&15])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

const hexLower = "0123456789abcdef"
