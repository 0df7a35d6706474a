package gateway

import (
	"sync"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
)

// responseStore keeps recent Responses API answers, so that a client can
// chain turns with previous_response_id and read one back with GET. It is
// bounded by count (the oldest go first) and by age; nothing is written to
// disk.
type responseStore struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*storedResponse
	order []string // ids, oldest first; may hold deleted ones
}

type storedResponse struct {
	at   time.Time
	body []byte // the response object's JSON
	// history is the conversation up to and including this answer, without
	// the instructions.
	history []chat.Message
}

func newResponseStore(max int, ttl time.Duration) *responseStore {
	return &responseStore{max: max, ttl: ttl, now: time.Now, byID: map[string]*storedResponse{}}
}

func (s *responseStore) put(id string, body []byte, history []chat.Message) {
	if s.max <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[id] = &storedResponse{at: s.now(), body: body, history: history}
	s.order = append(s.order, id)
	for len(s.byID) > s.max && len(s.order) > 0 {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
	if len(s.order) > 2*s.max { // deleted ids pile up: compact
		kept := s.order[:0]
		for _, id := range s.order {
			if s.byID[id] != nil {
				kept = append(kept, id)
			}
		}
		s.order = kept
	}
}

// find returns a response younger than the store's age limit.
func (s *responseStore) find(id string) (*storedResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.byID[id]
	if ok && s.ttl > 0 && s.now().Sub(r.at) > s.ttl {
		delete(s.byID, id)
		return nil, false
	}
	return r, ok
}

func (s *responseStore) get(id string) ([]byte, bool) {
	r, ok := s.find(id)
	if !ok {
		return nil, false
	}
	return r.body, true
}

// history is the conversation a turn chained to id continues; the caller
// may append to it.
func (s *responseStore) history(id string) ([]chat.Message, bool) {
	r, ok := s.find(id)
	if !ok {
		return nil, false
	}
	return append([]chat.Message(nil), r.history...), true
}

func (s *responseStore) delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	delete(s.byID, id)
	return ok
}
