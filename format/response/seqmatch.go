package response

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// seqRx matches, on complete text, the patterns most templates write: a
// sequence of literals, repeated single characters (a class, a dot, one
// rune) and groups around such sequences, with no alternation and no
// assertion, e.g. <parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>.
// It backtracks in the same priority order as Go's regexp and the Pike VM
// (leftmost-first, greedy or lazy), so it gives their match and captures
// (TestSeqMatch); a (step, position) pair that failed once is not tried
// again, so the work stays linear in the text. It reads literals as whole
// strings and classes with an ASCII bitmap, which Go's backtracker, one
// instruction at a time, does not.
type seqRx struct {
	items []seqItem
	ncap  int
	// first[i] holds the bytes items[i:] can start a match with (every
	// byte when they can match empty): a step is tried only there
	first [][4]uint64
	pool  sync.Pool
}

// startsAt says whether items[i:] could match at text[pos:].
func (s *seqRx) startsAt(i int, text string, pos int) bool {
	if pos >= len(text) {
		return true
	}
	b := text[pos]
	return s.first[i][b>>6]&(1<<(b&63)) != 0
}

// firstSets computes first.
func (s *seqRx) firstSets() {
	s.first = make([][4]uint64, len(s.items)+1)
	all := [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	s.first[len(s.items)] = all
	for i := len(s.items) - 1; i >= 0; i-- {
		it := &s.items[i]
		var f [4]uint64
		switch it.kind {
		case 'l':
			f[it.lit[0]>>6] |= 1 << (it.lit[0] & 63)
		case 'c':
			f = s.first[i+1]
		case 'r':
			f[0], f[1] = it.cls.ascii[0], it.cls.ascii[1]
			if it.cls.any || len(it.cls.ranges) > 0 && it.cls.ranges[len(it.cls.ranges)-1] >= utf8.RuneSelf {
				f[2], f[3] = ^uint64(0), ^uint64(0) // any byte of a longer or invalid character
			}
			if it.min == 0 {
				for k := range f {
					f[k] |= s.first[i+1][k]
				}
			}
		}
		s.first[i] = f
	}
}

type seqItem struct {
	kind     byte // 'l' literal, 'r' repetition, 'c' capture slot
	lit      string
	cls      *runeSet
	min, max int // max < 0: unbounded
	lazy     bool
	slot     int
}

// runeSet is a character class.
type runeSet struct {
	ascii  [2]uint64
	ranges []rune // pairs, the whole class
	any    bool
}

func (c *runeSet) has(r rune) bool {
	if r < utf8.RuneSelf {
		return c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	if c.any {
		return true
	}
	lo, hi := 0, len(c.ranges)/2
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < c.ranges[2*m]:
			hi = m
		case r > c.ranges[2*m+1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

func newRuneSet(ranges []rune) *runeSet {
	c := &runeSet{ranges: ranges}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < utf8.RuneSelf; r++ {
			c.ascii[r>>6] |= 1 << (r & 63)
		}
	}
	return c
}

// compileSeq builds the matcher for re (simplified), or nil when re is not
// such a sequence.
func compileSeq(re *syntax.Regexp, ncap int) *seqRx {
	s := &seqRx{ncap: ncap}
	if !s.flatten(re) {
		return nil
	}
	s.firstSets()
	return s
}

func single(re *syntax.Regexp) *runeSet {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0 {
			return newRuneSet([]rune{re.Rune[0], re.Rune[0]})
		}
	case syntax.OpCharClass:
		return newRuneSet(re.Rune)
	case syntax.OpAnyChar:
		c := &runeSet{any: true, ascii: [2]uint64{^uint64(0), ^uint64(0)}}
		return c
	case syntax.OpAnyCharNotNL:
		return newRuneSet([]rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune})
	}
	return nil
}

func (s *seqRx) flatten(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !s.flatten(sub) {
				return false
			}
		}
		return true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		lit := string(re.Rune)
		if n := len(s.items); n > 0 && s.items[n-1].kind == 'l' {
			s.items[n-1].lit += lit
		} else {
			s.items = append(s.items, seqItem{kind: 'l', lit: lit})
		}
		return true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		s.items = append(s.items, seqItem{kind: 'r', cls: single(re), min: 1, max: 1})
		return true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		cls := single(re.Sub[0])
		if cls == nil {
			return false
		}
		it := seqItem{kind: 'r', cls: cls, lazy: re.Flags&syntax.NonGreedy != 0}
		switch re.Op {
		case syntax.OpStar:
			it.min, it.max = 0, -1
		case syntax.OpPlus:
			it.min, it.max = 1, -1
		case syntax.OpQuest:
			it.min, it.max = 0, 1
		default:
			it.min, it.max = re.Min, re.Max
		}
		s.items = append(s.items, it)
		return true
	case syntax.OpCapture:
		if 2*re.Cap+1 >= s.ncap {
			return false
		}
		s.items = append(s.items, seqItem{kind: 'c', slot: 2 * re.Cap})
		if !s.flatten(re.Sub[0]) {
			return false
		}
		s.items = append(s.items, seqItem{kind: 'c', slot: 2*re.Cap + 1})
		return true
	}
	return false
}

