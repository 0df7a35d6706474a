package bench

import (
	"testing"
)

// A mutation changes one argument of a gold output so that upstream's
// checker must refuse it; it reports false where it does not apply. want is
// the failure a single-call item meets (a parallel one meets ErrNoMatch).
type mutation struct {
	name  string
	apply func(fn *Function, want *ExpectedCall, args Value) (Value, bool)
	kinds []ErrorKind // what a single-call item may fail with
	min   int         // at least this many mutants over the staged data
}

var mutations = []mutation{
	{"wrong type", mutateType, []ErrorKind{ErrType}, 2300},
	{"missing required", mutateRequired, []ErrorKind{ErrMissingRequired}, 2100},
	{"extra parameter", mutateExtra, []ErrorKind{ErrUnexpectedParam}, 2347},
	{"wrong value", mutateValue, []ErrorKind{ErrString, ErrValue}, 2250},
	{"wrong order", mutateOrder, []ErrorKind{ErrList}, 140},
}

// TestBFCLMutations: every gold output mutated in each way fails, with the
// failure the mutation aims at.
func TestBFCLMutations(t *testing.T) {
	s := loadBFCL(t)
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			n := 0
			for i := range s.Items {
				it := &s.Items[i]
				if len(it.Expected.Calls) == 0 || unwinnable[it.ID] != "" {
					continue
				}
				out, ok := mutate(it, m)
				if !ok {
					continue
				}
				n++
				res := CheckCalls(it, out, Options{})
				if !res.Pass && (it.Expected.Mode == ModeParallel && res.Kind == ErrNoMatch || oneOf(res.Kind, m.kinds)) {
					continue
				}
				t.Errorf("%s: %s mutant %v: %+v", it.ID, m.name, out, res)
			}
			if n < m.min {
				t.Errorf("only %d mutants, want at least %d", n, m.min)
			}
			t.Logf("%d mutants", n)
		})
	}
}

// mutate applies m to the first argument of the gold output it applies to.
func mutate(it *Item, m mutation) ([]Call, bool) {
	out := goldOutput(it, false)
	for ci := range out {
		want := &it.Expected.Calls[ci]
		fn := it.function(want.Name)
		if it.Expected.Mode == ModeSimple {
			fn = &it.Functions[0]
		}
		if args, ok := m.apply(fn, want, out[ci].Args); ok {
			out[ci].Args = args
			return out, true
		}
	}
	return nil, false
}

func oneOf(k ErrorKind, kinds []ErrorKind) bool {
	for _, w := range kinds {
		if k == w {
			return true
		}
	}
	return false
}

// mutateType gives the first argument a value of a kind neither its type
// nor any of its acceptable values has (ints count as floats: promotion).
func mutateType(fn *Function, want *ExpectedCall, args Value) (Value, bool) {
	for i, m := range args.Members() {
		p, a := fn.param(m.Key), want.param(m.Key)
		if p == nil || a == nil {
			continue
		}
		declared, _ := p.Type.kind()
		for _, v := range []Value{Map(Member{"mutant", Int(1)}), List(String("mutant")), String("mutant"), Int(7919)} {
			k := v.Kind()
			if k == declared || k == KindInt && declared == KindFloat || kindAmong(k, a.Acceptable) {
				continue
			}
			return replaced(args, i, v), true
		}
	}
	return Value{}, false
}

func kindAmong(k Kind, list []Value) bool {
	for _, v := range list {
		if v.Kind() == k {
			return true
		}
	}
	return false
}

// mutateRequired drops the first required argument.
func mutateRequired(fn *Function, _ *ExpectedCall, args Value) (Value, bool) {
	for i, m := range args.Members() {
		for _, r := range fn.Required {
			if r == m.Key {
				mems := append(append([]Member{}, args.Members()[:i]...), args.Members()[i+1:]...)
				return Map(mems...), true
			}
		}
	}
	return Value{}, false
}

// mutateExtra adds a parameter the function does not have.
func mutateExtra(_ *Function, _ *ExpectedCall, args Value) (Value, bool) {
	return Map(append(append([]Member{}, args.Members()...), Member{"mutant_extra", Int(1)})...), true
}

// mutateValue changes the first scalar argument to a value of the same kind
// that none of its acceptable values equals.
func mutateValue(fn *Function, want *ExpectedCall, args Value) (Value, bool) {
	for i, m := range args.Members() {
		p, a := fn.param(m.Key), want.param(m.Key)
		if p == nil || a == nil {
			continue
		}
		var v Value
		switch m.Value.Kind() {
		case KindString:
			v = String(m.Value.Str() + " mutant")
			if inNormalized(normalized(v), a.Acceptable) {
				continue
			}
		case KindInt:
			v = Int(m.Value.i + 7919)
		case KindFloat:
			v = Float(m.Value.f + 1000.5)
		case KindBool:
			v = Bool(!m.Value.b)
		default:
			continue
		}
		if in(v, a.Acceptable) || p.Type == TypeFloat && in(v.asFloat(), a.Acceptable) {
			continue
		}
		return replaced(args, i, v), true
	}
	return Value{}, false
}

// mutateOrder reverses the first list argument (of scalars or lists; not of
// objects) whose reverse no acceptable list equals.
func mutateOrder(fn *Function, want *ExpectedCall, args Value) (Value, bool) {
	for i, m := range args.Members() {
		p := fn.param(m.Key)
		if p == nil || !p.Type.isList() || p.Items == TypeDict || m.Value.Kind() != KindList || len(m.Value.Items()) < 2 {
			continue
		}
		items := m.Value.Items()
		rev := make([]Value, len(items))
		for j, x := range items {
			rev[len(items)-1-j] = x
		}
		v := List(rev...)
		accepted := false
		for _, alt := range want.param(m.Key).Acceptable {
			accepted = accepted || alt.Kind() == KindList && Equal(normalizedList(v), normalizedList(alt))
		}
		if !accepted {
			return replaced(args, i, v), true
		}
	}
	return Value{}, false
}

func replaced(args Value, i int, v Value) Value {
	mems := append([]Member{}, args.Members()...)
	mems[i].Value = v
	return Map(mems...)
}
