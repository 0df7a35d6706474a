package jinja

// The builtin tests of Jinja2 3.1. Each binds its arguments as the Python
// function does, so a wrong call fails with CPython's message.
func init() {
	defs := map[string]testDef{
		"odd":         {newSig("test_odd", "", "value").bind, testOdd},
		"even":        {newSig("test_even", "", "value").bind, testEven},
		"divisibleby": {newSig("test_divisibleby", "", "value num").bind, testDivisibleby},
		"defined":     {newSig("test_defined", "", "value").bind, testDefined},
		"undefined":   {newSig("test_undefined", "", "value").bind, testUndefined},
		"filter":      {newSig("test_filter", "env", "value").bind, testFilter},
		"test":        {newSig("test_test", "env", "value").bind, testTest},
		"none":        {newSig("test_none", "", "value").bind, testNone},
		"boolean":     {newSig("test_boolean", "", "value").bind, testBoolean},
		"false":       {newSig("test_false", "", "value").bind, testFalse},
		"true":        {newSig("test_true", "", "value").bind, testTrue},
		"integer":     {newSig("test_integer", "", "value").bind, testInteger},
		"float":       {newSig("test_float", "", "value").bind, testFloat},
		"lower":       {newSig("test_lower", "", "value").bind, testLower},
		"upper":       {newSig("test_upper", "", "value").bind, testUpper},
		"string":      {newSig("test_string", "", "value").bind, testString},
		"mapping":     {newSig("test_mapping", "", "value").bind, testMapping},
		"number":      {newSig("test_number", "", "value").bind, testNumber},
		"sequence":    {newSig("test_sequence", "", "value").bind, testSequence},
		"iterable":    {newSig("test_iterable", "", "value").bind, testIterable},
		"callable":    {bindBuiltin("callable"), testCallable},
		"sameas":      {newSig("test_sameas", "", "value other").bind, testSameas},
		"escaped":     {newSig("test_escaped", "", "value").bind, testEscaped},
		"in":          {newSig("test_in", "", "value seq").bind, testIn},
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
		def := testDef{bindOperator(op), compareTest(op)}
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
// arguments (the tested value first).
type testDef struct {
	bind func(v Value, args []Value, kwargs *Dict) ([]Value, error)
	fn   func(r *renderer, a []Value) (bool, error)
}

var testDefs = map[string]testDef{}

func (d testDef) call(r *renderer, v Value, args []Value) (bool, error) {
	a, err := d.bind(v, args, nil)
	if err != nil {
		return false, err
	}
	return d.fn(r, a)
}

// testByName is environment.call_test: the test named at run time (by the
// select and reject filters), with keyword arguments if any.
func testByName(r *renderer, name Value, v Value, args []Value, kwargs *Dict) (bool, error) {
	s, _ := name.(string)
	def, ok := testDefs[s]
	if !ok {
		return false, noCallable("test", name)
	}
	a, err := def.bind(v, args, kwargs)
	if err != nil {
		return false, err
	}
	return def.fn(r, a)
}

// bindBuiltin binds the one argument of a C builtin such as callable().
func bindBuiltin(fn string) func(Value, []Value, *Dict) ([]Value, error) {
	return func(v Value, args []Value, kwargs *Dict) ([]Value, error) {
		if err := bindOne(fn, args, kwargs); err != nil {
			return nil, err
		}
		return []Value{v}, nil
	}
}

// bindOperator binds the two arguments of operator.eq and friends.
func bindOperator(op string) func(Value, []Value, *Dict) ([]Value, error) {
	return func(v Value, args []Value, kwargs *Dict) ([]Value, error) {
		if kwargs != nil && kwargs.Len() > 0 {
			return nil, typeError("_operator.%s() takes no keyword arguments", op)
		}
		if len(args) != 1 {
			return nil, typeError("%s expected 2 arguments, got %d", op, len(args)+1)
		}
		return []Value{v, args[0]}, nil
	}
}

func compareTest(op string) func(*renderer, []Value) (bool, error) {
	return func(r *renderer, a []Value) (bool, error) {
		switch op {
		case "eq":
			return equal(a[0], a[1]), nil
		case "ne":
			return !equal(a[0], a[1]), nil
		}
		sym := map[string]string{"gt": ">", "ge": ">=", "lt": "<", "le": "<="}[op]
		c, err := compare(sym, a[0], a[1])
		if err != nil {
			return false, err
		}
		switch op {
		case "gt":
			return c > 0, nil
		case "ge":
			return c >= 0, nil
		case "lt":
			return c < 0, nil
		}
		return c <= 0, nil
	}
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
		return floatMod(x, y) == float64(want), nil
	}
	x, _ := toIndex(a)
	y, _ := toIndex(b)
	if y == 0 {
		return false, newError("ZeroDivisionError", "integer modulo by zero")
	}
	return floorMod(x, y) == want, nil
}

func testOdd(r *renderer, a []Value) (bool, error)  { return pyModEquals(a[0], 2, 1) }
func testEven(r *renderer, a []Value) (bool, error) { return pyModEquals(a[0], 2, 0) }

func testDivisibleby(r *renderer, a []Value) (bool, error) { return pyModEquals(a[0], a[1], 0) }

func testDefined(r *renderer, a []Value) (bool, error) {
	_, undef := a[0].(Undefined)
	return !undef, nil
}

func testUndefined(r *renderer, a []Value) (bool, error) {
	_, undef := a[0].(Undefined)
	return undef, nil
}

// testFilter and testTest look the name up in the registries; an unhashable
// value fails as a dict lookup does.
func testFilter(r *renderer, a []Value) (bool, error) {
	if err := checkHashable(a[0]); err != nil {
		return false, err
	}
	s, ok := a[0].(string)
	_, found := builtinFilters[s]
	return ok && found, nil
}

func testTest(r *renderer, a []Value) (bool, error) {
	if err := checkHashable(a[0]); err != nil {
		return false, err
	}
	s, ok := a[0].(string)
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

func testNone(r *renderer, a []Value) (bool, error) { return a[0] == nil, nil }

func testBoolean(r *renderer, a []Value) (bool, error) {
	_, ok := a[0].(bool)
	return ok, nil
}

func testFalse(r *renderer, a []Value) (bool, error) { return a[0] == false, nil }
func testTrue(r *renderer, a []Value) (bool, error)  { return a[0] == true, nil }

// testInteger excludes bools, unlike Python's isinstance(v, int).
func testInteger(r *renderer, a []Value) (bool, error) {
	_, ok := a[0].(int)
	return ok, nil
}

func testFloat(r *renderer, a []Value) (bool, error) {
	_, ok := a[0].(float64)
	return ok, nil
}

// testLower and testUpper test str(value), so None is "None" and a list its repr.
func testLower(r *renderer, a []Value) (bool, error) { return pyIsLower(toStr(a[0])), nil }
func testUpper(r *renderer, a []Value) (bool, error) { return pyIsUpper(toStr(a[0])), nil }

func testString(r *renderer, a []Value) (bool, error) {
	_, ok := isString(a[0])
	return ok, nil
}

// testMapping is isinstance(value, abc.Mapping): only dicts, not namespaces.
func testMapping(r *renderer, a []Value) (bool, error) {
	_, ok := a[0].(*Dict)
	return ok, nil
}

// testNumber includes bools, as isinstance(v, numbers.Number) does.
func testNumber(r *renderer, a []Value) (bool, error) { return isNumber(a[0]), nil }

// testSequence: len() and __getitem__ both work. Undefined has both.
func testSequence(r *renderer, a []Value) (bool, error) {
	switch a[0].(type) {
	case string, Markup, *List, Tuple, *Dict, Undefined:
		return true, nil
	}
	return false, nil
}

// testIterable: iter() works. The loop object iterates; a namespace does not.
// Generators are answered without draining them.
func testIterable(r *renderer, a []Value) (bool, error) {
	switch a[0].(type) {
	case *Generator, *LoopInfo:
		return true, nil
	}
	_, err := iterate(a[0])
	return err == nil, nil
}

// testCallable is callable(): functions and bound methods, macros, the loop
// (for recursive loops), joiners, and Undefined, whose __call__ raises. It
// must agree with what renderer.call accepts.
func testCallable(r *renderer, a []Value) (bool, error) {
	switch a[0].(type) {
	case Func, *boundMethod, *Macro, *LoopInfo, *Joiner, Undefined:
		return true, nil
	}
	return false, nil
}

// testSameas is Python's `is`. Identity of immutable values depends on
// CPython's caching: None, bools, small ints and one-character Latin-1 strings
// are shared; other numbers and strings from different places are not.
func testSameas(r *renderer, a []Value) (bool, error) {
	switch x := a[0].(type) {
	case nil, bool:
		return a[0] == a[1], nil
	case int:
		y, ok := a[1].(int)
		return ok && x == y && x >= -5 && x <= 256, nil
	case string:
		y, ok := a[1].(string)
		rs := []rune(x)
		return ok && x == y && (len(rs) == 0 || (len(rs) == 1 && rs[0] < 0x100)), nil
	case *List, *Dict, *Generator, *Namespace, *LoopInfo, *Macro, *Cycler, *Joiner:
		return a[0] == a[1], nil
	case Tuple:
		y, ok := a[1].(Tuple)
		return ok && len(x) == 0 && len(y) == 0, nil
	case float64:
		return false, nil
	}
	return false, nil
}

// testEscaped: the value has __html__, i.e. it is Markup.
func testEscaped(r *renderer, a []Value) (bool, error) {
	_, ok := a[0].(Markup)
	return ok, nil
}

// testIn is value in seq. Undefined is an empty container here, as Jinja2's
// Undefined iterates as empty.
func testIn(r *renderer, a []Value) (bool, error) {
	if _, ok := a[1].(Undefined); ok {
		return false, nil
	}
	return contains(a[1], a[0])
}
