package format

import (
	"context"
	"hash/maphash"
	"sync"

	"github.com/dragoman-dev/dragoman/chat"
)

// ConstraintCache keeps the constraints of recently seen requests: an agent
// sends the same tools with every request, so a constraint is built once per
// family, tool set and choice. A hit compares the tools in full, so two tool
// sets never share an entry. Safe for concurrent use.
type ConstraintCache struct {
	mu      sync.Mutex
	max     int
	seed    maphash.Seed
	entries map[uint64][]*constraintEntry
	order   []uint64 // insertion order, for eviction
	n       int
}

type constraintEntry struct {
	family        *Family
	tools         []chat.Tool
	choice        ToolChoice
	reasoningOpen bool
	c             *Constraint
}

// NewConstraintCache returns a cache of up to max constraints; the oldest is
// dropped first.
func NewConstraintCache(max int) *ConstraintCache {
	if max < 1 {
		max = 1
	}
	return &ConstraintCache{max: max, seed: maphash.MakeSeed(), entries: map[uint64][]*constraintEntry{}}
}

// Constrain is f.Constrain, built on the first request for this key. Errors
// are not cached.
func (cc *ConstraintCache) Constrain(f *Family, tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	return cc.constrain(nil, f, tools, choice, reasoningOpen)
}

// ConstrainContext is Constrain building under ctx (f.ConstrainContext): a
// client that leaves stops the build, which is not cached; a cached
// constraint is returned whatever ctx says.
func (cc *ConstraintCache) ConstrainContext(ctx context.Context, f *Family, tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	return cc.constrain(ctx, f, tools, choice, reasoningOpen)
}

func (cc *ConstraintCache) constrain(ctx context.Context, f *Family, tools []chat.Tool, choice ToolChoice, reasoningOpen bool) (*Constraint, error) {
	var h maphash.Hash
	h.SetSeed(cc.seed)
	h.WriteString(f.ID)
	h.WriteByte(0)
	h.WriteString(choice.Mode)
	h.WriteByte(0)
	h.WriteString(choice.Name)
	for _, t := range tools {
		h.WriteByte(0)
		h.WriteString(t.Function.Name)
		h.WriteByte(0)
		h.Write(t.Function.Parameters)
	}
	key := h.Sum64()
	match := func(e *constraintEntry) bool {
		return e.family == f && e.choice == choice && e.reasoningOpen == reasoningOpen && sameToolSchemas(e.tools, tools)
	}
	cc.mu.Lock()
	for _, e := range cc.entries[key] {
		if match(e) {
			cc.mu.Unlock()
			return e.c, nil
		}
	}
	cc.mu.Unlock()
	c, err := f.constrain(ctx, tools, choice, reasoningOpen)
	if err != nil || c == nil {
		return c, err
	}
	kept := make([]chat.Tool, len(tools))
	for i, t := range tools {
		kept[i] = chat.Tool{Type: t.Type, Function: chat.ToolFunction{Name: t.Function.Name, Parameters: append([]byte(nil), t.Function.Parameters...)}}
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for _, e := range cc.entries[key] {
		if match(e) {
			return e.c, nil // built meanwhile by another caller
		}
	}
	for cc.n >= cc.max && len(cc.order) > 0 {
		old := cc.order[0]
		cc.order = cc.order[1:]
		if es := cc.entries[old]; len(es) > 0 {
			if len(es) == 1 {
				delete(cc.entries, old)
			} else {
				cc.entries[old] = es[1:]
			}
			cc.n--
		}
	}
	cc.entries[key] = append(cc.entries[key], &constraintEntry{family: f, tools: kept, choice: choice, reasoningOpen: reasoningOpen, c: c})
	cc.order = append(cc.order, key)
	cc.n++
	return c, nil
}

// sameToolSchemas compares what a constraint is built from: names and
// parameter schemas, byte for byte.
func sameToolSchemas(a, b []chat.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Function.Name != b[i].Function.Name || string(a[i].Function.Parameters) != string(b[i].Function.Parameters) {
			return false
		}
	}
	return true
}
