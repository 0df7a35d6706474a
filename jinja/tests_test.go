package jinja

import "testing"

// TestTests checks every builtin test against Jinja2 3.1.6. Each want was
// produced by Python with the oracle's environment:
//
//	repr(env.call_test(name, value, args, {}, context=ctx))
//
// or 'ERR <exception class>: <message>'.
func TestTests(t *testing.T) {
	cases := []struct {
		name  string
		value Value
		args  []Value
		want  string
	}{
		{"odd", 3, []Value{}, "True"},
		{"odd", 3.0, []Value{}, "True"},
		{"odd", -3, []Value{}, "True"},
		{"odd", true, []Value{}, "True"},
		{"odd", "%d", []Value{}, "False"},
		{"odd", "a", []Value{}, "ERR TypeError: not all arguments converted during string formatting"},
		{"odd", undef, []Value{}, "ERR UndefinedError: 'x' is undefined"},
		{"odd", nil, []Value{}, "ERR TypeError: unsupported operand type(s) for %: 'NoneType' and 'int'"},
		{"odd", NewList([]Value{1}), []Value{}, "ERR TypeError: unsupported operand type(s) for %: 'list' and 'int'"},
		{"odd", 1, []Value{2}, "ERR TypeError: test_odd() takes 1 positional argument but 2 were given"},
		{"even", 4, []Value{}, "True"},
		{"even", 3, []Value{}, "False"},
		{"even", -2.0, []Value{}, "True"},
		{"divisibleby", 6, []Value{3}, "True"},
		{"divisibleby", 6, []Value{4}, "False"},
		{"divisibleby", 6.0, []Value{3}, "True"},
		{"divisibleby", 6, []Value{2.5}, "False"},
		{"divisibleby", -6, []Value{-4}, "False"},
		{"divisibleby", 6, []Value{0}, "ERR ZeroDivisionError: integer modulo by zero"},
		{"divisibleby", 6, []Value{0.0}, "ERR ZeroDivisionError: float modulo"},
		{"divisibleby", 6, []Value{nil}, "ERR TypeError: unsupported operand type(s) for %: 'int' and 'NoneType'"},
		{"divisibleby", 6, []Value{undef}, "ERR UndefinedError: 'x' is undefined"},
		{"divisibleby", 1, []Value{}, "ERR TypeError: test_divisibleby() missing 1 required positional argument: 'num'"},
		{"defined", undef, []Value{}, "False"},
		{"defined", nil, []Value{}, "True"},
		{"undefined", undef, []Value{}, "True"},
		{"undefined", 0, []Value{}, "False"},
		{"defined", 1, []Value{2}, "ERR TypeError: test_defined() takes 1 positional argument but 2 were given"},
		{"filter", "upper", []Value{}, "True"},
		{"filter", "nope", []Value{}, "False"},
		{"filter", 1, []Value{}, "False"},
		{"filter", undef, []Value{}, "False"},
		{"filter", NewList([]Value{}), []Value{}, "ERR TypeError: unhashable type: 'list'"},
		{"test", "odd", []Value{}, "True"},
		{"test", "upper", []Value{}, "True"},
		{"none", nil, []Value{}, "True"},
		{"none", undef, []Value{}, "False"},
		{"boolean", true, []Value{}, "True"},
		{"boolean", 1, []Value{}, "False"},
		{"false", false, []Value{}, "True"},
		{"false", 0, []Value{}, "False"},
		{"true", true, []Value{}, "True"},
		{"true", 1, []Value{}, "False"},
		{"integer", 1, []Value{}, "True"},
		{"integer", true, []Value{}, "False"},
		{"integer", 1.0, []Value{}, "False"},
		{"float", 1.0, []Value{}, "True"},
		{"float", 1, []Value{}, "False"},
		{"lower", "abc", []Value{}, "True"},
		{"lower", "1", []Value{}, "False"},
		{"lower", undef, []Value{}, "False"},
		{"lower", nil, []Value{}, "False"},
		{"lower", NewList([]Value{"a"}), []Value{}, "True"},
		{"lower", "ª", []Value{}, "True"},
		{"upper", "ABC", []Value{}, "True"},
		{"upper", "ǅ", []Value{}, "False"},
		{"upper", nil, []Value{}, "False"},
		{"upper", "A1", []Value{}, "True"},
		{"string", "a", []Value{}, "True"},
		{"string", Markup("a"), []Value{}, "True"},
		{"string", undef, []Value{}, "False"},
		{"string", 1, []Value{}, "False"},
		{"mapping", mkDict(), []Value{}, "True"},
		{"mapping", NewList([]Value{}), []Value{}, "False"},
		{"number", 1, []Value{}, "True"},
		{"number", true, []Value{}, "True"},
		{"number", 1.5, []Value{}, "True"},
		{"number", "1", []Value{}, "False"},
		{"number", undef, []Value{}, "False"},
		{"sequence", "abc", []Value{}, "True"},
		{"sequence", mkDict(), []Value{}, "True"},
		{"sequence", undef, []Value{}, "True"},
		{"sequence", 1, []Value{}, "False"},
		{"sequence", Tuple{1}, []Value{}, "True"},
		{"iterable", nil, []Value{}, "False"},
		{"iterable", undef, []Value{}, "True"},
		{"iterable", "a", []Value{}, "True"},
		{"iterable", 1, []Value{}, "False"},
		{"callable", "a", []Value{}, "False"},
		{"callable", undef, []Value{}, "True"},
		{"callable", 1, []Value{2}, "ERR TypeError: callable() takes exactly one argument (2 given)"},
		{"sameas", nil, []Value{nil}, "True"},
		{"sameas", 1, []Value{1}, "True"},
		{"sameas", true, []Value{true}, "True"},
		{"sameas", "a", []Value{"a"}, "True"},
		{"sameas", NewList([]Value{}), []Value{NewList([]Value{})}, "False"},
		{"escaped", "a", []Value{}, "False"},
		{"escaped", Markup("a"), []Value{}, "True"},
		{"escaped", undef, []Value{}, "False"},
		{"in", "a", []Value{"abc"}, "True"},
		{"in", 1, []Value{NewList([]Value{1})}, "True"},
		{"in", 1, []Value{mkDict(1, 2)}, "True"},
		{"in", undef, []Value{NewList([]Value{1})}, "False"},
		{"in", 1, []Value{undef}, "False"},
		{"in", 1, []Value{1}, "ERR TypeError: argument of type 'int' is not iterable"},
		{"in", undef, []Value{"abc"}, "ERR TypeError: 'in <string>' requires string as left operand, not Undefined"},
		{"in", 1, []Value{}, "ERR TypeError: test_in() missing 1 required positional argument: 'seq'"},
		{"eq", 1, []Value{1.0}, "True"},
		{"==", "a", []Value{"a"}, "True"},
		{"equalto", undef, []Value{1}, "False"},
		{"ne", 1, []Value{2}, "True"},
		{"!=", undef, []Value{1}, "True"},
		{"lt", 1, []Value{2}, "True"},
		{"<", 1, []Value{"a"}, "ERR TypeError: '<' not supported between instances of 'int' and 'str'"},
		{"lessthan", undef, []Value{1}, "ERR UndefinedError: 'x' is undefined"},
		{"gt", "a", []Value{"b"}, "False"},
		{">", 2, []Value{1}, "True"},
		{"greaterthan", 1, []Value{0}, "True"},
		{"ge", 1, []Value{1}, "True"},
		{">=", NewList([]Value{1}), []Value{NewList([]Value{1, 0})}, "False"},
		{"le", 1, []Value{0}, "False"},
		{"<=", 1.5, []Value{2}, "True"},
		{"eq", 1, []Value{}, "ERR TypeError: eq expected 2 arguments, got 1"},
		{"eq", 1, []Value{1, 2}, "ERR TypeError: eq expected 2 arguments, got 3"},
	}
	for _, c := range cases {
		f, ok := builtinTests[c.name]
		if !ok {
			t.Errorf("test %s not registered", c.name)
			continue
		}
		ok, err := f(&renderer{}, c.value, c.args)
		got := show(ok, err)
		if got != c.want {
			t.Errorf("%s is %s %s: got %s, want %s", repr(c.value), c.name, repr(NewList(c.args)), got, c.want)
		}
	}
}

