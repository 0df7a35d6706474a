package response

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
)

// Options are what a parse needs besides the template and the output.
type Options struct {
	// Prefix is the prompt before the generation; only the text after the
	// last start anchor in it is read, as if the model had written it. ""
	// says the generation holds the whole message.
	Prefix string
	// Tools are the request's tools: string arguments of calls to them are
	// cast by their JSON Schemas.
	Tools []chat.Tool
	// Reference makes the parser behave exactly as the reference does: text
	// outside every region is dropped, a later match of a plain field
	// replaces the earlier one, and any error fails the whole parse. Without
	// it, Dragoman keeps that text in content with a diagnostic (see
	// docs/RESPONSE-TEMPLATES.md).
	Reference bool
}

// Event is one streaming event, in the reference's shape.
type Event struct {
	Type  string `json:"type"` // region_open, region_chunk, region_close
	Field string `json:"field"`
	Text  string `json:"text,omitempty"`
	Dirty bool   `json:"dirty,omitempty"`
	Value any    `json:"value,omitempty"`
}

// Diagnostic codes this package reports.
const (
	DiagUnclaimed   = "unclaimed-text"    // text outside every region (no implicit field)
	DiagOverwritten = "overwritten-value" // a plain field matched again
	DiagMalformed   = "malformed-region"  // a region's body did not parse
	DiagMissing     = "missing-field"     // an optional: false field never matched
	DiagNonFinite   = "non-finite-number" // NaN or an infinity, written as null
	DiagUnknownTool = "unknown-tool"      // a call to a tool the request did not offer
	DiagStrayMarkup = "stray-markup"      // special tokens outside every region
)

// Parser streams one output through a template.
type Parser struct {
	t     *Template
	opts  Options
	tools map[string]*toolSchema

	text      string // cut prefix + generation received so far
	genStart  int    // where the generation starts in text
	pos       int    // everything before pos is decided
	ended     bool
	cur       *Field // the explicit region we are in; nil: implicit region / null sink
	open      bool   // the current region has opened
	bodyStart int
	regStart  int      // where the current region's opener started
	groups    []string // the opener's named groups: name, value pairs in name order
	groupBuf  []string
	sinkStart int // start of null-sink text not yet kept

	msg      *Object
	produced []bool // by Field.index
	events   []Event
	diags    []format.Diagnostic
	kept     []string
	err      error
	zwPos    int
	zwFired  []*delim // zero-width delimiters committed at zwPos
	noEvents bool
	buf      []byte        // the text, appended to in place (old views stay valid)
	spare    []Event       // the last Feed's events, reused by the next
	cache    []searchCache // by delim.id

	producedBuf [8]bool
}

// searchCache remembers a delimiter's last search: a decided match (or the
// certainty of none) stays valid while the scan position has not passed it.
type searchCache struct {
	valid         bool
	textLen, from int
	ended         bool
	found         bool
	c             candidate
	pending       int
	vm            *vmState // a pattern's search, resumed when only the text grew
}

// NewParser starts a streaming parse; the events are those the prefix
// produced (the reference's initial events).
func NewParser(t *Template, opts Options) (*Parser, []Event, error) {
	p := newParser(t, opts)
	p.step()
	evs := p.take()
	p.spare = nil // the initial events stay the caller's
	return p, evs, p.err
}

func newParser(t *Template, opts Options) *Parser {
	p := new(Parser)
	p.init(t, opts)
	return p
}

// init readies p, new or as Parse leaves it (only the memory of its
// searches' cache, cleared), for a parse.
func (p *Parser) init(t *Template, opts Options) {
	p.t, p.opts, p.tools, p.zwPos = t, opts, toolSchemas(opts.Tools), -1
	if cap(p.cache) >= t.ndelims {
		p.cache = p.cache[:t.ndelims]
	} else {
		p.cache = nil
	}
	p.msg = NewObject()
	if len(t.fields) <= len(p.producedBuf) {
		p.produced = p.producedBuf[:len(t.fields)]
	} else {
		p.produced = make([]bool, len(t.fields))
	}
	for _, k := range t.defaults.Keys {
		p.msg.Set(k, t.defaults.Val(k))
	}
	if p.tools == nil && opts.Tools != nil {
		p.tools = map[string]*toolSchema{}
	}
	prefix := cutPrefix(t.anchor, opts.Prefix)
	p.genStart = len(prefix)
	p.text = prefix
	p.buf = []byte(prefix)
}

