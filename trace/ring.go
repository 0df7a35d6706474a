package trace

import (
	"sync"

	"github.com/dragoman-dev/dragoman/chat"
)

// Ring keeps the most recent records in memory, up to a fixed number: the
// store of `dragoman serve -no-store`, and the front of SQLite (the records
// it has not written yet, and all of them once it could not write).
type Ring struct {
	mu    sync.Mutex
	ring  []*Record
	next  int
	index map[string]*Record
}

var _ Store = (*Ring)(nil)

// NewRing keeps the last n records (n < 1 keeps none).
func NewRing(n int) *Ring {
	if n < 0 {
		n = 0
	}
	return &Ring{ring: make([]*Record, n), index: make(map[string]*Record, n)}
}

// Put stores a finished record, evicting the oldest when full. The ring
// takes ownership of r.
func (s *Ring) Put(r *Record) {
	if s == nil || len(s.ring) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.ring[s.next]; old != nil {
		delete(s.index, old.ID)
	}
	s.ring[s.next] = r
	s.index[r.ID] = r
	s.next = (s.next + 1) % len(s.ring)
}

// Recent returns copies of up to n records, the most recently put first.
func (s *Ring) Recent(n int) []Record {
	if s == nil || len(s.ring) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Record
	for k := 1; k <= len(s.ring) && len(out) < n; k++ {
		r := s.ring[(s.next-k+len(s.ring))%len(s.ring)]
		if r == nil {
			break
		}
		out = append(out, *r)
	}
	return out
}

// Get returns a copy of the record with id, after its deferred work.
func (s *Ring) Get(id string) (Record, bool) {
	if s == nil {
		return Record{}, false
	}
	s.mu.Lock()
	r, ok := s.index[id]
	s.mu.Unlock()
	if !ok {
		return Record{}, false
	}
	s.settle(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *r
	c.Decisions = append([]string(nil), r.Decisions...)
	c.Actions = append([]string(nil), r.Actions...)
	c.Diagnostics = append([]Diagnostic(nil), r.Diagnostics...)
	c.Calls = append([]chat.ToolCall(nil), r.Calls...)
	return c, true
}

// settle runs r's deferred work, once, if it has any: computing outside
// the lock, applying the result under it. Once it returns, nothing changes
// r any more.
func (s *Ring) settle(r *Record) {
	d := r.Later
	if d == nil {
		return
	}
	d.once.Do(func() {
		apply := d.f()
		s.mu.Lock()
		apply(r)
		s.mu.Unlock()
	})
}

// List returns the summaries of the records q selects, the most recent
// first.
func (s *Ring) List(q Query) (Page, error) {
	after, err := parseCursor(q.After)
	if err != nil {
		return Page{}, err
	}
	return page(s.matching(q, after), q.limit()), nil
}

// matching is the summaries of the records q selects, in list order.
func (s *Ring) matching(q Query, after cursor) []Summary {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	var out []Summary
	for _, r := range s.ring {
		if r == nil {
			continue
		}
		if sum := Summarize(r); q.matches(&sum, after) {
			out = append(out, sum)
		}
	}
	s.mu.Unlock()
	sortSummaries(out)
	return out
}

// Flush does nothing: a ring has nothing to write.
func (s *Ring) Flush() {}

// Close does nothing; the records stay readable.
func (s *Ring) Close() error { return nil }