type seqState struct {
	text    string
	base, n int // positions base..base+n-1 are memoised
	visited []uint64
	caps    []int
	runs    []int
}

// seen marks (item, pos) tried and says whether it was already.
func (st *seqState) seen(i, pos int) bool {
	k := i*st.n + pos - st.base
	w, b := k>>6, uint64(1)<<(k&63)
	if st.visited[w]&b != 0 {
		return true
	}
	st.visited[w] |= b
	return false
}

// seqMaxBits bounds the memo; longer texts go to Go's regexp.
const seqMaxBits = 1 << 22

// find is the leftmost-first match at or after from in a complete text:
// the capture slots, nil when there is none; ok is false when the text is
// too long for the memo (the caller asks Go's regexp).
func (s *seqRx) find(text string, from int) (caps []int, ok bool) {
	n := len(text) - from + 1
	if n*len(s.items) > seqMaxBits {
		return nil, false
	}
	st, _ := s.pool.Get().(*seqState)
	if st == nil {
		st = &seqState{}
	}
	defer s.pool.Put(st)
	words := (n*len(s.items) + 63) / 64
	if cap(st.visited) < words {
		st.visited = make([]uint64, words)
	} else {
		st.visited = st.visited[:words]
		clear(st.visited)
	}
	st.text, st.base, st.n = text, from, n
	if cap(st.caps) < s.ncap {
		st.caps = make([]int, s.ncap)
	}
	st.caps = st.caps[:s.ncap]
	for i := range st.caps {
		st.caps[i] = -1
	}
	st.runs = st.runs[:0]
	var prefix string
	if len(s.items) > 0 && s.items[0].kind == 'l' {
		prefix = s.items[0].lit
	}
	for pos := from; pos <= len(text); {
		if prefix != "" {
			k := strings.Index(text[pos:], prefix)
			if k < 0 {
				break
			}
			pos += k
		}
		st.caps[0] = pos
		if (prefix != "" || s.startsAt(0, text, pos)) && s.match(st, 0, pos) {
			out := make([]int, s.ncap)
			copy(out, st.caps)
			st.text = ""
			return out, true
		}
		if pos >= len(text) {
			break
		}
		_, w := utf8.DecodeRuneInString(text[pos:])
		pos += w
	}
	st.text = ""
	return nil, true
}

// match says whether items[i:] match at pos; on success the capture slots
// hold the match and slot 1 its end.
func (s *seqRx) match(st *seqState, i, pos int) bool {
	text := st.text
	for ; i < len(s.items); i++ {
		it := &s.items[i]
		switch it.kind {
		case 'l':
			if !strings.HasPrefix(text[pos:], it.lit) {
				return false
			}
			pos += len(it.lit)
		case 'c':
			old := st.caps[it.slot]
			st.caps[it.slot] = pos
			if s.match(st, i+1, pos) {
				return true
			}
			st.caps[it.slot] = old
			return false
		case 'r':
			if it.min == 1 && it.max == 1 {
				if pos >= len(text) {
					return false
				}
				r, w := utf8.DecodeRuneInString(text[pos:])
				if !it.cls.has(r) {
					return false
				}
				pos += w
				continue
			}
			return s.repeat(st, i, pos)
		}
	}
	st.caps[1] = pos
	return true
}

// repeat tries items[i], a repetition, at pos and the rest after it, in
// priority order. With no upper bound every position of the run is marked
// tried: from a later start in the same run the choices are a subset.
func (s *seqRx) repeat(st *seqState, i, pos int) bool {
	it := &s.items[i]
	if st.seen(i, pos) {
		return false
	}
	text := st.text
	unbounded := it.max < 0
	if it.lazy {
		count := 0
		for {
			if count >= it.min && s.startsAt(i+1, text, pos) && s.match(st, i+1, pos) {
				return true
			}
			if !unbounded && count >= it.max || pos >= len(text) {
				return false
			}
			r, w := utf8.DecodeRuneInString(text[pos:])
			if !it.cls.has(r) {
				return false
			}
			pos += w
			count++
			// a later start in the run: marked; with no minimum, already
			// tried from there means all that is left failed
			if unbounded && st.seen(i, pos) && it.min == 0 {
				return false
			}
		}
	}
	base := len(st.runs)
	st.runs = append(st.runs, pos)
	for count := 0; (unbounded || count < it.max) && pos < len(text); count++ {
		r, w := utf8.DecodeRuneInString(text[pos:])
		if !it.cls.has(r) {
			break
		}
		pos += w
		if unbounded {
			st.seen(i, pos)
		}
		st.runs = append(st.runs, pos)
	}
	for k := len(st.runs) - 1 - base; k >= it.min; k-- {
		if p := st.runs[base+k]; s.startsAt(i+1, text, p) && s.match(st, i+1, p) {
			st.runs = st.runs[:base]
			return true
		}
	}
	st.runs = st.runs[:base]
	return false
}
