package bench

import (
	"strconv"
	"strings"
	"testing"
)

// pyShow writes a value as the test's expectations spell it: JSON, but a
// tuple in parentheses.
func pyShow(v Value) string {
	switch v.Kind() {
	case KindTuple:
		var parts []string
		for _, it := range v.Items() {
			parts = append(parts, pyShow(it))
		}
		return "(" + strings.Join(parts, ",") + ")"
	case KindList:
		var parts []string
		for _, it := range v.Items() {
			parts = append(parts, pyShow(it))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case KindMap:
		var parts []string
		for _, m := range v.Members() {
			parts = append(parts, strconv.Quote(m.Key)+":"+pyShow(m.Value))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return v.String()
}

// DecodeText on the forms FORMAT.md §6.2 lists, each value's Python
// meaning worked out by hand (and by python3 where arithmetic is involved:
// 7 // 2, -7 // 2, 7 % -3, 7 // -2, 7.5 // -2, -7.5 % 2, -2 ** 2).
func TestDecodeText(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`[get_weather(city="Paris")]`, `get_weather{"city":"Paris"}`},
		{"```\nget_weather(city='Paris', unit=\"c\")\n```", `get_weather{"city":"Paris","unit":"c"}`},
		{` [math.add(a=1, b=-2.5), f()] `, `math.add{"a":1,"b":-2.5} f{}`},
		{"[f(a=1,\n  b=2,)]", `f{"a":1,"b":2}`},
		{`f(x=2**10, y=7//2, z=-7//2, w=7%-3, v=1/4, u=-2**2, s=2**-1, m=3*1.5, p=+4, q=1+2*3, r=7//-2, fd=7.5//-2, fm=-7.5%2)`, `f{"x":1024,"y":3,"z":-4,"w":-2,"v":0.25,"u":-4,"s":0.5,"m":4.5,"p":4,"q":7,"r":-4,"fd":-4.0,"fm":0.5}`},
		{`f(t=(1, 2), s=(3,), p=(4), e=())`, `f{"t":(1,2),"s":(3),"p":4,"e":()}`},
		{`f(unit=celsius, n=None, b=True, c=False)`, `f{"unit":"celsius","n":null,"b":true,"c":false}`},
		{`f(a=x[0], b=np.pi, c=g(1, 2), d=g(k=1), e=a.b.c(x=1), s=x[1:])`, `f{"a":"x[0]","b":"np.pi","c":"g(1, 2)","d":{"g":{"k":1}},"e":{"a.b.c":{"x":1}},"s":"x[1:]"}`},
		{`f(s='it\'s', r=r"a\nb", t="""tri"ple""", j="a" 'b', u="\u00e9\x41\101", k="a\qb", n="x\ny")`, `f{"s":"it's","r":"a\\nb","t":"tri\"ple","j":"ab","u":"éAA","k":"a\\qb","n":"x\ny"}`},
		{`f(d={"a": 1, 'b': [1, 2], "a": 3}, e={})`, `f{"d":{"a":3,"b":[1,2]},"e":{}}`},
		{`f(h=0x1F, o=0o17, b=0b101, u=1_000, z=0, big=123456789012345678901234567890)`, `f{"h":31,"o":15,"b":5,"u":1000,"z":0,"big":123456789012345678901234567890}`},
		{`f(a=1e3, b=.5, c=5., d=1.5e-3, e=2E+2)`, `f{"a":1000.0,"b":0.5,"c":5.0,"d":0.0015,"e":200.0}`},
		{`f(s="a" + "b", n=-(3))`, `f{"s":"ab","n":-3}`},
		{`[]`, ``},
	} {
		calls, err := DecodeText(c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		var got []string
		for _, call := range calls {
			got = append(got, call.Name+pyShow(call.Args))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.text, strings.Join(got, " "), c.want)
		}
	}
	for _, bad := range []string{`f(1)`, `hello there`, `[f(a=1) g(b=2)]`, `f(a={1, 2})`, `f(a=b"x")`, `f(a=f"x")`, `f(a=1j)`,
		`f(a=1, a=2)`, `f(a="x)`, `f(a=1/0)`, `f(a={1: 2})`, `f(a="x" - 1)`, `f`, `[f(a=1)] x`, `f(a=01)`, "```python\nf(a=1)\n```", `f(a=lambda: 1)`} {
		if calls, err := DecodeText(bad); err == nil {
			t.Errorf("%s: decoded to %+v", bad, calls)
		}
	}
}

// CheckText scores text as upstream scores a prompting model: no call where
// none is expected passes whatever the text; a call where any is expected
// passes; a decode error is a decode failure elsewhere.
func TestCheckText(t *testing.T) {
	free, _ := attributeItems(t)
	noCall := &Item{ID: "n", Tools: free.Tools, Functions: free.Functions, Expected: Expected{Mode: ModeNoCall}}
	anyCall := &Item{ID: "a", Tools: free.Tools, Functions: free.Functions, Expected: Expected{Mode: ModeAnyCall}}
	for _, c := range []struct {
		it   *Item
		text string
		kind ErrorKind // "" for a pass
	}{
		{free, `[get_weather(city="Paris")]`, ""},
		{free, `get_weather(city='paris', unit='celsius')`, ""},
		{free, `[get_weather(city="London")]`, ErrString},
		{free, `get_weather(city=("Paris",))`, ErrType},
		{free, `The weather in Paris is sunny.`, ErrDecode},
		{free, `[get_weather("Paris")]`, ErrDecode},
		{noCall, `I cannot help with that.`, ""},
		{noCall, `[]`, ""},
		{noCall, `[get_weather(city="Paris")]`, ErrCallMade},
		{anyCall, `[get_time()]`, ""},
		{anyCall, `No.`, ErrNoCallMade},
	} {
		res := CheckText(c.it, c.text, Options{})
		if res.Pass != (c.kind == "") || res.Kind != c.kind {
			t.Errorf("%s on %s: %+v, want kind %q", c.text, c.it.ID, res, c.kind)
		}
	}
}

// pyRepr writes a value as Python source, as a prompting model would.
func pyRepr(v Value) string {
	switch v.Kind() {
	case KindNull:
		return "None"
	case KindBool:
		if v.b {
			return "True"
		}
		return "False"
	case KindString:
		return strconv.Quote(v.s) // Go's escapes are Python's, for valid UTF-8
	case KindList, KindTuple:
		var parts []string
		for _, it := range v.Items() {
			parts = append(parts, pyRepr(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case KindMap:
		var parts []string
		for _, m := range v.Members() {
			parts = append(parts, strconv.Quote(m.Key)+": "+pyRepr(m.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.s // a number as written in JSON, which Python reads alike
}

// Every BFCL gold output written as a prompting model's text
// ([f(a=1, b="x")]) scores as the same output given as tool calls: the
// decoder reads back every value the answers hold.
func TestCheckTextBFCLGold(t *testing.T) {
	s := loadBFCL(t)
	n := 0
	for i := range s.Items {
		it := &s.Items[i]
		if it.Expected.Mode == ModeNoCall || it.Expected.Mode == ModeAnyCall {
			continue
		}
		gold := goldOutput(it, false)
		var calls []string
		for _, c := range gold {
			var args []string
			for _, m := range c.Args.Members() {
				args = append(args, m.Key+"="+pyRepr(m.Value))
			}
			calls = append(calls, c.Name+"("+strings.Join(args, ", ")+")")
		}
		text := "[" + strings.Join(calls, ", ") + "]"
		want := Check(it, goldCalls(it, false), Options{})
		if got := CheckText(it, text, Options{}); got.Pass != want.Pass || got.Kind != want.Kind {
			t.Errorf("%s: %s\n as text %+v, as calls %+v", it.ID, text, got, want)
		}
		n++
	}
	if n < 2000 {
		t.Errorf("only %d items checked", n)
	}
}
