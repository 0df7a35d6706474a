package response

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Patterns are written for Python's `regex` module and compiled with "dot
// matches newline". Go's RE2 syntax lacks some of it; translate rewrites what
// the known templates use and refuses, at load time, what it cannot express:
//
//   - \w \d \s and their negations get Python's Unicode meaning (\b and \B too,
//     evaluated by the matcher below);
//   - ^ matches only at the start of the stream, $ at the end or before a
//     final newline, \Z is \z;
//   - a lookahead (?=…) in tail position (nothing is consumed after it) becomes
//     a capture whose start is where the match ends; $ is read as (?=\n?\z);
//   - a backreference \N is emulated where a whole text is matched (xml-inline
//     tag patterns), not in delimiters;
//   - {,n} means {0,n}; \uXXXX and \UXXXXXXXX are code points.
//
// Lookbehind, negative lookahead, a lookahead that is not in tail position,
// atomic groups, possessive quantifiers and named backreferences are errors.

const (
	pyWordClass  = `\p{L}\p{M}\p{N}\p{Pc}`
	pySpaceClass = `\t\n\x{0B}\f\r\x{1C}-\x{1F} \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
	laPrefix     = "__la"
)

// rx is one compiled pattern.
type rx struct {
	src    string
	goSrc  string
	prog   *syntax.Prog
	ncap   int      // capture slots (2 per group, group 0 included)
	la     []int    // capture indices of lookahead groups
	names  []string // Go group index → Python name ("" when unnamed or internal)
	byName []int    // the Python-visible named groups' indices, in name order
	prefix string   // literal every match starts with
	re     *regexp.Regexp
	// backref: the pattern has \N references to Python group pyRef (Go group
	// goRef); pieces are the translated text around them.
	backref bool
	goRef   int
	pieces  []string
	special map[string]*regexp.Regexp
	// goOK: Go's regexp gives the matcher's answer on complete text (no ^,
	// \b or \B, whose meaning depends on text before the search start).
	goOK bool
	// seq matches complete text faster than Go's regexp (nil: the pattern
	// is not a plain sequence)
	seq  *seqRx
	pool sync.Pool
	// notes are the places where Python's semantics may still differ.
	notes []string
}

// namedGroups returns the Python-visible named groups.
func (r *rx) namedGroups() []string {
	var out []string
	for _, n := range r.names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

type pyGroup struct {
	kind     byte // 'c' capture, 'n' non-capturing/flags, 'l' lookahead
	goIndex  int  // for captures
	pyIndex  int
	outStart int // offset in out after the opening
}

// compileRx translates and compiles a Python pattern. allowBackref says
// whether backreferences may be emulated (whole-text matching only).
func compileRx(src string, allowBackref bool) (*rx, error) {
	r := &rx{src: src}
	var out strings.Builder
	var stack []pyGroup
	goGroups := 0
	pyGroups := 0
	pyToGo := map[int]int{}
	groupSrc := map[int]string{} // go index → translated body
	var names []string
	names = append(names, "")
	laCount := 0
	refGroup := -1
	var pieces []string

	tailOK := func(j int) bool {
		// j is just after a construct's closing; it is in tail position if
		// only group closings (not quantified) then | or the end follow.
		for {
			if j >= len(src) || src[j] == '|' {
				return true
			}
			if src[j] != ')' {
				return false
			}
			j++
			if j < len(src) && strings.IndexByte("*+?{", src[j]) >= 0 {
				return false
			}
		}
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch c {
		case '\\':
			if i+1 >= len(src) {
				return nil, fmt.Errorf("pattern %q: trailing backslash", src)
			}
			e := src[i+1]
			switch {
			case e >= '1' && e <= '9':
				j := i + 1
				for j < len(src) && src[j] >= '0' && src[j] <= '9' && j < i+3 {
					j++
				}
				n, _ := strconv.Atoi(src[i+1 : j])
				if !allowBackref {
					return nil, fmt.Errorf("pattern %q: backreference \\%d is not supported in a delimiter (Go's regexp has none)", src, n)
				}
				gi, ok := pyToGo[n]
				if !ok || groupSrc[gi] == "" && !groupClosed(stack, gi) {
					return nil, fmt.Errorf("pattern %q: backreference \\%d to a group not yet closed", src, n)
				}
				if refGroup >= 0 && refGroup != gi {
					return nil, fmt.Errorf("pattern %q: backreferences to more than one group are not supported", src)
				}
				refGroup = gi
				pieces = append(pieces, out.String())
				out.Reset()
				i = j
				continue
			case e == 'w':
				out.WriteString("[" + pyWordClass + "]")
			case e == 'W':
				out.WriteString("[^" + pyWordClass + "]")
			case e == 'd':
				out.WriteString(`\p{Nd}`)
			case e == 'D':
				out.WriteString(`\P{Nd}`)
			case e == 's':
				out.WriteString("[" + pySpaceClass + "]")
			case e == 'S':
				out.WriteString("[^" + pySpaceClass + "]")
			case e == 'Z':
				out.WriteString(`\z`)
			case e == 'z':
				return nil, fmt.Errorf("pattern %q: \\z is not a Python escape (Python writes \\Z)", src)
			case e == 'u' || e == 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+2+n > len(src) {
					return nil, fmt.Errorf("pattern %q: incomplete \\%c escape", src, e)
				}
				v, err := strconv.ParseUint(src[i+2:i+2+n], 16, 32)
				if err != nil {
					return nil, fmt.Errorf("pattern %q: bad \\%c escape", src, e)
				}
				fmt.Fprintf(&out, `\x{%X}`, v)
				i += 2 + n
				continue
			case e == 'N':
				return nil, fmt.Errorf("pattern %q: \\N{…} named characters are not supported", src)
			case e == '0':
				out.WriteString(`\x00`)
			default:
				out.WriteByte('\\')
				out.WriteByte(e)
			}
			i += 2
		case '[':
			j, cls, note, err := translateClass(src, i)
			if err != nil {
				return nil, err
			}
			if note != "" {
				r.notes = append(r.notes, note)
			}
			out.WriteString(cls)
			i = j
		case '(':
			rest := src[i:]
			switch {
			case strings.HasPrefix(rest, "(?="):
				laCount++
				goGroups++
				names = append(names, "")
				stack = append(stack, pyGroup{kind: 'l', goIndex: goGroups})
				fmt.Fprintf(&out, "(?P<%s%d>", laPrefix, laCount)
				stack[len(stack)-1].outStart = out.Len()
				r.la = append(r.la, goGroups)
				i += 3
			case strings.HasPrefix(rest, "(?!"), strings.HasPrefix(rest, "(?<="), strings.HasPrefix(rest, "(?<!"):
				return nil, fmt.Errorf("pattern %q: negative lookahead and lookbehind are not supported (Go's regexp has none)", src)
			case strings.HasPrefix(rest, "(?>"):
				return nil, fmt.Errorf("pattern %q: atomic groups are not supported", src)
			case strings.HasPrefix(rest, "(?P="):
				return nil, fmt.Errorf("pattern %q: named backreferences are not supported", src)
			case strings.HasPrefix(rest, "(?#"):
				k := strings.IndexByte(rest, ')')
				if k < 0 {
					return nil, fmt.Errorf("pattern %q: unterminated comment", src)
				}
				i += k + 1
			case strings.HasPrefix(rest, "(?P<"), strings.HasPrefix(rest, "(?<"):
				start := 4
				if rest[2] == '<' {
					start = 3
				}
				k := strings.IndexByte(rest, '>')
				if k < 0 {
					return nil, fmt.Errorf("pattern %q: unterminated group name", src)
				}
				name := rest[start:k]
				goGroups++
				pyGroups++
				pyToGo[pyGroups] = goGroups
				names = append(names, name)
				fmt.Fprintf(&out, "(?P<%s>", name)
				stack = append(stack, pyGroup{kind: 'c', goIndex: goGroups, pyIndex: pyGroups, outStart: out.Len()})
				i += k + 1
			case strings.HasPrefix(rest, "(?"):
				// (?:…), (?flags:…) or (?flags)
				k := 2
				for k < len(rest) && strings.IndexByte("aiLmsux-", rest[k]) >= 0 {
					k++
				}
				if k < len(rest) && rest[k] == ')' {
					flags := strings.NewReplacer("a", "", "L", "", "u", "", "x", "").Replace(rest[2:k])
					if strings.ContainsAny(rest[2:k], "x") {
						return nil, fmt.Errorf("pattern %q: verbose mode (?x) is not supported", src)
					}
					if flags != "" {
						out.WriteString("(?" + flags + ")")
					}
					i += k + 1
					continue
				}
				if k < len(rest) && rest[k] == ':' {
					flags := strings.NewReplacer("a", "", "L", "", "u", "", "x", "").Replace(rest[2:k])
					out.WriteString("(?" + flags + ":")
					stack = append(stack, pyGroup{kind: 'n', outStart: out.Len()})
					i += k + 1
					continue
				}
				return nil, fmt.Errorf("pattern %q: unsupported group syntax at %q", src, rest[:min(len(rest), 6)])
			default:
				goGroups++
				pyGroups++
				pyToGo[pyGroups] = goGroups
				names = append(names, "")
				out.WriteByte('(')
				stack = append(stack, pyGroup{kind: 'c', goIndex: goGroups, pyIndex: pyGroups, outStart: out.Len()})
				i++
			}
		case ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("pattern %q: unbalanced parenthesis", src)
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if g.kind == 'c' && len(pieces) == 0 {
				groupSrc[g.goIndex] = out.String()[g.outStart:]
			}
			if g.kind == 'l' && !tailOK(i+1) {
				return nil, fmt.Errorf("pattern %q: a lookahead is supported only at the end of the pattern (nothing consumed after it)", src)
			}
			out.WriteByte(')')
			i++
		case '$':
			if !tailOK(i + 1) {
				return nil, fmt.Errorf("pattern %q: $ is supported only at the end of the pattern", src)
			}
			laCount++
			goGroups++
			names = append(names, "")
			r.la = append(r.la, goGroups)
			fmt.Fprintf(&out, `(?P<%s%d>\n?\z)`, laPrefix, laCount)
			i++
		case '{':
			if strings.HasPrefix(src[i:], "{,") {
				out.WriteString("{0,")
				i += 2
				continue
			}
			out.WriteByte(c)
			i++
		case '*', '+', '?':
			out.WriteByte(c)
			i++
			if i < len(src) && src[i] == '+' {
				return nil, fmt.Errorf("pattern %q: possessive quantifiers are not supported", src)
			}
		default:
			out.WriteByte(c)
			i++
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("pattern %q: missing )", src)
	}
	r.names = names
	for g, n := range names {
		if n != "" && !strings.HasPrefix(n, laPrefix) {
			r.byName = append(r.byName, g)
		}
	}
	sort.SliceStable(r.byName, func(i, j int) bool { return names[r.byName[i]] < names[r.byName[j]] })
	if refGroup >= 0 {
		pieces = append(pieces, out.String())
		r.backref = true
		r.goRef = refGroup
		r.pieces = pieces
		r.special = map[string]*regexp.Regexp{}
		r.goSrc = "(?s)" + strings.Join(pieces, "(?:"+groupSrc[refGroup]+")")
		r.notes = append(r.notes, fmt.Sprintf("pattern %q: the backreference is emulated: at each start the referenced group's first match is taken (Python may backtrack into the group)", src))
	} else {
		r.goSrc = "(?s)" + out.String()
	}
	re, err := syntax.Parse(r.goSrc, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", src, err)
	}
	parsed := re
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %v", src, err)
	}
	r.prog = prog
	r.ncap = 2 * (goGroups + 1)
	if r.seq = compileSeq(parsed, r.ncap); r.seq == nil {
		r.seq = compileSeq(re, r.ncap)
	}
	if p, _ := prog.Prefix(); p != "" {
		r.prefix = p
	}
	if r.re, err = regexp.Compile(r.goSrc); err != nil {
		return nil, fmt.Errorf("pattern %q: %v", src, err)
	}
	r.goOK = true
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyBeginText|syntax.EmptyBeginLine|syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			r.goOK = false
		}
	}
	return r, nil
}

func groupClosed(stack []pyGroup, gi int) bool {
	for _, g := range stack {
		if g.goIndex == gi {
			return false
		}
	}
	return true
}

// translateClass copies the class starting at src[i] ('['), translating the
// shorthand escapes; it returns the index after the class.
func translateClass(src string, i int) (int, string, string, error) {
	var b strings.Builder
	b.WriteByte('[')
	j := i + 1
	if j < len(src) && src[j] == '^' {
		b.WriteByte('^')
		j++
	}
	first := true
	var pos, neg string
	for {
		if j >= len(src) {
			return 0, "", "", fmt.Errorf("pattern %q: unterminated character class", src)
		}
		c := src[j]
		if c == ']' && !first {
			break
		}
		first = false
		if c == '[' {
			if strings.HasPrefix(src[j:], "[:") {
				return 0, "", "", fmt.Errorf("pattern %q: POSIX classes are not Python syntax", src)
			}
			b.WriteString(`\[`)
			j++
			continue
		}
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(src) {
			return 0, "", "", fmt.Errorf("pattern %q: trailing backslash", src)
		}
		e := src[j+1]
		j += 2
		switch e {
		case 'w':
			b.WriteString(pyWordClass)
			pos += "w"
		case 'd':
			b.WriteString(`\p{Nd}`)
			pos += "d"
		case 's':
			b.WriteString(pySpaceClass)
			pos += "s"
		case 'W', 'D', 'S':
			neg += string(e)
			b.WriteString(`\` + string(e))
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if j+n > len(src) {
				return 0, "", "", fmt.Errorf("pattern %q: incomplete \\%c escape", src, e)
			}
			v, err := strconv.ParseUint(src[j:j+n], 16, 32)
			if err != nil {
				return 0, "", "", fmt.Errorf("pattern %q: bad \\%c escape", src, e)
			}
			fmt.Fprintf(&b, `\x{%X}`, v)
			j += n
		case 'b':
			b.WriteString(`\x08`)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	j++ // ]
	// [\s\S], [\w\W], [\d\D]: everything.
	note := ""
	if neg != "" {
		all := true
		for _, n := range neg {
			if !strings.ContainsRune(pos, unicode.ToLower(n)) {
				all = false
			}
		}
		if all {
			inner := b.String()
			if strings.HasPrefix(inner, "[^") {
				return j, `[^\x00-\x{10FFFF}]`, "", nil
			}
			return j, `[\x00-\x{10FFFF}]`, "", nil
		}
		note = fmt.Sprintf("pattern %q: \\%s inside a character class keeps Go's ASCII meaning (Python's is Unicode)", src, neg)
	}
	b.WriteByte(']')
	return j, b.String(), note, nil
}

// ---- the matcher ----

// A Pike VM over the compiled program, leftmost-first like Python and Go,
// that also says whether more input could still change the answer: that is
// what lets the streaming parser commit a delimiter, or release text, exactly
// when the whole text would give the same decision.

type vmResult struct {
	matched bool
	caps    []int
	// alive is the smallest start of a thread that could still produce a
	// preferred match with more input; -1 when none.
	alive int
}

// vmQueue holds the threads at one position, in priority order. Every pc
// visited at the position has an entry (so that it is visited once); only
// the live ones (waiting for a character, for input that has not arrived,
// or a match) keep capture slots, at slot[j] in caps.
type vmQueue struct {
	sparse []uint32
	pcs    []uint32
	slot   []int32 // -1: the entry only marks pc as visited
	caps   []int
}

func (q *vmQueue) reset() {
	q.pcs, q.slot, q.caps = q.pcs[:0], q.slot[:0], q.caps[:0]
}

func (q *vmQueue) contains(pc uint32) bool {
	j := q.sparse[pc]
	return int(j) < len(q.pcs) && q.pcs[j] == pc
}

// live marks entry j live with the current capture slots.
func (q *vmQueue) live(j int, caps []int) {
	q.slot[j] = int32(len(q.caps) / len(caps))
	q.caps = append(q.caps, caps...)
}

// machine is the reusable memory of one search.
type machine struct {
	clist, nlist vmQueue
	scratch      []int
}

func (r *rx) machine() *machine {
	if m, ok := r.pool.Get().(*machine); ok {
		return m
	}
	return r.newMachine()
}

func (r *rx) newMachine() *machine {
	n := len(r.prog.Inst)
	return &machine{
		clist:   vmQueue{sparse: make([]uint32, n)},
		nlist:   vmQueue{sparse: make([]uint32, n)},
		scratch: make([]int, r.ncap),
	}
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r) || unicode.Is(unicode.Pc, r)
}

type vmCtx struct {
	r     *rx
	text  string
	end   int // end of the usable text
	ended bool
	ncap  int
}

// empty computes the assertions true at pos, and which are unknown (they
// depend on input not yet received).
func (c *vmCtx) empty(pos int) (syntax.EmptyOp, syntax.EmptyOp) {
	var op, unknown syntax.EmptyOp
	if pos == 0 {
		op |= syntax.EmptyBeginText | syntax.EmptyBeginLine
	} else if c.text[pos-1] == '\n' {
		op |= syntax.EmptyBeginLine
	}
	prevWord := false
	if pos > 0 {
		r, _ := utf8.DecodeLastRuneInString(c.text[:pos])
		prevWord = isWordRune(r)
	}
	if pos >= c.end {
		if !c.ended {
			unknown = syntax.EmptyEndText | syntax.EmptyEndLine | syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary
			return op, unknown
		}
		op |= syntax.EmptyEndText | syntax.EmptyEndLine
		if prevWord {
			op |= syntax.EmptyWordBoundary
		} else {
			op |= syntax.EmptyNoWordBoundary
		}
		return op, 0
	}
	if c.text[pos] == '\n' {
		op |= syntax.EmptyEndLine
	}
	r, _ := utf8.DecodeRuneInString(c.text[pos:])
	if isWordRune(r) != prevWord {
		op |= syntax.EmptyWordBoundary
	} else {
		op |= syntax.EmptyNoWordBoundary
	}
	return op, 0
}

// add follows pc's empty transitions at pos, queueing the threads that wait
// for a character (or for input that has not arrived) in priority order.
func (c *vmCtx) add(q *vmQueue, pc uint32, pos int, caps []int) {
	if q.contains(pc) {
		return
	}
	j := len(q.pcs)
	q.sparse[pc] = uint32(j)
	q.pcs = append(q.pcs, pc)
	q.slot = append(q.slot, -1)
	inst := &c.r.prog.Inst[pc]
	switch inst.Op {
	case syntax.InstFail:
	case syntax.InstAlt, syntax.InstAltMatch:
		c.add(q, inst.Out, pos, caps)
		c.add(q, inst.Arg, pos, caps)
	case syntax.InstEmptyWidth:
		op, unknown := c.empty(pos)
		need := syntax.EmptyOp(inst.Arg)
		if need&unknown != 0 {
			q.live(j, caps)
			return
		}
		if need&^op == 0 {
			c.add(q, inst.Out, pos, caps)
		}
	case syntax.InstNop:
		c.add(q, inst.Out, pos, caps)
	case syntax.InstCapture:
		if int(inst.Arg) < len(caps) {
			old := caps[inst.Arg]
			caps[inst.Arg] = pos
			c.add(q, inst.Out, pos, caps)
			caps[inst.Arg] = old
		} else {
			c.add(q, inst.Out, pos, caps)
		}
	default:
		q.live(j, caps)
	}
}

// plain reports whether Go's regexp, run on text[from:], finds exactly what
// the matcher would on a complete text: no assertion looks before from.
func (r *rx) plain() bool { return r.goOK }

// vmState is a search kept so that it can go on when more text comes: the
// threads it stopped with at the end of the text it had, and the match
// found so far. Resuming from it gives what a search from the same start on
// the longer text gives (TestResumedSearch): the steps before the old end
// read only text before it. A thread stopped at a zero-width assertion the
// old end left undecided is not resumed; the search starts again.
type vmState struct {
	m       *machine
	kind    byte // 0: nothing to resume; 'r': threads at end; 'p': no thread, scan on at end; 'f': final
	from    int
	end     int
	matched bool
	caps    []int // the match so far (owned)
}

// release gives st's memory back to r's pool; st is empty after.
func (r *rx) release(st *vmState) {
	if st.m != nil {
		r.pool.Put(st.m)
	}
	*st = vmState{caps: st.caps[:0]}
}

// search finds the leftmost-first match of r in text at or after from. end is
// where usable text stops (a split UTF-8 character after it is not yet
// readable); ended says no more text will come.
func (r *rx) search(text string, from, end int, ended bool) vmResult {
	return r.searchState(text, from, end, ended, nil)
}

// searchState is search keeping its state in st (nil: none), and resuming
// from st when st holds a search from the same start on a shorter text. The
// result's caps are st's when st is given (valid until its next search).
func (r *rx) searchState(text string, from, end int, ended bool, st *vmState) vmResult {
	if ended && r.goOK && end == len(text) && (st == nil || st.kind == 0 || st.from != from) {
		if r.seq != nil {
			if caps, ok := r.seq.find(text, from); ok {
				if caps == nil {
					return vmResult{alive: -1}
				}
				return vmResult{matched: true, caps: caps, alive: -1}
			}
		}
		m := r.re.FindStringSubmatchIndex(text[from:])
		if m == nil {
			return vmResult{alive: -1}
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
		return vmResult{matched: true, caps: m, alive: -1}
	}
	var m *machine
	if st != nil {
		if st.m == nil {
			st.m = r.machine()
		}
		m = st.m
	} else {
		m = r.machine()
		defer r.pool.Put(m)
	}
	c := vmCtx{r: r, text: text, end: end, ended: ended, ncap: r.ncap}
	clist, nlist := &m.clist, &m.nlist
	res := vmResult{alive: -1}
	caps := m.scratch
	ncap := r.ncap
	pos := from
	resumed, resumedRun := false, false
	if st != nil && st.kind != 0 && st.from == from && end >= st.end {
		switch st.kind {
		case 'f':
			return vmResult{matched: st.matched, caps: st.caps, alive: -1}
		case 'p':
			pos, resumed = st.end, true
			clist.reset()
		case 'r':
			pos, resumed, resumedRun = st.end, true, true
			res.matched = st.matched
			res.caps = st.caps
		}
	}
	if !resumed {
		clist.reset()
		for i := range caps {
			caps[i] = -1
		}
		if st != nil {
			if st.caps == nil {
				st.caps = make([]int, 0, ncap)
			}
			res.caps = st.caps[:0]
		}
	}
	nlist.reset()
	if st != nil {
		st.kind, st.from = 0, from
		defer func() {
			// a thread at an assertion the end left undecided: not resumable
			if st.kind == 'r' {
				for j, pc := range clist.pcs {
					if clist.slot[j] >= 0 && r.prog.Inst[pc].Op == syntax.InstEmptyWidth {
						st.kind = 0
						break
					}
				}
			}
			st.matched = res.matched
			if res.matched {
				st.caps = append(st.caps[:0], res.caps...)
				res.caps = st.caps
			}
		}()
	}
	skipStart := resumedRun // the start thread at the old end is in the list
	for {
		if !res.matched && !skipStart {
			if len(clist.pcs) == 0 && r.prefix != "" {
				if k := strings.Index(text[pos:end], r.prefix); k >= 0 {
					pos += k
				} else {
					// the latest place where the prefix could still begin
					q := end
					if !ended {
						if s := partialAt(text[:end], max(pos, end-len(r.prefix)+1), r.prefix); s >= 0 {
							q = s
						}
					}
					if q >= end {
						if !ended {
							res.alive = minAlive(res.alive, end)
							if st != nil {
								st.kind, st.end = 'p', end
							}
						}
						return res
					}
					pos = q
				}
			}
			// A thread can only start where the prefix's first byte is.
			if r.prefix == "" || pos >= end || text[pos] == r.prefix[0] {
				caps[0] = pos
				c.add(clist, uint32(r.prog.Start), pos, caps)
			}
		}
		skipStart = false
		if len(clist.pcs) == 0 {
			if st != nil && res.matched {
				st.kind = 'f'
			}
			break
		}
		var ch rune = -1
		w := 0
		if pos < end {
			ch, w = utf8.DecodeRuneInString(text[pos:])
		}
		for j, pc := range clist.pcs {
			sl := clist.slot[j]
			if sl < 0 {
				continue
			}
			tcaps := clist.caps[int(sl)*ncap : (int(sl)+1)*ncap]
			inst := &r.prog.Inst[pc]
			switch inst.Op {
			case syntax.InstMatch:
				res.matched = true
				res.caps = append(res.caps[:0], tcaps...)
				res.caps[1] = pos
				goto cut
			case syntax.InstEmptyWidth:
				res.alive = minAlive(res.alive, tcaps[0])
			default:
				if pos >= end {
					if !ended {
						res.alive = minAlive(res.alive, tcaps[0])
					}
					continue
				}
				ok := false
				switch inst.Op {
				case syntax.InstRune1:
					ok = ch == inst.Rune[0]
				case syntax.InstRuneAny:
					ok = true
				case syntax.InstRuneAnyNotNL:
					ok = ch != '\n'
				case syntax.InstRune:
					ok = inst.MatchRune(ch)
				}
				if ok {
					c.add(nlist, inst.Out, pos+w, tcaps)
				}
			}
		}
	cut:
		if pos >= end {
			if st != nil && !ended {
				st.kind, st.end = 'r', end
			}
			break
		}
		pos += w
		clist, nlist = nlist, clist
		nlist.reset()
		if len(clist.pcs) == 0 && res.matched {
			if st != nil {
				st.kind = 'f'
			}
			break
		}
	}
	if st != nil && clist != &m.clist {
		// the last list is where a resumed search starts
		m.clist, m.nlist = m.nlist, m.clist
		clist = &m.clist
	}
	return res
}

func minAlive(a, b int) int {
	if a < 0 || b < a {
		return b
	}
	return a
}

// consumedEnd is where a match's delimiter ends: the start of a participating
// lookahead, else the match end.
func (r *rx) consumedEnd(caps []int) int {
	end := caps[1]
	for _, g := range r.la {
		if s := caps[2*g]; s >= 0 && s < end {
			end = s
		}
	}
	return end
}

// groupsInto appends the Python-visible named groups that took part, as
// name, value pairs in name order, to dst; dst must not end with a pair of
// r's names.
func (r *rx) groupsInto(dst []string, text string, caps []int) []string {
	for _, g := range r.byName {
		if 2*g+1 >= len(caps) {
			continue
		}
		if s, e := caps[2*g], caps[2*g+1]; s >= 0 && e >= 0 {
			if n := len(dst); n >= 2 && dst[n-2] == r.names[g] {
				dst[n-1] = text[s:e] // a repeated name: the last group that took part
				continue
			}
			dst = append(dst, r.names[g], text[s:e])
		}
	}
	return dst
}

// group is the named group's text, if it took part (the last group of that
// name that did).
func (r *rx) group(text string, caps []int, name string) (string, bool) {
	v, ok := "", false
	for g, n := range r.names {
		if n != name || 2*g+1 >= len(caps) {
			continue
		}
		if s, e := caps[2*g], caps[2*g+1]; s >= 0 && e >= 0 {
			v, ok = text[s:e], true
		}
	}
	return v, ok
}

// findAll returns every non-overlapping match of r in a complete text
// (xml-inline tags, the start anchor), as Python's finditer does.
func (r *rx) findAll(text string) [][]int {
	var out [][]int
	pos := 0
	for pos <= len(text) {
		caps := r.findAt(text, pos)
		if caps == nil {
			break
		}
		out = append(out, caps)
		end := r.consumedEnd(caps)
		if end == caps[0] {
			// an empty match: the next search starts one character later
			if end >= len(text) {
				break
			}
			_, w := utf8.DecodeRuneInString(text[end:])
			end += w
		}
		pos = end
	}
	return out
}

// findAt is one leftmost match at or after pos in a complete text.
func (r *rx) findAt(text string, pos int) []int {
	if !r.backref {
		res := r.search(text, pos, len(text), true)
		if !res.matched {
			return nil
		}
		return res.caps
	}
	for pos <= len(text) {
		res := r.search(text, pos, len(text), true)
		if !res.matched {
			return nil
		}
		s := res.caps[0]
		ref := text[res.caps[2*r.goRef]:res.caps[2*r.goRef+1]]
		re := r.special[ref]
		if re == nil {
			re = regexp.MustCompile(`\A(?s:` + strings.Join(r.pieces, regexp.QuoteMeta(ref)) + `)`)
			if len(r.special) < 256 {
				r.special[ref] = re
			}
		}
		if m := re.FindStringSubmatchIndex(text[s:]); m != nil && m[2*r.goRef] >= 0 && text[s+m[2*r.goRef]:s+m[2*r.goRef+1]] == ref {
			for i := range m {
				if m[i] >= 0 {
					m[i] += s
				}
			}
			return m
		}
		if s >= len(text) {
			return nil
		}
		_, w := utf8.DecodeRuneInString(text[s:])
		pos = s + w
	}
	return nil
}
