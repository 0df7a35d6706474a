package jinja

// The builtin tests of Jinja2 3.1. Each binds its arguments as the Python
// function does, so a wrong call fails with CPython's message.
func init() {
	defs := map[string]testDef{
		"odd":         sigTest(newSig("test_odd", "", "value"), testOdd),
		"even":        sigTest(newSig("test_even", "", "value"), testEven),
		"divisibleby": sigTest(newSig("test_divisibleby", "", "value num"), testDivisibleby),
		"defined":     sigTest(newSig("test_defined", "", "value"), testDefined),
		"undefined":   sigTest(newSig("test_undefined", "", "value"), testUndefined),
		"filter":      sigTest(newSig("test_filter", "env", "value"), testFilter),
		"test":        sigTest(newSig("test_test", "env", "value"), testTest),
		"none":        sigTest(newSig("test_none", "", "value"), testNone),
		"boolean":     sigTest(newSig("test_boolean", "", "value"), testBoolean),
		"false":       sigTest(newSig("test_false", "", "value"), testFalse),
		"true":        sigTest(newSig("test_true", "", "value"), testTrue),
		"integer":     sigTest(newSig("test_integer", "", "value"), testInteger),
		"float":       sigTest(newSig("test_float", "", "value"), testFloat),
		"lower":       sigTest(newSig("test_lower", "", "value"), testLower),
		"upper":       sigTest(newSig("test_upper", "", "value"), testUpper),
		"string":      sigTest(newSig("test_string", "", "value"), testString),
		"mapping":     sigTest(newSig("test_mapping", "", "value"), testMapping),
		"number":      sigTest(newSig("test_number", "", "value"), testNumber),
		"sequence":    sigTest(newSig("test_sequence", "", "value"), testSequence),
		"iterable":    sigTest(newSig("test_iterable", "", "value"), testIterable),
		"callable":    {bindBuiltin("callable"), testCallable, 0},
		"sameas":      sigTest(newSig("test_sameas", "", "value other"), testSameas),
		"escaped":     sigTest(newSig("test_escaped", "", "value"), testEscaped),
		"in":          sigTest(newSig("test_in", "", "value seq"), testIn),
	}
	// The comparison tests are the operator module's functions.
	for op, names := range map[string][]string{
		"eq": {"==", "eq", "equalto"},
		"ne": {"!=", "ne"},
		"gt": {">", "gt", "greaterthan"},
		"ge": {">=", "ge"},
		"lt": {"<", "lt", "lessthan"},
		"le": {"<=", "le"},
	} {
		def := testDef{bindOperator(op), compareTest(op), 1}
		for _, name := range names {
			defs[name] = def
		}
	}
	for name, def := range defs {
		testDefs[name] = def
		builtinTests[name] = def.call
	}
}

// testDef is a test: how to bind its arguments, and the test on the bound
// arguments. Every test takes the value and at most one more argument; bind
// checks the call and returns that argument (nil when the test has none).
type testDef struct {
	bind func(v Value, args []Value, kwargs *Dict) (Value, error)
	fn   func(r *renderer, v, x Value) (bool, error)
	// arity is how many arguments after the value the test takes: a call
	// with exactly that many binds them in order, and the compiler calls fn
	// directly.
	arity int
}

// sigTest is the test fn with its arguments bound by s.
func sigTest(s *signature, fn func(r *renderer, v, x Value) (bool, error)) testDef {
	return testDef{s.bindTest, fn, len(s.params) - 1}
}

var testDefs = map[string]testDef{}

func (d testDef) call(r *renderer, v Value, args []Value) (bool, error) {
	x, err := d.bind(v, args, nil)
	if err != nil {
		return false, err
	}
	return d.fn(r, v, x)
}

// bindTest binds a test's arguments with s and returns the one after the
// value (nil when s has just the value).
func (s *signature) bindTest(v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := s.bind(v, args, kwargs)
	return a[1], err
}

// testByName is environment.call_test: the test named at run time (by the
// select and reject filters), with keyword arguments if any.
func testByName(r *renderer, name Value, v Value, args []Value, kwargs *Dict) (bool, error) {
	s, _ := name.(string)
	def, ok := testDefs[s]
	if !ok {
		return false, noCallable("test", name)
	}
	x, err := def.bind(v, args, kwargs)
	if err != nil {
		return false, err
	}
	ok, err = def.fn(r, v, x)
	if err != nil {
		return false, err
	}
	return ok, r.chargeValues(v, x) // select runs one per item
}

