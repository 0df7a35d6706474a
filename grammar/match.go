package grammar

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// program is a grammar ready for recognition: every rule's expression parsed, names resolved, and for
// every node whether it matches the empty string and whether it matches anything at all.
type program struct {
	names []string
	rules []*node
	root  int
}

// Check reports whether llama.cpp would accept the grammar: every expression parses, every referenced
// rule exists, there is a root rule, and no rule is left-recursive (a rule that can reach itself before
// reading a character; an open repetition *, + or {m,} of something that may be empty is such a rule
// once llama.cpp has rewritten it).
func (g *Grammar) Check() error {
	_, err := g.program()
	return err
}

func (g *Grammar) program() (*program, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.compiled == nil && g.cerr == nil {
		g.compiled, g.cerr = compile(g)
	}
	return g.compiled, g.cerr
}

func compile(g *Grammar) (*program, error) {
	p := &program{root: -1}
	for i, r := range g.rules {
		n := r.ast
		if n == nil {
			var err error
			if n, err = parseExpr(r.expr); err != nil {
				return nil, fmt.Errorf("grammar: rule %q: %w", r.name, err)
			}
		}
		p.names = append(p.names, r.name)
		p.rules = append(p.rules, n)
		if r.name == "root" {
			p.root = i
		}
	}
	for i, n := range p.rules {
		if name := resolve(g, n); name != "" {
			return nil, fmt.Errorf("grammar: rule %q refers to undefined rule %q", p.names[i], name)
		}
	}
	if p.root < 0 {
		return nil, fmt.Errorf("grammar: no root rule")
	}
	setFlags(p)
	for i, n := range p.rules {
		if name := openNullable(n); name != "" {
			return nil, fmt.Errorf("grammar: rule %q repeats without bound %s, which may be empty (left recursion in llama.cpp)", p.names[i], name)
		}
	}
	if name := leftRecursive(p); name != "" {
		return nil, fmt.Errorf("grammar: rule %q is left-recursive", name)
	}
	return p, nil
}

func resolve(g *Grammar, n *node) string {
	if n.op == opRef {
		i, ok := g.index[n.name]
		if !ok {
			return n.name
		}
		n.ref = i
	}
	for _, k := range n.kids {
		if s := resolve(g, k); s != "" {
			return s
		}
	}
	return ""
}

// setFlags sets every node's nullable and productive: the least fixed point of their definitions
// (a sequence is nullable when all its items are, an alternation when one of its alternatives is, a
// rule name when its rule is, …), found by propagation. Every node starts false; a node that becomes
// true tells its parent (a rule's root tells the names of its rule), and a sequence counts the items
// it still waits for. Each node becomes nullable and productive once at most, so this is linear in the
// grammar's size; iterating over the rules until nothing changes is quadratic in a chain of rules
// (rest1 → rest2 → …), which gains one rule a round.
func setFlags(p *program) {
	type event struct {
		n    *node
		prod bool // productive became true (else nullable)
	}
	var queue []event
	set := func(n *node, prod bool) {
		if prod {
			if n.productive {
				return
			}
			n.productive = true
		} else {
			if n.nullable {
				return
			}
			n.nullable = true
		}
		queue = append(queue, event{n, prod})
	}
	users := make([][]*node, len(p.rules)) // the names of each rule
	roots := make(map[*node]int, len(p.rules))
	var stack []*node
	for i, root := range p.rules {
		roots[root] = i
		root.up = nil
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n.nullable, n.productive = false, false
			n.wait = [2]int32{int32(len(n.kids)), int32(len(n.kids))}
			for _, k := range n.kids {
				k.up = n
				stack = append(stack, k)
			}
		}
	}
	for _, root := range p.rules {
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stack = append(stack, n.kids...)
			switch n.op {
			case opLit:
				set(n, true)
				if len(n.runes) == 0 {
					set(n, false)
				}
			case opClass:
				if classNonEmpty(n) {
					set(n, true)
				}
			case opAny:
				set(n, true)
			case opRef:
				users[n.ref] = append(users[n.ref], n)
			case opSeq:
				if len(n.kids) == 0 {
					set(n, true)
					set(n, false)
				}
			case opRep:
				if n.min == 0 {
					set(n, true)
					set(n, false)
				}
			}
		}
	}
	for len(queue) > 0 {
		e := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		up := e.n.up
		if up == nil {
			for _, r := range users[roots[e.n]] {
				set(r, e.prod)
			}
			continue
		}
		switch up.op {
		case opAlt, opRep:
			set(up, e.prod)
		case opSeq:
			w := &up.wait[0]
			if e.prod {
				w = &up.wait[1]
			}
			if *w--; *w == 0 {
				set(up, e.prod)
			}
		}
	}
}