// parsers keeps the memory of Parse's parsers, which nothing else sees.
var parsers sync.Pool

// cutPrefix keeps the text after the last match of the anchor (all of it
// when the anchor does not occur).
func cutPrefix(a *delim, prefix string) string {
	if prefix == "" {
		return ""
	}
	cut := -1
	if a.rx != nil {
		for _, m := range a.rx.findAll(prefix) {
			cut = a.rx.consumedEnd(m)
		}
	} else {
		for _, l := range a.lits {
			if i := strings.LastIndex(prefix, l); i >= 0 && i+len(l) > cut {
				// the last match of any literal; at the same end the longer
				cut = max(cut, i+len(l))
			}
		}
		// Python's finditer over the alternation: the last match's end.
		if len(a.lits) > 1 {
			cut = -1
			pos := 0
			for pos < len(prefix) {
				best, bl := -1, 0
				for _, l := range a.lits {
					if i := strings.Index(prefix[pos:], l); i >= 0 && (best < 0 || i < best || (i == best && len(l) > bl)) {
						best, bl = i, len(l)
					}
				}
				if best < 0 {
					break
				}
				cut = pos + best + bl
				pos = cut
			}
		}
	}
	if cut < 0 {
		return prefix
	}
	return prefix[cut:]
}

func (p *Parser) emit(e Event) {
	if !p.noEvents {
		if cap(p.events) == 0 {
			p.events = make([]Event, 0, 8)
		}
		p.events = append(p.events, e)
	}
}

// take hands out the events since the last call; the slice is reused.
func (p *Parser) take() []Event {
	e := p.events
	p.events = p.events[:0:0]
	if cap(e) > 0 {
		p.spare = e[:0]
	}
	return e
}

// Feed takes the next chunk and returns the events it completes. The
// returned slice is valid until the next Feed or Finish.
func (p *Parser) Feed(chunk string) ([]Event, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.ended {
		return nil, errors.New("response: Feed after Finish")
	}
	if p.spare != nil {
		p.events, p.spare = p.spare, nil
	}
	if len(p.buf)+len(chunk) > cap(p.buf) {
		// grow in place of append, which starts small
		nb := make([]byte, len(p.buf), max(2*cap(p.buf), len(p.buf)+len(chunk), 512))
		copy(nb, p.buf)
		p.buf = nb
	}
	p.buf = append(p.buf, chunk...)
	p.text = unsafe.String(unsafe.SliceData(p.buf), len(p.buf))
	p.step()
	return p.take(), p.err
}

// Finish ends the output: pending delimiters are resolved, the current
// region is closed, and the message is complete. Its events reuse the last
// Feed's slice.
func (p *Parser) Finish() ([]Event, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.ended {
		return nil, nil
	}
	if p.spare != nil {
		p.events, p.spare = p.spare, nil
	}
	p.ended = true
	p.step()
	p.releaseSearches()
	if p.err == nil {
		p.appendText(len(p.text))
		p.closeRegion(len(p.text), len(p.text))
	}
	if p.err == nil {
		p.finalize()
	}
	return p.take(), p.err
}

// Message returns the parsed message (after Finish).
func (p *Parser) Message() *Object { return p.msg }

// Diagnostics returns what Dragoman kept or could not read, in output order.
func (p *Parser) Diagnostics() []format.Diagnostic { return p.diags }

