package jinja

import "strconv"

// Range is what range() returns: Python's lazy range object. Templates mostly
// loop over it, but it prints as range(0, 3), refuses * and +, and is no list.
type Range struct{ start, stop, step int }

// Len is the number of values the range yields.
func (r *Range) Len() int {
	switch {
	case r.step > 0 && r.stop > r.start:
		return (r.stop - r.start + r.step - 1) / r.step
	case r.step < 0 && r.stop < r.start:
		return (r.start - r.stop - r.step - 1) / -r.step
	}
	return 0
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
		return &Range{start: r.at(start), stop: r.at(stop), step: r.step * step}, true, nil
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