func classNonEmpty(n *node) bool {
	for _, r := range n.ranges {
		if n.neg && r.Lo <= 0 && r.Hi >= 0x10FFFF {
			return false
		}
		if !n.neg && r.Lo <= r.Hi {
			return true
		}
	}
	return n.neg
}

// openNullable finds an open repetition of an item that may be empty and returns the item's text.
func openNullable(n *node) string {
	if n.op == opRep && n.max < 0 && n.kids[0].nullable {
		return string(appendExpr(nil, n.kids[0], true))
	}
	for _, k := range n.kids {
		if s := openNullable(k); s != "" {
			return s
		}
	}
	return ""
}

// leftmost adds to out the rules that may be expanded at the start of n (before any character is read).
func leftmost(n *node, out []int) []int {
	switch n.op {
	case opRef:
		return append(out, n.ref)
	case opSeq:
		for _, k := range n.kids {
			out = leftmost(k, out)
			if !k.nullable {
				break
			}
		}
	case opAlt:
		for _, k := range n.kids {
			out = leftmost(k, out)
		}
	case opRep:
		if n.max != 0 {
			out = leftmost(n.kids[0], out)
		}
	}
	return out
}

func leftRecursive(p *program) string {
	edges := make([][]int, len(p.rules))
	for i, n := range p.rules {
		edges[i] = leftmost(n, nil)
	}
	// A depth-first search with a stack of its own (a chain of rules may be as long as the grammar):
	// each frame is a rule and the next of its edges to follow.
	state := make([]uint8, len(p.rules)) // 0 new, 1 on the stack, 2 done
	type frame struct{ rule, next int }
	var stack []frame
	for i := range p.rules {
		if state[i] != 0 {
			continue
		}
		state[i] = 1
		stack = append(stack[:0], frame{i, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(edges[f.rule]) {
				state[f.rule] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			j := edges[f.rule][f.next]
			f.next++
			switch state[j] {
			case 1:
				return p.names[j]
			case 0:
				state[j] = 1
				stack = append(stack, frame{j, 0})
			}
		}
	}
	return ""
}

// Match reports whether s (read as Unicode code points) is in the language of the grammar's root rule.
// It is false for a grammar that fails Check.
func (g *Grammar) Match(s string) bool {
	return g.recognise("root", s, false)
}

// Prefix reports whether s is a prefix of some string in the language of the root rule (every string in
// the language, and the empty string for any grammar whose language is not empty, is one). A string that
// ends inside a UTF-8 sequence is a prefix when its complete characters are one that some character can
// still follow (which characters is not checked). It is false for a grammar that fails Check.
func (g *Grammar) Prefix(s string) bool {
	return g.recognise("root", s, true)
}

// MatchRule is Match for the language of the named rule instead of root.
func (g *Grammar) MatchRule(rule, s string) bool {
	return g.recognise(rule, s, false)
}

func (g *Grammar) recognise(rule, s string, prefix bool) bool {
	p, err := g.program()
	if err != nil {
		return false
	}
	start := p.root
	if rule != "root" {
		i, ok := g.index[rule]
		if !ok {
			return false
		}
		start = i
	}
	// A string cut inside a UTF-8 sequence (a streamed completion can be): the complete part must be a
	// prefix that some character can still follow.
	partial := false
	if prefix {
		for cut := 1; cut < utf8.UTFMax && cut <= len(s); cut++ {
			if utf8.RuneStart(s[len(s)-cut]) {
				if !utf8.FullRuneInString(s[len(s)-cut:]) {
					s, partial = s[:len(s)-cut], true
				}
				break
			}
		}
	}
	in := []rune(s)
	m := &matcher{p: p, in: in, n: len(in), eof: len(in) + 1, prefix: prefix, memo: make(map[uint64][]int)}
	for _, e := range m.match(&node{op: opRef, ref: start, nullable: false, productive: p.rules[start].productive}, 0) {
		if e == m.n && !partial || prefix && e == m.eof {
			return true
		}
	}
	return false
}

// matcher computes, for a node and a start position, every position where a match of the node can end.
// Results for rule references are memoised by (rule, position); the grammar has no left recursion
// (Check), so a rule is never re-entered at the same position. In prefix mode the position eof (one past
// the end) stands for "the input ran out inside this match, and the match can still be completed": a
// terminal tried at the end of the input ends at eof, and any productive node started at eof ends there.
type matcher struct {
	p      *program
	in     []rune
	n, eof int
	prefix bool
	memo   map[uint64][]int
}

func (m *matcher) match(n *node, pos int) []int {
	if pos == m.eof {
		if n.productive {
			return []int{m.eof}
		}
		return nil
	}
	switch n.op {
	case opLit:
		for i, r := range n.runes {
			if pos+i >= m.n {
				if m.prefix {
					return []int{m.eof}
				}
				return nil
			}
			if m.in[pos+i] != r {
				return nil
			}
		}
		return []int{pos + len(n.runes)}
	case opClass, opAny:
		if pos >= m.n {
			if m.prefix && n.productive {
				return []int{m.eof}
			}
			return nil
		}
		if n.op == opAny || classHas(n, m.in[pos]) {
			return []int{pos + 1}
		}
		return nil
	case opRef:
		key := uint64(n.ref)<<32 | uint64(pos)
		if r, ok := m.memo[key]; ok {
			return r
		}
		m.memo[key] = nil // a guard: re-entry at the same position matches nothing
		r := m.match(m.p.rules[n.ref], pos)
		m.memo[key] = r
		return r
	case opSeq:
		cur := []int{pos}
		for _, k := range n.kids {
			var next []int
			for _, p := range cur {
				next = append(next, m.match(k, p)...)
			}
			cur = dedupe(next)
			if len(cur) == 0 {
				return nil
			}
		}
		return cur
	case opAlt:
		var out []int
		for _, k := range n.kids {
			out = append(out, m.match(k, pos)...)
		}
		return dedupe(out)
	case opRep:
		k := n.kids[0]
		var out []int
		if n.min == 0 {
			out = append(out, pos)
		}
		seen := map[int]bool{}
		if n.min == 0 {
			seen[pos] = true
		}
		frontier := []int{pos}
		for count := 1; n.max < 0 || count <= n.max; count++ {
			var next []int
			for _, p := range frontier {
				next = append(next, m.match(k, p)...)
			}
			next = dedupe(next)
			if count >= n.min {
				// A position already reached after enough repetitions can only lead to the ends found
				// from it before (with at least as many repetitions left then).
				kept := next[:0]
				for _, p := range next {
					if !seen[p] {
						seen[p] = true
						kept = append(kept, p)
						out = append(out, p)
					}
				}
				next = kept
			} else if slices.Contains(next, m.eof) {
				out = append(out, m.eof)
			}
			if len(next) == 0 {
				break
			}
			frontier = next
		}
		return dedupe(out)
	}
	return nil
}

func classHas(n *node, r rune) bool {
	for _, rg := range n.ranges {
		if rg.Lo <= r && r <= rg.Hi {
			return !n.neg
		}
	}
	return n.neg
}

func dedupe(s []int) []int {
	if len(s) < 2 {
		return s
	}
	slices.Sort(s)
	return slices.Compact(s)
}
