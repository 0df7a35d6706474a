package jinja

import (
	"math"
	"strings"
	"testing"
)

// The expected values below were produced by Python 3.11 with Jinja2 3.1.6
// and MarkupSafe 3.0.3 (str.format and format_map through
// ImmutableSandboxedEnvironment.getattr, as templates reach them); the comment
// above each case is the Python expression. want is repr() of the result, or
// "ExceptionType: message".

type methodCase struct {
	recv   Value
	name   string
	args   []Value
	kwargs *Dict
	want   string
	after  string // repr of the receiver after the call, for the mutating ones
}

type formatSpecCase struct {
	v    Value
	spec string
	want string // format(v, spec), or "ERR ExceptionType: message"
}

func mtDict(kv ...Value) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		if err := d.Set(kv[i], kv[i+1]); err != nil {
			panic(err)
		}
	}
	return d
}

func mtRepr(v Value) string { return repr(v) }

func mtErr(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Kind + ": " + e.Message
	}
	return err.Error()
}

func mtCall(recv Value, name string, args []Value, kwargs *Dict) string {
	fn, ok := methodOf(recv, name)
	if !ok {
		return "no such method"
	}
	v, err := fn(nil, args, kwargs)
	if err != nil {
		return mtErr(err)
	}
	return mtRepr(v)
}

func TestMethods(t *testing.T) {
	for _, c := range methodCases {
		recv := c.recv
		if l, ok := recv.(*List); ok { // the table is shared; pop mutates
			recv = NewList(append([]Value(nil), l.Items...))
		}
		got := mtCall(recv, c.name, c.args, c.kwargs)
		if got != c.want {
			kw := "{}"
			if c.kwargs != nil {
				kw = repr(c.kwargs)
			}
			t.Errorf("%s.%s(*%s, **%s) = %s, want %s", repr(c.recv), c.name, repr(NewList(c.args)), kw, got, c.want)
		}
		if c.after != "" && mtRepr(recv) != c.after {
			t.Errorf("%s.%s(%s): receiver is %s after, want %s", repr(c.recv), c.name, repr(NewList(c.args)), mtRepr(recv), c.after)
		}
	}
}

func TestFormatSpec(t *testing.T) {
	for _, c := range formatSpecCases {
		got, err := formatSpec(c.v, c.spec)
		if err != nil {
			got = "ERR " + mtErr(err)
		}
		if got != c.want {
			t.Errorf("format(%s, %q) = %q, want %q", repr(c.v), c.spec, got, c.want)
		}
	}
}

func TestMethodOfAttributes(t *testing.T) {
	ns := &Namespace{attrs: mtDict("_hidden", 1, "shown", 2)}
	cases := []struct {
		obj  Value
		name string
		ok   bool
	}{
		{"abc", "upper", true},
		{"abc", "__len__", true}, // exists: the sandbox calls it unsafe
		{"abc", "__nope__", false},
		{"abc", "_x", false},
		{"abc", "encode", false}, // bytes: not supported
		{"abc", "striptags", false},
		{Markup("a"), "striptags", true},
		{Markup("a"), "__html__", true},
		{NewList(nil), "pop", true},
		{NewList(nil), "append", false}, // refused by the sandbox before methodOf is asked
		{Tuple{}, "pop", false},
		{mtDict(), "items", true},
		{mtDict(), "update", false},
		{mtDict(), "__class__", true},
		{5, "bit_length", true},
		{5, "real", false}, // a data attribute: numberAttr
		{5, "__index__", true},
		{1.5, "__index__", false},
		{true, "__and__", true},
		{nil, "__bool__", true},
		{nil, "upper", false},
		{Undefined{}, "__class__", false},
		{ns, "__class__", true},
		{ns, "_hidden", true},
		{ns, "_missing", false},
		{&dictView{kind: 'k', d: mtDict()}, "__and__", true},
		{&dictView{kind: 'v', d: mtDict()}, "__and__", false},
	}
	for _, c := range cases {
		f, ok := methodOf(c.obj, c.name)
		if ok != c.ok {
			t.Errorf("methodOf(%s, %q) ok = %v, want %v", repr(c.obj), c.name, ok, c.ok)
		}
		if ok && c.name[0] == '_' {
			if _, err := f(nil, nil, nil); err == nil || err.(*Error).Kind != "SecurityError" {
				t.Errorf("calling %s.%s: err = %v, want SecurityError", repr(c.obj), c.name, err)
			}
		}
	}
	for _, c := range []struct {
		obj  Value
		name string
		want string
	}{
		{5, "real", "5"}, {true, "numerator", "1"}, {-3, "imag", "0"}, {7, "denominator", "1"},
		{2.5, "real", "2.5"}, {2.5, "imag", "0.0"}, {2.5, "numerator", "<none>"}, {"a", "real", "<none>"},
	} {
		got := "<none>"
		if v, ok := numberAttr(c.obj, c.name); ok {
			got = repr(v)
		}
		if got != c.want {
			t.Errorf("numberAttr(%s, %q) = %s, want %s", repr(c.obj), c.name, got, c.want)
		}
	}
}

func TestListPopMutatesEveryHolder(t *testing.T) {
	l := NewList([]Value{1, 2, 3})
	holder := mtDict("xs", l)
	if got := mtCall(l, "pop", []Value{0}, nil); got != "1" {
		t.Fatalf("pop(0) = %s", got)
	}
	xs, _ := holder.GetStr("xs")
	if got := repr(xs); got != "[2, 3]" {
		t.Errorf("holder sees %s after pop, want [2, 3]", got)
	}
	if got := mtCall(l, "clear", nil, nil); got != "None" || repr(xs) != "[]" {
		t.Errorf("clear() = %s, holder sees %s", got, repr(xs))
	}
}

