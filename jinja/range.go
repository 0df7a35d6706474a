package jinja

import (
	"math"
	"strconv"
)

// Range is what range() returns: Python's lazy range object. Templates mostly
// loop over it, but it prints as range(0, 3), refuses * and +, and is no list.
type Range struct{ start, stop, step int }

// Len is the number of values the range yields, at most math.MaxInt. It
// is computed in unsigned arithmetic: stop - start may exceed an int.
func (r *Range) Len() int {
	var span, step uint64
	switch {
	case r.step > 0 && r.stop > r.start:
		span, step = uint64(r.stop)-uint64(r.start), uint64(r.step)
	case r.step < 0 && r.stop < r.start:
		span, step = uint64(r.start)-uint64(r.stop), -uint64(r.step)
	default:
		return 0
	}
	n := span / step
	if span%step != 0 {
		n++
	}
	return int(min(n, math.MaxInt))
}

func (r *Range) at(i int) int { return r.start + i*r.step }

func (r *Range) items() []Value {
	n := r.Len()
	out := make([]Value, n)
	for i := range out {
		out[i] = r.at(i)
	}
	return out
}

func (r *Range) repr() string {
	s := "range(" + strconv.Itoa(r.start) + ", " + strconv.Itoa(r.stop)
	if r.step != 1 {
		s += ", " + strconv.Itoa(r.step)
	}
	return s + ")"
}

func (r *Range) equal(o *Range) bool {
	n := r.Len()
	if n != o.Len() {
		return false
	}
	return n == 0 || (r.start == o.start && (n == 1 || r.step == o.step))
}

// item is r[key]: an int index, or a slice, which gives another range.
func (r *Range) item(key Value) (Value, bool, error) {
	n := r.Len()
	if s, ok := key.(*sliceKey); ok {
		start, stop, step, err := sliceIndices(s.start, s.stop, s.step, n)
		if err != nil {
			return nil, false, err
		}
		return r.slice(start, stop, step)
	}
	i, ok := indexOf(key)
	if !ok {
		return nil, false, nil
	}
	if i, ok = pyIndex(i, n); !ok {
		return nil, false, nil
	}
	return r.at(i), true, nil
}

// slice is r[start:stop:step] for indices sliceIndices gave: a range whose
// bounds may lie past an int (range(0, 2**62, 2**61)[::4]) fails as any int
// beyond 64 bits does.
func (r *Range) slice(start, stop, step int) (Value, bool, error) {
	lo, err := r.checkedAt(start)
	if err != nil {
		return nil, false, err
	}
	hi, err := r.checkedAt(stop)
	if err != nil {
		return nil, false, err
	}
	st, err := mulInt(r.step, step)
	if err != nil {
		return nil, false, err
	}
	return &Range{start: lo, stop: hi, step: st}, true, nil
}

// checkedAt is at(i) for an i that may lie outside the range.
func (r *Range) checkedAt(i int) (int, error) {
	off, err := mulInt(i, r.step)
	if err != nil {
		return 0, err
	}
	return addInt(r.start, off)
}

// method returns range.count or range.index.
func (r *Range) method(name string) (Func, bool) {
	find := func(x Value) int {
		for i, v := range r.items() {
			if equal(v, x) {
				return i
			}
		}
		return -1
	}
	switch name {
	case "count":
		return func(_ *renderer, args []Value, _ *Dict) (Value, error) {
			if len(args) != 1 {
				return nil, typeError("range.count() takes exactly one argument (%d given)", len(args))
			}
			if find(args[0]) >= 0 {
				return 1, nil
			}
			return 0, nil
		}, true
	case "index":
		return func(_ *renderer, args []Value, _ *Dict) (Value, error) {
			if len(args) != 1 {
				return nil, typeError("range.index() takes exactly one argument (%d given)", len(args))
			}
			if i := find(args[0]); i >= 0 {
				return i, nil
			}
			return nil, valueError("%s is not in range", repr(args[0]))
		}, true
	}
	return nil, false
}
