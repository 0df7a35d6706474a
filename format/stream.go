package format

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/dragoman-dev/dragoman/chat"
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

// errNeedMore is the scanners' one "need more input" signal: the text ends
// before the construct it scans does, and what is there could still become
// it. Scanners that know final (secScan, rawScan) return it only while the
// output goes on; sectionResult turns it into a sectionFunc's needMore, and
// a section parser that gets it at the end of the output reports the section
// incomplete.
var errNeedMore = errors.New("the section is not complete yet")

// sectionResult turns a section parse into a sectionFunc's results.
func sectionResult(n int, calls []call, err error) (int, []call, bool, error) {
	if errors.Is(err, errNeedMore) {
		return 0, nil, true, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	return n, calls, false, nil
}

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
	// callSpaceKept: whitespace next to a call stays content. By default it
	// is the call's layout (stream.go, stepContent); a family whose peers'
	// tests pin it kept says so (docs/DECISIONS.md, 2026-12-04).
	callSpaceKept bool
	// answerTrimmed: whitespace before a direct answer (an output that does
	// not open reasoning) is layout, not content (LFM2).
	answerTrimmed bool
	// contentOpen are openers read as calls in content only: they neither
	// end reasoning nor are read inside it (a call whose wrapper the model
	// skipped, qwen3-coder-xml).
	contentOpen []string
	section     sectionFunc
	// liveCall, when set, lets a call be announced before its section ends
	// (live.go): given the open section, it returns the call's name (and its
	// id, when the model writes one) and where its arguments object starts,
	// once they are there; ok is false until then, and always for a section
	// of another shape, which is parsed whole.
	liveCall func(section string) (id, name string, argsAt int, ok bool)
	// liveTags, when set, streams calls whose arguments are tagged values
	// (live.go); a section liveCall does not announce is tried with it.
	liveTags *liveTags
}

// hasLive reports whether the family announces calls before their sections end.
func (m *markup) hasLive() bool { return m.liveCall != nil || m.liveTags != nil }

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
	m          markup
	opts       Options
	state      engineState

	closed bool

	calls        int
	afterSection bool // a call section just ended: the whitespace after it is layout
	// The whitespace run at the start of buf (spaceRun): how much of it is
	// known (spaceKnown, while it waits for what follows: spaceWait), the
	// run dropped before an opener whose section is being parsed
	// (pendingSpace), a run too long to hold (spaceLong).
	spaceKnown   int
	spaceWait    bool
	pendingSpace string
	spaceLong    bool
	thinkBegun   bool   // reasoning text has been emitted (leading whitespace is dropped until then)
	thinkSpace   string // trailing whitespace of the reasoning, held until more reasoning follows

	thinkMarkers []string  // the markers that end reasoning
	markerSpace  [4]string // backs thinkMarkers where they fit
	// The byte every call opener starts with (callFirstOK), and every
	// marker that ends reasoning (thinkFirstOK): text without it holds
	// none of them, nor the start of one.
	callFirst, thinkFirst     byte
	callFirstOK, thinkFirstOK bool

	live     liveCall     // the call of the open section announced so far, if any
	tagState *taggedState // backs live.tags (live.go), made at the first tagged call

	out []Event // the events of the current Feed, reused from one Feed to the next
	// sectionScanned counts the bytes handed to the section parser, so that
	// a test can check that streaming stays linear.
	sectionScanned int
}

func newEngine(m *markup, opts Options) *engine {
	e := &engine{m: *m, opts: opts}
	if opts.NoCalls { // reasoning only: call markup is content
		e.m.callOpen, e.m.callEndsThinking = nil, false
	}
	e.thinkMarkers = append(e.markerSpace[:0], m.thinkClose)
	if e.m.callEndsThinking {
		e.thinkMarkers = append(e.thinkMarkers, e.m.callOpen...)
	}
	if len(e.m.contentOpen) > 0 && len(e.m.callOpen) > 0 {
		e.m.callOpen = append(append([]string(nil), e.m.callOpen...), e.m.contentOpen...)
	}
	e.callFirst, e.callFirstOK = sharedFirstByte(e.m.callOpen)
	e.thinkFirst, e.thinkFirstOK = sharedFirstByte(e.thinkMarkers)
	if opts.ReasoningOpen && m.thinkClose != "" {
		e.state = inThinking
	}
	return e
}