func TestDictView(t *testing.T) {
	d := mtDict("a", 1, "b", NewList([]Value{2}), 3, nil)
	keys := &dictView{kind: 'k', d: d}
	vals := &dictView{kind: 'v', d: d}
	items := &dictView{kind: 'i', d: d}
	for _, c := range []struct{ got, want string }{
		{mtRepr(keys), "dict_keys(['a', 'b', 3])"},
		{mtRepr(vals), "dict_values([1, [2], None])"},
		{mtRepr(items), "dict_items([('a', 1), ('b', [2]), (3, None)])"},
		{items.typeName() + keys.typeName() + vals.typeName(), "dict_itemsdict_keysdict_values"},
		{repr(NewList(items.items())), "[('a', 1), ('b', [2]), (3, None)]"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	// The view is live: a key added later shows.
	d.SetStr("z", 0)
	if got := mtRepr(keys); got != "dict_keys(['a', 'b', 3, 'z'])" {
		t.Errorf("live view: %s", got)
	}
	contains := []struct {
		view   *dictView
		needle Value
		want   string
	}{
		{keys, "a", "true"}, {keys, 3.0, "true"}, {keys, "q", "false"}, {keys, Undefined{}, "false"},
		{keys, NewList(nil), "TypeError: unhashable type: 'list'"},
		{items, Tuple{"a", 1}, "true"}, {items, Tuple{"a", 2}, "false"}, {items, Tuple{"b", NewList([]Value{2})}, "true"},
		{items, "a", "false"}, {items, Tuple{NewList(nil), 1}, "TypeError: unhashable type: 'list'"},
		{vals, NewList([]Value{2}), "true"}, {vals, nil, "true"}, {vals, 5, "false"},
	}
	for _, c := range contains {
		in, err := c.view.contains(c.needle)
		got := map[bool]string{true: "true", false: "false"}[in]
		if err != nil {
			got = mtErr(err)
		}
		if got != c.want {
			t.Errorf("%s in %s = %s, want %s", repr(c.needle), mtRepr(c.view), got, c.want)
		}
	}
	other := mtDict("z", 0, 3, nil, "b", NewList([]Value{2}), "a", 1)
	if !keys.equal(&dictView{kind: 'k', d: other}) || !items.equal(&dictView{kind: 'i', d: other}) {
		t.Error("keys and items views of equal dicts should compare equal, in any order")
	}
	if vals.equal(&dictView{kind: 'v', d: d}) || !vals.equal(vals) {
		t.Error("a values view equals only itself")
	}
	if keys.equal(items) {
		t.Error("keys == items only when the elements match")
	}
	empty := mtDict()
	if !(&dictView{kind: 'k', d: empty}).equal(&dictView{kind: 'i', d: empty}) {
		t.Error("{}.keys() == {}.items() is True in Python")
	}
}

// TestStrFormatLookups checks that str.format reaches into its arguments with
// the sandbox's getattr and getitem: a missing key is an Undefined, which
// prints as "" (Python: '{0[x]}'.format({}) == ” in the sandbox).
func TestStrFormatLookups(t *testing.T) {
	msg := mtDict("role", "user", "tool_calls", NewList([]Value{mtDict("function", mtDict("name", "f"))}))
	for _, c := range []struct {
		format string
		args   []Value
		want   string
	}{
		{"{0.role}|{0[role]}|{0[tool_calls][0][function][name]}|{0.tool_calls[0].function.name}", []Value{msg}, "'user|user|f|f'"},
		{"{0[missing]}|{0.missing}|{0[tool_calls][5]}", []Value{msg}, "'||'"},
		{"{0[missing]:>3}", []Value{msg}, "TypeError: unsupported format string passed to Undefined.__format__"},
		{"{0[0]}", []Value{mtDict("0", "str key")}, "''"},
		{"{0[0]}", []Value{mtDict(0, "int key")}, "'int key'"},
		{"{0.x}", []Value{Undefined{Hint: "'u' is undefined"}}, "UndefinedError: 'u' is undefined"},
	} {
		if got := mtCall(c.format, "format", c.args, nil); got != c.want {
			t.Errorf("%q.format(%s) = %s, want %s", c.format, repr(NewList(c.args)), got, c.want)
		}
	}
}

func TestMethodLimits(t *testing.T) {
	for _, c := range []struct {
		recv Value
		name string
		args []Value
	}{
		{"x", "center", []Value{1 << 40}},
		{"x", "zfill", []Value{1 << 40}},
		{"{:>1099511627776}", "format", []Value{1}},
		{"a\tb", "expandtabs", []Value{1 << 40}},
	} {
		if got := mtCall(c.recv, c.name, c.args, nil); !strings.HasPrefix(got, "LimitError: ") {
			t.Errorf("%s.%s(%s) = %.60s, want a LimitError", repr(c.recv), c.name, repr(NewList(c.args)), got)
		}
	}
}

var _ = math.NaN // the generated tables use math for inf and nan

var methodCases = []methodCase{
	// 'hello wORLD'.upper()
	{recv: "hello wORLD", name: "upper", want: "'HELLO WORLD'"},
	// 'hello wORLD'.lower()
	{recv: "hello wORLD", name: "lower", want: "'hello world'"},
	// 'hello wORLD'.title()
	{recv: "hello wORLD", name: "title", want: "'Hello World'"},
	// 'hello wORLD'.capitalize()
	{recv: "hello wORLD", name: "capitalize", want: "'Hello world'"},
	// 'hello wORLD'.casefold()
	{recv: "hello wORLD", name: "casefold", want: "'hello world'"},
	// 'hello wORLD'.swapcase()
	{recv: "hello wORLD", name: "swapcase", want: "'HELLO World'"},
	// 'straße'.upper()
	{recv: "straße", name: "upper", want: "'STRASSE'"},
	// 'straße'.lower()
	{recv: "straße", name: "lower", want: "'straße'"},
	// 'straße'.title()
	{recv: "straße", name: "title", want: "'Straße'"},
	// 'straße'.capitalize()
	{recv: "straße", name: "capitalize", want: "'Straße'"},
	// 'straße'.casefold()
	{recv: "straße", name: "casefold", want: "'strasse'"},
	// 'straße'.swapcase()
	{recv: "straße", name: "swapcase", want: "'STRASSE'"},
	// 'ﬁne'.upper()
	{recv: "ﬁne", name: "upper", want: "'FINE'"},
	// 'ﬁne'.lower()
	{recv: "ﬁne", name: "lower", want: "'ﬁne'"},
	// 'ﬁne'.title()
	{recv: "ﬁne", name: "title", want: "'Fine'"},
	// 'ﬁne'.capitalize()
	{recv: "ﬁne", name: "capitalize", want: "'Fine'"},
	// 'ﬁne'.casefold()
	{recv: "ﬁne", name: "casefold", want: "'fine'"},
	// 'ﬁne'.swapcase()
	{recv: "ﬁne", name: "swapcase", want: "'FINE'"},
	// 'İstanbul'.upper()
	{recv: "İstanbul", name: "upper", want: "'İSTANBUL'"},
	// 'İstanbul'.lower()
	{recv: "İstanbul", name: "lower", want: "'i\u0307stanbul'"},
	// 'İstanbul'.title()
	{recv: "İstanbul", name: "title", want: "'İstanbul'"},
	// 'İstanbul'.capitalize()
	{recv: "İstanbul", name: "capitalize", want: "'İstanbul'"},
	// 'İstanbul'.casefold()
	{recv: "İstanbul", name: "casefold", want: "'i\u0307stanbul'"},
	// 'İstanbul'.swapcase()
	{recv: "İstanbul", name: "swapcase", want: "'i\u0307STANBUL'"},
	// 'ΌΣΟΣ ΣΑΣ'.upper()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "upper", want: "'ΌΣΟΣ ΣΑΣ'"},
	// 'ΌΣΟΣ ΣΑΣ'.lower()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "lower", want: "'όσος σας'"},
	// 'ΌΣΟΣ ΣΑΣ'.title()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "title", want: "'Όσος Σας'"},
	// 'ΌΣΟΣ ΣΑΣ'.capitalize()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "capitalize", want: "'Όσος σας'"},
	// 'ΌΣΟΣ ΣΑΣ'.casefold()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "casefold", want: "'όσοσ σασ'"},
	// 'ΌΣΟΣ ΣΑΣ'.swapcase()
	{recv: "ΌΣΟΣ ΣΑΣ", name: "swapcase", want: "'όσος σας'"},
	// 'ΑΣ.Σ'.upper()
	{recv: "ΑΣ.Σ", name: "upper", want: "'ΑΣ.Σ'"},
	// 'ΑΣ.Σ'.lower()
	{recv: "ΑΣ.Σ", name: "lower", want: "'ασ.ς'"},
	// 'ΑΣ.Σ'.title()
	{recv: "ΑΣ.Σ", name: "title", want: "'Ασ.Σ'"},
	// 'ΑΣ.Σ'.capitalize()
	{recv: "ΑΣ.Σ", name: "capitalize", want: "'Ασ.ς'"},
	// 'ΑΣ.Σ'.casefold()
	{recv: "ΑΣ.Σ", name: "casefold", want: "'ασ.σ'"},
	// 'ΑΣ.Σ'.swapcase()
	{recv: "ΑΣ.Σ", name: "swapcase", want: "'ασ.ς'"},
	// 'ǆemal ǅ'.upper()
	{recv: "ǆemal ǅ", name: "upper", want: "'ǄEMAL Ǆ'"},
	// 'ǆemal ǅ'.lower()
	{recv: "ǆemal ǅ", name: "lower", want: "'ǆemal ǆ'"},
	// 'ǆemal ǅ'.title()
	{recv: "ǆemal ǅ", name: "title", want: "'ǅemal ǅ'"},
	// 'ǆemal ǅ'.capitalize()
	{recv: "ǆemal ǅ", name: "capitalize", want: "'ǅemal ǆ'"},
	// 'ǆemal ǅ'.casefold()
	{recv: "ǆemal ǅ", name: "casefold", want: "'ǆemal ǆ'"},
	// 'ǆemal ǅ'.swapcase()
	{recv: "ǆemal ǅ", name: "swapcase", want: "'ǄEMAL ǅ'"},
	// 'ŉ'.upper()
	{recv: "ŉ", name: "upper", want: "'ʼN'"},
	// 'ŉ'.lower()
	{recv: "ŉ", name: "lower", want: "'ŉ'"},
	// 'ŉ'.title()
	{recv: "ŉ", name: "title", want: "'ʼN'"},
	// 'ŉ'.capitalize()
	{recv: "ŉ", name: "capitalize", want: "'ʼN'"},
	// 'ŉ'.casefold()
	{recv: "ŉ", name: "casefold", want: "'ʼn'"},
	// 'ŉ'.swapcase()
	{recv: "ŉ", name: "swapcase", want: "'ʼN'"},
	// 'ꭰᏸ'.upper()
	{recv: "ꭰᏸ", name: "upper", want: "'ᎠᏰ'"},
	// 'ꭰᏸ'.lower()
	{recv: "ꭰᏸ", name: "lower", want: "'ꭰᏸ'"},
	// 'ꭰᏸ'.title()
	{recv: "ꭰᏸ", name: "title", want: "'Ꭰᏸ'"},
	// 'ꭰᏸ'.capitalize()
	{recv: "ꭰᏸ", name: "capitalize", want: "'Ꭰᏸ'"},
	// 'ꭰᏸ'.casefold()
	{recv: "ꭰᏸ", name: "casefold", want: "'ᎠᏰ'"},
	// 'ꭰᏸ'.swapcase()
	{recv: "ꭰᏸ", name: "swapcase", want: "'ᎠᏰ'"},
	// 'éÉ'.upper()
	{recv: "éÉ", name: "upper", want: "'ÉÉ'"},
	// 'éÉ'.lower()
	{recv: "éÉ", name: "lower", want: "'éé'"},
	// 'éÉ'.title()
	{recv: "éÉ", name: "title", want: "'Éé'"},
	// 'éÉ'.capitalize()
	{recv: "éÉ", name: "capitalize", want: "'Éé'"},
	// 'éÉ'.casefold()
	{recv: "éÉ", name: "casefold", want: "'éé'"},
	// 'éÉ'.swapcase()
	{recv: "éÉ", name: "swapcase", want: "'Éé'"},
	// '日本'.upper()
	{recv: "日本", name: "upper", want: "'日本'"},
	// '日本'.lower()
	{recv: "日本", name: "lower", want: "'日本'"},
	// '日本'.title()
	{recv: "日本", name: "title", want: "'日本'"},
	// '日本'.capitalize()
	{recv: "日本", name: "capitalize", want: "'日本'"},
	// '日本'.casefold()
	{recv: "日本", name: "casefold", want: "'日本'"},
	// '日本'.swapcase()
	{recv: "日本", name: "swapcase", want: "'日本'"},
	// 'a😀b'.upper()
	{recv: "a😀b", name: "upper", want: "'A😀B'"},
	// 'a😀b'.lower()
	{recv: "a😀b", name: "lower", want: "'a😀b'"},
	// 'a😀b'.title()
	{recv: "a😀b", name: "title", want: "'A😀B'"},
	// 'a😀b'.capitalize()
	{recv: "a😀b", name: "capitalize", want: "'A😀b'"},
	// 'a😀b'.casefold()
	{recv: "a😀b", name: "casefold", want: "'a😀b'"},
	// 'a😀b'.swapcase()
	{recv: "a😀b", name: "swapcase", want: "'A😀B'"},
	// "they're bill's".upper()
	{recv: "they're bill's", name: "upper", want: "\"THEY'RE BILL'S\""},
	// "they're bill's".lower()
	{recv: "they're bill's", name: "lower", want: "\"they're bill's\""},
	// "they're bill's".title()
	{recv: "they're bill's", name: "title", want: "\"They'Re Bill'S\""},
	// "they're bill's".capitalize()
	{recv: "they're bill's", name: "capitalize", want: "\"They're bill's\""},
	// "they're bill's".casefold()
	{recv: "they're bill's", name: "casefold", want: "\"they're bill's\""},
	// "they're bill's".swapcase()
	{recv: "they're bill's", name: "swapcase", want: "\"THEY'RE BILL'S\""},
	// '3rd-class'.upper()
	{recv: "3rd-class", name: "upper", want: "'3RD-CLASS'"},
	// '3rd-class'.lower()
	{recv: "3rd-class", name: "lower", want: "'3rd-class'"},
	// '3rd-class'.title()
	{recv: "3rd-class", name: "title", want: "'3Rd-Class'"},
	// '3rd-class'.capitalize()
	{recv: "3rd-class", name: "capitalize", want: "'3rd-class'"},
	// '3rd-class'.casefold()
	{recv: "3rd-class", name: "casefold", want: "'3rd-class'"},
	// '3rd-class'.swapcase()
	{recv: "3rd-class", name: "swapcase", want: "'3RD-CLASS'"},
	// ''.upper()
	{recv: "", name: "upper", want: "''"},
	// ''.lower()
	{recv: "", name: "lower", want: "''"},
	// ''.title()
	{recv: "", name: "title", want: "''"},
	// ''.capitalize()
	{recv: "", name: "capitalize", want: "''"},
	// ''.casefold()
	{recv: "", name: "casefold", want: "''"},
	// ''.swapcase()
	{recv: "", name: "swapcase", want: "''"},
	// 'abc'.islower()
	{recv: "abc", name: "islower", want: "True"},
	// 'abc'.isupper()
	{recv: "abc", name: "isupper", want: "False"},
	// 'abc'.istitle()
	{recv: "abc", name: "istitle", want: "False"},
	// 'Abc'.islower()
	{recv: "Abc", name: "islower", want: "False"},
	// 'Abc'.isupper()
	{recv: "Abc", name: "isupper", want: "False"},
	// 'Abc'.istitle()
	{recv: "Abc", name: "istitle", want: "True"},
	// 'ABC'.islower()
	{recv: "ABC", name: "islower", want: "False"},
	// 'ABC'.isupper()
	{recv: "ABC", name: "isupper", want: "True"},
	// 'ABC'.istitle()
	{recv: "ABC", name: "istitle", want: "False"},
	// 'A1'.islower()
	{recv: "A1", name: "islower", want: "False"},
	// 'A1'.isupper()
	{recv: "A1", name: "isupper", want: "True"},
	// 'A1'.istitle()
	{recv: "A1", name: "istitle", want: "True"},
	// '1'.islower()
	{recv: "1", name: "islower", want: "False"},
	// '1'.isupper()
	{recv: "1", name: "isupper", want: "False"},
	// '1'.istitle()
	{recv: "1", name: "istitle", want: "False"},
	// ''.islower()
	{recv: "", name: "islower", want: "False"},
	// ''.isupper()
	{recv: "", name: "isupper", want: "False"},
	// ''.istitle()
	{recv: "", name: "istitle", want: "False"},
	// ' '.islower()
	{recv: " ", name: "islower", want: "False"},
	// ' '.isupper()
	{recv: " ", name: "isupper", want: "False"},
	// ' '.istitle()
	{recv: " ", name: "istitle", want: "False"},
	// 'ǅ'.islower()
	{recv: "ǅ", name: "islower", want: "False"},
	// 'ǅ'.isupper()
	{recv: "ǅ", name: "isupper", want: "False"},
	// 'ǅ'.istitle()
	{recv: "ǅ", name: "istitle", want: "True"},
	// 'Hello World'.islower()
	{recv: "Hello World", name: "islower", want: "False"},
	// 'Hello World'.isupper()
	{recv: "Hello World", name: "isupper", want: "False"},
	// 'Hello World'.istitle()
	{recv: "Hello World", name: "istitle", want: "True"},
	// 'Hello world'.islower()
	{recv: "Hello world", name: "islower", want: "False"},
	// 'Hello world'.isupper()
	{recv: "Hello world", name: "isupper", want: "False"},
	// 'Hello world'.istitle()
	{recv: "Hello world", name: "istitle", want: "False"},
	// 'ⓐ'.islower()
	{recv: "ⓐ", name: "islower", want: "True"},
	// 'ⓐ'.isupper()
	{recv: "ⓐ", name: "isupper", want: "False"},
	// 'ⓐ'.istitle()
	{recv: "ⓐ", name: "istitle", want: "False"},
	// 'ª'.islower()
	{recv: "ª", name: "islower", want: "True"},
	// 'ª'.isupper()
	{recv: "ª", name: "isupper", want: "False"},
	// 'ª'.istitle()
	{recv: "ª", name: "istitle", want: "False"},
	// 'abc'.isalnum()
	{recv: "abc", name: "isalnum", want: "True"},
	// 'abc'.isalpha()
	{recv: "abc", name: "isalpha", want: "True"},
	// 'abc'.isdigit()
	{recv: "abc", name: "isdigit", want: "False"},
	// 'abc'.isdecimal()
	{recv: "abc", name: "isdecimal", want: "False"},
	// 'abc'.isnumeric()
	{recv: "abc", name: "isnumeric", want: "False"},
	// 'abc'.isspace()
	{recv: "abc", name: "isspace", want: "False"},
	// 'abc'.isidentifier()
	{recv: "abc", name: "isidentifier", want: "True"},
	// 'abc'.isprintable()
	{recv: "abc", name: "isprintable", want: "True"},
	// 'abc'.isascii()
	{recv: "abc", name: "isascii", want: "True"},
	// 'a1'.isalnum()
	{recv: "a1", name: "isalnum", want: "True"},
	// 'a1'.isalpha()
	{recv: "a1", name: "isalpha", want: "False"},
	// 'a1'.isdigit()
	{recv: "a1", name: "isdigit", want: "False"},
	// 'a1'.isdecimal()
	{recv: "a1", name: "isdecimal", want: "False"},
	// 'a1'.isnumeric()
	{recv: "a1", name: "isnumeric", want: "False"},
	// 'a1'.isspace()
	{recv: "a1", name: "isspace", want: "False"},
	// 'a1'.isidentifier()
	{recv: "a1", name: "isidentifier", want: "True"},
	// 'a1'.isprintable()
	{recv: "a1", name: "isprintable", want: "True"},
	// 'a1'.isascii()
	{recv: "a1", name: "isascii", want: "True"},
	// '123'.isalnum()
	{recv: "123", name: "isalnum", want: "True"},
	// '123'.isalpha()
	{recv: "123", name: "isalpha", want: "False"},
	// '123'.isdigit()
	{recv: "123", name: "isdigit", want: "True"},
	// '123'.isdecimal()
	{recv: "123", name: "isdecimal", want: "True"},
	// '123'.isnumeric()
	{recv: "123", name: "isnumeric", want: "True"},
	// '123'.isspace()
	{recv: "123", name: "isspace", want: "False"},
	// '123'.isidentifier()
	{recv: "123", name: "isidentifier", want: "False"},
	// '123'.isprintable()
	{recv: "123", name: "isprintable", want: "True"},
	// '123'.isascii()
	{recv: "123", name: "isascii", want: "True"},
	// '²'.isalnum()
	{recv: "²", name: "isalnum", want: "True"},
	// '²'.isalpha()
	{recv: "²", name: "isalpha", want: "False"},
	// '²'.isdigit()
	{recv: "²", name: "isdigit", want: "True"},
	// '²'.isdecimal()
	{recv: "²", name: "isdecimal", want: "False"},
	// '²'.isnumeric()
	{recv: "²", name: "isnumeric", want: "True"},
	// '²'.isspace()
	{recv: "²", name: "isspace", want: "False"},
	// '²'.isidentifier()
	{recv: "²", name: "isidentifier", want: "False"},
	// '²'.isprintable()
	{recv: "²", name: "isprintable", want: "True"},
	// '²'.isascii()
	{recv: "²", name: "isascii", want: "False"},
	// '٣'.isalnum()
	{recv: "٣", name: "isalnum", want: "True"},
	// '٣'.isalpha()
	{recv: "٣", name: "isalpha", want: "False"},
	// '٣'.isdigit()
	{recv: "٣", name: "isdigit", want: "True"},
	// '٣'.isdecimal()
	{recv: "٣", name: "isdecimal", want: "True"},
	// '٣'.isnumeric()
	{recv: "٣", name: "isnumeric", want: "True"},
	// '٣'.isspace()
	{recv: "٣", name: "isspace", want: "False"},
	// '٣'.isidentifier()
	{recv: "٣", name: "isidentifier", want: "False"},
	// '٣'.isprintable()
	{recv: "٣", name: "isprintable", want: "True"},
	// '٣'.isascii()
	{recv: "٣", name: "isascii", want: "False"},
	// '一二'.isalnum()
	{recv: "一二", name: "isalnum", want: "True"},
	// '一二'.isalpha()
	{recv: "一二", name: "isalpha", want: "True"},
	// '一二'.isdigit()
	{recv: "一二", name: "isdigit", want: "False"},
	// '一二'.isdecimal()
	{recv: "一二", name: "isdecimal", want: "False"},
	// '一二'.isnumeric()
	{recv: "一二", name: "isnumeric", want: "True"},
	// '一二'.isspace()
	{recv: "一二", name: "isspace", want: "False"},
	// '一二'.isidentifier()
	{recv: "一二", name: "isidentifier", want: "True"},
	// '一二'.isprintable()
	{recv: "一二", name: "isprintable", want: "True"},
	// '一二'.isascii()
	{recv: "一二", name: "isascii", want: "False"},
	// 'Ⅻ'.isalnum()
	{recv: "Ⅻ", name: "isalnum", want: "True"},
	// 'Ⅻ'.isalpha()
	{recv: "Ⅻ", name: "isalpha", want: "False"},
	// 'Ⅻ'.isdigit()
	{recv: "Ⅻ", name: "isdigit", want: "False"},
	// 'Ⅻ'.isdecimal()
	{recv: "Ⅻ", name: "isdecimal", want: "False"},
	// 'Ⅻ'.isnumeric()
	{recv: "Ⅻ", name: "isnumeric", want: "True"},
	// 'Ⅻ'.isspace()
	{recv: "Ⅻ", name: "isspace", want: "False"},
	// 'Ⅻ'.isidentifier()
	{recv: "Ⅻ", name: "isidentifier", want: "True"},
	// 'Ⅻ'.isprintable()
	{recv: "Ⅻ", name: "isprintable", want: "True"},
	// 'Ⅻ'.isascii()
	{recv: "Ⅻ", name: "isascii", want: "False"},
	// '½'.isalnum()
	{recv: "½", name: "isalnum", want: "True"},
	// '½'.isalpha()
	{recv: "½", name: "isalpha", want: "False"},
	// '½'.isdigit()
	{recv: "½", name: "isdigit", want: "False"},
	// '½'.isdecimal()
	{recv: "½", name: "isdecimal", want: "False"},
	// '½'.isnumeric()
	{recv: "½", name: "isnumeric", want: "True"},
	// '½'.isspace()
	{recv: "½", name: "isspace", want: "False"},
	// '½'.isidentifier()
	{recv: "½", name: "isidentifier", want: "False"},
	// '½'.isprintable()
	{recv: "½", name: "isprintable", want: "True"},
	// '½'.isascii()
	{recv: "½", name: "isascii", want: "False"},
	// ''.isalnum()
	{recv: "", name: "isalnum", want: "False"},
	// ''.isalpha()
	{recv: "", name: "isalpha", want: "False"},
	// ''.isdigit()
	{recv: "", name: "isdigit", want: "False"},
	// ''.isdecimal()
	{recv: "", name: "isdecimal", want: "False"},
	// ''.isnumeric()
	{recv: "", name: "isnumeric", want: "False"},
	// ''.isspace()
	{recv: "", name: "isspace", want: "False"},
	// ''.isidentifier()
	{recv: "", name: "isidentifier", want: "False"},
	// ''.isprintable()
	{recv: "", name: "isprintable", want: "True"},
	// ''.isascii()
	{recv: "", name: "isascii", want: "True"},
	// ' \t'.isalnum()
	{recv: " \t", name: "isalnum", want: "False"},
	// ' \t'.isalpha()
	{recv: " \t", name: "isalpha", want: "False"},
	// ' \t'.isdigit()
	{recv: " \t", name: "isdigit", want: "False"},
	// ' \t'.isdecimal()
	{recv: " \t", name: "isdecimal", want: "False"},
	// ' \t'.isnumeric()
	{recv: " \t", name: "isnumeric", want: "False"},
	// ' \t'.isspace()
	{recv: " \t", name: "isspace", want: "True"},
	// ' \t'.isidentifier()
	{recv: " \t", name: "isidentifier", want: "False"},
	// ' \t'.isprintable()
	{recv: " \t", name: "isprintable", want: "False"},
	// ' \t'.isascii()
	{recv: " \t", name: "isascii", want: "True"},
	// '\x1c\x1f'.isalnum()
	{recv: "\x1c\x1f", name: "isalnum", want: "False"},
	// '\x1c\x1f'.isalpha()
	{recv: "\x1c\x1f", name: "isalpha", want: "False"},
	// '\x1c\x1f'.isdigit()
	{recv: "\x1c\x1f", name: "isdigit", want: "False"},
	// '\x1c\x1f'.isdecimal()
	{recv: "\x1c\x1f", name: "isdecimal", want: "False"},
	// '\x1c\x1f'.isnumeric()
	{recv: "\x1c\x1f", name: "isnumeric", want: "False"},
	// '\x1c\x1f'.isspace()
	{recv: "\x1c\x1f", name: "isspace", want: "True"},
	// '\x1c\x1f'.isidentifier()
	{recv: "\x1c\x1f", name: "isidentifier", want: "False"},
	// '\x1c\x1f'.isprintable()
	{recv: "\x1c\x1f", name: "isprintable", want: "False"},
	// '\x1c\x1f'.isascii()
	{recv: "\x1c\x1f", name: "isascii", want: "True"},
	// '\x85\xa0\u3000'.isalnum()
	{recv: "\u0085\u00a0\u3000", name: "isalnum", want: "False"},
	// '\x85\xa0\u3000'.isalpha()
	{recv: "\u0085\u00a0\u3000", name: "isalpha", want: "False"},
	// '\x85\xa0\u3000'.isdigit()
	{recv: "\u0085\u00a0\u3000", name: "isdigit", want: "False"},
	// '\x85\xa0\u3000'.isdecimal()
	{recv: "\u0085\u00a0\u3000", name: "isdecimal", want: "False"},
	// '\x85\xa0\u3000'.isnumeric()
	{recv: "\u0085\u00a0\u3000", name: "isnumeric", want: "False"},
	// '\x85\xa0\u3000'.isspace()
	{recv: "\u0085\u00a0\u3000", name: "isspace", want: "True"},
	// '\x85\xa0\u3000'.isidentifier()
	{recv: "\u0085\u00a0\u3000", name: "isidentifier", want: "False"},
	// '\x85\xa0\u3000'.isprintable()
	{recv: "\u0085\u00a0\u3000", name: "isprintable", want: "False"},
	// '\x85\xa0\u3000'.isascii()
	{recv: "\u0085\u00a0\u3000", name: "isascii", want: "False"},
	// '\u200b'.isalnum()
	{recv: "\u200b", name: "isalnum", want: "False"},
	// '\u200b'.isalpha()
	{recv: "\u200b", name: "isalpha", want: "False"},
	// '\u200b'.isdigit()
	{recv: "\u200b", name: "isdigit", want: "False"},
	// '\u200b'.isdecimal()
	{recv: "\u200b", name: "isdecimal", want: "False"},
	// '\u200b'.isnumeric()
	{recv: "\u200b", name: "isnumeric", want: "False"},
	// '\u200b'.isspace()
	{recv: "\u200b", name: "isspace", want: "False"},
	// '\u200b'.isidentifier()
	{recv: "\u200b", name: "isidentifier", want: "False"},
	// '\u200b'.isprintable()
	{recv: "\u200b", name: "isprintable", want: "False"},
	// '\u200b'.isascii()
	{recv: "\u200b", name: "isascii", want: "False"},
	// '_id'.isalnum()
	{recv: "_id", name: "isalnum", want: "False"},
	// '_id'.isalpha()
	{recv: "_id", name: "isalpha", want: "False"},
	// '_id'.isdigit()
	{recv: "_id", name: "isdigit", want: "False"},
	// '_id'.isdecimal()
	{recv: "_id", name: "isdecimal", want: "False"},
	// '_id'.isnumeric()
	{recv: "_id", name: "isnumeric", want: "False"},
	// '_id'.isspace()
	{recv: "_id", name: "isspace", want: "False"},
	// '_id'.isidentifier()
	{recv: "_id", name: "isidentifier", want: "True"},
	// '_id'.isprintable()
	{recv: "_id", name: "isprintable", want: "True"},
	// '_id'.isascii()
	{recv: "_id", name: "isascii", want: "True"},
	// '9id'.isalnum()
	{recv: "9id", name: "isalnum", want: "True"},
	// '9id'.isalpha()
	{recv: "9id", name: "isalpha", want: "False"},
	// '9id'.isdigit()
	{recv: "9id", name: "isdigit", want: "False"},
	// '9id'.isdecimal()
	{recv: "9id", name: "isdecimal", want: "False"},
	// '9id'.isnumeric()
	{recv: "9id", name: "isnumeric", want: "False"},
	// '9id'.isspace()
	{recv: "9id", name: "isspace", want: "False"},
	// '9id'.isidentifier()
	{recv: "9id", name: "isidentifier", want: "False"},
	// '9id'.isprintable()
	{recv: "9id", name: "isprintable", want: "True"},
	// '9id'.isascii()
	{recv: "9id", name: "isascii", want: "True"},
	// 'é'.isalnum()
	{recv: "é", name: "isalnum", want: "True"},
	// 'é'.isalpha()
	{recv: "é", name: "isalpha", want: "True"},
	// 'é'.isdigit()
	{recv: "é", name: "isdigit", want: "False"},
	// 'é'.isdecimal()
	{recv: "é", name: "isdecimal", want: "False"},
	// 'é'.isnumeric()
	{recv: "é", name: "isnumeric", want: "False"},
	// 'é'.isspace()
	{recv: "é", name: "isspace", want: "False"},
	// 'é'.isidentifier()
	{recv: "é", name: "isidentifier", want: "True"},
	// 'é'.isprintable()
	{recv: "é", name: "isprintable", want: "True"},
	// 'é'.isascii()
	{recv: "é", name: "isascii", want: "False"},
	// 'a b'.isalnum()
	{recv: "a b", name: "isalnum", want: "False"},
	// 'a b'.isalpha()
	{recv: "a b", name: "isalpha", want: "False"},
	// 'a b'.isdigit()
	{recv: "a b", name: "isdigit", want: "False"},
	// 'a b'.isdecimal()
	{recv: "a b", name: "isdecimal", want: "False"},
	// 'a b'.isnumeric()
	{recv: "a b", name: "isnumeric", want: "False"},
	// 'a b'.isspace()
	{recv: "a b", name: "isspace", want: "False"},
	// 'a b'.isidentifier()
	{recv: "a b", name: "isidentifier", want: "False"},
	// 'a b'.isprintable()
	{recv: "a b", name: "isprintable", want: "True"},
	// 'a b'.isascii()
	{recv: "a b", name: "isascii", want: "True"},
	// '\x07'.isalnum()
	{recv: "\x07", name: "isalnum", want: "False"},
	// '\x07'.isalpha()
	{recv: "\x07", name: "isalpha", want: "False"},
	// '\x07'.isdigit()
	{recv: "\x07", name: "isdigit", want: "False"},
	// '\x07'.isdecimal()
	{recv: "\x07", name: "isdecimal", want: "False"},
	// '\x07'.isnumeric()
	{recv: "\x07", name: "isnumeric", want: "False"},
	// '\x07'.isspace()
	{recv: "\x07", name: "isspace", want: "False"},
	// '\x07'.isidentifier()
	{recv: "\x07", name: "isidentifier", want: "False"},
	// '\x07'.isprintable()
	{recv: "\x07", name: "isprintable", want: "False"},
	// '\x07'.isascii()
	{recv: "\x07", name: "isascii", want: "True"},
	// 'ab\n'.isalnum()
	{recv: "ab\n", name: "isalnum", want: "False"},
	// 'ab\n'.isalpha()
	{recv: "ab\n", name: "isalpha", want: "False"},
	// 'ab\n'.isdigit()
	{recv: "ab\n", name: "isdigit", want: "False"},
	// 'ab\n'.isdecimal()
	{recv: "ab\n", name: "isdecimal", want: "False"},
	// 'ab\n'.isnumeric()
	{recv: "ab\n", name: "isnumeric", want: "False"},
	// 'ab\n'.isspace()
	{recv: "ab\n", name: "isspace", want: "False"},
	// 'ab\n'.isidentifier()
	{recv: "ab\n", name: "isidentifier", want: "False"},
	// 'ab\n'.isprintable()
	{recv: "ab\n", name: "isprintable", want: "False"},
	// 'ab\n'.isascii()
	{recv: "ab\n", name: "isascii", want: "True"},
	// 'abc'.upper(1)
	{recv: "abc", name: "upper", args: []Value{1}, want: "TypeError: str.upper() takes no arguments (1 given)"},
	// 'abc'.upper(x=1)
	{recv: "abc", name: "upper", kwargs: mtDict("x", 1), want: "TypeError: str.upper() takes no keyword arguments"},
	// 'abc'.isdigit(1)
	{recv: "abc", name: "isdigit", args: []Value{1}, want: "TypeError: str.isdigit() takes no arguments (1 given)"},
	// 'héllo wörld 😀!'.find('l')
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l"}, want: "2"},
	// 'héllo wörld 😀!'.rfind('l')
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l"}, want: "9"},
	// 'héllo wörld 😀!'.count('l')
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l"}, want: "3"},
	// 'héllo wörld 😀!'.find('ö')
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"ö"}, want: "7"},
	// 'héllo wörld 😀!'.rfind('ö')
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"ö"}, want: "7"},
	// 'héllo wörld 😀!'.count('ö')
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"ö"}, want: "1"},
	// 'héllo wörld 😀!'.find('😀')
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"😀"}, want: "12"},
	// 'héllo wörld 😀!'.rfind('😀')
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"😀"}, want: "12"},
	// 'héllo wörld 😀!'.count('😀')
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"😀"}, want: "1"},
	// 'héllo wörld 😀!'.find('l', 4)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l", 4}, want: "9"},
	// 'héllo wörld 😀!'.rfind('l', 4)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l", 4}, want: "9"},
	// 'héllo wörld 😀!'.count('l', 4)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l", 4}, want: "1"},
	// 'héllo wörld 😀!'.find('l', -5)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l", -5}, want: "9"},
	// 'héllo wörld 😀!'.rfind('l', -5)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l", -5}, want: "9"},
	// 'héllo wörld 😀!'.count('l', -5)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l", -5}, want: "1"},
	// 'héllo wörld 😀!'.find('l', 2, 3)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l", 2, 3}, want: "2"},
	// 'héllo wörld 😀!'.rfind('l', 2, 3)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l", 2, 3}, want: "2"},
	// 'héllo wörld 😀!'.count('l', 2, 3)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l", 2, 3}, want: "1"},
	// 'héllo wörld 😀!'.find('l', None, -9)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l", nil, -9}, want: "2"},
	// 'héllo wörld 😀!'.rfind('l', None, -9)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l", nil, -9}, want: "3"},
	// 'héllo wörld 😀!'.count('l', None, -9)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l", nil, -9}, want: "2"},
	// 'héllo wörld 😀!'.find('', 20)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"", 20}, want: "-1"},
	// 'héllo wörld 😀!'.rfind('', 20)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"", 20}, want: "-1"},
	// 'héllo wörld 😀!'.count('', 20)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"", 20}, want: "0"},
	// 'héllo wörld 😀!'.find('', 14)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"", 14}, want: "14"},
	// 'héllo wörld 😀!'.rfind('', 14)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"", 14}, want: "14"},
	// 'héllo wörld 😀!'.count('', 14)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"", 14}, want: "1"},
	// 'héllo wörld 😀!'.find('zz')
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"zz"}, want: "-1"},
	// 'héllo wörld 😀!'.rfind('zz')
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"zz"}, want: "-1"},
	// 'héllo wörld 😀!'.count('zz')
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"zz"}, want: "0"},
	// 'héllo wörld 😀!'.find('l', -100, 100)
	{recv: "héllo wörld 😀!", name: "find", args: []Value{"l", -100, 100}, want: "2"},
	// 'héllo wörld 😀!'.rfind('l', -100, 100)
	{recv: "héllo wörld 😀!", name: "rfind", args: []Value{"l", -100, 100}, want: "9"},
	// 'héllo wörld 😀!'.count('l', -100, 100)
	{recv: "héllo wörld 😀!", name: "count", args: []Value{"l", -100, 100}, want: "3"},
	// 'héllo wörld 😀!'.index('ö')
	{recv: "héllo wörld 😀!", name: "index", args: []Value{"ö"}, want: "7"},
	// 'héllo wörld 😀!'.rindex('l')
	{recv: "héllo wörld 😀!", name: "rindex", args: []Value{"l"}, want: "9"},
	// 'héllo wörld 😀!'.index('z')
	{recv: "héllo wörld 😀!", name: "index", args: []Value{"z"}, want: "ValueError: substring not found"},
	// 'héllo wörld 😀!'.rindex('z', 1)
	{recv: "héllo wörld 😀!", name: "rindex", args: []Value{"z", 1}, want: "ValueError: substring not found"},
	// 'abc'.find(1)
	{recv: "abc", name: "find", args: []Value{1}, want: "TypeError: must be str, not int"},
	// 'abc'.find('b', 'x')
	{recv: "abc", name: "find", args: []Value{"b", "x"}, want: "TypeError: slice indices must be integers or None or have an __index__ method"},
	// 'abc'.find('b', 1.5)
	{recv: "abc", name: "find", args: []Value{"b", 1.5}, want: "TypeError: slice indices must be integers or None or have an __index__ method"},
	// 'abc'.find()
	{recv: "abc", name: "find", want: "TypeError: find() takes at least 1 argument (0 given)"},
	// 'abc'.find('a', 1, 2, 3)
	{recv: "abc", name: "find", args: []Value{"a", 1, 2, 3}, want: "TypeError: find() takes at most 3 arguments (4 given)"},
	// 'abc'.find(sub='a')
	{recv: "abc", name: "find", kwargs: mtDict("sub", "a"), want: "TypeError: find() takes no keyword arguments"},
	// 'abc'.count('')
	{recv: "abc", name: "count", args: []Value{""}, want: "4"},
	// 'abc'.count('', 10)
	{recv: "abc", name: "count", args: []Value{"", 10}, want: "0"},
	// 'aaaa'.count('aa')
	{recv: "aaaa", name: "count", args: []Value{"aa"}, want: "2"},
	// 'héllo wörld 😀!'.startswith('hé')
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{"hé"}, want: "True"},
	// 'héllo wörld 😀!'.startswith(('x', 'hé'))
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{Tuple{"x", "hé"}}, want: "True"},
	// 'héllo wörld 😀!'.startswith('llo', 2)
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{"llo", 2}, want: "True"},
	// 'héllo wörld 😀!'.startswith('é', 1, 2)
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{"é", 1, 2}, want: "True"},
	// 'héllo wörld 😀!'.startswith('', 14)
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{"", 14}, want: "True"},
	// 'héllo wörld 😀!'.startswith('', 15)
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{"", 15}, want: "False"},
	// 'héllo wörld 😀!'.startswith(())
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{Tuple{}}, want: "False"},
	// 'héllo wörld 😀!'.startswith(1)
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{1}, want: "TypeError: startswith first arg must be str or a tuple of str, not int"},
	// 'héllo wörld 😀!'.startswith(['h'])
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{NewList([]Value{"h"})}, want: "TypeError: startswith first arg must be str or a tuple of str, not list"},
	// 'héllo wörld 😀!'.startswith(('x', 1))
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{Tuple{"x", 1}}, want: "TypeError: tuple for startswith must only contain str, not int"},
	// 'héllo wörld 😀!'.startswith(('h', 1))
	{recv: "héllo wörld 😀!", name: "startswith", args: []Value{Tuple{"h", 1}}, want: "True"},
	// 'héllo wörld 😀!'.endswith('!')
	{recv: "héllo wörld 😀!", name: "endswith", args: []Value{"!"}, want: "True"},
	// 'héllo wörld 😀!'.endswith('😀!')
	{recv: "héllo wörld 😀!", name: "endswith", args: []Value{"😀!"}, want: "True"},
	// 'héllo wörld 😀!'.endswith(('x', '!'))
	{recv: "héllo wörld 😀!", name: "endswith", args: []Value{Tuple{"x", "!"}}, want: "True"},
	// 'héllo wörld 😀!'.endswith('d', 0, -3)
	{recv: "héllo wörld 😀!", name: "endswith", args: []Value{"d", 0, -3}, want: "True"},
	// 'héllo wörld 😀!'.endswith('', 15)
	{recv: "héllo wörld 😀!", name: "endswith", args: []Value{"", 15}, want: "False"},
	// 'ab'.center(5)
	{recv: "ab", name: "center", args: []Value{5}, want: "'  ab '"},
	// 'ab'.ljust(5)
	{recv: "ab", name: "ljust", args: []Value{5}, want: "'ab   '"},
	// 'ab'.rjust(5)
	{recv: "ab", name: "rjust", args: []Value{5}, want: "'   ab'"},
	// 'ab'.center(6, '*')
	{recv: "ab", name: "center", args: []Value{6, "*"}, want: "'**ab**'"},
	// 'ab'.ljust(6, '*')
	{recv: "ab", name: "ljust", args: []Value{6, "*"}, want: "'ab****'"},
	// 'ab'.rjust(6, '*')
	{recv: "ab", name: "rjust", args: []Value{6, "*"}, want: "'****ab'"},
	// 'ab'.center(1)
	{recv: "ab", name: "center", args: []Value{1}, want: "'ab'"},
	// 'ab'.ljust(1)
	{recv: "ab", name: "ljust", args: []Value{1}, want: "'ab'"},
	// 'ab'.rjust(1)
	{recv: "ab", name: "rjust", args: []Value{1}, want: "'ab'"},
	// 'ab'.center(-2)
	{recv: "ab", name: "center", args: []Value{-2}, want: "'ab'"},
	// 'ab'.ljust(-2)
	{recv: "ab", name: "ljust", args: []Value{-2}, want: "'ab'"},
	// 'ab'.rjust(-2)
	{recv: "ab", name: "rjust", args: []Value{-2}, want: "'ab'"},
	// 'ab'.center(4, 'é')
	{recv: "ab", name: "center", args: []Value{4, "é"}, want: "'éabé'"},
	// 'ab'.ljust(4, 'é')
	{recv: "ab", name: "ljust", args: []Value{4, "é"}, want: "'abéé'"},
	// 'ab'.rjust(4, 'é')
	{recv: "ab", name: "rjust", args: []Value{4, "é"}, want: "'ééab'"},
	// 'é'.center(5)
	{recv: "é", name: "center", args: []Value{5}, want: "'  é  '"},
	// 'é'.ljust(5)
	{recv: "é", name: "ljust", args: []Value{5}, want: "'é    '"},
	// 'é'.rjust(5)
	{recv: "é", name: "rjust", args: []Value{5}, want: "'    é'"},
	// 'é'.center(6, '*')
	{recv: "é", name: "center", args: []Value{6, "*"}, want: "'**é***'"},
	// 'é'.ljust(6, '*')
	{recv: "é", name: "ljust", args: []Value{6, "*"}, want: "'é*****'"},
	// 'é'.rjust(6, '*')
	{recv: "é", name: "rjust", args: []Value{6, "*"}, want: "'*****é'"},
	// 'é'.center(1)
	{recv: "é", name: "center", args: []Value{1}, want: "'é'"},
	// 'é'.ljust(1)
	{recv: "é", name: "ljust", args: []Value{1}, want: "'é'"},
	// 'é'.rjust(1)
	{recv: "é", name: "rjust", args: []Value{1}, want: "'é'"},
	// 'é'.center(-2)
	{recv: "é", name: "center", args: []Value{-2}, want: "'é'"},
	// 'é'.ljust(-2)
	{recv: "é", name: "ljust", args: []Value{-2}, want: "'é'"},
	// 'é'.rjust(-2)
	{recv: "é", name: "rjust", args: []Value{-2}, want: "'é'"},
	// 'é'.center(4, 'é')
	{recv: "é", name: "center", args: []Value{4, "é"}, want: "'éééé'"},
	// 'é'.ljust(4, 'é')
	{recv: "é", name: "ljust", args: []Value{4, "é"}, want: "'éééé'"},
	// 'é'.rjust(4, 'é')
	{recv: "é", name: "rjust", args: []Value{4, "é"}, want: "'éééé'"},
	// '😀'.center(5)
	{recv: "😀", name: "center", args: []Value{5}, want: "'  😀  '"},
	// '😀'.ljust(5)
	{recv: "😀", name: "ljust", args: []Value{5}, want: "'😀    '"},
	// '😀'.rjust(5)
	{recv: "😀", name: "rjust", args: []Value{5}, want: "'    😀'"},
	// '😀'.center(6, '*')
	{recv: "😀", name: "center", args: []Value{6, "*"}, want: "'**😀***'"},
	// '😀'.ljust(6, '*')
	{recv: "😀", name: "ljust", args: []Value{6, "*"}, want: "'😀*****'"},
	// '😀'.rjust(6, '*')
	{recv: "😀", name: "rjust", args: []Value{6, "*"}, want: "'*****😀'"},
	// '😀'.center(1)
	{recv: "😀", name: "center", args: []Value{1}, want: "'😀'"},
	// '😀'.ljust(1)
	{recv: "😀", name: "ljust", args: []Value{1}, want: "'😀'"},
	// '😀'.rjust(1)
	{recv: "😀", name: "rjust", args: []Value{1}, want: "'😀'"},
	// '😀'.center(-2)
	{recv: "😀", name: "center", args: []Value{-2}, want: "'😀'"},
	// '😀'.ljust(-2)
	{recv: "😀", name: "ljust", args: []Value{-2}, want: "'😀'"},
	// '😀'.rjust(-2)
	{recv: "😀", name: "rjust", args: []Value{-2}, want: "'😀'"},
	// '😀'.center(4, 'é')
	{recv: "😀", name: "center", args: []Value{4, "é"}, want: "'é😀éé'"},
	// '😀'.ljust(4, 'é')
	{recv: "😀", name: "ljust", args: []Value{4, "é"}, want: "'😀ééé'"},
	// '😀'.rjust(4, 'é')
	{recv: "😀", name: "rjust", args: []Value{4, "é"}, want: "'ééé😀'"},
	// ''.center(5)
	{recv: "", name: "center", args: []Value{5}, want: "'     '"},
	// ''.ljust(5)
	{recv: "", name: "ljust", args: []Value{5}, want: "'     '"},
	// ''.rjust(5)
	{recv: "", name: "rjust", args: []Value{5}, want: "'     '"},
	// ''.center(6, '*')
	{recv: "", name: "center", args: []Value{6, "*"}, want: "'******'"},
	// ''.ljust(6, '*')
	{recv: "", name: "ljust", args: []Value{6, "*"}, want: "'******'"},
	// ''.rjust(6, '*')
	{recv: "", name: "rjust", args: []Value{6, "*"}, want: "'******'"},
	// ''.center(1)
	{recv: "", name: "center", args: []Value{1}, want: "' '"},
	// ''.ljust(1)
	{recv: "", name: "ljust", args: []Value{1}, want: "' '"},
	// ''.rjust(1)
	{recv: "", name: "rjust", args: []Value{1}, want: "' '"},
	// ''.center(-2)
	{recv: "", name: "center", args: []Value{-2}, want: "''"},
	// ''.ljust(-2)
	{recv: "", name: "ljust", args: []Value{-2}, want: "''"},
	// ''.rjust(-2)
	{recv: "", name: "rjust", args: []Value{-2}, want: "''"},
	// ''.center(4, 'é')
	{recv: "", name: "center", args: []Value{4, "é"}, want: "'éééé'"},
	// ''.ljust(4, 'é')
	{recv: "", name: "ljust", args: []Value{4, "é"}, want: "'éééé'"},
	// ''.rjust(4, 'é')
	{recv: "", name: "rjust", args: []Value{4, "é"}, want: "'éééé'"},
	// 'a'.center(4)
	{recv: "a", name: "center", args: []Value{4}, want: "' a  '"},
	// 'a'.center(5, '-')
	{recv: "a", name: "center", args: []Value{5, "-"}, want: "'--a--'"},
	// 'ab'.center(5)
	{recv: "ab", name: "center", args: []Value{5}, want: "'  ab '"},
	// 'ab'.center(4, '-')
	{recv: "ab", name: "center", args: []Value{4, "-"}, want: "'-ab-'"},
	// 'x'.center(5, 'ab')
	{recv: "x", name: "center", args: []Value{5, "ab"}, want: "TypeError: The fill character must be exactly one character long"},
	// 'x'.center(5, '')
	{recv: "x", name: "center", args: []Value{5, ""}, want: "TypeError: The fill character must be exactly one character long"},
	// 'x'.center(5, 1)
	{recv: "x", name: "center", args: []Value{5, 1}, want: "TypeError: The fill character must be a unicode character, not int"},
	// 'x'.center('5')
	{recv: "x", name: "center", args: []Value{"5"}, want: "TypeError: 'str' object cannot be interpreted as an integer"},
	// 'x'.center()
	{recv: "x", name: "center", want: "TypeError: center expected at least 1 argument, got 0"},
	// 'x'.ljust(3, fillchar='*')
	{recv: "x", name: "ljust", args: []Value{3}, kwargs: mtDict("fillchar", "*"), want: "TypeError: str.ljust() takes no keyword arguments"},
	// '42'.zfill(5)
	{recv: "42", name: "zfill", args: []Value{5}, want: "'00042'"},
	// '-42'.zfill(5)
	{recv: "-42", name: "zfill", args: []Value{5}, want: "'-0042'"},
	// '+7'.zfill(5)
	{recv: "+7", name: "zfill", args: []Value{5}, want: "'+0007'"},
	// ''.zfill(5)
	{recv: "", name: "zfill", args: []Value{5}, want: "'00000'"},
	// '-'.zfill(5)
	{recv: "-", name: "zfill", args: []Value{5}, want: "'-0000'"},
	// 'é'.zfill(5)
	{recv: "é", name: "zfill", args: []Value{5}, want: "'0000é'"},
	// '1'.zfill('3')
	{recv: "1", name: "zfill", args: []Value{"3"}, want: "TypeError: 'str' object cannot be interpreted as an integer"},
	// ' \t\n x y \r\x0b\x0c'.strip()
	{recv: " \t\n x y \r\x0b\x0c", name: "strip", want: "'x y'"},
	// ' \t\n x y \r\x0b\x0c'.lstrip()
	{recv: " \t\n x y \r\x0b\x0c", name: "lstrip", want: "'x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.rstrip()
	{recv: " \t\n x y \r\x0b\x0c", name: "rstrip", want: "' \\t\\n x y'"},
	// ' \t\n x y \r\x0b\x0c'.strip(None)
	{recv: " \t\n x y \r\x0b\x0c", name: "strip", args: []Value{nil}, want: "'x y'"},
	// ' \t\n x y \r\x0b\x0c'.lstrip(None)
	{recv: " \t\n x y \r\x0b\x0c", name: "lstrip", args: []Value{nil}, want: "'x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.rstrip(None)
	{recv: " \t\n x y \r\x0b\x0c", name: "rstrip", args: []Value{nil}, want: "' \\t\\n x y'"},
	// ' \t\n x y \r\x0b\x0c'.strip('x')
	{recv: " \t\n x y \r\x0b\x0c", name: "strip", args: []Value{"x"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.lstrip('x')
	{recv: " \t\n x y \r\x0b\x0c", name: "lstrip", args: []Value{"x"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.rstrip('x')
	{recv: " \t\n x y \r\x0b\x0c", name: "rstrip", args: []Value{"x"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.strip('é')
	{recv: " \t\n x y \r\x0b\x0c", name: "strip", args: []Value{"é"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.lstrip('é')
	{recv: " \t\n x y \r\x0b\x0c", name: "lstrip", args: []Value{"é"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// ' \t\n x y \r\x0b\x0c'.rstrip('é')
	{recv: " \t\n x y \r\x0b\x0c", name: "rstrip", args: []Value{"é"}, want: "' \\t\\n x y \\r\\x0b\\x0c'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.strip()
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "strip", want: "'a'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.lstrip()
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "lstrip", want: "'a\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.rstrip()
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "rstrip", want: "'\\x1c\\x1d\\x1e\\x1fa'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.strip(None)
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "strip", args: []Value{nil}, want: "'a'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.lstrip(None)
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "lstrip", args: []Value{nil}, want: "'a\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.rstrip(None)
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "rstrip", args: []Value{nil}, want: "'\\x1c\\x1d\\x1e\\x1fa'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.strip('x')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "strip", args: []Value{"x"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.lstrip('x')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "lstrip", args: []Value{"x"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.rstrip('x')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "rstrip", args: []Value{"x"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.strip('é')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "strip", args: []Value{"é"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.lstrip('é')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "lstrip", args: []Value{"é"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\x1c\x1d\x1e\x1fa\x85\xa0\u3000\u2028'.rstrip('é')
	{recv: "\x1c\x1d\x1e\x1fa\u0085\u00a0\u3000\u2028", name: "rstrip", args: []Value{"é"}, want: "'\\x1c\\x1d\\x1e\\x1fa\\x85\\xa0\\u3000\\u2028'"},
	// '\u200bzero-width\u200b'.strip()
	{recv: "\u200bzero-width\u200b", name: "strip", want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.lstrip()
	{recv: "\u200bzero-width\u200b", name: "lstrip", want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.rstrip()
	{recv: "\u200bzero-width\u200b", name: "rstrip", want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.strip(None)
	{recv: "\u200bzero-width\u200b", name: "strip", args: []Value{nil}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.lstrip(None)
	{recv: "\u200bzero-width\u200b", name: "lstrip", args: []Value{nil}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.rstrip(None)
	{recv: "\u200bzero-width\u200b", name: "rstrip", args: []Value{nil}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.strip('x')
	{recv: "\u200bzero-width\u200b", name: "strip", args: []Value{"x"}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.lstrip('x')
	{recv: "\u200bzero-width\u200b", name: "lstrip", args: []Value{"x"}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.rstrip('x')
	{recv: "\u200bzero-width\u200b", name: "rstrip", args: []Value{"x"}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.strip('é')
	{recv: "\u200bzero-width\u200b", name: "strip", args: []Value{"é"}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.lstrip('é')
	{recv: "\u200bzero-width\u200b", name: "lstrip", args: []Value{"é"}, want: "'\\u200bzero-width\\u200b'"},
	// '\u200bzero-width\u200b'.rstrip('é')
	{recv: "\u200bzero-width\u200b", name: "rstrip", args: []Value{"é"}, want: "'\\u200bzero-width\\u200b'"},
	// 'xxhixx'.strip()
	{recv: "xxhixx", name: "strip", want: "'xxhixx'"},
	// 'xxhixx'.lstrip()
	{recv: "xxhixx", name: "lstrip", want: "'xxhixx'"},
	// 'xxhixx'.rstrip()
	{recv: "xxhixx", name: "rstrip", want: "'xxhixx'"},
	// 'xxhixx'.strip(None)
	{recv: "xxhixx", name: "strip", args: []Value{nil}, want: "'xxhixx'"},
	// 'xxhixx'.lstrip(None)
	{recv: "xxhixx", name: "lstrip", args: []Value{nil}, want: "'xxhixx'"},
	// 'xxhixx'.rstrip(None)
	{recv: "xxhixx", name: "rstrip", args: []Value{nil}, want: "'xxhixx'"},
	// 'xxhixx'.strip('x')
	{recv: "xxhixx", name: "strip", args: []Value{"x"}, want: "'hi'"},
	// 'xxhixx'.lstrip('x')
	{recv: "xxhixx", name: "lstrip", args: []Value{"x"}, want: "'hixx'"},
	// 'xxhixx'.rstrip('x')
	{recv: "xxhixx", name: "rstrip", args: []Value{"x"}, want: "'xxhi'"},
	// 'xxhixx'.strip('é')
	{recv: "xxhixx", name: "strip", args: []Value{"é"}, want: "'xxhixx'"},
	// 'xxhixx'.lstrip('é')
	{recv: "xxhixx", name: "lstrip", args: []Value{"é"}, want: "'xxhixx'"},
	// 'xxhixx'.rstrip('é')
	{recv: "xxhixx", name: "rstrip", args: []Value{"é"}, want: "'xxhixx'"},
	// 'éaé'.strip()
	{recv: "éaé", name: "strip", want: "'éaé'"},
	// 'éaé'.lstrip()
	{recv: "éaé", name: "lstrip", want: "'éaé'"},
	// 'éaé'.rstrip()
	{recv: "éaé", name: "rstrip", want: "'éaé'"},
	// 'éaé'.strip(None)
	{recv: "éaé", name: "strip", args: []Value{nil}, want: "'éaé'"},
	// 'éaé'.lstrip(None)
	{recv: "éaé", name: "lstrip", args: []Value{nil}, want: "'éaé'"},
	// 'éaé'.rstrip(None)
	{recv: "éaé", name: "rstrip", args: []Value{nil}, want: "'éaé'"},
	// 'éaé'.strip('x')
	{recv: "éaé", name: "strip", args: []Value{"x"}, want: "'éaé'"},
	// 'éaé'.lstrip('x')
	{recv: "éaé", name: "lstrip", args: []Value{"x"}, want: "'éaé'"},
	// 'éaé'.rstrip('x')
	{recv: "éaé", name: "rstrip", args: []Value{"x"}, want: "'éaé'"},
	// 'éaé'.strip('é')
	{recv: "éaé", name: "strip", args: []Value{"é"}, want: "'a'"},
	// 'éaé'.lstrip('é')
	{recv: "éaé", name: "lstrip", args: []Value{"é"}, want: "'aé'"},
	// 'éaé'.rstrip('é')
	{recv: "éaé", name: "rstrip", args: []Value{"é"}, want: "'éa'"},
	// 'abc'.strip(1)
	{recv: "abc", name: "strip", args: []Value{1}, want: "TypeError: strip arg must be None or str"},
	// 'abc'.strip('a', 'b')
	{recv: "abc", name: "strip", args: []Value{"a", "b"}, want: "TypeError: strip expected at most 1 argument, got 2"},
	// 'abc'.strip(chars='a')
	{recv: "abc", name: "strip", kwargs: mtDict("chars", "a"), want: "TypeError: str.strip() takes no keyword arguments"},
	// '  a b\tc\n\nd  '.split()
	{recv: "  a b\tc\n\nd  ", name: "split", want: "['a', 'b', 'c', 'd']"},
	// '  a b\tc\n\nd  '.rsplit()
	{recv: "  a b\tc\n\nd  ", name: "rsplit", want: "['a', 'b', 'c', 'd']"},
	// '  a b\tc\n\nd  '.split(None, 1)
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{nil, 1}, want: "['a', 'b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(None, 1)
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{nil, 1}, want: "['  a b\\tc', 'd']"},
	// '  a b\tc\n\nd  '.split(None, 0)
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{nil, 0}, want: "['a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(None, 0)
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{nil, 0}, want: "['  a b\\tc\\n\\nd']"},
	// '  a b\tc\n\nd  '.split(',')
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{","}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(',')
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{","}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.split(',', 1)
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{",", 1}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(',', 1)
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{",", 1}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.split(',', 0)
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{",", 0}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(',', 0)
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{",", 0}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.split(',', -1)
	{recv: "  a b\tc\n\nd  ", name: "split", args: []Value{",", -1}, want: "['  a b\\tc\\n\\nd  ']"},
	// '  a b\tc\n\nd  '.rsplit(',', -1)
	{recv: "  a b\tc\n\nd  ", name: "rsplit", args: []Value{",", -1}, want: "['  a b\\tc\\n\\nd  ']"},
	// 'a,b,,c,'.split()
	{recv: "a,b,,c,", name: "split", want: "['a,b,,c,']"},
	// 'a,b,,c,'.rsplit()
	{recv: "a,b,,c,", name: "rsplit", want: "['a,b,,c,']"},
	// 'a,b,,c,'.split(None, 1)
	{recv: "a,b,,c,", name: "split", args: []Value{nil, 1}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.rsplit(None, 1)
	{recv: "a,b,,c,", name: "rsplit", args: []Value{nil, 1}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.split(None, 0)
	{recv: "a,b,,c,", name: "split", args: []Value{nil, 0}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.rsplit(None, 0)
	{recv: "a,b,,c,", name: "rsplit", args: []Value{nil, 0}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.split(',')
	{recv: "a,b,,c,", name: "split", args: []Value{","}, want: "['a', 'b', '', 'c', '']"},
	// 'a,b,,c,'.rsplit(',')
	{recv: "a,b,,c,", name: "rsplit", args: []Value{","}, want: "['a', 'b', '', 'c', '']"},
	// 'a,b,,c,'.split(',', 1)
	{recv: "a,b,,c,", name: "split", args: []Value{",", 1}, want: "['a', 'b,,c,']"},
	// 'a,b,,c,'.rsplit(',', 1)
	{recv: "a,b,,c,", name: "rsplit", args: []Value{",", 1}, want: "['a,b,,c', '']"},
	// 'a,b,,c,'.split(',', 0)
	{recv: "a,b,,c,", name: "split", args: []Value{",", 0}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.rsplit(',', 0)
	{recv: "a,b,,c,", name: "rsplit", args: []Value{",", 0}, want: "['a,b,,c,']"},
	// 'a,b,,c,'.split(',', -1)
	{recv: "a,b,,c,", name: "split", args: []Value{",", -1}, want: "['a', 'b', '', 'c', '']"},
	// 'a,b,,c,'.rsplit(',', -1)
	{recv: "a,b,,c,", name: "rsplit", args: []Value{",", -1}, want: "['a', 'b', '', 'c', '']"},
	// ''.split()
	{recv: "", name: "split", want: "[]"},
	// ''.rsplit()
	{recv: "", name: "rsplit", want: "[]"},
	// ''.split(None, 1)
	{recv: "", name: "split", args: []Value{nil, 1}, want: "[]"},
	// ''.rsplit(None, 1)
	{recv: "", name: "rsplit", args: []Value{nil, 1}, want: "[]"},
	// ''.split(None, 0)
	{recv: "", name: "split", args: []Value{nil, 0}, want: "[]"},
	// ''.rsplit(None, 0)
	{recv: "", name: "rsplit", args: []Value{nil, 0}, want: "[]"},
	// ''.split(',')
	{recv: "", name: "split", args: []Value{","}, want: "['']"},
	// ''.rsplit(',')
	{recv: "", name: "rsplit", args: []Value{","}, want: "['']"},
	// ''.split(',', 1)
	{recv: "", name: "split", args: []Value{",", 1}, want: "['']"},
	// ''.rsplit(',', 1)
	{recv: "", name: "rsplit", args: []Value{",", 1}, want: "['']"},
	// ''.split(',', 0)
	{recv: "", name: "split", args: []Value{",", 0}, want: "['']"},
	// ''.rsplit(',', 0)
	{recv: "", name: "rsplit", args: []Value{",", 0}, want: "['']"},
	// ''.split(',', -1)
	{recv: "", name: "split", args: []Value{",", -1}, want: "['']"},
	// ''.rsplit(',', -1)
	{recv: "", name: "rsplit", args: []Value{",", -1}, want: "['']"},
	// '   '.split()
	{recv: "   ", name: "split", want: "[]"},
	// '   '.rsplit()
	{recv: "   ", name: "rsplit", want: "[]"},
	// '   '.split(None, 1)
	{recv: "   ", name: "split", args: []Value{nil, 1}, want: "[]"},
	// '   '.rsplit(None, 1)
	{recv: "   ", name: "rsplit", args: []Value{nil, 1}, want: "[]"},
	// '   '.split(None, 0)
	{recv: "   ", name: "split", args: []Value{nil, 0}, want: "[]"},
	// '   '.rsplit(None, 0)
	{recv: "   ", name: "rsplit", args: []Value{nil, 0}, want: "[]"},
	// '   '.split(',')
	{recv: "   ", name: "split", args: []Value{","}, want: "['   ']"},
	// '   '.rsplit(',')
	{recv: "   ", name: "rsplit", args: []Value{","}, want: "['   ']"},
	// '   '.split(',', 1)
	{recv: "   ", name: "split", args: []Value{",", 1}, want: "['   ']"},
	// '   '.rsplit(',', 1)
	{recv: "   ", name: "rsplit", args: []Value{",", 1}, want: "['   ']"},
	// '   '.split(',', 0)
	{recv: "   ", name: "split", args: []Value{",", 0}, want: "['   ']"},
	// '   '.rsplit(',', 0)
	{recv: "   ", name: "rsplit", args: []Value{",", 0}, want: "['   ']"},
	// '   '.split(',', -1)
	{recv: "   ", name: "split", args: []Value{",", -1}, want: "['   ']"},
	// '   '.rsplit(',', -1)
	{recv: "   ", name: "rsplit", args: []Value{",", -1}, want: "['   ']"},
	// 'a\x1cb\x85c\u3000d'.split()
	{recv: "a\x1cb\u0085c\u3000d", name: "split", want: "['a', 'b', 'c', 'd']"},
	// 'a\x1cb\x85c\u3000d'.rsplit()
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", want: "['a', 'b', 'c', 'd']"},
	// 'a\x1cb\x85c\u3000d'.split(None, 1)
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{nil, 1}, want: "['a', 'b\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(None, 1)
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{nil, 1}, want: "['a\\x1cb\\x85c', 'd']"},
	// 'a\x1cb\x85c\u3000d'.split(None, 0)
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{nil, 0}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(None, 0)
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{nil, 0}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.split(',')
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{","}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(',')
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{","}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.split(',', 1)
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{",", 1}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(',', 1)
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{",", 1}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.split(',', 0)
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{",", 0}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(',', 0)
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{",", 0}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.split(',', -1)
	{recv: "a\x1cb\u0085c\u3000d", name: "split", args: []Value{",", -1}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// 'a\x1cb\x85c\u3000d'.rsplit(',', -1)
	{recv: "a\x1cb\u0085c\u3000d", name: "rsplit", args: []Value{",", -1}, want: "['a\\x1cb\\x85c\\u3000d']"},
	// '😀,é,日本'.split()
	{recv: "😀,é,日本", name: "split", want: "['😀,é,日本']"},
	// '😀,é,日本'.rsplit()
	{recv: "😀,é,日本", name: "rsplit", want: "['😀,é,日本']"},
	// '😀,é,日本'.split(None, 1)
	{recv: "😀,é,日本", name: "split", args: []Value{nil, 1}, want: "['😀,é,日本']"},
	// '😀,é,日本'.rsplit(None, 1)
	{recv: "😀,é,日本", name: "rsplit", args: []Value{nil, 1}, want: "['😀,é,日本']"},
	// '😀,é,日本'.split(None, 0)
	{recv: "😀,é,日本", name: "split", args: []Value{nil, 0}, want: "['😀,é,日本']"},
	// '😀,é,日本'.rsplit(None, 0)
	{recv: "😀,é,日本", name: "rsplit", args: []Value{nil, 0}, want: "['😀,é,日本']"},
	// '😀,é,日本'.split(',')
	{recv: "😀,é,日本", name: "split", args: []Value{","}, want: "['😀', 'é', '日本']"},
	// '😀,é,日本'.rsplit(',')
	{recv: "😀,é,日本", name: "rsplit", args: []Value{","}, want: "['😀', 'é', '日本']"},
	// '😀,é,日本'.split(',', 1)
	{recv: "😀,é,日本", name: "split", args: []Value{",", 1}, want: "['😀', 'é,日本']"},
	// '😀,é,日本'.rsplit(',', 1)
	{recv: "😀,é,日本", name: "rsplit", args: []Value{",", 1}, want: "['😀,é', '日本']"},
	// '😀,é,日本'.split(',', 0)
	{recv: "😀,é,日本", name: "split", args: []Value{",", 0}, want: "['😀,é,日本']"},
	// '😀,é,日本'.rsplit(',', 0)
	{recv: "😀,é,日本", name: "rsplit", args: []Value{",", 0}, want: "['😀,é,日本']"},
	// '😀,é,日本'.split(',', -1)
	{recv: "😀,é,日本", name: "split", args: []Value{",", -1}, want: "['😀', 'é', '日本']"},
	// '😀,é,日本'.rsplit(',', -1)
	{recv: "😀,é,日本", name: "rsplit", args: []Value{",", -1}, want: "['😀', 'é', '日本']"},
	// 'a,b,c'.split(sep=',', maxsplit=1)
	{recv: "a,b,c", name: "split", kwargs: mtDict("sep", ",", "maxsplit", 1), want: "['a', 'b,c']"},
	// 'a,b,c'.rsplit(maxsplit=1, sep=',')
	{recv: "a,b,c", name: "rsplit", kwargs: mtDict("maxsplit", 1, "sep", ","), want: "['a,b', 'c']"},
	// 'a b c'.split(maxsplit=1)
	{recv: "a b c", name: "split", kwargs: mtDict("maxsplit", 1), want: "['a', 'b c']"},
	// 'abc'.split('')
	{recv: "abc", name: "split", args: []Value{""}, want: "ValueError: empty separator"},
	// 'abc'.split(1)
	{recv: "abc", name: "split", args: []Value{1}, want: "TypeError: must be str or None, not int"},
	// 'abc'.split(',', 'x')
	{recv: "abc", name: "split", args: []Value{",", "x"}, want: "TypeError: 'str' object cannot be interpreted as an integer"},
	// 'abc'.split(',', None)
	{recv: "abc", name: "split", args: []Value{",", nil}, want: "TypeError: 'NoneType' object cannot be interpreted as an integer"},
	// 'abc'.split(',', sep=',')
	{recv: "abc", name: "split", args: []Value{","}, kwargs: mtDict("sep", ","), want: "TypeError: argument for split() given by name ('sep') and position (1)"},
	// 'abc'.split(x=1)
	{recv: "abc", name: "split", kwargs: mtDict("x", 1), want: "TypeError: 'x' is an invalid keyword argument for split()"},
	// 'abc'.split(None, 1, 2)
	{recv: "abc", name: "split", args: []Value{nil, 1, 2}, want: "TypeError: split() takes at most 2 arguments (3 given)"},
	// 'a\nb\r\nc\rd\x0be\x0cf\x1cg\x85h\u2028i\u2029'.splitlines()
	{recv: "a\nb\r\nc\rd\x0be\x0cf\x1cg\u0085h\u2028i\u2029", name: "splitlines", want: "['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']"},
	// 'a\nb\r\nc\rd\x0be\x0cf\x1cg\x85h\u2028i\u2029'.splitlines(True)
	{recv: "a\nb\r\nc\rd\x0be\x0cf\x1cg\u0085h\u2028i\u2029", name: "splitlines", args: []Value{true}, want: "['a\\n', 'b\\r\\n', 'c\\r', 'd\\x0b', 'e\\x0c', 'f\\x1c', 'g\\x85', 'h\\u2028', 'i\\u2029']"},
	// 'a\n\nb\n'.splitlines()
	{recv: "a\n\nb\n", name: "splitlines", want: "['a', '', 'b']"},
	// 'a\n\nb\n'.splitlines(True)
	{recv: "a\n\nb\n", name: "splitlines", args: []Value{true}, want: "['a\\n', '\\n', 'b\\n']"},
	// ''.splitlines()
	{recv: "", name: "splitlines", want: "[]"},
	// ''.splitlines(True)
	{recv: "", name: "splitlines", args: []Value{true}, want: "[]"},
	// 'no newline'.splitlines()
	{recv: "no newline", name: "splitlines", want: "['no newline']"},
	// 'no newline'.splitlines(True)
	{recv: "no newline", name: "splitlines", args: []Value{true}, want: "['no newline']"},
	// 'a\nb'.splitlines(keepends=True)
	{recv: "a\nb", name: "splitlines", kwargs: mtDict("keepends", true), want: "['a\\n', 'b']"},
	// 'a\nb'.splitlines(None)
	{recv: "a\nb", name: "splitlines", args: []Value{nil}, want: "TypeError: 'NoneType' object cannot be interpreted as an integer"},
	// 'key=value=x'.partition('=')
	{recv: "key=value=x", name: "partition", args: []Value{"="}, want: "('key', '=', 'value=x')"},
	// 'key=value=x'.partition('😀')
	{recv: "key=value=x", name: "partition", args: []Value{"😀"}, want: "('key=value=x', '', '')"},
	// 'key=value=x'.rpartition('=')
	{recv: "key=value=x", name: "rpartition", args: []Value{"="}, want: "('key=value', '=', 'x')"},
	// 'key=value=x'.rpartition('😀')
	{recv: "key=value=x", name: "rpartition", args: []Value{"😀"}, want: "('', '', 'key=value=x')"},
	// 'novalue'.partition('=')
	{recv: "novalue", name: "partition", args: []Value{"="}, want: "('novalue', '', '')"},
	// 'novalue'.partition('😀')
	{recv: "novalue", name: "partition", args: []Value{"😀"}, want: "('novalue', '', '')"},
	// 'novalue'.rpartition('=')
	{recv: "novalue", name: "rpartition", args: []Value{"="}, want: "('', '', 'novalue')"},
	// 'novalue'.rpartition('😀')
	{recv: "novalue", name: "rpartition", args: []Value{"😀"}, want: "('', '', 'novalue')"},
	// 'é😀é'.partition('=')
	{recv: "é😀é", name: "partition", args: []Value{"="}, want: "('é😀é', '', '')"},
	// 'é😀é'.partition('😀')
	{recv: "é😀é", name: "partition", args: []Value{"😀"}, want: "('é', '😀', 'é')"},
	// 'é😀é'.rpartition('=')
	{recv: "é😀é", name: "rpartition", args: []Value{"="}, want: "('', '', 'é😀é')"},
	// 'é😀é'.rpartition('😀')
	{recv: "é😀é", name: "rpartition", args: []Value{"😀"}, want: "('é', '😀', 'é')"},
	// 'abc'.partition('')
	{recv: "abc", name: "partition", args: []Value{""}, want: "ValueError: empty separator"},
	// 'abc'.partition(1)
	{recv: "abc", name: "partition", args: []Value{1}, want: "TypeError: must be str, not int"},
	// 'abc'.partition()
	{recv: "abc", name: "partition", want: "TypeError: str.partition() takes exactly one argument (0 given)"},
	// 'héllo'.removeprefix('hé')
	{recv: "héllo", name: "removeprefix", args: []Value{"hé"}, want: "'llo'"},
	// 'héllo'.removeprefix('x')
	{recv: "héllo", name: "removeprefix", args: []Value{"x"}, want: "'héllo'"},
	// 'héllo'.removeprefix('')
	{recv: "héllo", name: "removeprefix", args: []Value{""}, want: "'héllo'"},
	// 'héllo'.removesuffix('lo')
	{recv: "héllo", name: "removesuffix", args: []Value{"lo"}, want: "'hél'"},
	// 'héllo'.removeprefix(None)
	{recv: "héllo", name: "removeprefix", args: []Value{nil}, want: "TypeError: removeprefix() argument must be str, not None"},
	// 'héllo'.removesuffix(1)
	{recv: "héllo", name: "removesuffix", args: []Value{1}, want: "TypeError: removesuffix() argument must be str, not int"},
	// 'héllo'.replace('l', 'L')
	{recv: "héllo", name: "replace", args: []Value{"l", "L"}, want: "'héLLo'"},
	// 'héllo'.replace('l', 'L', 1)
	{recv: "héllo", name: "replace", args: []Value{"l", "L", 1}, want: "'héLlo'"},
	// 'héllo'.replace('l', 'L', 0)
	{recv: "héllo", name: "replace", args: []Value{"l", "L", 0}, want: "'héllo'"},
	// 'héllo'.replace('l', 'L', -1)
	{recv: "héllo", name: "replace", args: []Value{"l", "L", -1}, want: "'héLLo'"},
	// 'héllo'.replace('', '-')
	{recv: "héllo", name: "replace", args: []Value{"", "-"}, want: "'-h-é-l-l-o-'"},
	// 'héllo'.replace('', '-', 2)
	{recv: "héllo", name: "replace", args: []Value{"", "-", 2}, want: "'-h-éllo'"},
	// 'héllo'.replace('é', '😀')
	{recv: "héllo", name: "replace", args: []Value{"é", "😀"}, want: "'h😀llo'"},
	// 'héllo'.replace('l')
	{recv: "héllo", name: "replace", args: []Value{"l"}, want: "TypeError: replace expected at least 2 arguments, got 1"},
	// 'héllo'.replace(1, 'x')
	{recv: "héllo", name: "replace", args: []Value{1, "x"}, want: "TypeError: replace() argument 1 must be str, not int"},
	// 'héllo'.replace('l', None)
	{recv: "héllo", name: "replace", args: []Value{"l", nil}, want: "TypeError: replace() argument 2 must be str, not None"},
	// 'héllo'.replace('l', 'x', 'y')
	{recv: "héllo", name: "replace", args: []Value{"l", "x", "y"}, want: "TypeError: 'str' object cannot be interpreted as an integer"},
	// 'héllo'.replace('l', 'x', 1.0)
	{recv: "héllo", name: "replace", args: []Value{"l", "x", 1.0}, want: "TypeError: 'float' object cannot be interpreted as an integer"},
	// ', '.join(['a', 'b', 'c'])
	{recv: ", ", name: "join", args: []Value{NewList([]Value{"a", "b", "c"})}, want: "'a, b, c'"},
	// ', '.join('xyz')
	{recv: ", ", name: "join", args: []Value{"xyz"}, want: "'x, y, z'"},
	// ', '.join(('é',))
	{recv: ", ", name: "join", args: []Value{Tuple{"é"}}, want: "'é'"},
	// ', '.join([])
	{recv: ", ", name: "join", args: []Value{NewList([]Value{})}, want: "''"},
	// ', '.join({'k1': 1, 'k2': 2})
	{recv: ", ", name: "join", args: []Value{mtDict("k1", 1, "k2", 2)}, want: "'k1, k2'"},
	// ''.join(['a', 'b', 'c'])
	{recv: "", name: "join", args: []Value{NewList([]Value{"a", "b", "c"})}, want: "'abc'"},
	// ''.join('xyz')
	{recv: "", name: "join", args: []Value{"xyz"}, want: "'xyz'"},
	// ''.join(('é',))
	{recv: "", name: "join", args: []Value{Tuple{"é"}}, want: "'é'"},
	// ''.join([])
	{recv: "", name: "join", args: []Value{NewList([]Value{})}, want: "''"},
	// ''.join({'k1': 1, 'k2': 2})
	{recv: "", name: "join", args: []Value{mtDict("k1", 1, "k2", 2)}, want: "'k1k2'"},
	// '😀'.join(['a', 'b', 'c'])
	{recv: "😀", name: "join", args: []Value{NewList([]Value{"a", "b", "c"})}, want: "'a😀b😀c'"},
	// '😀'.join('xyz')
	{recv: "😀", name: "join", args: []Value{"xyz"}, want: "'x😀y😀z'"},
	// '😀'.join(('é',))
	{recv: "😀", name: "join", args: []Value{Tuple{"é"}}, want: "'é'"},
	// '😀'.join([])
	{recv: "😀", name: "join", args: []Value{NewList([]Value{})}, want: "''"},
	// '😀'.join({'k1': 1, 'k2': 2})
	{recv: "😀", name: "join", args: []Value{mtDict("k1", 1, "k2", 2)}, want: "'k1😀k2'"},
	// ','.join(['a', 1])
	{recv: ",", name: "join", args: []Value{NewList([]Value{"a", 1})}, want: "TypeError: sequence item 1: expected str instance, int found"},
	// ','.join(1)
	{recv: ",", name: "join", args: []Value{1}, want: "TypeError: can only join an iterable"},
	// ','.join(None)
	{recv: ",", name: "join", args: []Value{nil}, want: "TypeError: can only join an iterable"},
	// ','.join(Undefined)
	{recv: ",", name: "join", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "''"},
	// ','.join('a', 'b')
	{recv: ",", name: "join", args: []Value{"a", "b"}, want: "TypeError: str.join() takes exactly one argument (2 given)"},
	// 'a\tbc\td\n\te'.expandtabs()
	{recv: "a\tbc\td\n\te", name: "expandtabs", want: "'a       bc      d\\n        e'"},
	// 'a\tbc\td'.expandtabs(4)
	{recv: "a\tbc\td", name: "expandtabs", args: []Value{4}, want: "'a   bc  d'"},
	// 'é\t'.expandtabs(tabsize=3)
	{recv: "é\t", name: "expandtabs", kwargs: mtDict("tabsize", 3), want: "'é  '"},
	// 'a\tb'.expandtabs(0)
	{recv: "a\tb", name: "expandtabs", args: []Value{0}, want: "'ab'"},
	// 'a\tb'.expandtabs(-1)
	{recv: "a\tb", name: "expandtabs", args: []Value{-1}, want: "'ab'"},
	// 'héllo'.translate({104: 'H', 233: None, 108: 76})
	{recv: "héllo", name: "translate", args: []Value{mtDict(104, "H", 233, nil, 108, 76)}, want: "'HLLo'"},
	// 'abc'.translate({97: -1})
	{recv: "abc", name: "translate", args: []Value{mtDict(97, -1)}, want: "ValueError: character mapping must be in range(0x110000)"},
	// 'abc'.translate({97: 1.5})
	{recv: "abc", name: "translate", args: []Value{mtDict(97, 1.5)}, want: "TypeError: character mapping must return integer, None or str"},
	// 'abc'.translate(1)
	{recv: "abc", name: "translate", args: []Value{1}, want: "TypeError: 'int' object is not subscriptable"},
	// ''.translate(1)
	{recv: "", name: "translate", args: []Value{1}, want: "''"},
	// 'abc'.translate(['x'])
	{recv: "abc", name: "translate", args: []Value{NewList([]Value{"x"})}, want: "'abc'"},
	// 'abc'.maketrans('ab', 'xy')
	{recv: "abc", name: "maketrans", args: []Value{"ab", "xy"}, want: "{97: 120, 98: 121}"},
	// 'abc'.maketrans('ab', 'xy', 'c')
	{recv: "abc", name: "maketrans", args: []Value{"ab", "xy", "c"}, want: "{97: 120, 98: 121, 99: None}"},
	// 'abc'.maketrans({'a': 'x', 98: None})
	{recv: "abc", name: "maketrans", args: []Value{mtDict("a", "x", 98, nil)}, want: "{97: 'x', 98: None}"},
	// 'abc'.maketrans('ab', 'x')
	{recv: "abc", name: "maketrans", args: []Value{"ab", "x"}, want: "ValueError: the first two maketrans arguments must have equal length"},
	// 'abc'.maketrans('a')
	{recv: "abc", name: "maketrans", args: []Value{"a"}, want: "TypeError: if you give only one argument to maketrans it must be a dict"},
	// 'abc'.startswith(Undefined)
	{recv: "abc", name: "startswith", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "TypeError: startswith first arg must be str or a tuple of str, not Undefined"},
	// 'abc'.center(Undefined)
	{recv: "abc", name: "center", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "TypeError: 'Undefined' object cannot be interpreted as an integer"},
	// '{} and {}'.format('a', 'b')
	{recv: "{} and {}", name: "format", args: []Value{"a", "b"}, want: "'a and b'"},
	// Markup('{} and {}').format('a', 'b')
	{recv: Markup("{} and {}"), name: "format", args: []Value{"a", "b"}, want: "Markup('a and b')"},
	// '{1}{0}{1}'.format('a', 'b')
	{recv: "{1}{0}{1}", name: "format", args: []Value{"a", "b"}, want: "'bab'"},
	// '{name}!'.format(name='x')
	{recv: "{name}!", name: "format", kwargs: mtDict("name", "x"), want: "'x!'"},
	// '{0[role]}: {0[content]}'.format({'role': 'user', 'content': 'hi'})
	{recv: "{0[role]}: {0[content]}", name: "format", args: []Value{mtDict("role", "user", "content", "hi")}, want: "'user: hi'"},
	// '{m.role}'.format(m={'role': 'tool'})
	{recv: "{m.role}", name: "format", kwargs: mtDict("m", mtDict("role", "tool")), want: "'tool'"},
	// '{0[1]}|{0[-1]}'.format(['a', 'b'])
	{recv: "{0[1]}|{0[-1]}", name: "format", args: []Value{NewList([]Value{"a", "b"})}, want: "'b|'"},
	// '{0.nope}|{0[nope]}'.format({})
	{recv: "{0.nope}|{0[nope]}", name: "format", args: []Value{mtDict()}, want: "'|'"},
	// '{!r} {!s} {!a}'.format('é', None, 'é😀')
	{recv: "{!r} {!s} {!a}", name: "format", args: []Value{"é", nil, "é😀"}, want: "\"'é' None '\\\\xe9\\\\U0001f600'\""},
	// Markup('{!r} {!s} {!a}').format('é', None, 'é😀')
	{recv: Markup("{!r} {!s} {!a}"), name: "format", args: []Value{"é", nil, "é😀"}, want: "Markup('&#39;é&#39; None &#39;\\\\xe9\\\\U0001f600&#39;')"},
	// '{:>8}|{:<8}|{:^8}|{:*^9}'.format('ab', 'cd', 'ef', 'gh')
	{recv: "{:>8}|{:<8}|{:^8}|{:*^9}", name: "format", args: []Value{"ab", "cd", "ef", "gh"}, want: "'      ab|cd      |   ef   |***gh****'"},
	// Markup('{:>8}|{:<8}|{:^8}|{:*^9}').format('ab', 'cd', 'ef', 'gh')
	{recv: Markup("{:>8}|{:<8}|{:^8}|{:*^9}"), name: "format", args: []Value{"ab", "cd", "ef", "gh"}, want: "Markup('      ab|cd      |   ef   |***gh****')"},
	// '{:05d}|{:+d}|{: d}|{:,}|{:_}|{:x}|{:#X}|{:#b}|{:o}|{:c}'.format(42, 42, 42, 1234567, 1234567, 255, 255, 5, 8, 233)
	{recv: "{:05d}|{:+d}|{: d}|{:,}|{:_}|{:x}|{:#X}|{:#b}|{:o}|{:c}", name: "format", args: []Value{42, 42, 42, 1234567, 1234567, 255, 255, 5, 8, 233}, want: "'00042|+42| 42|1,234,567|1_234_567|ff|0XFF|0b101|10|é'"},
	// '{:.2f}|{:.3e}|{:g}|{:%}|{:.1%}|{:010.3f}|{:,.2f}|{:e}'.format(3.14159, 12345.678, 1.234e-05, 0.25, 0.5, -3.14159, 1234567.891, 0.0)
	{recv: "{:.2f}|{:.3e}|{:g}|{:%}|{:.1%}|{:010.3f}|{:,.2f}|{:e}", name: "format", args: []Value{3.14159, 12345.678, 1.234e-05, 0.25, 0.5, -3.14159, 1234567.891, 0.0}, want: "'3.14|1.235e+04|1.234e-05|25.000000%|50.0%|-00003.142|1,234,567.89|0.000000e+00'"},
	// '{}|{}|{}|{}|{:.3}|{:.3}'.format(1.0, 1e+16, 1e-05, 0.30000000000000004, 100.0, 12.0)
	{recv: "{}|{}|{}|{}|{:.3}|{:.3}", name: "format", args: []Value{1.0, 1e+16, 1e-05, 0.30000000000000004, 100.0, 12.0}, want: "'1.0|1e+16|1e-05|0.30000000000000004|1e+02|12.0'"},
	// '{:{}}|{:{}.{}f}'.format('a', 4, 2.5, 8, 2)
	{recv: "{:{}}|{:{}.{}f}", name: "format", args: []Value{"a", 4, 2.5, 8, 2}, want: "'a   |    2.50'"},
	// '{{literal}} {}'.format('x')
	{recv: "{{literal}} {}", name: "format", args: []Value{"x"}, want: "'{literal} x'"},
	// '{:>5}'.format(None)
	{recv: "{:>5}", name: "format", args: []Value{nil}, want: "TypeError: unsupported format string passed to NoneType.__format__"},
	// '{}'.format(Undefined)
	{recv: "{}", name: "format", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "''"},
	// '{:>5}'.format(Undefined)
	{recv: "{:>5}", name: "format", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "TypeError: unsupported format string passed to Undefined.__format__"},
	// '{}|{}|{}'.format(True, [1, 'a'], {'a': (1,)})
	{recv: "{}|{}|{}", name: "format", args: []Value{true, NewList([]Value{1, "a"}), mtDict("a", Tuple{1})}, want: "\"True|[1, 'a']|{'a': (1,)}\""},
	// '{:d}|{:>4}'.format(True, False)
	{recv: "{:d}|{:>4}", name: "format", args: []Value{true, false}, want: "'1|   0'"},
	// '{1}'.format('a')
	{recv: "{1}", name: "format", args: []Value{"a"}, want: "IndexError: tuple index out of range"},
	// '{x}'.format()
	{recv: "{x}", name: "format", want: "KeyError: 'x'"},
	// '{}{0}'.format('a')
	{recv: "{}{0}", name: "format", args: []Value{"a"}, want: "ValueError: cannot switch from manual field specification to automatic field numbering"},
	// '{0}{}'.format('a')
	{recv: "{0}{}", name: "format", args: []Value{"a"}, want: "ValueError: cannot switch from manual field specification to automatic field numbering"},
	// '{'.format()
	{recv: "{", name: "format", want: "ValueError: Single '{' encountered in format string"},
	// '}'.format()
	{recv: "}", name: "format", want: "ValueError: Single '}' encountered in format string"},
	// '{0!x}'.format('a')
	{recv: "{0!x}", name: "format", args: []Value{"a"}, want: "ValueError: Unknown conversion specifier x"},
	// '{0:}}'.format(1)
	{recv: "{0:}}", name: "format", args: []Value{1}, want: "ValueError: Single '}' encountered in format string"},
	// '{0[}'.format(1)
	{recv: "{0[}", name: "format", args: []Value{1}, want: "ValueError: expected '}' before end of string"},
	// '{0.}'.format(1)
	{recv: "{0.}", name: "format", args: []Value{1}, want: "ValueError: Empty attribute in format string"},
	// '{0[0]x}'.format([1])
	{recv: "{0[0]x}", name: "format", args: []Value{NewList([]Value{1})}, want: "ValueError: Only '.' or '[' may follow ']' in format field specifier"},
	// '{:{:{}}}'.format('a', 5, 1)
	{recv: "{:{:{}}}", name: "format", args: []Value{"a", 5, 1}, want: "ValueError: Max string recursion exceeded"},
	// '{:d}'.format('a')
	{recv: "{:d}", name: "format", args: []Value{"a"}, want: "ValueError: Unknown format code 'd' for object of type 'str'"},
	// '{:s}'.format(1)
	{recv: "{:s}", name: "format", args: []Value{1}, want: "ValueError: Unknown format code 's' for object of type 'int'"},
	// '{:,s}'.format('a')
	{recv: "{:,s}", name: "format", args: []Value{"a"}, want: "ValueError: Cannot specify ',' with 's'."},
	// '{:+}'.format('a')
	{recv: "{:+}", name: "format", args: []Value{"a"}, want: "ValueError: Sign not allowed in string format specifier"},
	// '{:.2d}'.format(1)
	{recv: "{:.2d}", name: "format", args: []Value{1}, want: "ValueError: Precision not allowed in integer format specifier"},
	// '{:c}'.format(-1)
	{recv: "{:c}", name: "format", args: []Value{-1}, want: "OverflowError: %c arg not in range(0x110000)"},
	// '{:z}'.format(1)
	{recv: "{:z}", name: "format", args: []Value{1}, want: "ValueError: Negative zero coercion (z) not allowed in integer format specifier"},
	// '{:5x5}'.format(1)
	{recv: "{:5x5}", name: "format", args: []Value{1}, want: "ValueError: Invalid format specifier '5x5' for object of type 'int'"},
	// '{:,_}'.format(1)
	{recv: "{:,_}", name: "format", args: []Value{1}, want: "ValueError: Cannot specify both ',' and '_'."},
	// '{:,x}'.format(1)
	{recv: "{:,x}", name: "format", args: []Value{1}, want: "ValueError: Cannot specify ',' with 'x'."},
	// Markup('<b>{}</b>{}').format('<i>', Markup('<i>'))
	{recv: Markup("<b>{}</b>{}"), name: "format", args: []Value{"<i>", Markup("<i>")}, want: "Markup('<b>&lt;i&gt;</b><i>')"},
	// Markup('{:>3}').format(Markup('<'))
	{recv: Markup("{:>3}"), name: "format", args: []Value{Markup("<")}, want: "ValueError: Unsupported format specification for Markup."},
	// Markup('{0:{1}}').format(5, '<5')
	{recv: Markup("{0:{1}}"), name: "format", args: []Value{5, "<5"}, want: "ValueError: Invalid format specifier '&lt;5' for object of type 'int'"},
	// '{a}-{b}'.format_map({'a': 1, 'b': 2})
	{recv: "{a}-{b}", name: "format_map", args: []Value{mtDict("a", 1, "b", 2)}, want: "'1-2'"},
	// '{a}'.format_map({})
	{recv: "{a}", name: "format_map", args: []Value{mtDict()}, want: "KeyError: 'a'"},
	// '{a}'.format_map()
	{recv: "{a}", name: "format_map", want: "TypeError: format_map() takes exactly one argument (0 given)"},
	// '{a}'.format_map({}, a=1)
	{recv: "{a}", name: "format_map", args: []Value{mtDict()}, kwargs: mtDict("a", 1), want: "TypeError: format_map() takes no keyword arguments"},
	// '{a}'.format_map(['x'])
	{recv: "{a}", name: "format_map", args: []Value{NewList([]Value{"x"})}, want: "TypeError: list indices must be integers or slices, not str"},
	// Markup('<b>Hi</b> &amp; you').upper()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "upper", want: "Markup('<B>HI</B> &AMP; YOU')"},
	// Markup('<b>Hi</b> &amp; you').replace('Hi', '<i>')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "replace", args: []Value{"Hi", "<i>"}, want: "Markup('<b>&lt;i&gt;</b> &amp; you')"},
	// Markup('<b>Hi</b> &amp; you').replace('Hi', 1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "replace", args: []Value{"Hi", 1}, want: "Markup('<b>1</b> &amp; you')"},
	// Markup('<b>Hi</b> &amp; you').split()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "split", want: "[Markup('<b>Hi</b>'), Markup('&amp;'), Markup('you')]"},
	// Markup('<b>Hi</b> &amp; you').split(' ', 1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "split", args: []Value{" ", 1}, want: "[Markup('<b>Hi</b>'), Markup('&amp; you')]"},
	// Markup('<b>Hi</b> &amp; you').rsplit(maxsplit=1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "rsplit", kwargs: mtDict("maxsplit", 1), want: "[Markup('<b>Hi</b> &amp;'), Markup('you')]"},
	// Markup('<b>Hi</b> &amp; you').partition(' ')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "partition", args: []Value{" "}, want: "(Markup('<b>Hi</b>'), Markup(' '), Markup('&amp; you'))"},
	// Markup('<b>Hi</b> &amp; you').center(22, '*')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "center", args: []Value{22, "*"}, want: "Markup('*<b>Hi</b> &amp; you**')"},
	// Markup('<b>Hi</b> &amp; you').center(22, '<')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "center", args: []Value{22, "<"}, want: "TypeError: The fill character must be exactly one character long"},
	// Markup('<b>Hi</b> &amp; you').center(22, 1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "center", args: []Value{22, 1}, want: "Markup('1<b>Hi</b> &amp; you11')"},
	// Markup('<b>Hi</b> &amp; you').join(['<', Markup('<'), 1])
	{recv: Markup("<b>Hi</b> &amp; you"), name: "join", args: []Value{NewList([]Value{"<", Markup("<"), 1})}, want: "Markup('&lt;<b>Hi</b> &amp; you<<b>Hi</b> &amp; you1')"},
	// Markup('<b>Hi</b> &amp; you').join(1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "join", args: []Value{1}, want: "TypeError: 'int' object is not iterable"},
	// Markup('<b>Hi</b> &amp; you').strip(chars='x')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "strip", kwargs: mtDict("chars", "x"), want: "TypeError: Markup.strip() got some positional-only arguments passed as keyword arguments: 'chars'"},
	// Markup('<b>Hi</b> &amp; you').upper(1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "upper", args: []Value{1}, want: "TypeError: Markup.upper() takes 1 positional argument but 2 were given"},
	// Markup('<b>Hi</b> &amp; you').lower(x=1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "lower", kwargs: mtDict("x", 1), want: "TypeError: Markup.lower() got an unexpected keyword argument 'x'"},
	// Markup('<b>Hi</b> &amp; you').replace()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "replace", want: "TypeError: Markup.replace() missing 2 required positional arguments: 'old' and 'new'"},
	// Markup('<b>Hi</b> &amp; you').replace('a')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "replace", args: []Value{"a"}, want: "TypeError: Markup.replace() missing 1 required positional argument: 'new'"},
	// Markup('<b>Hi</b> &amp; you').find('&')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "find", args: []Value{"&"}, want: "10"},
	// Markup('<b>Hi</b> &amp; you').isupper(1)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "isupper", args: []Value{1}, want: "TypeError: Markup.isupper() takes no arguments (1 given)"},
	// Markup('<b>Hi</b> &amp; you').striptags()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "striptags", want: "'Hi & you'"},
	// Markup('<b>Hi</b> &amp; you').unescape()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "unescape", want: "'<b>Hi</b> & you'"},
	// Markup('<b>Hi</b> &amp; you').escape('<&>"\'')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "escape", args: []Value{"<&>\"'"}, want: "Markup('&lt;&amp;&gt;&#34;&#39;')"},
	// Markup('<b>Hi</b> &amp; you').escape(5)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "escape", args: []Value{5}, want: "Markup('5')"},
	// Markup('<b>Hi</b> &amp; you').escape()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "escape", want: "TypeError: Markup.escape() missing 1 required positional argument: 's'"},
	// Markup('<b>Hi</b> &amp; you').zfill(25)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "zfill", args: []Value{25}, want: "Markup('000000<b>Hi</b> &amp; you')"},
	// Markup('<b>Hi</b> &amp; you').splitlines(keepends=True)
	{recv: Markup("<b>Hi</b> &amp; you"), name: "splitlines", kwargs: mtDict("keepends", true), want: "[Markup('<b>Hi</b> &amp; you')]"},
	// Markup('<b>Hi</b> &amp; you').removesuffix(suffix='you')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "removesuffix", kwargs: mtDict("suffix", "you"), want: "Markup('<b>Hi</b> &amp; ')"},
	// Markup('<b>Hi</b> &amp; you').removeprefix(prefix='<b>')
	{recv: Markup("<b>Hi</b> &amp; you"), name: "removeprefix", kwargs: mtDict("prefix", "<b>"), want: "TypeError: Markup.removeprefix() got some positional-only arguments passed as keyword arguments: 'prefix'"},
	// Markup('<b>Hi</b> &amp; you').casefold()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "casefold", want: "Markup('<b>hi</b> &amp; you')"},
	// Markup('<b>Hi</b> &amp; you').format()
	{recv: Markup("<b>Hi</b> &amp; you"), name: "format", want: "Markup('<b>Hi</b> &amp; you')"},
	// Markup(',').join(Markup('<a'))
	{recv: Markup(","), name: "join", args: []Value{Markup("<a")}, want: "Markup('&lt;,a')"},
	// ','.join(Markup('<a'))
	{recv: ",", name: "join", args: []Value{Markup("<a")}, want: "'<,a'"},
	// {}.fromkeys(Markup('ab'))
	{recv: mtDict(), name: "fromkeys", args: []Value{Markup("ab")}, want: "{'a': None, 'b': None}"},
	// Markup('a\tb').expandtabs(2)
	{recv: Markup("a\tb"), name: "expandtabs", args: []Value{2}, want: "Markup('a b')"},
	// Markup('abc').translate({97: '<'})
	{recv: Markup("abc"), name: "translate", args: []Value{mtDict(97, "<")}, want: "Markup('<bc')"},
	// [3, 'a', 1.0, None, [1], 'a'].count('a')
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", args: []Value{"a"}, want: "2"},
	// (3, 'a', 1.0, None, [1], 'a').count('a')
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "count", args: []Value{"a"}, want: "2"},
	// [3, 'a', 1.0, None, [1], 'a'].count(1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", args: []Value{1}, want: "1"},
	// (3, 'a', 1.0, None, [1], 'a').count(1)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "count", args: []Value{1}, want: "1"},
	// [3, 'a', 1.0, None, [1], 'a'].count(True)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", args: []Value{true}, want: "1"},
	// (3, 'a', 1.0, None, [1], 'a').count(True)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "count", args: []Value{true}, want: "1"},
	// [3, 'a', 1.0, None, [1], 'a'].count([1])
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", args: []Value{NewList([]Value{1})}, want: "1"},
	// (3, 'a', 1.0, None, [1], 'a').count([1])
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "count", args: []Value{NewList([]Value{1})}, want: "1"},
	// [3, 'a', 1.0, None, [1], 'a'].count(9)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", args: []Value{9}, want: "0"},
	// (3, 'a', 1.0, None, [1], 'a').count(9)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "count", args: []Value{9}, want: "0"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a')
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a"}, want: "1"},
	// (3, 'a', 1.0, None, [1], 'a').index('a')
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a"}, want: "1"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', 2)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", 2}, want: "5"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', 2)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", 2}, want: "5"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', -1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", -1}, want: "5"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', -1)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", -1}, want: "5"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', 0, 1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", 0, 1}, want: "ValueError: 'a' is not in list"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', 0, 1)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", 0, 1}, want: "ValueError: tuple.index(x): x not in tuple"},
	// [3, 'a', 1.0, None, [1], 'a'].index(1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{1}, want: "2"},
	// (3, 'a', 1.0, None, [1], 'a').index(1)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{1}, want: "2"},
	// [3, 'a', 1.0, None, [1], 'a'].index(None)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{nil}, want: "3"},
	// (3, 'a', 1.0, None, [1], 'a').index(None)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{nil}, want: "3"},
	// [3, 'a', 1.0, None, [1], 'a'].index(9)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{9}, want: "ValueError: 9 is not in list"},
	// (3, 'a', 1.0, None, [1], 'a').index(9)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{9}, want: "ValueError: tuple.index(x): x not in tuple"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', None)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", nil}, want: "TypeError: slice indices must be integers or have an __index__ method"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', None)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", nil}, want: "TypeError: slice indices must be integers or have an __index__ method"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', 'x')
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", "x"}, want: "TypeError: slice indices must be integers or have an __index__ method"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', 'x')
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", "x"}, want: "TypeError: slice indices must be integers or have an __index__ method"},
	// [3, 'a', 1.0, None, [1], 'a'].index()
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", want: "TypeError: index expected at least 1 argument, got 0"},
	// (3, 'a', 1.0, None, [1], 'a').index()
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", want: "TypeError: index expected at least 1 argument, got 0"},
	// [3, 'a', 1.0, None, [1], 'a'].index('a', 0, 6, 1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "index", args: []Value{"a", 0, 6, 1}, want: "TypeError: index expected at most 3 arguments, got 4"},
	// (3, 'a', 1.0, None, [1], 'a').index('a', 0, 6, 1)
	{recv: Tuple{3, "a", 1.0, nil, NewList([]Value{1}), "a"}, name: "index", args: []Value{"a", 0, 6, 1}, want: "TypeError: index expected at most 3 arguments, got 4"},
	// [3, 'a', 1.0, None, [1], 'a'].count(x=1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "count", kwargs: mtDict("x", 1), want: "TypeError: list.count() takes no keyword arguments"},
	// [3, 'a', 1.0, None, [1], 'a'].copy()
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "copy", want: "[3, 'a', 1.0, None, [1], 'a']"},
	// [3, 'a', 1.0, None, [1], 'a'].copy(1)
	{recv: NewList([]Value{3, "a", 1.0, nil, NewList([]Value{1}), "a"}), name: "copy", args: []Value{1}, want: "TypeError: list.copy() takes no arguments (1 given)"},
	// [1, 2, 3].pop()
	{recv: NewList([]Value{1, 2, 3}), name: "pop", want: "3", after: "[1, 2]"},
	// [1, 2, 3].pop(0)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{0}, want: "1", after: "[2, 3]"},
	// [1, 2, 3].pop(-2)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{-2}, want: "2", after: "[1, 3]"},
	// [1, 2, 3].pop(5)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{5}, want: "IndexError: pop index out of range", after: "[1, 2, 3]"},
	// [1, 2, 3].pop(-7)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{-7}, want: "IndexError: pop index out of range", after: "[1, 2, 3]"},
	// [1, 2, 3].pop(6)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{6}, want: "IndexError: pop index out of range", after: "[1, 2, 3]"},
	// [1, 2, 3].pop('0')
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{"0"}, want: "TypeError: 'str' object cannot be interpreted as an integer", after: "[1, 2, 3]"},
	// [1, 2, 3].pop(1.0)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{1.0}, want: "TypeError: 'float' object cannot be interpreted as an integer", after: "[1, 2, 3]"},
	// [1, 2, 3].pop(True)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{true}, want: "2", after: "[1, 3]"},
	// [1, 2, 3].pop(0, 1)
	{recv: NewList([]Value{1, 2, 3}), name: "pop", args: []Value{0, 1}, want: "TypeError: pop expected at most 1 argument, got 2", after: "[1, 2, 3]"},
	// [].pop()
	{recv: NewList([]Value{}), name: "pop", want: "IndexError: pop from empty list", after: "[]"},
	// [1, 2].clear()
	{recv: NewList([]Value{1, 2}), name: "clear", want: "None", after: "[]"},
	// [1, 2].clear(1)
	{recv: NewList([]Value{1, 2}), name: "clear", args: []Value{1}, want: "TypeError: list.clear() takes no arguments (1 given)", after: "[1, 2]"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('a')
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"a"}, want: "1"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('z')
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"z"}, want: "None"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('z', 0)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"z", 0}, want: "0"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('c', 0)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"c", 0}, want: "None"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get(1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{1}, want: "'one'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get(1.0)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{1.0}, want: "'one'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get(True)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{true}, want: "'one'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get((1, 2))
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{Tuple{1, 2}}, want: "'pair'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get([1])
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{NewList([]Value{1})}, want: "TypeError: unhashable type: 'list'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get({})
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{mtDict()}, want: "TypeError: unhashable type: 'dict'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", want: "TypeError: get expected at least 1 argument, got 0"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('a', 1, 2)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"a", 1, 2}, want: "TypeError: get expected at most 2 arguments, got 3"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get(Undefined)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{Undefined{Hint: "'x' is undefined"}}, want: "None"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.get('a', default=1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "get", args: []Value{"a"}, kwargs: mtDict("default", 1), want: "TypeError: dict.get() takes no keyword arguments"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.keys()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "keys", want: "dict_keys(['a', 'b', 'c', 1, (1, 2)])"},
	// {}.keys()
	{recv: mtDict(), name: "keys", want: "dict_keys([])"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.keys(1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "keys", args: []Value{1}, want: "TypeError: dict.keys() takes no arguments (1 given)"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.values()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "values", want: "dict_values([1, [2], None, 'one', 'pair'])"},
	// {}.values()
	{recv: mtDict(), name: "values", want: "dict_values([])"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.values(1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "values", args: []Value{1}, want: "TypeError: dict.values() takes no arguments (1 given)"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.items()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "items", want: "dict_items([('a', 1), ('b', [2]), ('c', None), (1, 'one'), ((1, 2), 'pair')])"},
	// {}.items()
	{recv: mtDict(), name: "items", want: "dict_items([])"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.items(1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "items", args: []Value{1}, want: "TypeError: dict.items() takes no arguments (1 given)"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.copy()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "copy", want: "{'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.copy(x=1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "copy", kwargs: mtDict("x", 1), want: "TypeError: dict.copy() takes no keyword arguments"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.fromkeys(['x', 'y'])
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "fromkeys", args: []Value{NewList([]Value{"x", "y"})}, want: "{'x': None, 'y': None}"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.fromkeys('ab', 0)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "fromkeys", args: []Value{"ab", 0}, want: "{'a': 0, 'b': 0}"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.fromkeys(1)
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "fromkeys", args: []Value{1}, want: "TypeError: 'int' object is not iterable"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.fromkeys([[1]])
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "fromkeys", args: []Value{NewList([]Value{NewList([]Value{1})})}, want: "TypeError: unhashable type: 'list'"},
	// {'a': 1, 'b': [2], 'c': None, 1: 'one', (1, 2): 'pair'}.fromkeys()
	{recv: mtDict("a", 1, "b", NewList([]Value{2}), "c", nil, 1, "one", Tuple{1, 2}, "pair"), name: "fromkeys", want: "TypeError: fromkeys expected at least 1 argument, got 0"},
	// 5.bit_length()
	{recv: 5, name: "bit_length", want: "3"},
	// 5.bit_count()
	{recv: 5, name: "bit_count", want: "2"},
	// 5.conjugate()
	{recv: 5, name: "conjugate", want: "5"},
	// 5.as_integer_ratio()
	{recv: 5, name: "as_integer_ratio", want: "(5, 1)"},
	// -5.bit_length()
	{recv: -5, name: "bit_length", want: "3"},
	// -5.bit_count()
	{recv: -5, name: "bit_count", want: "2"},
	// -5.conjugate()
	{recv: -5, name: "conjugate", want: "-5"},
	// -5.as_integer_ratio()
	{recv: -5, name: "as_integer_ratio", want: "(-5, 1)"},
	// 0.bit_length()
	{recv: 0, name: "bit_length", want: "0"},
	// 0.bit_count()
	{recv: 0, name: "bit_count", want: "0"},
	// 0.conjugate()
	{recv: 0, name: "conjugate", want: "0"},
	// 0.as_integer_ratio()
	{recv: 0, name: "as_integer_ratio", want: "(0, 1)"},
	// True.bit_length()
	{recv: true, name: "bit_length", want: "1"},
	// True.bit_count()
	{recv: true, name: "bit_count", want: "1"},
	// True.conjugate()
	{recv: true, name: "conjugate", want: "1"},
	// True.as_integer_ratio()
	{recv: true, name: "as_integer_ratio", want: "(1, 1)"},
	// 1099511627776.bit_length()
	{recv: 1099511627776, name: "bit_length", want: "41"},
	// 1099511627776.bit_count()
	{recv: 1099511627776, name: "bit_count", want: "1"},
	// 1099511627776.conjugate()
	{recv: 1099511627776, name: "conjugate", want: "1099511627776"},
	// 1099511627776.as_integer_ratio()
	{recv: 1099511627776, name: "as_integer_ratio", want: "(1099511627776, 1)"},
	// 5.bit_length(1)
	{recv: 5, name: "bit_length", args: []Value{1}, want: "TypeError: int.bit_length() takes no arguments (1 given)"},
	// True.bit_length(x=1)
	{recv: true, name: "bit_length", kwargs: mtDict("x", 1), want: "TypeError: bool.bit_length() takes no keyword arguments"},
	// 1.5.is_integer()
	{recv: 1.5, name: "is_integer", want: "False"},
	// 1.5.conjugate()
	{recv: 1.5, name: "conjugate", want: "1.5"},
	// 2.0.is_integer()
	{recv: 2.0, name: "is_integer", want: "True"},
	// 2.0.conjugate()
	{recv: 2.0, name: "conjugate", want: "2.0"},
	// -0.0.is_integer()
	{recv: math.Copysign(0, -1), name: "is_integer", want: "True"},
	// -0.0.conjugate()
	{recv: math.Copysign(0, -1), name: "conjugate", want: "-0.0"},
	// inf.is_integer()
	{recv: math.Inf(1), name: "is_integer", want: "False"},
	// inf.conjugate()
	{recv: math.Inf(1), name: "conjugate", want: "inf"},
	// nan.is_integer()
	{recv: math.NaN(), name: "is_integer", want: "False"},
	// nan.conjugate()
	{recv: math.NaN(), name: "conjugate", want: "nan"},
	// 1.5.is_integer(1)
	{recv: 1.5, name: "is_integer", args: []Value{1}, want: "TypeError: float.is_integer() takes no arguments (1 given)"},
}

var formatSpecCases = []formatSpecCase{
	{0, "", "0"},
	{0, "d", "0"},
	{0, "5", "    0"},
	{0, "<5", "0    "},
	{0, "^6", "  0   "},
	{0, "=+7", "+     0"},
	{0, "05", "00000"},
	{0, "+", "+0"},
	{0, " ", " 0"},
	{0, ",", "0"},
	{0, "_", "0"},
	{0, "010,", "00,000,000"},
	{0, "09,", "0,000,000"},
	{0, "08,", "0,000,000"},
	{0, "x", "0"},
	{0, "#x", "0x0"},
	{0, "#X", "0X0"},
	{0, "#010x", "0x00000000"},
	{0, "_b", "0"},
	{0, "#_b", "0b0"},
	{0, "o", "0"},
	{0, "c", "\x00"},
	{0, "n", "0"},
	{0, ".2f", "0.00"},
	{0, "e", "0.000000e+00"},
	{0, "%", "0.000000%"},
	{0, ".1%", "0.0%"},
	{0, "g", "0"},
	{42, "", "42"},
	{42, "d", "42"},
	{42, "5", "   42"},
	{42, "<5", "42   "},
	{42, "^6", "  42  "},
	{42, "=+7", "+    42"},
	{42, "05", "00042"},
	{42, "+", "+42"},
	{42, " ", " 42"},
	{42, ",", "42"},
	{42, "_", "42"},
	{42, "010,", "00,000,042"},
	{42, "09,", "0,000,042"},
	{42, "08,", "0,000,042"},
	{42, "x", "2a"},
	{42, "#x", "0x2a"},
	{42, "#X", "0X2A"},
	{42, "#010x", "0x0000002a"},
	{42, "_b", "10_1010"},
	{42, "#_b", "0b10_1010"},
	{42, "o", "52"},
	{42, "c", "*"},
	{42, "n", "42"},
	{42, ".2f", "42.00"},
	{42, "e", "4.200000e+01"},
	{42, "%", "4200.000000%"},
	{42, ".1%", "4200.0%"},
	{42, "g", "42"},
	{-42, "", "-42"},
	{-42, "d", "-42"},
	{-42, "5", "  -42"},
	{-42, "<5", "-42  "},
	{-42, "^6", " -42  "},
	{-42, "=+7", "-    42"},
	{-42, "05", "-0042"},
	{-42, "+", "-42"},
	{-42, " ", "-42"},
	{-42, ",", "-42"},
	{-42, "_", "-42"},
	{-42, "010,", "-0,000,042"},
	{-42, "09,", "-0,000,042"},
	{-42, "08,", "-000,042"},
	{-42, "x", "-2a"},
	{-42, "#x", "-0x2a"},
	{-42, "#X", "-0X2A"},
	{-42, "#010x", "-0x000002a"},
	{-42, "_b", "-10_1010"},
	{-42, "#_b", "-0b10_1010"},
	{-42, "o", "-52"},
	{-42, "c", "ERR OverflowError: %c arg not in range(0x110000)"},
	{-42, "n", "-42"},
	{-42, ".2f", "-42.00"},
	{-42, "e", "-4.200000e+01"},
	{-42, "%", "-4200.000000%"},
	{-42, ".1%", "-4200.0%"},
	{-42, "g", "-42"},
	{1234567, "", "1234567"},
	{1234567, "d", "1234567"},
	{1234567, "5", "1234567"},
	{1234567, "<5", "1234567"},
	{1234567, "^6", "1234567"},
	{1234567, "=+7", "+1234567"},
	{1234567, "05", "1234567"},
	{1234567, "+", "+1234567"},
	{1234567, " ", " 1234567"},
	{1234567, ",", "1,234,567"},
	{1234567, "_", "1_234_567"},
	{1234567, "010,", "01,234,567"},
	{1234567, "09,", "1,234,567"},
	{1234567, "08,", "1,234,567"},
	{1234567, "x", "12d687"},
	{1234567, "#x", "0x12d687"},
	{1234567, "#X", "0X12D687"},
	{1234567, "#010x", "0x0012d687"},
	{1234567, "_b", "1_0010_1101_0110_1000_0111"},
	{1234567, "#_b", "0b1_0010_1101_0110_1000_0111"},
	{1234567, "o", "4553207"},
	{1234567, "c", "ERR OverflowError: %c arg not in range(0x110000)"},
	{1234567, "n", "1234567"},
	{1234567, ".2f", "1234567.00"},
	{1234567, "e", "1.234567e+06"},
	{1234567, "%", "123456700.000000%"},
	{1234567, ".1%", "123456700.0%"},
	{1234567, "g", "1.23457e+06"},
	{255, "", "255"},
	{255, "d", "255"},
	{255, "5", "  255"},
	{255, "<5", "255  "},
	{255, "^6", " 255  "},
	{255, "=+7", "+   255"},
	{255, "05", "00255"},
	{255, "+", "+255"},
	{255, " ", " 255"},
	{255, ",", "255"},
	{255, "_", "255"},
	{255, "010,", "00,000,255"},
	{255, "09,", "0,000,255"},
	{255, "08,", "0,000,255"},
	{255, "x", "ff"},
	{255, "#x", "0xff"},
	{255, "#X", "0XFF"},
	{255, "#010x", "0x000000ff"},
	{255, "_b", "1111_1111"},
	{255, "#_b", "0b1111_1111"},
	{255, "o", "377"},
	{255, "c", "ÿ"},
	{255, "n", "255"},
	{255, ".2f", "255.00"},
	{255, "e", "2.550000e+02"},
	{255, "%", "25500.000000%"},
	{255, ".1%", "25500.0%"},
	{255, "g", "255"},
	{-255, "", "-255"},
	{-255, "d", "-255"},
	{-255, "5", " -255"},
	{-255, "<5", "-255 "},
	{-255, "^6", " -255 "},
	{-255, "=+7", "-   255"},
	{-255, "05", "-0255"},
	{-255, "+", "-255"},
	{-255, " ", "-255"},
	{-255, ",", "-255"},
	{-255, "_", "-255"},
	{-255, "010,", "-0,000,255"},
	{-255, "09,", "-0,000,255"},
	{-255, "08,", "-000,255"},
	{-255, "x", "-ff"},
	{-255, "#x", "-0xff"},
	{-255, "#X", "-0XFF"},
	{-255, "#010x", "-0x00000ff"},
	{-255, "_b", "-1111_1111"},
	{-255, "#_b", "-0b1111_1111"},
	{-255, "o", "-377"},
	{-255, "c", "ERR OverflowError: %c arg not in range(0x110000)"},
	{-255, "n", "-255"},
	{-255, ".2f", "-255.00"},
	{-255, "e", "-2.550000e+02"},
	{-255, "%", "-25500.000000%"},
	{-255, ".1%", "-25500.0%"},
	{-255, "g", "-255"},
	{0.0, "", "0.0"},
	{0.0, ".0f", "0"},
	{0.0, ".2f", "0.00"},
	{0.0, "#.0f", "0."},
	{0.0, "e", "0.000000e+00"},
	{0.0, ".3e", "0.000e+00"},
	{0.0, "E", "0.000000E+00"},
	{0.0, "g", "0"},
	{0.0, ".3g", "0"},
	{0.0, "#g", "0.00000"},
	{0.0, "G", "0"},
	{0.0, ".0g", "0"},
	{0.0, "%", "0.000000%"},
	{0.0, ".3", "0.0"},
	{0.0, "#", "0.0"},
	{0.0, ".17g", "0"},
	{0.0, "012,.2f", "0,000,000.00"},
	{0.0, "+010.2f", "+000000.00"},
	{0.0, "z.1f", "0.0"},
	{0.0, "z", "0.0"},
	{0.0, ",", "0.0"},
	{0.0, "_", "0.0"},
	{0.0, "n", "0"},
	{0.0, ">12", "         0.0"},
	{0.0, "^12", "    0.0     "},
	{0.0, "*<12.4", "0.0*********"},
	{math.Copysign(0, -1), "", "-0.0"},
	{math.Copysign(0, -1), ".0f", "-0"},
	{math.Copysign(0, -1), ".2f", "-0.00"},
	{math.Copysign(0, -1), "#.0f", "-0."},
	{math.Copysign(0, -1), "e", "-0.000000e+00"},
	{math.Copysign(0, -1), ".3e", "-0.000e+00"},
	{math.Copysign(0, -1), "E", "-0.000000E+00"},
	{math.Copysign(0, -1), "g", "-0"},
	{math.Copysign(0, -1), ".3g", "-0"},
	{math.Copysign(0, -1), "#g", "-0.00000"},
	{math.Copysign(0, -1), "G", "-0"},
	{math.Copysign(0, -1), ".0g", "-0"},
	{math.Copysign(0, -1), "%", "-0.000000%"},
	{math.Copysign(0, -1), ".3", "-0.0"},
	{math.Copysign(0, -1), "#", "-0.0"},
	{math.Copysign(0, -1), ".17g", "-0"},
	{math.Copysign(0, -1), "012,.2f", "-0,000,000.00"},
	{math.Copysign(0, -1), "+010.2f", "-000000.00"},
	{math.Copysign(0, -1), "z.1f", "0.0"},
	{math.Copysign(0, -1), "z", "0.0"},
	{math.Copysign(0, -1), ",", "-0.0"},
	{math.Copysign(0, -1), "_", "-0.0"},
	{math.Copysign(0, -1), "n", "-0"},
	{math.Copysign(0, -1), ">12", "        -0.0"},
	{math.Copysign(0, -1), "^12", "    -0.0    "},
	{math.Copysign(0, -1), "*<12.4", "-0.0********"},
	{1.0, "", "1.0"},
	{1.0, ".0f", "1"},
	{1.0, ".2f", "1.00"},
	{1.0, "#.0f", "1."},
	{1.0, "e", "1.000000e+00"},
	{1.0, ".3e", "1.000e+00"},
	{1.0, "E", "1.000000E+00"},
	{1.0, "g", "1"},
	{1.0, ".3g", "1"},
	{1.0, "#g", "1.00000"},
	{1.0, "G", "1"},
	{1.0, ".0g", "1"},
	{1.0, "%", "100.000000%"},
	{1.0, ".3", "1.0"},
	{1.0, "#", "1.0"},
	{1.0, ".17g", "1"},
	{1.0, "012,.2f", "0,000,001.00"},
	{1.0, "+010.2f", "+000001.00"},
	{1.0, "z.1f", "1.0"},
	{1.0, "z", "1.0"},
	{1.0, ",", "1.0"},
	{1.0, "_", "1.0"},
	{1.0, "n", "1"},
	{1.0, ">12", "         1.0"},
	{1.0, "^12", "    1.0     "},
	{1.0, "*<12.4", "1.0*********"},
	{-1.5, "", "-1.5"},
	{-1.5, ".0f", "-2"},
	{-1.5, ".2f", "-1.50"},
	{-1.5, "#.0f", "-2."},
	{-1.5, "e", "-1.500000e+00"},
	{-1.5, ".3e", "-1.500e+00"},
	{-1.5, "E", "-1.500000E+00"},
	{-1.5, "g", "-1.5"},
	{-1.5, ".3g", "-1.5"},
	{-1.5, "#g", "-1.50000"},
	{-1.5, "G", "-1.5"},
	{-1.5, ".0g", "-2"},
	{-1.5, "%", "-150.000000%"},
	{-1.5, ".3", "-1.5"},
	{-1.5, "#", "-1.5"},
	{-1.5, ".17g", "-1.5"},
	{-1.5, "012,.2f", "-0,000,001.50"},
	{-1.5, "+010.2f", "-000001.50"},
	{-1.5, "z.1f", "-1.5"},
	{-1.5, "z", "-1.5"},
	{-1.5, ",", "-1.5"},
	{-1.5, "_", "-1.5"},
	{-1.5, "n", "-1.5"},
	{-1.5, ">12", "        -1.5"},
	{-1.5, "^12", "    -1.5    "},
	{-1.5, "*<12.4", "-1.5********"},
	{2.5, "", "2.5"},
	{2.5, ".0f", "2"},
	{2.5, ".2f", "2.50"},
	{2.5, "#.0f", "2."},
	{2.5, "e", "2.500000e+00"},
	{2.5, ".3e", "2.500e+00"},
	{2.5, "E", "2.500000E+00"},
	{2.5, "g", "2.5"},
	{2.5, ".3g", "2.5"},
	{2.5, "#g", "2.50000"},
	{2.5, "G", "2.5"},
	{2.5, ".0g", "2"},
	{2.5, "%", "250.000000%"},
	{2.5, ".3", "2.5"},
	{2.5, "#", "2.5"},
	{2.5, ".17g", "2.5"},
	{2.5, "012,.2f", "0,000,002.50"},
	{2.5, "+010.2f", "+000002.50"},
	{2.5, "z.1f", "2.5"},
	{2.5, "z", "2.5"},
	{2.5, ",", "2.5"},
	{2.5, "_", "2.5"},
	{2.5, "n", "2.5"},
	{2.5, ">12", "         2.5"},
	{2.5, "^12", "    2.5     "},
	{2.5, "*<12.4", "2.5*********"},
	{0.1, "", "0.1"},
	{0.1, ".0f", "0"},
	{0.1, ".2f", "0.10"},
	{0.1, "#.0f", "0."},
	{0.1, "e", "1.000000e-01"},
	{0.1, ".3e", "1.000e-01"},
	{0.1, "E", "1.000000E-01"},
	{0.1, "g", "0.1"},
	{0.1, ".3g", "0.1"},
	{0.1, "#g", "0.100000"},
	{0.1, "G", "0.1"},
	{0.1, ".0g", "0.1"},
	{0.1, "%", "10.000000%"},
	{0.1, ".3", "0.1"},
	{0.1, "#", "0.1"},
	{0.1, ".17g", "0.10000000000000001"},
	{0.1, "012,.2f", "0,000,000.10"},
	{0.1, "+010.2f", "+000000.10"},
	{0.1, "z.1f", "0.1"},
	{0.1, "z", "0.1"},
	{0.1, ",", "0.1"},
	{0.1, "_", "0.1"},
	{0.1, "n", "0.1"},
	{0.1, ">12", "         0.1"},
	{0.1, "^12", "    0.1     "},
	{0.1, "*<12.4", "0.1*********"},
	{3.14159265, "", "3.14159265"},
	{3.14159265, ".0f", "3"},
	{3.14159265, ".2f", "3.14"},
	{3.14159265, "#.0f", "3."},
	{3.14159265, "e", "3.141593e+00"},
	{3.14159265, ".3e", "3.142e+00"},
	{3.14159265, "E", "3.141593E+00"},
	{3.14159265, "g", "3.14159"},
	{3.14159265, ".3g", "3.14"},
	{3.14159265, "#g", "3.14159"},
	{3.14159265, "G", "3.14159"},
	{3.14159265, ".0g", "3"},
	{3.14159265, "%", "314.159265%"},
	{3.14159265, ".3", "3.14"},
	{3.14159265, "#", "3.14159265"},
	{3.14159265, ".17g", "3.1415926500000002"},
	{3.14159265, "012,.2f", "0,000,003.14"},
	{3.14159265, "+010.2f", "+000003.14"},
	{3.14159265, "z.1f", "3.1"},
	{3.14159265, "z", "3.14159265"},
	{3.14159265, ",", "3.14159265"},
	{3.14159265, "_", "3.14159265"},
	{3.14159265, "n", "3.14159"},
	{3.14159265, ">12", "  3.14159265"},
	{3.14159265, "^12", " 3.14159265 "},
	{3.14159265, "*<12.4", "3.142*******"},
	{1234567.891, "", "1234567.891"},
	{1234567.891, ".0f", "1234568"},
	{1234567.891, ".2f", "1234567.89"},
	{1234567.891, "#.0f", "1234568."},
	{1234567.891, "e", "1.234568e+06"},
	{1234567.891, ".3e", "1.235e+06"},
	{1234567.891, "E", "1.234568E+06"},
	{1234567.891, "g", "1.23457e+06"},
	{1234567.891, ".3g", "1.23e+06"},
	{1234567.891, "#g", "1.23457e+06"},
	{1234567.891, "G", "1.23457E+06"},
	{1234567.891, ".0g", "1e+06"},
	{1234567.891, "%", "123456789.100000%"},
	{1234567.891, ".3", "1.23e+06"},
	{1234567.891, "#", "1234567.891"},
	{1234567.891, ".17g", "1234567.8910000001"},
	{1234567.891, "012,.2f", "1,234,567.89"},
	{1234567.891, "+010.2f", "+1234567.89"},
	{1234567.891, "z.1f", "1234567.9"},
	{1234567.891, "z", "1234567.891"},
	{1234567.891, ",", "1,234,567.891"},
	{1234567.891, "_", "1_234_567.891"},
	{1234567.891, "n", "1.23457e+06"},
	{1234567.891, ">12", " 1234567.891"},
	{1234567.891, "^12", "1234567.891 "},
	{1234567.891, "*<12.4", "1.235e+06***"},
	{1e+16, "", "1e+16"},
	{1e+16, ".0f", "10000000000000000"},
	{1e+16, ".2f", "10000000000000000.00"},
	{1e+16, "#.0f", "10000000000000000."},
	{1e+16, "e", "1.000000e+16"},
	{1e+16, ".3e", "1.000e+16"},
	{1e+16, "E", "1.000000E+16"},
	{1e+16, "g", "1e+16"},
	{1e+16, ".3g", "1e+16"},
	{1e+16, "#g", "1.00000e+16"},
	{1e+16, "G", "1E+16"},
	{1e+16, ".0g", "1e+16"},
	{1e+16, "%", "1000000000000000000.000000%"},
	{1e+16, ".3", "1e+16"},
	{1e+16, "#", "1.e+16"},
	{1e+16, ".17g", "10000000000000000"},
	{1e+16, "012,.2f", "10,000,000,000,000,000.00"},
	{1e+16, "+010.2f", "+10000000000000000.00"},
	{1e+16, "z.1f", "10000000000000000.0"},
	{1e+16, "z", "1e+16"},
	{1e+16, ",", "1e+16"},
	{1e+16, "_", "1e+16"},
	{1e+16, "n", "1e+16"},
	{1e+16, ">12", "       1e+16"},
	{1e+16, "^12", "   1e+16    "},
	{1e+16, "*<12.4", "1e+16*******"},
	{1e-05, "", "1e-05"},
	{1e-05, ".0f", "0"},
	{1e-05, ".2f", "0.00"},
	{1e-05, "#.0f", "0."},
	{1e-05, "e", "1.000000e-05"},
	{1e-05, ".3e", "1.000e-05"},
	{1e-05, "E", "1.000000E-05"},
	{1e-05, "g", "1e-05"},
	{1e-05, ".3g", "1e-05"},
	{1e-05, "#g", "1.00000e-05"},
	{1e-05, "G", "1E-05"},
	{1e-05, ".0g", "1e-05"},
	{1e-05, "%", "0.001000%"},
	{1e-05, ".3", "1e-05"},
	{1e-05, "#", "1.e-05"},
	{1e-05, ".17g", "1.0000000000000001e-05"},
	{1e-05, "012,.2f", "0,000,000.00"},
	{1e-05, "+010.2f", "+000000.00"},
	{1e-05, "z.1f", "0.0"},
	{1e-05, "z", "1e-05"},
	{1e-05, ",", "1e-05"},
	{1e-05, "_", "1e-05"},
	{1e-05, "n", "1e-05"},
	{1e-05, ">12", "       1e-05"},
	{1e-05, "^12", "   1e-05    "},
	{1e-05, "*<12.4", "1e-05*******"},
	{0.0001, "", "0.0001"},
	{0.0001, ".0f", "0"},
	{0.0001, ".2f", "0.00"},
	{0.0001, "#.0f", "0."},
	{0.0001, "e", "1.000000e-04"},
	{0.0001, ".3e", "1.000e-04"},
	{0.0001, "E", "1.000000E-04"},
	{0.0001, "g", "0.0001"},
	{0.0001, ".3g", "0.0001"},
	{0.0001, "#g", "0.000100000"},
	{0.0001, "G", "0.0001"},
	{0.0001, ".0g", "0.0001"},
	{0.0001, "%", "0.010000%"},
	{0.0001, ".3", "0.0001"},
	{0.0001, "#", "0.0001"},
	{0.0001, ".17g", "0.0001"},
	{0.0001, "012,.2f", "0,000,000.00"},
	{0.0001, "+010.2f", "+000000.00"},
	{0.0001, "z.1f", "0.0"},
	{0.0001, "z", "0.0001"},
	{0.0001, ",", "0.0001"},
	{0.0001, "_", "0.0001"},
	{0.0001, "n", "0.0001"},
	{0.0001, ">12", "      0.0001"},
	{0.0001, "^12", "   0.0001   "},
	{0.0001, "*<12.4", "0.0001******"},
	{1e+100, "", "1e+100"},
	{1e+100, ".0f", "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104"},
	{1e+100, ".2f", "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.00"},
	{1e+100, "#.0f", "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104."},
	{1e+100, "e", "1.000000e+100"},
	{1e+100, ".3e", "1.000e+100"},
	{1e+100, "E", "1.000000E+100"},
	{1e+100, "g", "1e+100"},
	{1e+100, ".3g", "1e+100"},
	{1e+100, "#g", "1.00000e+100"},
	{1e+100, "G", "1E+100"},
	{1e+100, ".0g", "1e+100"},
	{1e+100, "%", "999999999999999977049513265245336628446842719924150006129995974731993452180789911303261294481511546880.000000%"},
	{1e+100, ".3", "1e+100"},
	{1e+100, "#", "1.e+100"},
	{1e+100, ".17g", "1e+100"},
	{1e+100, "012,.2f", "10,000,000,000,000,000,159,028,911,097,599,180,468,360,808,563,945,281,389,781,327,557,747,838,772,170,381,060,813,469,985,856,815,104.00"},
	{1e+100, "+010.2f", "+10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.00"},
	{1e+100, "z.1f", "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.0"},
	{1e+100, "z", "1e+100"},
	{1e+100, ",", "1e+100"},
	{1e+100, "_", "1e+100"},
	{1e+100, "n", "1e+100"},
	{1e+100, ">12", "      1e+100"},
	{1e+100, "^12", "   1e+100   "},
	{1e+100, "*<12.4", "1e+100******"},
	{5e-324, "", "5e-324"},
	{5e-324, ".0f", "0"},
	{5e-324, ".2f", "0.00"},
	{5e-324, "#.0f", "0."},
	{5e-324, "e", "4.940656e-324"},
	{5e-324, ".3e", "4.941e-324"},
	{5e-324, "E", "4.940656E-324"},
	{5e-324, "g", "4.94066e-324"},
	{5e-324, ".3g", "4.94e-324"},
	{5e-324, "#g", "4.94066e-324"},
	{5e-324, "G", "4.94066E-324"},
	{5e-324, ".0g", "5e-324"},
	{5e-324, "%", "0.000000%"},
	{5e-324, ".3", "4.94e-324"},
	{5e-324, "#", "5.e-324"},
	{5e-324, ".17g", "4.9406564584124654e-324"},
	{5e-324, "012,.2f", "0,000,000.00"},
	{5e-324, "+010.2f", "+000000.00"},
	{5e-324, "z.1f", "0.0"},
	{5e-324, "z", "5e-324"},
	{5e-324, ",", "5e-324"},
	{5e-324, "_", "5e-324"},
	{5e-324, "n", "4.94066e-324"},
	{5e-324, ">12", "      5e-324"},
	{5e-324, "^12", "   5e-324   "},
	{5e-324, "*<12.4", "4.941e-324**"},
	{123456789.0, "", "123456789.0"},
	{123456789.0, ".0f", "123456789"},
	{123456789.0, ".2f", "123456789.00"},
	{123456789.0, "#.0f", "123456789."},
	{123456789.0, "e", "1.234568e+08"},
	{123456789.0, ".3e", "1.235e+08"},
	{123456789.0, "E", "1.234568E+08"},
	{123456789.0, "g", "1.23457e+08"},
	{123456789.0, ".3g", "1.23e+08"},
	{123456789.0, "#g", "1.23457e+08"},
	{123456789.0, "G", "1.23457E+08"},
	{123456789.0, ".0g", "1e+08"},
	{123456789.0, "%", "12345678900.000000%"},
	{123456789.0, ".3", "1.23e+08"},
	{123456789.0, "#", "123456789.0"},
	{123456789.0, ".17g", "123456789"},
	{123456789.0, "012,.2f", "123,456,789.00"},
	{123456789.0, "+010.2f", "+123456789.00"},
	{123456789.0, "z.1f", "123456789.0"},
	{123456789.0, "z", "123456789.0"},
	{123456789.0, ",", "123,456,789.0"},
	{123456789.0, "_", "123_456_789.0"},
	{123456789.0, "n", "1.23457e+08"},
	{123456789.0, ">12", " 123456789.0"},
	{123456789.0, "^12", "123456789.0 "},
	{123456789.0, "*<12.4", "1.235e+08***"},
	{math.Inf(1), "", "inf"},
	{math.Inf(1), ".0f", "inf"},
	{math.Inf(1), ".2f", "inf"},
	{math.Inf(1), "#.0f", "inf"},
	{math.Inf(1), "e", "inf"},
	{math.Inf(1), ".3e", "inf"},
	{math.Inf(1), "E", "INF"},
	{math.Inf(1), "g", "inf"},
	{math.Inf(1), ".3g", "inf"},
	{math.Inf(1), "#g", "inf"},
	{math.Inf(1), "G", "INF"},
	{math.Inf(1), ".0g", "inf"},
	{math.Inf(1), "%", "inf%"},
	{math.Inf(1), ".3", "inf"},
	{math.Inf(1), "#", "inf"},
	{math.Inf(1), ".17g", "inf"},
	{math.Inf(1), "012,.2f", "000000000inf"},
	{math.Inf(1), "+010.2f", "+000000inf"},
	{math.Inf(1), "z.1f", "inf"},
	{math.Inf(1), "z", "inf"},
	{math.Inf(1), ",", "inf"},
	{math.Inf(1), "_", "inf"},
	{math.Inf(1), "n", "inf"},
	{math.Inf(1), ">12", "         inf"},
	{math.Inf(1), "^12", "    inf     "},
	{math.Inf(1), "*<12.4", "inf*********"},
	{math.Inf(-1), "", "-inf"},
	{math.Inf(-1), ".0f", "-inf"},
	{math.Inf(-1), ".2f", "-inf"},
	{math.Inf(-1), "#.0f", "-inf"},
	{math.Inf(-1), "e", "-inf"},
	{math.Inf(-1), ".3e", "-inf"},
	{math.Inf(-1), "E", "-INF"},
	{math.Inf(-1), "g", "-inf"},
	{math.Inf(-1), ".3g", "-inf"},
	{math.Inf(-1), "#g", "-inf"},
	{math.Inf(-1), "G", "-INF"},
	{math.Inf(-1), ".0g", "-inf"},
	{math.Inf(-1), "%", "-inf%"},
	{math.Inf(-1), ".3", "-inf"},
	{math.Inf(-1), "#", "-inf"},
	{math.Inf(-1), ".17g", "-inf"},
	{math.Inf(-1), "012,.2f", "-00000000inf"},
	{math.Inf(-1), "+010.2f", "-000000inf"},
	{math.Inf(-1), "z.1f", "-inf"},
	{math.Inf(-1), "z", "-inf"},
	{math.Inf(-1), ",", "-inf"},
	{math.Inf(-1), "_", "-inf"},
	{math.Inf(-1), "n", "-inf"},
	{math.Inf(-1), ">12", "        -inf"},
	{math.Inf(-1), "^12", "    -inf    "},
	{math.Inf(-1), "*<12.4", "-inf********"},
	{math.NaN(), "", "nan"},
	{math.NaN(), ".0f", "nan"},
	{math.NaN(), ".2f", "nan"},
	{math.NaN(), "#.0f", "nan"},
	{math.NaN(), "e", "nan"},
	{math.NaN(), ".3e", "nan"},
	{math.NaN(), "E", "NAN"},
	{math.NaN(), "g", "nan"},
	{math.NaN(), ".3g", "nan"},
	{math.NaN(), "#g", "nan"},
	{math.NaN(), "G", "NAN"},
	{math.NaN(), ".0g", "nan"},
	{math.NaN(), "%", "nan%"},
	{math.NaN(), ".3", "nan"},
	{math.NaN(), "#", "nan"},
	{math.NaN(), ".17g", "nan"},
	{math.NaN(), "012,.2f", "000000000nan"},
	{math.NaN(), "+010.2f", "+000000nan"},
	{math.NaN(), "z.1f", "nan"},
	{math.NaN(), "z", "nan"},
	{math.NaN(), ",", "nan"},
	{math.NaN(), "_", "nan"},
	{math.NaN(), "n", "nan"},
	{math.NaN(), ">12", "         nan"},
	{math.NaN(), "^12", "    nan     "},
	{math.NaN(), "*<12.4", "nan*********"},
	{true, "", "True"},
	{true, "d", "1"},
	{true, ">5", "    1"},
	{true, ".2f", "1.00"},
	{true, "s", "ERR ValueError: Unknown format code 's' for object of type 'bool'"},
	{true, "x", "1"},
	{false, "", "False"},
	{false, "d", "0"},
	{false, ">5", "    0"},
	{false, ".2f", "0.00"},
	{false, "s", "ERR ValueError: Unknown format code 's' for object of type 'bool'"},
	{false, "x", "0"},
	{"abc", "", "abc"},
	{"abc", "s", "abc"},
	{"abc", ">8", "     abc"},
	{"abc", "<8", "abc     "},
	{"abc", "^8", "  abc   "},
	{"abc", "^9", "   abc   "},
	{"abc", "*^9", "***abc***"},
	{"abc", ".2", "ab"},
	{"abc", "5.1", "a    "},
	{"abc", "08", "abc00000"},
	{"abc", "0^7", "00abc00"},
	{"abc", "é>6", "éééabc"},
	{"abc", "=5", "ERR ValueError: '=' alignment not allowed in string format specifier"},
	{"abc", "+", "ERR ValueError: Sign not allowed in string format specifier"},
	{"abc", " ", "ERR ValueError: Space not allowed in string format specifier"},
	{"abc", "#", "ERR ValueError: Alternate form (#) not allowed in string format specifier"},
	{"abc", "z", "ERR ValueError: Negative zero coercion (z) not allowed in string format specifier"},
	{"abc", ",", "ERR ValueError: Cannot specify ',' with 's'."},
	{"abc", "d", "ERR ValueError: Unknown format code 'd' for object of type 'str'"},
	{"abc", ".", "ERR ValueError: Format specifier missing precision"},
	{"", "", ""},
	{"", "s", ""},
	{"", ">8", "        "},
	{"", "<8", "        "},
	{"", "^8", "        "},
	{"", "^9", "         "},
	{"", "*^9", "*********"},
	{"", ".2", ""},
	{"", "5.1", "     "},
	{"", "08", "00000000"},
	{"", "0^7", "0000000"},
	{"", "é>6", "éééééé"},
	{"", "=5", "ERR ValueError: '=' alignment not allowed in string format specifier"},
	{"", "+", "ERR ValueError: Sign not allowed in string format specifier"},
	{"", " ", "ERR ValueError: Space not allowed in string format specifier"},
	{"", "#", "ERR ValueError: Alternate form (#) not allowed in string format specifier"},
	{"", "z", "ERR ValueError: Negative zero coercion (z) not allowed in string format specifier"},
	{"", ",", "ERR ValueError: Cannot specify ',' with 's'."},
	{"", "d", "ERR ValueError: Unknown format code 'd' for object of type 'str'"},
	{"", ".", "ERR ValueError: Format specifier missing precision"},
	{"héllo", "", "héllo"},
	{"héllo", "s", "héllo"},
	{"héllo", ">8", "   héllo"},
	{"héllo", "<8", "héllo   "},
	{"héllo", "^8", " héllo  "},
	{"héllo", "^9", "  héllo  "},
	{"héllo", "*^9", "**héllo**"},
	{"héllo", ".2", "hé"},
	{"héllo", "5.1", "h    "},
	{"héllo", "08", "héllo000"},
	{"héllo", "0^7", "0héllo0"},
	{"héllo", "é>6", "éhéllo"},
	{"héllo", "=5", "ERR ValueError: '=' alignment not allowed in string format specifier"},
	{"héllo", "+", "ERR ValueError: Sign not allowed in string format specifier"},
	{"héllo", " ", "ERR ValueError: Space not allowed in string format specifier"},
	{"héllo", "#", "ERR ValueError: Alternate form (#) not allowed in string format specifier"},
	{"héllo", "z", "ERR ValueError: Negative zero coercion (z) not allowed in string format specifier"},
	{"héllo", ",", "ERR ValueError: Cannot specify ',' with 's'."},
	{"héllo", "d", "ERR ValueError: Unknown format code 'd' for object of type 'str'"},
	{"héllo", ".", "ERR ValueError: Format specifier missing precision"},
	{"😀日本", "", "😀日本"},
	{"😀日本", "s", "😀日本"},
	{"😀日本", ">8", "     😀日本"},
	{"😀日本", "<8", "😀日本     "},
	{"😀日本", "^8", "  😀日本   "},
	{"😀日本", "^9", "   😀日本   "},
	{"😀日本", "*^9", "***😀日本***"},
	{"😀日本", ".2", "😀日"},
	{"😀日本", "5.1", "😀    "},
	{"😀日本", "08", "😀日本00000"},
	{"😀日本", "0^7", "00😀日本00"},
	{"😀日本", "é>6", "ééé😀日本"},
	{"😀日本", "=5", "ERR ValueError: '=' alignment not allowed in string format specifier"},
	{"😀日本", "+", "ERR ValueError: Sign not allowed in string format specifier"},
	{"😀日本", " ", "ERR ValueError: Space not allowed in string format specifier"},
	{"😀日本", "#", "ERR ValueError: Alternate form (#) not allowed in string format specifier"},
	{"😀日本", "z", "ERR ValueError: Negative zero coercion (z) not allowed in string format specifier"},
	{"😀日本", ",", "ERR ValueError: Cannot specify ',' with 's'."},
	{"😀日本", "d", "ERR ValueError: Unknown format code 'd' for object of type 'str'"},
	{"😀日本", ".", "ERR ValueError: Format specifier missing precision"},
	{nil, "", "None"},
	{nil, ">5", "ERR TypeError: unsupported format string passed to NoneType.__format__"},
	{nil, "s", "ERR TypeError: unsupported format string passed to NoneType.__format__"},
	{NewList([]Value{1, "a"}), "", "[1, 'a']"},
	{NewList([]Value{1, "a"}), ">5", "ERR TypeError: unsupported format string passed to list.__format__"},
	{NewList([]Value{1, "a"}), "s", "ERR TypeError: unsupported format string passed to list.__format__"},
	{mtDict("a", 1), "", "{'a': 1}"},
	{mtDict("a", 1), ">5", "ERR TypeError: unsupported format string passed to dict.__format__"},
	{mtDict("a", 1), "s", "ERR TypeError: unsupported format string passed to dict.__format__"},
	{7, "5x5", "ERR ValueError: Invalid format specifier '5x5' for object of type 'int'"},
	{7, ",,", "ERR ValueError: Cannot specify ',' with ','."},
	{7, ",_", "ERR ValueError: Cannot specify both ',' and '_'."},
	{7, "_,", "ERR ValueError: Cannot specify both ',' and '_'."},
	{7, ".", "ERR ValueError: Format specifier missing precision"},
	{7, "99999999999999999999", "ERR ValueError: Too many decimal digits in format string"},
	{7, "\x01", "ERR ValueError: Unknown format code '\\x1' for object of type 'int'"},
	{7, "{^5", "{{7{{"},
	{7, ".2d", "ERR ValueError: Precision not allowed in integer format specifier"},
	{7, "+c", "ERR ValueError: Sign not allowed with integer format specifier 'c'"},
	{7, "#c", "ERR ValueError: Alternate form (#) not allowed with integer format specifier 'c'"},
	{7, ",c", "ERR ValueError: Cannot specify ',' with 'c'."},
	{7, "_n", "ERR ValueError: Cannot specify '_' with 'n'."},
	{7, "zd", "ERR ValueError: Negative zero coercion (z) not allowed in integer format specifier"},
}