// bindBuiltin binds the one argument of a C builtin such as callable().
func bindBuiltin(fn string) func(Value, []Value, *Dict) (Value, error) {
	return func(v Value, args []Value, kwargs *Dict) (Value, error) {
		return nil, bindOne(fn, args, kwargs)
	}
}

// bindOperator binds the two arguments of operator.eq and friends.
func bindOperator(op string) func(Value, []Value, *Dict) (Value, error) {
	return func(v Value, args []Value, kwargs *Dict) (Value, error) {
		if kwargs != nil && kwargs.Len() > 0 {
			return nil, typeError("_operator.%s() takes no keyword arguments", op)
		}
		if len(args) != 1 {
			return nil, typeError("%s expected 2 arguments, got %d", op, len(args)+1)
		}
		return args[0], nil
	}
}

func compareTest(op string) func(*renderer, Value, Value) (bool, error) {
	switch op {
	case "eq":
		return func(r *renderer, v, x Value) (bool, error) { return equal(v, x), nil }
	case "ne":
		return func(r *renderer, v, x Value) (bool, error) { return !equal(v, x), nil }
	}
	sym := map[string]string{"gt": ">", "ge": ">=", "lt": "<", "le": "<="}[op]
	return func(r *renderer, v, x Value) (bool, error) { return pyCmp(sym, v, x) }
}

// pyModEquals reports whether Python's a % b == want. A str on the left is
// printf formatting, as in Python, and never equals a number.
func pyModEquals(a, b Value, want int) (bool, error) {
	if u, ok := a.(Undefined); ok {
		return false, u.fail()
	}
	if u, ok := b.(Undefined); ok {
		return false, u.fail()
	}
	if s, ok := a.(string); ok {
		_, err := pyPercent(s, b, false)
		return false, err
	}
	if m, ok := a.(Markup); ok {
		_, err := pyPercent(string(m), b, true)
		return false, err
	}
	if !isNumber(a) || !isNumber(b) {
		return false, typeError("unsupported operand type(s) for %%: '%s' and '%s'", typeName(a), typeName(b))
	}
	_, af := a.(float64)
	_, bf := b.(float64)
	if af || bf {
		x, _ := number(a)
		y, _ := number(b)
		if y == 0 {
			return false, newError("ZeroDivisionError", "float modulo")
		}
		_, mod := floatDivmod(x, y)
		return mod == float64(want), nil
	}
	x, _ := toIndex(a)
	y, _ := toIndex(b)
	if y == 0 {
		return false, newError("ZeroDivisionError", "integer modulo by zero")
	}
	return floorMod(x, y) == want, nil
}

func testOdd(r *renderer, v, x Value) (bool, error)  { return pyModEquals(v, 2, 1) }
func testEven(r *renderer, v, x Value) (bool, error) { return pyModEquals(v, 2, 0) }

func testDivisibleby(r *renderer, v, x Value) (bool, error) { return pyModEquals(v, x, 0) }

func testDefined(r *renderer, v, x Value) (bool, error) {
	_, undef := v.(Undefined)
	return !undef, nil
}

func testUndefined(r *renderer, v, x Value) (bool, error) {
	_, undef := v.(Undefined)
	return undef, nil
}

// testFilter and testTest look the name up in the registries; an unhashable
// value fails as a dict lookup does.
func testFilter(r *renderer, v, x Value) (bool, error) {
	if err := checkHashable(v); err != nil {
		return false, err
	}
	s, ok := v.(string)
	_, found := builtinFilters[s]
	return ok && found, nil
}

func testTest(r *renderer, v, x Value) (bool, error) {
	if err := checkHashable(v); err != nil {
		return false, err
	}
	s, ok := v.(string)
	_, found := builtinTests[s]
	return ok && found, nil
}

