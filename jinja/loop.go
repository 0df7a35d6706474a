package jinja

// LoopInfo is the loop variable of a for loop.
type LoopInfo struct {
	items   []Value
	index   int // 0-based position of the current item
	depth0  int
	recurse func(seq Value) (Value, error) // set for recursive loops
	changed []Value                        // last arguments of loop.changed
	seenChg bool
	// exhausted is set when the template iterated the loop object itself,
	// which consumes the rest of the loop.
	exhausted bool
}

func (l *LoopInfo) length() int { return len(l.items) }

// attr returns a field of the loop variable.
func (l *LoopInfo) attr(name string) (Value, bool, error) {
	n := len(l.items)
	switch name {
	case "index":
		return l.index + 1, true, nil
	case "index0":
		return l.index, true, nil
	case "revindex":
		return n - l.index, true, nil
	case "revindex0":
		return n - l.index - 1, true, nil
	case "first":
		return l.index == 0, true, nil
	case "last":
		return l.index == n-1, true, nil
	case "length":
		return n, true, nil
	case "depth":
		return l.depth0 + 1, true, nil
	case "depth0":
		return l.depth0, true, nil
	case "previtem":
		if l.index == 0 {
			return Undefined{Hint: "there is no previous item"}, true, nil
		}
		return l.items[l.index-1], true, nil
	case "nextitem":
		if l.index >= n-1 {
			return Undefined{Hint: "there is no next item"}, true, nil
		}
		return l.items[l.index+1], true, nil
	case "cycle":
		return Func(func(_ *renderer, args []Value, _ *Dict) (Value, error) {
			if len(args) == 0 {
				return nil, typeError("no items for cycling given")
			}
			return args[l.index%len(args)], nil
		}), true, nil
	case "changed":
		return Func(func(_ *renderer, args []Value, _ *Dict) (Value, error) {
			if l.seenChg && equalSeq(l.changed, args) {
				return false, nil
			}
			l.seenChg = true
			l.changed = args
			return true, nil
		}), true, nil
	}
	return nil, false, nil
}

// Cycler is what cycler(...) returns.
type Cycler struct {
	items []Value
	pos   int
}

func (c *Cycler) attr(name string) (Value, bool, error) {
	switch name {
	case "current":
		return c.items[c.pos], true, nil
	case "next":
		return Func(func(_ *renderer, _ []Value, _ *Dict) (Value, error) {
			v := c.items[c.pos]
			c.pos = (c.pos + 1) % len(c.items)
			return v, nil
		}), true, nil
	case "reset":
		return Func(func(_ *renderer, _ []Value, _ *Dict) (Value, error) {
			c.pos = 0
			return nil, nil
		}), true, nil
	}
	return nil, false, nil
}

// Joiner is what joiner(sep) returns: "" the first time it is called, sep after.
type Joiner struct {
	sep  string
	used bool
}

func (j *Joiner) call() Value {
	if !j.used {
		j.used = true
		return ""
	}
	return j.sep
}