// Parse reads a whole output: parse_response(text, template, prefix, tools).
// It runs the streaming machine on the whole text at once, told that no more
// will come, and builds no events.
func Parse(t *Template, text string, opts Options) (*Object, []format.Diagnostic, error) {
	p, _ := parsers.Get().(*Parser)
	if p == nil {
		p = new(Parser)
	}
	p.init(t, opts)
	p.noEvents = true
	p.text += text
	_, err := p.Finish()
	msg, diags := p.msg, p.diags
	// keep only the memory: nothing of this parse stays reachable
	clear(p.cache[:cap(p.cache)])
	clear(p.groupBuf[:cap(p.groupBuf)])
	*p = Parser{cache: p.cache, groupBuf: p.groupBuf[:0]}
	parsers.Put(p)
	if err != nil {
		return nil, diags, err
	}
	return msg, diags, nil
}

type candidate struct {
	d      *delim
	f      *Field
	isOpen bool
	start  int
	end    int   // consumed end
	full   int   // end of the match including lookahead text
	caps   []int // a pattern's match
}

// better is the spec's order: earliest, then longest, then opener, then name.
func better(a, b *candidate) bool {
	if b == nil {
		return true
	}
	if a.start != b.start {
		return a.start < b.start
	}
	if la, lb := a.end-a.start, b.end-b.start; la != lb {
		return la > lb
	}
	if a.isOpen != b.isOpen {
		return a.isOpen
	}
	return a.f.Name < b.f.Name
}

// find looks for d at or after p.pos: the leftmost match, and the earliest
// start at which more input could still give a preferred match (-1: none).
func (p *Parser) find(d *delim, avail int) (*candidate, int) {
	if len(p.cache) < p.t.ndelims {
		p.cache = make([]searchCache, p.t.ndelims)
	}
	sc := &p.cache[d.id]
	if sc.valid && sc.from <= p.pos && (!sc.found || sc.c.start >= p.pos) && (sc.pending < 0 || sc.pending >= p.pos) &&
		(sc.textLen == len(p.text) && sc.ended == p.ended || sc.pending < 0 && sc.found) {
		if sc.found {
			return &sc.c, sc.pending
		}
		return nil, sc.pending
	}
	sc.valid, sc.textLen, sc.from, sc.ended = true, len(p.text), p.pos, p.ended
	sc.found, sc.pending = p.search(d, avail, sc)
	if sc.found {
		return &sc.c, sc.pending
	}
	return nil, sc.pending
}

// releaseSearches gives the kept searches' memory back once no search is
// left to make.
func (p *Parser) releaseSearches() {
	for _, w := range p.t.allDelims {
		if w.rx != nil && w.id < len(p.cache) {
			if st := p.cache[w.id].vm; st != nil {
				w.rx.release(st)
			}
		}
	}
}

func (p *Parser) search(d *delim, avail int, sc *searchCache) (bool, int) {
	text := p.text
	c := &sc.c
	if d.rx != nil {
		var st *vmState
		if !p.ended || sc.vm != nil && sc.vm.kind != 0 {
			if sc.vm == nil {
				sc.vm = new(vmState)
			}
			st = sc.vm
		}
		r := d.rx.searchState(text, p.pos, avail, p.ended, st)
		pending := r.alive
		if !r.matched {
			return false, pending
		}
		*c = candidate{d: d, start: r.caps[0], end: d.rx.consumedEnd(r.caps), full: r.caps[1]}
		if !p.ended && c.full >= avail {
			// a pattern ending where the text ends may still grow
			pending = minAlive(pending, c.start)
		}
		c.caps = r.caps
		return true, pending
	}
	found := false
	for _, l := range d.lits {
		if i := strings.Index(text[p.pos:], l); i >= 0 && (!found || p.pos+i < c.start) {
			*c = candidate{d: d, start: p.pos + i, end: p.pos + i + len(l)}
			c.full = c.end
			found = true
		}
	}
	pending := -1
	if !p.ended {
		// the earliest start of a literal's beginning at the end of the text
		for _, l := range d.lits {
			if q := partialAt(text, max(p.pos, len(text)-len(l)+1), l); q >= 0 && (pending < 0 || q < pending) {
				pending = q
			}
		}
	}
	return found, pending
}