// checkHashable fails for the values Python cannot hash: lists, dicts and
// tuples holding them. Every other object hashes, by identity if nothing else.
func checkHashable(v Value) error {
	switch x := v.(type) {
	case *List, *Dict:
		return typeError("unhashable type: '%s'", typeName(v))
	case Tuple:
		for _, e := range x {
			if err := checkHashable(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func testNone(r *renderer, v, x Value) (bool, error) { return v == nil, nil }

func testBoolean(r *renderer, v, x Value) (bool, error) {
	_, ok := v.(bool)
	return ok, nil
}

func testFalse(r *renderer, v, x Value) (bool, error) { return v == false, nil }
func testTrue(r *renderer, v, x Value) (bool, error)  { return v == true, nil }

// testInteger excludes bools, unlike Python's isinstance(v, int).
func testInteger(r *renderer, v, x Value) (bool, error) {
	_, ok := v.(int)
	return ok, nil
}

func testFloat(r *renderer, v, x Value) (bool, error) {
	_, ok := v.(float64)
	return ok, nil
}

// testLower and testUpper test str(value), so None is "None" and a list its repr.
func testLower(r *renderer, v, x Value) (bool, error) { return strIsLower(toStr(v)), nil }
func testUpper(r *renderer, v, x Value) (bool, error) { return strIsUpper(toStr(v)), nil }

func testString(r *renderer, v, x Value) (bool, error) {
	_, ok := isString(v)
	return ok, nil
}

// testMapping is isinstance(value, abc.Mapping): only dicts, not namespaces.
func testMapping(r *renderer, v, x Value) (bool, error) {
	_, ok := v.(*Dict)
	return ok, nil
}

// testNumber includes bools, as isinstance(v, numbers.Number) does.
func testNumber(r *renderer, v, x Value) (bool, error) { return isNumber(v), nil }

// testSequence: len() and __getitem__ both work. Undefined has both.
func testSequence(r *renderer, v, x Value) (bool, error) {
	switch v.(type) {
	case string, Markup, *List, Tuple, *Dict, Undefined:
		return true, nil
	}
	return false, nil
}

// testIterable: iter() works. The loop object iterates; a namespace does not.
// It is answered from the type, without iterating (a generator would be
// drained, a string cut into characters).
func testIterable(r *renderer, v, x Value) (bool, error) {
	switch v.(type) {
	case string, Markup, *List, Tuple, *Dict, *dictView, *Range, *Generator, *LoopInfo, Undefined:
		return true, nil
	case nil, bool, int, float64:
		return false, nil // what iterate refuses, without building its error
	}
	_, err := iterate(v)
	return err == nil, nil
}

// testCallable is callable(): functions and bound methods, macros, the loop
// (for recursive loops), joiners, and Undefined, whose __call__ raises. It
// must agree with what renderer.call accepts.
func testCallable(r *renderer, v, x Value) (bool, error) {
	switch v.(type) {
	case Func, *boundMethod, *Macro, *LoopInfo, *Joiner, Undefined:
		return true, nil
	}
	return false, nil
}

// testSameas is Python's `is`. Identity of immutable values depends on
// CPython's caching: None, bools, small ints and one-character Latin-1 strings
// are shared; other numbers and strings from different places are not.
func testSameas(r *renderer, v, other Value) (bool, error) {
	switch x := v.(type) {
	case nil, bool:
		return v == other, nil
	case int:
		y, ok := other.(int)
		return ok && x == y && x >= -5 && x <= 256, nil
	case string:
		y, ok := other.(string)
		rs := []rune(x)
		return ok && x == y && (len(rs) == 0 || (len(rs) == 1 && rs[0] < 0x100)), nil
	case *List, *Dict, *Generator, *Namespace, *LoopInfo, *Macro, *Cycler, *Joiner:
		return v == other, nil
	case Tuple:
		y, ok := other.(Tuple)
		return ok && len(x) == 0 && len(y) == 0, nil
	case float64:
		return false, nil
	}
	return false, nil
}

// testEscaped: the value has __html__, i.e. it is Markup.
func testEscaped(r *renderer, v, x Value) (bool, error) {
	_, ok := v.(Markup)
	return ok, nil
}

// testIn is value in seq. Undefined is an empty container here, as Jinja2's
// Undefined iterates as empty.
func testIn(r *renderer, v, x Value) (bool, error) {
	if _, ok := x.(Undefined); ok {
		return false, nil
	}
	return contains(x, v)
}
