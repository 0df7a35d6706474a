package tokenize

import (
	"cmp"
	"slices"
	"sort"
	"sync"
)

// specialMatcher finds the special and user-defined tokens written in a text.
//
// Two rules exist in the runtimes and they differ only when token texts
// overlap in the text:
//   - llama.cpp (tokenizer_st_partition): the tokens are taken longest first
//     (ties: lower id first, as a stable sort would leave them); each cuts
//     every still-unmatched stretch of text at its leftmost non-overlapping
//     occurrences.
//   - Hugging Face tokenizers: leftmost-longest matching over all added
//     tokens at once.
type specialMatcher struct {
	edges    map[uint64]int32 // node<<8 | byte → child node
	terminal []int32          // node → token id, -1 if no token ends here
	order    []int32          // node → rank of its token in llama.cpp's order
	first    [256]bool        // bytes a token can start with
	hf       bool             // leftmost-longest instead of llama.cpp's order
	n        int
}

type match struct {
	start, end int
	id         int32
	order      int32
}

type specialScratch struct {
	occ []match
	acc []match
}

var specialScratchPool = sync.Pool{New: func() any { return new(specialScratch) }}

func (m *specialMatcher) empty() bool { return m.n == 0 }

// newSpecialMatcher builds a matcher for the given token ids and texts.
// Empty texts are ignored.
func newSpecialMatcher(ids []int32, texts []string, hf bool) specialMatcher {
	m := specialMatcher{edges: map[uint64]int32{}, terminal: []int32{-1}, order: []int32{0}, hf: hf}
	type tok struct {
		id   int32
		text string
	}
	var toks []tok
	for i, id := range ids {
		if texts[i] != "" {
			toks = append(toks, tok{id, texts[i]})
		}
	}
	slices.SortStableFunc(toks, func(a, b tok) int {
		if c := cmp.Compare(len(b.text), len(a.text)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for rank, tk := range toks {
		node := int32(0)
		for i := 0; i < len(tk.text); i++ {
			key := uint64(node)<<8 | uint64(tk.text[i])
			child, ok := m.edges[key]
			if !ok {
				child = int32(len(m.terminal))
				m.terminal = append(m.terminal, -1)
				m.order = append(m.order, 0)
				m.edges[key] = child
			}
			node = child
		}
		if m.terminal[node] < 0 { // the same text twice: the first (longest-first, lowest id) wins
			m.terminal[node] = tk.id
			m.order[node] = int32(rank)
			m.n++
		}
		m.first[tk.text[0]] = true
	}
	return m
}

// partition returns the special tokens to cut text at, in text order,
// non-overlapping. The result lives in st.
func (m *specialMatcher) partition(text string, st *specialScratch) []match {
	st.occ = st.occ[:0]
	st.acc = st.acc[:0]
	for i := 0; i < len(text); i++ {
		if !m.first[text[i]] {
			continue
		}
		if m.hf {
			// leftmost-longest: take the longest token here and go on after it
			if mt, ok := m.longestAt(text, i); ok {
				st.acc = append(st.acc, mt)
				i = mt.end - 1
			}
			continue
		}
		node := int32(0)
		for j := i; j < len(text); j++ {
			child, ok := m.edges[uint64(node)<<8|uint64(text[j])]
			if !ok {
				break
			}
			node = child
			if id := m.terminal[node]; id >= 0 {
				st.occ = append(st.occ, match{start: i, end: j + 1, id: id, order: m.order[node]})
			}
		}
	}
	if m.hf {
		return st.acc
	}
	if len(st.occ) == 0 {
		return nil
	}
	slices.SortFunc(st.occ, func(a, b match) int {
		if c := cmp.Compare(a.order, b.order); c != 0 {
			return c
		}
		return cmp.Compare(a.start, b.start)
	})
	for _, o := range st.occ {
		// accepted matches are sorted by start and never overlap: check the neighbours
		k := sort.Search(len(st.acc), func(x int) bool { return st.acc[x].start >= o.start })
		if k > 0 && st.acc[k-1].end > o.start {
			continue
		}
		if k < len(st.acc) && st.acc[k].start < o.end {
			continue
		}
		st.acc = slices.Insert(st.acc, k, o)
	}
	return st.acc
}

// longestAt returns the longest token starting at byte i.
func (m *specialMatcher) longestAt(text string, i int) (match, bool) {
	node := int32(0)
	var best match
	found := false
	for j := i; j < len(text); j++ {
		child, ok := m.edges[uint64(node)<<8|uint64(text[j])]
		if !ok {
			break
		}
		node = child
		if id := m.terminal[node]; id >= 0 {
			best, found = match{start: i, end: j + 1, id: id}, true
		}
	}
	return best, found
}