// Feed takes the next chunk. The returned slice is owned by the engine and
// valid until the next Feed; content text is, where it can be, a substring of
// chunk, so that plain text costs no allocation.
func (e *engine) Feed(chunk string) []Event {
	if e.out == nil {
		e.out = make([]Event, 0, 4)
	}
	e.out = e.out[:0]
	due := e.gate.feed(&e.buf, chunk)
	if e.gate.sectionOpen && e.m.hasLive() {
		// Announcing the call and streaming its arguments read only the
		// new bytes; the section cannot end before its arguments do.
		wasDone := e.live.done
		e.liveAdvance()
		if e.live.on && !e.live.done {
			return e.out
		}
		if e.live.on && !wasDone && !due {
			e.gate.force(len(e.buf)) // the arguments just ended: the section may have
			due = true
		}
	}
	if !due && e.spaceWait {
		// Only a whitespace run waits (spaceRun reads just the new bytes).
		e.gate.force(len(chunk))
		due = true
	}
	if !due {
		return e.out // an open section cannot have ended yet (see gate)
	}
	e.run()
	return e.out
}

// Close ends the output; its events are a slice of their own.
func (e *engine) Close() []Event {
	e.closed = true
	e.out = nil
	e.run()
	return e.out
}

// run turns as much of buf into events (appended to e.out) as can be decided.
func (e *engine) run() {
	e.gate.sectionOpen = false
	for e.step() {
	}
}

func (e *engine) emit(kind EventKind, text string) {
	e.out = append(e.out, Event{Kind: kind, Text: text})
}

// step makes one decision, appending its events to e.out; false when nothing
// more can be decided before more output arrives.
func (e *engine) step() bool {
	switch e.state {
	case atStart:
		return e.stepStart()
	case inThinking:
		return e.stepThinking()
	case afterThink:
		trimmed := strings.TrimLeftFunc(e.buf, unicode.IsSpace)
		e.consume(len(e.buf) - len(trimmed))
		if (e.buf == "" || !utf8.FullRuneInString(e.buf)) && !e.closed {
			return false // the next character may be more whitespace
		}
		e.state = inContent
		return true
	}
	return e.stepContent()
}

// stepStart decides whether the output opens reasoning: an open marker after
// nothing but whitespace.
func (e *engine) stepStart() bool {
	if e.m.thinkOpen == "" {
		e.state = inContent
		return true
	}
	trimmed := strings.TrimLeftFunc(e.buf, unicode.IsSpace)
	switch {
	case trimmed != "" && !utf8.FullRuneInString(trimmed) && !e.closed:
		return false // a split character: whitespace or not, it decides
	case strings.HasPrefix(trimmed, e.m.thinkOpen):
		e.consume(len(e.buf) - len(trimmed) + len(e.m.thinkOpen))
		e.state = inThinking
		return true
	case strings.HasPrefix(e.m.thinkOpen, trimmed) && !e.closed:
		return false // could still become the open marker
	}
	if e.m.answerTrimmed {
		e.consume(len(e.buf) - len(trimmed))
	}
	e.state = inContent
	return true
}