// partialAt is the first q >= from where text[q:] is a proper beginning of
// lit (text ends inside lit), or -1.
func partialAt(text string, from int, lit string) int {
	for q := from; q < len(text); q++ {
		k := strings.IndexByte(text[q:], lit[0])
		if k < 0 {
			return -1
		}
		q += k
		if len(text)-q < len(lit) && strings.HasPrefix(lit, text[q:]) {
			return q
		}
	}
	return -1
}

// watchItem is a delimiter the parser looks for, with its field and role.
type watchItem struct {
	d      *delim
	f      *Field
	isOpen bool
}

// watched lists the delimiters the parser looks for where it is: inside an
// explicit region only its close; outside, every opener and the implicit
// field's close.
func (p *Parser) watched() []watchItem {
	if p.cur != nil {
		return p.cur.closeWatch
	}
	return p.t.outside
}

func partialRuneTail(s string) int {
	for k := 1; k <= 3 && k <= len(s); k++ {
		b := s[len(s)-k]
		if b < 0x80 {
			return 0
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRuneInString(s[len(s)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// step commits every delimiter the text received so far decides, and
// releases the text no delimiter can still claim.
func (p *Parser) step() {
	for p.err == nil {
		avail := len(p.text)
		if !p.ended {
			avail -= partialRuneTail(p.text)
		}
		var best *candidate
		block := -1
		for _, w := range p.watched() {
			c, pending := p.find(w.d, avail)
			if c != nil && c.end == c.start && c.start == p.zwPos && p.firedHere(w.d) {
				continue // a zero-width delimiter fires once per position
			}
			if pending >= 0 {
				block = minAlive(block, pending)
			}
			if c != nil {
				c.f, c.isOpen = w.f, w.isOpen
				if better(c, best) {
					best = c
				}
			}
		}
		if best != nil && (block < 0 || block > best.start) {
			p.commit(best)
			continue
		}
		safe := avail
		if best != nil {
			safe = min(safe, best.start)
		}
		if block >= 0 {
			safe = min(safe, block)
		}
		if safe > p.pos {
			p.appendText(safe)
		}
		return
	}
}

func (p *Parser) commit(c *candidate) {
	p.appendText(c.start)
	if c.end == c.start {
		if c.start != p.zwPos {
			p.zwPos, p.zwFired = c.start, p.zwFired[:0]
		}
		p.zwFired = append(p.zwFired, c.d)
	}
	if c.isOpen {
		p.closeRegion(c.start, c.start)
		if p.err != nil {
			return
		}
		p.flushSink(c.start)
		p.cur, p.open = c.f, true
		p.bodyStart, p.regStart, p.groups = c.end, c.start, nil
		if c.d.rx != nil && len(c.d.rx.byName) > 0 {
			p.groupBuf = c.d.rx.groupsInto(p.groupBuf[:0], p.text, c.caps)
			p.groups = p.groupBuf
		}
		p.emit(Event{Type: "region_open", Field: c.f.Name})
	} else {
		p.closeRegion(c.start, c.end)
		p.cur = nil
	}
	p.pos = c.end
	p.sinkStart = p.pos
}

func (p *Parser) firedHere(d *delim) bool {
	for _, f := range p.zwFired {
		if f == d {
			return true
		}
	}
	return false
}

// appendText gives text[pos:upto] to the current region.
func (p *Parser) appendText(upto int) {
	if upto <= p.pos {
		return
	}
	s := p.text[p.pos:upto]
	f := p.cur
	if f == nil {
		f = p.t.implicit
	}
	switch {
	case f == nil:
		// the null sink: the reference drops this text
	case !p.open:
		p.open = true
		p.bodyStart, p.regStart, p.groups = p.pos, p.pos, nil
		p.emit(Event{Type: "region_open", Field: f.Name})
		fallthrough
	default:
		p.emit(Event{Type: "region_chunk", Field: f.Name, Text: s, Dirty: f.dirty})
	}
	p.pos = upto
}

// flushSink keeps null-sink text up to end (Dragoman only).
func (p *Parser) flushSink(end int) {
	if p.t.implicit != nil || p.opts.Reference || p.cur != nil {
		return
	}
	if s := pyStrip(p.text[min(p.sinkStart, end):end]); s != "" {
		if markupOnly(s) {
			p.diag(DiagStrayMarkup, fmt.Sprintf("markup %q outside every region of the template is not content", s), p.sinkStart)
		} else {
			p.keep(s, p.sinkStart, DiagUnclaimed, "text outside every region of the template (the reference drops it) is kept in content")
		}
	}
	p.sinkStart = end
}

func (p *Parser) keep(s string, at int, code, msg string) {
	p.kept = append(p.kept, s)
	p.diag(code, msg, at)
}

func (p *Parser) diag(code, msg string, at int) {
	off := at - p.genStart
	if off < 0 {
		off = 0
	}
	p.diags = append(p.diags, format.Diagnostic{Code: code, Message: msg, Offset: off})
}

// closeRegion turns the current region's body (ending at end; its closing
// delimiter ends at closeEnd) into a value.
func (p *Parser) closeRegion(end, closeEnd int) {
	f := p.cur
	if f == nil {
		f = p.t.implicit
		if f == nil {
			p.flushSink(end)
			return
		}
	}
	if !p.open {
		return
	}
	p.open = false
	body := p.text[p.bodyStart:end]
	v, err := f.value(body, p.groups, p.tools)
	if err == nil {
		err = p.store(f, v)
	}
	if err != nil {
		if p.opts.Reference {
			p.err = err
			return
		}
		raw := p.text[p.regStart:closeEnd]
		if s := pyStrip(raw); s != "" {
			p.keep(s, p.regStart, DiagMalformed, fmt.Sprintf("field %q: %v; its text is kept in content", f.Name, err))
		} else {
			p.diag(DiagMalformed, fmt.Sprintf("field %q: %v", f.Name, err), p.regStart)
		}
		return
	}
	p.emit(Event{Type: "region_close", Field: f.Name, Value: v})
}

func (p *Parser) store(f *Field, v any) error {
	if !p.opts.Reference {
		if hasNonFinite(v) {
			p.diag(DiagNonFinite, fmt.Sprintf("field %q holds NaN or an infinity, which JSON cannot carry; it is written as null", f.Name), p.regStart)
		}
		p.checkTools(v)
	}
	old, had := p.msg.Get(f.Name)
	switch {
	case f.repeats && f.join != nil:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("Field '%s': 'join' requires each match to parse to a string, got %s.", f.Name, typeName(v))
		}
		if os, isStr := old.(string); had && isStr && p.produced[f.index] {
			s = os + *f.join + s
		}
		p.msg.Set(f.Name, s)
	case f.repeats:
		l, _ := old.([]any)
		if !p.produced[f.index] {
			l = nil
		}
		p.msg.Set(f.Name, append(l, v))
	default:
		if had && p.produced[f.index] && !p.opts.Reference && !isEmpty(old) {
			os, oldStr := old.(string)
			ns, newStr := v.(string)
			switch {
			case oldStr && newStr && ns == "":
				v = os
			case oldStr && newStr:
				v = os + "\n\n" + ns
				p.diag(DiagOverwritten, fmt.Sprintf("field %q matched again; the reference keeps only the last match, Dragoman joins them", f.Name), p.regStart)
			default:
				p.keep(encodeValue(old), p.regStart, DiagOverwritten, fmt.Sprintf("field %q matched again; its earlier value is kept in content", f.Name))
			}
		}
		p.msg.Set(f.Name, v)
	}
	p.produced[f.index] = true
	return nil
}

// checkTools flags calls to tools the request did not offer.
func (p *Parser) checkTools(v any) {
	if p.opts.Tools == nil {
		return
	}
	each := []any{v}
	if l, ok := v.([]any); ok {
		each = l
	}
	for _, e := range each {
		o, _ := e.(*Object)
		if o == nil {
			continue
		}
		fn, _ := o.Val("function").(*Object)
		if fn == nil {
			continue
		}
		if name, ok := fn.Val("name").(string); ok {
			if _, known := p.tools[name]; !known {
				p.diag(DiagUnknownTool, fmt.Sprintf("call to %q, which the request did not offer", name), p.regStart)
			}
		}
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case *Object:
		return v.Len() == 0
	}
	return false
}

func (p *Parser) finalize() {
	var missing []string
	for _, f := range p.t.fields {
		if !f.optional && !p.produced[f.index] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Required response_template fields missing from parsed output: ['%s']", strings.Join(missing, "', '"))
		if p.opts.Reference {
			p.err = errors.New(msg)
			return
		}
		p.diag(DiagMissing, msg, len(p.text))
	}
	if len(p.kept) > 0 {
		kept := strings.Join(p.kept, "\n\n")
		if old, ok := p.msg.Get("content"); ok && !isEmpty(old) {
			if s, isStr := old.(string); isStr {
				p.msg.Set("content", s+"\n\n"+kept)
			} else {
				p.msg.Set("content", encodeValue(old)+"\n\n"+kept)
			}
		} else {
			p.msg.Set("content", kept)
		}
	}
	// empty values go, defaults stay (msg's arrays are its own: in place)
	m, n := p.msg, 0
	for i, k := range m.Keys {
		if _, isDefault := p.t.defaults.Get(k); !isDefault && isEmpty(m.vals[i]) {
			continue
		}
		m.Keys[n], m.vals[n] = k, m.vals[i]
		n++
	}
	if n < len(m.Keys) {
		clear(m.Keys[n:])
		clear(m.vals[n:])
		m.Keys, m.vals = m.Keys[:n], m.vals[:n]
		if m.index != nil {
			m.index = make(map[string]int, n)
			for i, k := range m.Keys {
				m.index[k] = i
			}
		}
	}
}

// markupOnly says whether null-sink text is only the framing a template
// leaves outside its regions: special tokens (<|end|>, </s>, [/INST]) and at
// most one bare word written against them (a role header such as
// <|start|>assistant). Such text is reported, not made content. A token is
// what the pattern <[^<>\s]{1,64}>|\[/?[A-Z][A-Z_]{0,31}\] matches (Go's
// \s); the scan below is that pattern's leftmost matches, without regexp.
func markupOnly(s string) bool {
	tokens, words := 0, 0
	word := ""
	gap := 0 // start of the text since the last token
	for i := 0; i < len(s); {
		j := markupTokenAt(s, i)
		if j < 0 {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		tokens++
		words, word = fields(s[gap:i], words, word)
		i, gap = j, j
	}
	if tokens == 0 {
		return false
	}
	words, word = fields(s[gap:], words, word)
	if words == 0 {
		return true
	}
	if words > 1 || len(word) > 16 {
		return false
	}
	for _, r := range word {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}

// fields adds the number of strings.Fields of s to n, and gives the last.
func fields(s string, n int, last string) (int, string) {
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				n, last, start = n+1, s[start:i], -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		n, last = n+1, s[start:]
	}
	return n, last
}

// markupTokenAt returns the end of the markup token starting at s[i], or -1.
func markupTokenAt(s string, i int) int {
	switch s[i] {
	case '<':
		k, n := i+1, 0
		for k < len(s) && n < 64 {
			r, w := utf8.DecodeRuneInString(s[k:])
			if r == '<' || r == '>' || r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' {
				break
			}
			k += w
			n++
		}
		if n > 0 && k < len(s) && s[k] == '>' {
			return k + 1
		}
	case '[':
		k := i + 1
		if k < len(s) && s[k] == '/' {
			k++
		}
		if k >= len(s) || s[k] < 'A' || s[k] > 'Z' {
			return -1
		}
		k++
		for n := 0; n < 31 && k < len(s) && (s[k] >= 'A' && s[k] <= 'Z' || s[k] == '_'); n++ {
			k++
		}
		if k < len(s) && s[k] == ']' {
			return k + 1
		}
	}
	return -1
}