// TestTestByName covers keyword arguments, which only select and reject pass.
func TestTestByName(t *testing.T) {
	cases := []struct {
		name   string
		value  Value
		args   []Value
		kwargs *Dict
		want   string
	}{
		// [6]|select('divisibleby', num=3)|list -> [6]
		{"divisibleby", 6, nil, mkDict("num", 3), "True"},
		// [1]|select('eq', b=1)|list
		{"eq", 1, nil, mkDict("b", 1), "ERR TypeError: _operator.eq() takes no keyword arguments"},
		// [1]|select('callable', b=1)|list
		{"callable", 1, nil, mkDict("b", 1), "ERR TypeError: callable() takes no keyword arguments"},
		// [1]|select('in', seq=[1, 3])|list -> [1]
		{"in", 1, nil, mkDict("seq", NewList([]Value{1, 3})), "True"},
		// [1]|select('odd', x=1)|list
		{"odd", 1, nil, mkDict("x", 1), "ERR TypeError: test_odd() got an unexpected keyword argument 'x'"},
		// [1]|select('nope')|list
		{"nope", 1, nil, nil, "ERR TemplateRuntimeError: No test named 'nope'."},
	}
	for _, c := range cases {
		ok, err := testByName(&renderer{}, c.name, c.value, c.args, c.kwargs)
		if got := show(ok, err); got != c.want {
			t.Errorf("%s is %s: got %s, want %s", repr(c.value), c.name, got, c.want)
		}
	}
}

// TestTestsDoNotAllocate: binding a test's arguments allocates nothing, so the
// common tests cost no garbage.
func TestTestsDoNotAllocate(t *testing.T) {
	d := mkDict("a", 1)
	for _, c := range []struct {
		name string
		v    Value
		args []Value
	}{
		{"defined", "x", nil}, {"undefined", Undefined{}, nil}, {"string", "x", nil}, {"none", nil, nil},
		{"mapping", d, nil}, {"number", 1.5, nil}, {"sequence", d, nil}, {"boolean", true, nil},
		{"integer", 3, nil}, {"float", 2.5, nil}, {"true", true, nil}, {"false", false, nil},
		{"escaped", Markup("x"), nil}, {"callable", d, nil}, {"iterable", d, nil},
		{"eq", "a", []Value{"a"}}, {"ne", 1, []Value{2}}, {"lt", 1, []Value{2}}, {">=", 2.5, []Value{2}},
		{"in", "a", []Value{NewList([]Value{"b", "a"})}}, {"sameas", nil, []Value{nil}}, {"odd", 3, nil}, {"divisibleby", 9, []Value{3}},
	} {
		fn := builtinTests[c.name]
		if _, err := fn(nil, c.v, c.args); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = fn(nil, c.v, c.args) }); n != 0 {
			t.Errorf("%s: %v allocations per call", c.name, n)
		}
	}
}