// stepThinking emits reasoning up to the close marker (or a call opener, when
// that ends reasoning), dropping the whitespace at its edges.
func (e *engine) stepThinking() bool {
	if !e.thinkBegun && e.offset == 0 && strings.HasPrefix(e.buf, e.m.thinkOpen) && e.m.thinkOpen != "" {
		// Forced open, and the model wrote the open marker anyway.
		e.consume(len(e.m.thinkOpen))
	} else if !e.thinkBegun && e.offset == 0 && strings.HasPrefix(e.m.thinkOpen, e.buf) && !e.closed && e.buf != "" {
		return false
	}
	markers := e.thinkMarkers
	if e.thinkFirstOK && strings.IndexByte(e.buf, e.thinkFirst) < 0 {
		markers = nil // plain text: no marker, nor the start of one
	}
	pos, marker := indexAny(e.buf, markers)
	if pos < 0 {
		n := len(e.buf)
		if !e.closed {
			n = safePrefix(e.buf, markers)
		}
		e.thinkText(e.take(n), e.closed)
		return n > 0
	}
	e.thinkText(e.take(pos), true)
	e.thinkSpace = ""
	if marker == e.m.thinkClose {
		e.consume(len(marker))
		e.state = afterThink
	} else {
		e.state = inContent // the call opener stays in buf for stepContent
	}
	return true
}

// thinkText emits reasoning text: leading whitespace of the reasoning and its
// trailing whitespace are dropped; whitespace at the end of what has arrived is
// held until more reasoning follows (or dropped when ending).
func (e *engine) thinkText(text string, ending bool) {
	if !e.thinkBegun {
		trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
		e.markupBytes += len(text) - len(trimmed)
		text = trimmed
		if text == "" {
			return
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
		return
	}
	out := body
	if e.thinkSpace != "" {
		out = e.thinkSpace + body
	}
	e.thinkSpace = space
	if ending {
		e.markupBytes += len(space)
		e.thinkSpace = ""
	}
	e.emit(Reasoning, out)
}

// stepContent emits content up to the next call opener and parses the section
// it opens. Whitespace adjoining a call is the call's layout, not content
// (docs/DECISIONS.md, 2026-12-04): the whitespace run before an opener and
// the one after a section are dropped, so content's trailing whitespace waits
// in buf until what follows it decides (spaceRun).
func (e *engine) stepContent() bool {
	if e.buf == "" {
		return false
	}
	if e.afterSection && !e.m.callSpaceKept {
		// The whitespace after a call is its layout, up to whatever follows.
		trimmed := strings.TrimLeftFunc(e.buf, unicode.IsSpace)
		e.consume(len(e.buf) - len(trimmed))
		if (e.buf == "" || !utf8.FullRuneInString(e.buf)) && !e.closed {
			return false
		}
		e.afterSection = false
		if e.buf == "" {
			return false
		}
	}
	if len(e.m.callOpen) > 0 && !e.m.callSpaceKept {
		if decided, progressed := e.spaceRun(); decided {
			return progressed
		}
	}
	if e.callFirstOK && strings.IndexByte(e.buf, e.callFirst) < 0 {
		// Plain text: no opener, nor the start of one.
		n := len(e.buf)
		if !e.closed {
			n = safePrefix(e.buf, nil)
		}
		return e.contentUpTo(n)
	}
	pos, _ := indexAny(e.buf, e.m.callOpen)
	if pos < 0 {
		n := len(e.buf)
		if !e.closed {
			n = safePrefix(e.buf, e.m.callOpen)
		}
		return e.contentUpTo(n)
	}
	if pos > 0 {
		return e.contentUpTo(pos)
	}
	e.sectionScanned += len(e.buf)
	n, calls, needMore, err := e.m.section(e.buf, e.closed)
	switch {
	case err != nil:
		// Not a section after all: the opener is text, and scanning goes on
		// after it; the whitespace before it was content.
		e.withdrawLive()
		e.diag("malformed-call", err.Error(), e.offset)
		_, opener := indexAny(e.buf, e.m.callOpen)
		e.releaseSpace()
		e.emit(Content, e.take(len(opener)))
		return true
	case needMore:
		e.gate.sectionOpen = true
		if e.m.hasLive() {
			e.liveAdvance()
		}
		return false
	}
	sectionOffset := e.offset
	made := len(calls) > 0
	calls = e.confirmLive(calls, sectionOffset)
	if !made {
		// Markup that makes no call (a wrapper, a turn end): the
		// whitespace before it stays content.
		e.releaseSpace()
	}
	e.pendingSpace = ""
	e.consume(n)
	e.afterSection = made
	e.out = e.emitCalls(e.out, calls, sectionOffset)
	return true
}

// maxSpaceRun bounds the whitespace held back before a possible call: a
// longer run is content whatever follows it (so the decision does not
// depend on the chunking, and the engine never holds more than this).
const maxSpaceRun = 4 << 10

// spaceRun decides the whitespace run that starts buf: dropped as layout
// when a call opener follows it, content when anything else (or the end of
// the output) does, or a run longer than maxSpaceRun. decided is false when
// buf does not start with whitespace (or continues a long run's text).
func (e *engine) spaceRun() (decided, progressed bool) {
	n := e.spaceKnown
	n += len(e.buf[n:]) - len(strings.TrimLeftFunc(e.buf[n:], unicode.IsSpace))
	e.spaceKnown, e.spaceWait = 0, false
	if n == 0 {
		e.spaceLong = false
		return false, false
	}
	rest := e.buf[n:]
	switch {
	case e.spaceLong || n > maxSpaceRun:
		// The run may go on in the next chunk.
		e.spaceLong = rest == "" || !utf8.FullRuneInString(rest)
	case (rest == "" || !utf8.FullRuneInString(rest)) && !e.closed:
		e.spaceKnown, e.spaceWait = n, true
		return true, false
	case startsWithAny(rest, e.m.callOpen):
		// Layout before the call; content again if the section is not one.
		e.pendingSpace = e.buf[:n]
		e.consume(n)
		return true, true
	case couldStartAny(rest, e.m.callOpen) && !e.closed:
		e.spaceKnown, e.spaceWait = n, true
		return true, false
	}
	e.emit(Content, e.take(n))
	return true, true
}

// contentUpTo emits buf[:n] as content but for its trailing whitespace,
// which stays in buf for spaceRun to decide.
func (e *engine) contentUpTo(n int) bool {
	if len(e.m.callOpen) > 0 && !e.m.callSpaceKept && !e.spaceLong {
		n = len(strings.TrimRightFunc(e.buf[:n], unicode.IsSpace))
	}
	if n == 0 {
		return false
	}
	e.emit(Content, e.take(n))
	return true
}

// releaseSpace emits as content the whitespace dropped before an opener
// whose section turned out to make no call.
func (e *engine) releaseSpace() {
	if e.pendingSpace != "" {
		e.markupBytes -= len(e.pendingSpace)
		e.emit(Content, e.pendingSpace)
		e.pendingSpace = ""
	}
}

func (e *engine) newID() string {
	if e.opts.NewID != nil {
		return e.opts.NewID()
	}
	return chat.NewCallID()
}

// scanBuffer is the part of a streaming parser that every parser shares: the
// output not yet turned into events, where it starts, how much of what was
// consumed was markup (for the no-byte-lost check) and the diagnostics.
type scanBuffer struct {
	buf         string // input not yet turned into events
	offset      int    // output offset of buf[0]
	markupBytes int    // bytes recognised as markup (or layout the family drops)
	diagnostics []Diagnostic
	gate        gate // when a chunk is worth parsing (see gate)
}

// eventBuf lets a hand-written parser return its events without allocating
// for each chunk: a step's single event goes in one (the run loop copies it
// out before the next step), and the run loop appends to evs, which is reused
// from one Feed to the next. The slice Feed returns is valid until the next
// Feed; Close calls closing first, so that its events do not overwrite those
// of the last Feed.
type eventBuf struct {
	one [1]Event
	evs []Event
}

// single returns a one-event slice valid until the next call.
func (b *eventBuf) single(kind EventKind, text string) []Event {
	b.one[0] = Event{Kind: kind, Text: text}
	return b.one[:]
}

// events returns the reused, empty slice for a Feed's events.
func (b *eventBuf) events() []Event {
	if b.evs == nil {
		b.evs = make([]Event, 0, 4)
	}
	return b.evs[:0]
}

// closing makes Close's events a slice of their own.
func (b *eventBuf) closing() { b.evs = nil }

// gate decides, chunk by chunk, whether a parser should run now. A parser
// holds back only what it cannot decide yet: usually a few bytes that may
// start a marker, but a whole open tool-call section or call body while it
// waits for that to end. Running after every chunk would then re-read the
// whole held text each time, which makes a long call quadratic. The gate
// runs the parser when
//   - the held text is short (at most smallHeld bytes) and, if the parser
//     stopped inside an open section, the chunk brings a wake byte, or
//   - it has grown heldGrowth times since the parser last ran, or
//   - a stretch of markup has ended (see wake) and the held text has earned
//     the credit to be read again: wakeCredit per byte that arrived, spent
//     at one per byte held.
//
// Otherwise the chunk waits, unread, and the bytes the parser reads add up
// to a few times the output's length however it is chunked. Results never
// depend on the chunking, so holding chunks back changes only how soon a
// decision is seen, never what it is; at the end of the output everything
// is decided.
type gate struct {
	lastLen int // bytes held when the parser last ran
	credit  int
	ran     bool // the parser ran after the last feed
	woken   bool // a wake byte arrived since the parser last ran
	// sectionOpen: the parser last stopped inside a section that had not
	// ended. A section ends with the end of markup, so until a chunk brings
	// a wake byte (or the held text has grown heldGrowth times) running
	// again could only find it still open.
	sectionOpen bool
	read        int       // bytes held at the runs: what the parser re-reads (tests check it stays linear)
	arena       textArena // backs the held text
}

const (
	smallHeld  = 64
	heldGrowth = 4
	wakeCredit = 4
)

// wakeBytes end the markers and bodies that close a section: tags and
// special tokens (>, as in </tool_call>, <|tool_call_end|>, <｜tool▁call▁end｜>),
// bracketed and JSON bodies (] } )), code fences (`) and line ends.
var wakeBytes = func() (t [256]bool) {
	for _, b := range []byte(">]})`\n") {
		t[b] = true
	}
	return t
}()

// feed adds chunk to the held text *buf and reports whether the parser
// should run now; if not, the chunk waits in *buf, unread.
func (g *gate) feed(buf *string, chunk string) bool {
	if g.ran {
		g.lastLen = len(*buf)
		if g.lastLen <= smallHeld {
			g.credit = 0
		}
	}
	n := len(*buf) + len(chunk)
	g.credit += wakeCredit * len(chunk)
	due := n <= smallHeld && !(g.sectionOpen && !hasWakeByte(chunk)) || n >= heldGrowth*g.lastLen
	if !due && n > smallHeld && g.credit >= n && g.wake(chunk) {
		g.credit -= n
		due = true
	}
	g.ran = due
	if due {
		g.woken = false
		g.read += n
	}
	if *buf == "" {
		*buf = chunk // plain text: no copy
	} else {
		g.arena.extend(buf, chunk)
	}
	return due
}

// force records a run the gate did not ask for, over n held bytes.
func (g *gate) force(n int) {
	g.ran, g.woken = true, false
	g.read += n
}

// textArena holds a parser's held text, so that appending a chunk to it
// usually copies only the chunk: the text lives at the end of an
// append-only buffer whose bytes, once written, are never changed (a full
// buffer is replaced, not reused), so the strings over it that the parser
// has handed out stay valid.
type textArena struct{ b []byte }

// extend sets *buf to *buf followed by more.
func (a *textArena) extend(buf *string, more string) {
	held := *buf
	n := len(held) + len(more)
	end := len(a.b)
	if len(held) > 0 && len(held) <= end && len(more) <= cap(a.b)-end &&
		unsafe.StringData(held) == unsafe.SliceData(a.b[end-len(held):]) {
		// The held text ends the buffer: only the chunk is copied.
		a.b = a.b[:end+len(more)]
		copy(a.b[end:], more)
		*buf = unsafe.String(unsafe.SliceData(a.b[end-len(held):]), n)
		return
	}
	if cap(a.b)-end < n {
		a.b = make([]byte, 0, max(2*n, min(2*cap(a.b), arenaMax), arenaMin))
	}
	a.b = append(a.b, held...)
	a.b = append(a.b, more...)
	*buf = unsafe.String(&a.b[len(a.b)-n], n)
}

// The buffers extend allocates: each is at least arenaMin bytes, and twice
// the last up to arenaMax (or twice the text it must hold).
const (
	arenaMin = 256
	arenaMax = 64 << 10
)

// hasWakeByte reports whether chunk holds a byte that ends markup.
func hasWakeByte(chunk string) bool {
	for i := 0; i < len(chunk); i++ {
		if wakeBytes[chunk[i]] {
			return true
		}
	}
	return false
}

// wake reports whether chunk ends a stretch of markup: a byte that ends
// markup (wakeBytes) has arrived, and then text that does not start another
// marker (a closing sequence is often several tags, "}}\n</tool_call>" or
// "</parameter>\n</invoke>": the parser runs once, after the last).
func (g *gate) wake(chunk string) bool {
	i := 0
	if !g.woken { // the common case, prose: only the table to look at
		for i < len(chunk) && !wakeBytes[chunk[i]] {
			i++
		}
		if i == len(chunk) {
			return false
		}
		g.woken = true
		i++
	}
	for ; i < len(chunk); i++ {
		switch c := chunk[i]; {
		case wakeBytes[c]:
			g.woken = true
		case c == ' ' || c == '\t' || c == '\r':
		case !g.woken:
		case c == '<' || c == '[':
			g.woken = false // another marker follows
		default:
			return true
		}
	}
	return false
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
	if c, ok := sharedFirstByte(markers); ok {
		// One pass: the earliest byte that starts every marker, then the
		// longest marker there.
		for i := 0; i < len(s); i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			i += j
			which := ""
			for _, m := range markers {
				if len(m) > len(which) && strings.HasPrefix(s[i:], m) {
					which = m
				}
			}
			if which != "" {
				return i, which
			}
		}
		return -1, ""
	}
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

// sharedFirstByte returns the byte every non-empty marker starts with, if
// there is one (and a marker).
func sharedFirstByte(markers []string) (byte, bool) {
	var c byte
	found := false
	for _, m := range markers {
		switch {
		case m == "":
		case !found:
			c, found = m[0], true
		case m[0] != c:
			return 0, false
		}
	}
	return c, found
}

// safePrefix returns how much of s can be released as text now: all of it but
// a suffix that could be the start of a marker, or an incomplete UTF-8
// character.
func safePrefix(s string, markers []string) int {
	n := len(s)
	for _, m := range markers {
		// The longest suffix of s that starts m (and is shorter than m).
		for i := len(s) - min(len(m)-1, len(s)); i < len(s); i++ {
			j := strings.IndexByte(s[i:], m[0])
			if j < 0 {
				break
			}
			i += j
			if strings.HasPrefix(m, s[i:]) {
				n = min(n, i)
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

// emitCalls appends to events the events of parsed calls, as the engine does
// for a section at offset: undeclared tools get a diagnostic, calls without an
// id get one.
func (e *engine) emitCalls(events []Event, calls []call, offset int) []Event {
	for _, c := range calls {
		if _, ok := toolSchema(e.opts.Tools, c.name); !ok && len(e.opts.Tools) > 0 {
			e.diag("unknown-tool", "the model called "+quote(c.name)+", which the request did not offer", offset)
		}
		if c.id == "" {
			c.id = e.newID()
		}
		events = appendCallEvents(events, e.calls, c.id, c.name, c.args)
		e.calls++
	}
	return events
}
