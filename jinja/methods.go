package jinja

import (
	"fmt"
	"html"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the Python methods a template may call on a value: those of
// str (and markupsafe.Markup), list, tuple, dict, int and float, with Python's
// results and Python's error messages; str.format as Jinja2's sandbox runs it;
// and the format-spec mini-language (formatSpec) that format() and str.format
// share. The character classes and case mappings they use are in pystr.go.

// methodLimit caps the text a padding or formatting method may build, as
// repeat() caps "abc" * n: a template asking for more hits a LimitError.
const methodLimit = 64 << 20

// methodOf returns the bound Python method name of obj, when obj's Python type
// has it. For a name starting with an underscore it reports whether the Python
// object has that attribute at all (the sandbox then refuses it as unsafe); the
// Func returned for those raises SecurityError.
func methodOf(obj Value, name string) (Func, bool) {
	if name == "" {
		return nil, false
	}
	var f Func
	switch o := obj.(type) {
	case string:
		f = strMethod(strRecv{s: o, boxed: obj}, name)
	case Markup:
		f = strMethod(strRecv{s: string(o), markup: true, boxed: obj}, name)
	case *List:
		f = listMethod(o, name)
	case Tuple:
		f = tupleMethod(o, name)
	case *Dict:
		f = dictMethod(o, name)
	case bool:
		n := 0
		if o {
			n = 1
		}
		f = intMethod(n, "bool", name)
	case int:
		f = intMethod(o, "int", name)
	case float64:
		f = floatMethod(o, name)
	}
	if f != nil {
		return f, true
	}
	if name[0] == '_' && hasPrivateAttr(obj, name) {
		tn := typeName(obj)
		return func(*renderer, []Value, *Dict) (Value, error) {
			return nil, securityError("access to attribute %s of %s object is unsafe.", repr(name), repr(tn))
		}, true
	}
	return nil, false
}

// ---------------------------------------------------------------------------
// Argument binding, with the messages CPython gives for each calling convention.

// absentArg marks a parameter the call did not pass.
type absentArg struct{}

func given(v Value) bool {
	_, absent := v.(absentArg)
	return !absent
}

// cStyle is how a C-implemented method parses its arguments; each way words
// its errors differently.
type cStyle uint8

const (
	cNoArgs   cStyle = iota // METH_NOARGS: "str.upper() takes no arguments (1 given)"
	cOneArg                 // METH_O: "str.join() takes exactly one argument (0 given)"
	cClinic                 // positional-only Argument Clinic: "center expected at least 1 argument, got 0"
	cVarargs                // PyArg_ParseTuple: "find() takes at least 1 argument (0 given)"
	cKeywords               // Argument Clinic with keywords: str.split, splitlines, expandtabs
)

type cSig struct {
	style    cStyle
	min, max int
	kw       []string // cKeywords: the parameter names, in order
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// methodArgs are a method call's bound arguments: absentArg where the call
// left one out, and beyond the method's parameters. A fixed array, so that
// binding allocates nothing.
type methodArgs [3]Value

// bindC checks a call of the C method owner.name against sig and returns its
// arguments, sig.max of them, absentArg where the call left one out.
func bindC(owner, name string, sig cSig, args []Value, kwargs *Dict) (methodArgs, error) {
	nkw := 0
	if kwargs != nil {
		nkw = kwargs.Len()
	}
	n := len(args)
	if nkw > 0 && sig.style != cKeywords {
		if sig.style == cVarargs {
			return methodArgs{}, typeError("%s() takes no keyword arguments", name)
		}
		return methodArgs{}, typeError("%s.%s() takes no keyword arguments", owner, name)
	}
	switch sig.style {
	case cNoArgs:
		if n != 0 {
			return methodArgs{}, typeError("%s.%s() takes no arguments (%d given)", owner, name, n)
		}
	case cOneArg:
		if n != 1 {
			return methodArgs{}, typeError("%s.%s() takes exactly one argument (%d given)", owner, name, n)
		}
	case cClinic:
		if n < sig.min {
			return methodArgs{}, typeError("%s expected at least %s, got %d", name, plural(sig.min, "argument"), n)
		}
		if n > sig.max {
			return methodArgs{}, typeError("%s expected at most %s, got %d", name, plural(sig.max, "argument"), n)
		}
	case cVarargs:
		if n < sig.min {
			return methodArgs{}, typeError("%s() takes at least %s (%d given)", name, plural(sig.min, "argument"), n)
		}
		if n > sig.max {
			return methodArgs{}, typeError("%s() takes at most %s (%d given)", name, plural(sig.max, "argument"), n)
		}
	case cKeywords:
		if n+nkw > sig.max {
			return methodArgs{}, typeError("%s() takes at most %s (%d given)", name, plural(sig.max, "argument"), n+nkw)
		}
	}
	var out methodArgs
	for i := range out {
		out[i] = absentArg{}
	}
	copy(out[:sig.max], args)
	for i := 0; i < nkw; i++ {
		k, _ := kwargs.keys[i].(string)
		idx := -1
		for j, p := range sig.kw {
			if p == k {
				idx = j
			}
		}
		if idx < 0 {
			return methodArgs{}, typeError("'%s' is an invalid keyword argument for %s()", k, name)
		}
		if idx < n {
			return methodArgs{}, typeError("argument for %s() given by name ('%s') and position (%d)", name, k, idx+1)
		}
		out[idx] = kwargs.vals[i]
	}
	return out, nil
}

// pyDefSig is the signature of a method written in Python (markupsafe's Markup
// overrides most str methods): its parameters after self, how many of them
// are positional-only, and how many have no default.
type pyDefSig struct {
	params   []string
	posOnly  int
	required int
}

// bindPyDef checks a call of the Python function qual against sig as CPython
// does, and returns its arguments (absentArg for a default).
func bindPyDef(qual string, sig pyDefSig, args []Value, kwargs *Dict) (methodArgs, error) {
	np := len(sig.params)
	var out methodArgs
	for i := range out {
		out[i] = absentArg{}
	}
	n := len(args)
	copy(out[:np], args)
	if kwargs != nil {
		for i, k := range kwargs.keys {
			name, _ := k.(string)
			idx := -1
			for j := sig.posOnly; j < np; j++ {
				if sig.params[j] == name {
					idx = j
				}
			}
			if idx < 0 {
				var posOnly []string
				for _, k2 := range kwargs.keys {
					n2, _ := k2.(string)
					for j := 0; j < sig.posOnly; j++ {
						if sig.params[j] == n2 {
							posOnly = append(posOnly, n2)
						}
					}
				}
				if len(posOnly) > 0 {
					return methodArgs{}, typeError("%s() got some positional-only arguments passed as keyword arguments: '%s'", qual, strings.Join(posOnly, ", "))
				}
				return methodArgs{}, typeError("%s() got an unexpected keyword argument '%s'", qual, name)
			}
			if idx < n {
				return methodArgs{}, typeError("%s() got multiple values for argument '%s'", qual, name)
			}
			out[idx] = kwargs.vals[i]
		}
	}
	if n > np {
		were := "were"
		if n+1 == 1 {
			were = "was"
		}
		if sig.required == np {
			return methodArgs{}, typeError("%s() takes %s but %d %s given", qual, plural(np+1, "positional argument"), n+1, were)
		}
		return methodArgs{}, typeError("%s() takes from %d to %d positional arguments but %d %s given", qual, sig.required+1, np+1, n+1, were)
	}
	var missing []string
	for i := 0; i < sig.required; i++ {
		if !given(out[i]) {
			missing = append(missing, "'"+sig.params[i]+"'")
		}
	}
	if len(missing) > 0 {
		return methodArgs{}, missingArgs(qual, missing)
	}
	return out, nil
}

// toIndex is Python's operator.index(v), for an argument that must be an
// integer: ints and bools only.
func toIndex(v Value) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, typeError("'%s' object cannot be interpreted as an integer", typeName(v))
}

// sliceArg reads an optional start or end argument of str.find and friends:
// an int, None or left out.
func sliceArg(v Value, def int) (int, error) {
	if !given(v) || v == nil {
		return def, nil
	}
	if n, err := toIndex(v); err == nil {
		return n, nil
	}
	return 0, typeError("slice indices must be integers or None or have an __index__ method")
}

// methodIterate is iter(v) drained, as a method sees it: iterating a Markup
// yields plain str characters (str.__iter__ is not overridden), which
// Markup.join then escapes.
func methodIterate(v Value) ([]Value, error) {
	switch x := v.(type) {
	case *dictView:
		return x.items(), nil
	case Markup:
		return strChars(string(x))
	}
	return iterate(v)
}

// ---------------------------------------------------------------------------
// str and Markup

// strRecv is the receiver of a str method: the text, and whether it is a
// Markup (whose overrides escape their arguments and return Markup).
type strRecv struct {
	s      string
	markup bool
	boxed  Value // the receiver as a Value, when the caller has it
}

// wrap returns a method's str result as a Value of the receiver's type. A
// result that is the receiver itself (" a ".strip() on text with nothing to
// strip) is returned as the receiver's Value, saving the allocation.
func (c strRecv) wrap(s string) Value {
	if c.boxed != nil && s == c.s {
		return c.boxed
	}
	if c.markup {
		return Markup(s)
	}
	return s
}

func (c strRecv) wrapList(parts []string) Value {
	items := make([]Value, len(parts))
	for i, p := range parts {
		items[i] = c.wrap(p)
	}
	return NewList(items)
}

func (c strRecv) typeName() string {
	if c.markup {
		return "Markup"
	}
	return "str"
}

// bind checks the arguments of str.name, or of Markup's Python override when
// the receiver is a Markup and ps is not nil.
func (c strRecv) bind(name string, cs cSig, ps *pyDefSig, args []Value, kwargs *Dict) (methodArgs, error) {
	if c.markup && ps != nil {
		return bindPyDef("Markup."+name, *ps, args, kwargs)
	}
	return bindC(c.typeName(), name, cs, args, kwargs)
}

type strImpl func(c strRecv, r *renderer, args []Value, kwargs *Dict) (Value, error)

var (
	sigNoArgs  = cSig{style: cNoArgs}
	sigOneArg  = cSig{style: cOneArg, min: 1, max: 1}
	sigFind    = cSig{style: cVarargs, min: 1, max: 3}
	sigPad     = cSig{style: cClinic, min: 1, max: 2}
	sigStrip   = cSig{style: cClinic, min: 0, max: 1}
	mkNoArgs   = &pyDefSig{}
	mkPad      = &pyDefSig{params: []string{"width", "fillchar"}, posOnly: 2, required: 1}
	mkStrip    = &pyDefSig{params: []string{"chars"}, posOnly: 1}
	mkSplit    = &pyDefSig{params: []string{"sep", "maxsplit"}}
	mkPartSep  = &pyDefSig{params: []string{"sep"}, posOnly: 1, required: 1}
	mkWidth    = &pyDefSig{params: []string{"width"}, posOnly: 1, required: 1}
	sigSplit   = cSig{style: cKeywords, max: 2, kw: []string{"sep", "maxsplit"}}
	sigReplace = cSig{style: cClinic, min: 2, max: 3}
)

// strMethodNames are the methods of str, and the names of Markup's extra ones.
var strMethodNames = []string{"capitalize", "casefold", "lower", "upper", "swapcase", "title",
	"center", "ljust", "rjust", "zfill", "count", "find", "index", "rfind", "rindex",
	"startswith", "endswith", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
	"isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper",
	"join", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "partition",
	"rpartition", "removeprefix", "removesuffix", "replace", "expandtabs", "translate",
	"maketrans", "format", "format_map", "escape", "unescape", "striptags"}

// strImpls and markupImpls are the methods of str and of Markup by name, made
// once: a method call looks its implementation up here.
var strImpls, markupImpls = map[string]strImpl{}, map[string]strImpl{}

func init() {
	for _, name := range strMethodNames {
		if m := newStrImpl(name, false); m != nil {
			strImpls[name] = m
		}
		if m := newStrImpl(name, true); m != nil {
			markupImpls[name] = m
		}
	}
}

// strMethod returns str.name (or Markup.name) bound to c, or nil.
func strMethod(c strRecv, name string) Func {
	impls := strImpls
	if c.markup {
		impls = markupImpls
	}
	m := impls[name]
	if m == nil {
		return nil
	}
	return func(r *renderer, args []Value, kwargs *Dict) (Value, error) {
		return m(c, r, args, kwargs)
	}
}

// newStrImpl makes the implementation of str.name, or of Markup.name when
// markup is set; nil when there is no such method.
func newStrImpl(name string, markup bool) strImpl {
	var m strImpl
	switch name {
	case "capitalize":
		m = caseMethod(name, strCapitalize)
	case "casefold":
		m = caseMethod(name, strCasefold)
	case "lower":
		m = caseMethod(name, strLower)
	case "upper":
		m = caseMethod(name, strUpper)
	case "swapcase":
		m = caseMethod(name, strSwapcase)
	case "title":
		m = caseMethod(name, strTitle)
	case "center", "ljust", "rjust":
		m = padMethod(name)
	case "zfill":
		m = strZfill
	case "count":
		m = strCount
	case "find", "index", "rfind", "rindex":
		m = findMethod(name)
	case "startswith", "endswith":
		m = affixMethod(name)
	case "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
		"isnumeric", "isprintable", "isspace", "istitle", "isupper":
		m = isMethod(name)
	case "join":
		m = strJoin
	case "strip", "lstrip", "rstrip":
		m = stripMethod(name)
	case "split", "rsplit":
		m = splitMethod(name)
	case "splitlines":
		m = strSplitlines
	case "partition", "rpartition":
		m = partitionMethod(name)
	case "removeprefix", "removesuffix":
		m = removeAffixMethod(name)
	case "replace":
		m = strReplace
	case "expandtabs":
		m = strExpandtabs
	case "translate":
		m = strTranslate
	case "maketrans":
		m = strMaketrans
	case "format":
		m = strFormatMethod
	case "format_map":
		m = strFormatMapMethod
	case "escape":
		if markup {
			m = markupEscape
		}
	case "unescape", "striptags":
		if markup {
			m = markupUnescape(name)
		}
	}
	return m
}

func caseMethod(name string, conv func(string) string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := c.bind(name, sigNoArgs, mkNoArgs, args, kwargs); err != nil {
			return nil, err
		}
		return c.wrap(conv(c.s)), nil
	}
}

// fillChar reads the fill character of center, ljust and rjust (which Markup
// escapes first).
func fillChar(c strRecv, v Value) (rune, error) {
	if !given(v) {
		return ' ', nil
	}
	if c.markup {
		v = escapeValue(v)
	}
	s, ok := isString(v)
	if !ok {
		return 0, typeError("The fill character must be a unicode character, not %s", typeName(v))
	}
	r, size := utf8.DecodeRuneInString(s)
	if s == "" || size != len(s) {
		return 0, typeError("The fill character must be exactly one character long")
	}
	return r, nil
}

func padMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		a, err := c.bind(name, sigPad, mkPad, args, kwargs)
		if err != nil {
			return nil, err
		}
		width, err := toIndex(a[0])
		if err != nil {
			return nil, err
		}
		fill, err := fillChar(c, a[1])
		if err != nil {
			return nil, err
		}
		n := utf8.RuneCountInString(c.s)
		if width <= n {
			return c.wrap(c.s), nil
		}
		if width > methodLimit {
			return nil, limitError("string padding too large")
		}
		marg := width - n
		var left int
		switch name {
		case "ljust":
			left = 0
		case "rjust":
			left = marg
		default: // CPython's pad(): the odd space goes right unless width is odd
			left = marg/2 + (marg & width & 1)
		}
		f := string(fill)
		return c.wrap(strings.Repeat(f, left) + c.s + strings.Repeat(f, marg-left)), nil
	}
}

func strZfill(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("zfill", sigOneArg, mkWidth, args, kwargs)
	if err != nil {
		return nil, err
	}
	width, err := toIndex(a[0])
	if err != nil {
		return nil, err
	}
	n := utf8.RuneCountInString(c.s)
	if width <= n {
		return c.wrap(c.s), nil
	}
	if width > methodLimit {
		return nil, limitError("string padding too large")
	}
	zeros := strings.Repeat("0", width-n)
	if c.s != "" && (c.s[0] == '+' || c.s[0] == '-') {
		return c.wrap(c.s[:1] + zeros + c.s[1:]), nil
	}
	return c.wrap(zeros + c.s), nil
}

// findText is the receiver of str.find and friends: its text, its length in
// code points, and whether it is ASCII, when code point i is byte i. The
// methods search the UTF-8 text itself (strings.Index is fast) and convert
// between code point indices and byte offsets only where they must.
type findText struct {
	s     string
	n     int
	ascii bool
}

func newFindText(s string) findText {
	if isASCII(s) {
		return findText{s: s, n: len(s), ascii: true}
	}
	s = validText(s)
	return findText{s: s, n: utf8.RuneCountInString(s)}
}

// validText returns s, with invalid UTF-8 bytes replaced by U+FFFD as []rune(s)
// replaces them, so that byte and code point searches agree.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// offset is the byte offset of code point i, 0 <= i <= t.n.
func (t findText) offset(i int) int {
	if t.ascii {
		return i
	}
	for off := range t.s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(t.s)
}

// window is the text of code points [start, end), start <= end <= t.n.
func (t findText) window(start, end int) string {
	if t.ascii {
		return t.s[start:end]
	}
	lo := t.offset(start)
	return t.s[lo : lo+findText{s: t.s[lo:]}.offset(end-start)]
}

// index converts the byte offset i within the window starting at code point
// start back to a code point index.
func (t findText) index(window string, start, i int) int {
	if t.ascii {
		return start + i
	}
	return start + utf8.RuneCountInString(window[:i])
}

// findArgs parses (sub[, start[, end]]) as str.find and friends do: the slice
// bounds first, then the substring; it returns the receiver, the substring
// argument, and the bounds adjusted as CPython's ADJUST_INDICES does.
func findArgs(c strRecv, name string, args []Value, kwargs *Dict) (hay findText, subV Value, start, end int, err error) {
	a, err := bindC(c.typeName(), name, sigFind, args, kwargs)
	if err != nil {
		return
	}
	if start, err = sliceArg(a[1], 0); err != nil {
		return
	}
	if end, err = sliceArg(a[2], math.MaxInt); err != nil {
		return
	}
	hay = newFindText(c.s)
	n := hay.n
	if end > n {
		end = n
	} else if end < 0 {
		end += n
		if end < 0 {
			end = 0
		}
	}
	if start < 0 {
		start += n
		if start < 0 {
			start = 0
		}
	}
	return hay, a[0], start, end, nil
}

func mustStr(v Value) (string, error) {
	s, ok := isString(v)
	if !ok {
		return "", typeError("must be str, not %s", typeName(v))
	}
	return s, nil
}

// subText is a substring argument as a valid UTF-8 text and its length in
// code points.
func subText(s string) (string, int) {
	s = validText(s)
	return s, utf8.RuneCountInString(s)
}

// find returns the first (or last) index of sub in hay[start:end], or -1.
func (t findText) find(sub string, start, end int, last bool) int {
	sub, m := subText(sub)
	if start > t.n || end-start < m {
		return -1
	}
	w := t.window(start, end)
	var i int
	if last {
		i = strings.LastIndex(w, sub)
	} else {
		i = strings.Index(w, sub)
	}
	if i < 0 {
		return -1
	}
	return t.index(w, start, i)
}

func strCount(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	hay, subV, start, end, err := findArgs(c, "count", args, kwargs)
	if err != nil {
		return nil, err
	}
	s, err := mustStr(subV)
	if err != nil {
		return nil, err
	}
	if start > hay.n || end < start {
		return 0, nil
	}
	sub, m := subText(s)
	if m == 0 {
		return end - start + 1, nil
	}
	if end-start < m {
		return 0, nil
	}
	return strings.Count(hay.window(start, end), sub), nil
}

func findMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		hay, subV, start, end, err := findArgs(c, name, args, kwargs)
		if err != nil {
			return nil, err
		}
		sub, err := mustStr(subV)
		if err != nil {
			return nil, err
		}
		i := hay.find(sub, start, end, name[0] == 'r')
		if i < 0 && (name == "index" || name == "rindex") {
			return nil, valueError("substring not found")
		}
		return i, nil
	}
}

func affixMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		hay, subV, start, end, err := findArgs(c, name, args, kwargs)
		if err != nil {
			return nil, err
		}
		match := func(s string) bool {
			sub, m := subText(s)
			if end-m < start || start > hay.n {
				return false
			}
			if name == "startswith" {
				return strings.HasPrefix(hay.window(start, end), sub)
			}
			return strings.HasSuffix(hay.window(start, end), sub)
		}
		if t, ok := subV.(Tuple); ok {
			for _, item := range t {
				s, ok := isString(item)
				if !ok {
					return nil, typeError("tuple for %s must only contain str, not %s", name, typeName(item))
				}
				if match(s) {
					return true, nil
				}
			}
			return false, nil
		}
		s, ok := isString(subV)
		if !ok {
			return nil, typeError("%s first arg must be str or a tuple of str, not %s", name, typeName(subV))
		}
		return match(s), nil
	}
}

func isMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := bindC(c.typeName(), name, sigNoArgs, args, kwargs); err != nil {
			return nil, err
		}
		s := c.s
		all := func(pred func(rune) bool) bool {
			if s == "" {
				return false
			}
			for _, r := range s {
				if !pred(r) {
					return false
				}
			}
			return true
		}
		switch name {
		case "isalnum":
			return all(isAlnumRune), nil
		case "isalpha":
			return all(unicode.IsLetter), nil
		case "isascii":
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					return false, nil
				}
			}
			return true, nil
		case "isdecimal":
			return all(unicode.IsDigit), nil
		case "isdigit":
			return all(isDigitRune), nil
		case "isnumeric":
			return all(isNumericRune), nil
		case "isspace":
			return all(isSpaceRune), nil
		case "isprintable":
			for _, r := range s {
				if !isPrintable(r) {
					return false, nil
				}
			}
			return true, nil
		case "isidentifier":
			return isIdentifier(s), nil
		case "islower":
			return strIsLower(s), nil
		case "isupper":
			return strIsUpper(s), nil
		case "istitle":
			return strIsTitle(s), nil
		}
		return false, nil
	}
}

func strJoin(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("join", sigOneArg, &pyDefSig{params: []string{"iterable"}, posOnly: 1, required: 1}, args, kwargs)
	if err != nil {
		return nil, err
	}
	items, err := methodIterate(a[0])
	if err != nil {
		if c.markup {
			return nil, err
		}
		return nil, typeError("can only join an iterable")
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if c.markup {
			it = escapeValue(it)
		}
		s, ok := isString(it)
		if !ok {
			return nil, typeError("sequence item %d: expected str instance, %s found", i, typeName(it))
		}
		parts[i] = s
	}
	out := strings.Join(parts, c.s)
	if len(out) > methodLimit {
		return nil, limitError("string join too large")
	}
	return c.wrap(out), nil
}

func stripMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		a, err := c.bind(name, sigStrip, mkStrip, args, kwargs)
		if err != nil {
			return nil, err
		}
		cut := isSpaceRune
		if given(a[0]) && a[0] != nil {
			chars, ok := isString(a[0])
			if !ok {
				return nil, typeError("%s arg must be None or str", name)
			}
			cut = func(r rune) bool { return strings.ContainsRune(chars, r) }
		}
		s := c.s
		if name != "rstrip" {
			s = strings.TrimLeftFunc(s, cut)
		}
		if name != "lstrip" {
			s = strings.TrimRightFunc(s, cut)
		}
		return c.wrap(s), nil
	}
}

func splitMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		a, err := c.bind(name, sigSplit, mkSplit, args, kwargs)
		if err != nil {
			return nil, err
		}
		var sep string
		hasSep := false
		if given(a[0]) && a[0] != nil {
			s, ok := isString(a[0])
			if !ok {
				return nil, typeError("must be str or None, not %s", typeName(a[0]))
			}
			sep, hasSep = s, true
		}
		maxsplit := -1
		if given(a[1]) {
			if maxsplit, err = toIndex(a[1]); err != nil {
				return nil, err
			}
		}
		if hasSep && sep == "" {
			return nil, valueError("empty separator")
		}
		var parts []string
		switch {
		case !hasSep && name == "split":
			parts = splitSpace(c.s, maxsplit)
		case !hasSep:
			parts = rsplitSpace(c.s, maxsplit)
		case name == "split":
			if maxsplit < 0 {
				parts = strings.Split(c.s, sep)
			} else {
				parts = strings.SplitN(c.s, sep, maxsplit+1)
			}
		default:
			parts = rsplitSep(c.s, sep, maxsplit)
		}
		return c.wrapList(parts), nil
	}
}

// splitSpace is str.split() with no separator: runs of Python whitespace
// separate words; after maxsplit splits the rest is one word, its trailing
// whitespace kept.
func splitSpace(s string, maxsplit int) []string {
	parts := []string{}
	i := 0
	for {
		for i < len(s) {
			r, w := utf8.DecodeRuneInString(s[i:])
			if !isSpaceRune(r) {
				break
			}
			i += w
		}
		if i >= len(s) {
			return parts
		}
		if maxsplit >= 0 && len(parts) == maxsplit {
			return append(parts, s[i:])
		}
		j := i
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			if isSpaceRune(r) {
				break
			}
			j += w
		}
		parts = append(parts, s[i:j])
		i = j
	}
}

// rsplitSpace is str.rsplit() with no separator.
func rsplitSpace(s string, maxsplit int) []string {
	var rev []string
	j := len(s)
	for {
		for j > 0 {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if !isSpaceRune(r) {
				break
			}
			j -= w
		}
		if j <= 0 {
			break
		}
		if maxsplit >= 0 && len(rev) == maxsplit {
			rev = append(rev, s[:j])
			break
		}
		i := j
		for i > 0 {
			r, w := utf8.DecodeLastRuneInString(s[:i])
			if isSpaceRune(r) {
				break
			}
			i -= w
		}
		rev = append(rev, s[i:j])
		j = i
	}
	parts := make([]string, len(rev))
	for k, p := range rev {
		parts[len(rev)-1-k] = p
	}
	return parts
}

// rsplitSep is str.rsplit(sep, maxsplit).
func rsplitSep(s, sep string, maxsplit int) []string {
	var rev []string
	for maxsplit < 0 || len(rev) < maxsplit {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		rev = append(rev, s[i+len(sep):])
		s = s[:i]
	}
	rev = append(rev, s)
	parts := make([]string, len(rev))
	for k, p := range rev {
		parts[len(rev)-1-k] = p
	}
	return parts
}

func strSplitlines(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("splitlines", cSig{style: cKeywords, max: 1, kw: []string{"keepends"}}, &pyDefSig{params: []string{"keepends"}}, args, kwargs)
	if err != nil {
		return nil, err
	}
	keep := false
	if given(a[0]) {
		k, err := toIndex(a[0])
		if err != nil {
			return nil, err
		}
		keep = k != 0
	}
	return c.wrapList(splitLines(c.s, keep)), nil
}

func partitionMethod(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		a, err := c.bind(name, sigOneArg, mkPartSep, args, kwargs)
		if err != nil {
			return nil, err
		}
		sep, err := mustStr(a[0])
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, valueError("empty separator")
		}
		var i int
		if name == "partition" {
			i = strings.Index(c.s, sep)
			if i < 0 {
				return Tuple{c.wrap(c.s), c.wrap(""), c.wrap("")}, nil
			}
		} else {
			i = strings.LastIndex(c.s, sep)
			if i < 0 {
				return Tuple{c.wrap(""), c.wrap(""), c.wrap(c.s)}, nil
			}
		}
		return Tuple{c.wrap(c.s[:i]), c.wrap(sep), c.wrap(c.s[i+len(sep):])}, nil
	}
}

func removeAffixMethod(name string) strImpl {
	param := map[string]string{"removeprefix": "prefix", "removesuffix": "suffix"}[name]
	ps := &pyDefSig{params: []string{param}, posOnly: 1, required: 1}
	if name == "removesuffix" { // markupsafe forgot the "/" on this one
		ps.posOnly = 0
	}
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		a, err := c.bind(name, sigOneArg, ps, args, kwargs)
		if err != nil {
			return nil, err
		}
		affix, ok := isString(a[0])
		if !ok {
			return nil, typeError("%s() argument must be str, not %s", name, clinicTypeName(a[0]))
		}
		if name == "removeprefix" {
			return c.wrap(strings.TrimPrefix(c.s, affix)), nil
		}
		return c.wrap(strings.TrimSuffix(c.s, affix)), nil
	}
}

// clinicTypeName is how Argument Clinic names a wrong argument's type: None
// is "None", anything else its type name.
func clinicTypeName(v Value) string {
	if v == nil {
		return "None"
	}
	return typeName(v)
}

func strReplace(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("replace", sigReplace, &pyDefSig{params: []string{"old", "new", "count"}, posOnly: 3, required: 2}, args, kwargs)
	if err != nil {
		return nil, err
	}
	newV := a[1]
	if c.markup {
		newV = escapeValue(newV)
	}
	old, ok := isString(a[0])
	if !ok {
		return nil, typeError("replace() argument 1 must be str, not %s", clinicTypeName(a[0]))
	}
	repl, ok := isString(newV)
	if !ok {
		return nil, typeError("replace() argument 2 must be str, not %s", clinicTypeName(newV))
	}
	count := -1
	if given(a[2]) {
		if count, err = toIndex(a[2]); err != nil {
			return nil, err
		}
	}
	if err := checkReplace(c.s, old, repl, count); err != nil {
		return nil, err
	}
	return c.wrap(strings.Replace(c.s, old, repl, count)), nil
}

// checkReplace refuses s.replace(old, repl, count) when what it adds to s
// would take it past methodLimit, before it is made.
func checkReplace(s, old, repl string, count int) error {
	n, unit := 0, len(repl)-len(old) // replacements, and what each adds
	switch {
	case old == "" && repl != "":
		n = utf8.RuneCountInString(s) + 1
	case unit > 0:
		n = strings.Count(s, old)
	default:
		return nil
	}
	if count >= 0 {
		n = min(n, count)
	}
	if n > 0 && (n > methodLimit/unit || len(s)+n*unit > methodLimit) {
		return limitError("string replace too large")
	}
	return nil
}

func strExpandtabs(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("expandtabs", cSig{style: cKeywords, max: 1, kw: []string{"tabsize"}}, &pyDefSig{params: []string{"tabsize"}}, args, kwargs)
	if err != nil {
		return nil, err
	}
	tab := 8
	if given(a[0]) {
		if tab, err = toIndex(a[0]); err != nil {
			return nil, err
		}
	}
	if tab > methodLimit {
		return nil, limitError("string padding too large")
	}
	var b strings.Builder
	col := 0
	for _, r := range c.s {
		switch r {
		case '\t':
			if tab > 0 {
				n := tab - col%tab
				col += n
				b.WriteString(strings.Repeat(" ", n))
			}
		case '\n', '\r':
			col = 0
			b.WriteRune(r)
		default:
			col++
			b.WriteRune(r)
		}
		if b.Len() > methodLimit {
			return nil, limitError("string padding too large")
		}
	}
	return c.wrap(b.String()), nil
}

func strTranslate(c strRecv, r *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := c.bind("translate", sigOneArg, &pyDefSig{params: []string{"table"}, posOnly: 1, required: 1}, args, kwargs)
	if err != nil {
		return nil, err
	}
	table := a[0]
	var b strings.Builder
	for _, ch := range c.s {
		var v Value
		found := false
		switch t := table.(type) {
		case *Dict:
			v, found = t.Get(int(ch))
		case *List:
			if int(ch) < len(t.Items) {
				v, found = t.Items[ch], true
			}
		case Tuple:
			if int(ch) < len(t) {
				v, found = t[ch], true
			}
		case string, Markup:
			s, _ := isString(t)
			rs := []rune(s)
			if int(ch) < len(rs) {
				v, found = string(rs[ch]), true
			}
		case Undefined:
			return nil, t.fail()
		default:
			return nil, typeError("'%s' object is not subscriptable", typeName(table))
		}
		if !found {
			b.WriteRune(ch)
			continue
		}
		switch m := v.(type) {
		case nil:
		case int, bool:
			n, _ := toIndex(m)
			if n < 0 || n > 0x10ffff {
				return nil, valueError("character mapping must be in range(0x110000)")
			}
			b.WriteRune(rune(n))
		case string:
			b.WriteString(m)
		case Markup:
			b.WriteString(string(m))
		default:
			return nil, typeError("character mapping must return integer, None or str")
		}
		if b.Len() > methodLimit {
			return nil, limitError("string translate too large")
		}
	}
	return c.wrap(b.String()), nil
}

func strMaketrans(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := bindC(c.typeName(), "maketrans", cSig{style: cClinic, min: 1, max: 3}, args, kwargs)
	if err != nil {
		return nil, err
	}
	out := NewDict(0)
	if !given(a[1]) {
		d, ok := a[0].(*Dict)
		if !ok {
			return nil, typeError("if you give only one argument to maketrans it must be a dict")
		}
		for i, k := range d.keys {
			switch key := k.(type) {
			case int, bool:
				if err := out.Set(key, d.vals[i]); err != nil {
					return nil, err
				}
			case string, Markup:
				s, _ := isString(key)
				r, size := utf8.DecodeRuneInString(s)
				if s == "" || size != len(s) {
					return nil, valueError("string keys in translate table must be of length 1")
				}
				if err := out.Set(int(r), d.vals[i]); err != nil {
					return nil, err
				}
			default:
				return nil, typeError("keys in translate table must be strings or integers")
			}
		}
		return out, nil
	}
	x, ok := isString(a[0])
	if !ok {
		return nil, typeError("first maketrans argument must be a string if there is a second argument")
	}
	y, ok := isString(a[1])
	if !ok {
		return nil, typeError("maketrans() argument 2 must be str, not %s", clinicTypeName(a[1]))
	}
	var z string
	if given(a[2]) {
		if z, ok = isString(a[2]); !ok {
			return nil, typeError("maketrans() argument 3 must be str, not %s", clinicTypeName(a[2]))
		}
	}
	xr, yr := []rune(x), []rune(y)
	if len(xr) != len(yr) {
		return nil, valueError("the first two maketrans arguments must have equal length")
	}
	for i, r := range xr {
		_ = out.Set(int(r), int(yr[i]))
	}
	for _, r := range z {
		_ = out.Set(int(r), nil)
	}
	return out, nil
}

func markupEscape(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := bindPyDef("Markup.escape", pyDefSig{params: []string{"s"}, posOnly: 1, required: 1}, args, kwargs)
	if err != nil {
		return nil, err
	}
	return escapeValue(a[0]), nil
}

func markupUnescape(name string) strImpl {
	return func(c strRecv, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := bindPyDef("Markup."+name, pyDefSig{}, args, kwargs); err != nil {
			return nil, err
		}
		if name == "unescape" {
			return html.UnescapeString(c.s), nil
		}
		return stripTags(c.s), nil
	}
}

// stripTags is Markup.striptags: drop comments, then tags, collapse
// whitespace, then unescape entities.
func stripTags(s string) string {
	s = cutSpans(s, "<!--", "-->")
	s = cutSpans(s, "<", ">")
	return html.UnescapeString(strings.Join(splitSpace(s, -1), " "))
}

// cutSpans repeatedly removes the first open...close span of s.
func cutSpans(s, open, close string) string {
	for {
		start := strings.Index(s, open)
		if start < 0 {
			return s
		}
		end := strings.Index(s[start:], close)
		if end < 0 {
			return s
		}
		s = s[:start] + s[start+end+len(close):]
	}
}

// ---------------------------------------------------------------------------
// str.format and str.format_map, as Jinja2's sandbox runs them: a
// string.Formatter (SandboxedFormatter) whose field lookups go through the
// sandbox's getattr and getitem, so a missing key or attribute is an Undefined
// rather than an error. On a Markup it is markupsafe's EscapeFormatter: every
// replacement field is escaped unless it is Markup itself.

func strFormatMethod(c strRecv, r *renderer, args []Value, kwargs *Dict) (Value, error) {
	f := &strFormatter{r: r, args: args, kwargs: kwargs, escape: c.markup}
	out, _, err := f.vformat(c.s, 2, 0)
	if err != nil {
		return nil, err
	}
	return c.wrap(out), nil
}

func strFormatMapMethod(c strRecv, r *renderer, args []Value, kwargs *Dict) (Value, error) {
	if kwargs != nil && kwargs.Len() > 0 {
		return nil, typeError("format_map() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, typeError("format_map() takes exactly one argument (%d given)", len(args))
	}
	f := &strFormatter{r: r, mapping: args[0], useMap: true, escape: c.markup}
	out, _, err := f.vformat(c.s, 2, 0)
	if err != nil {
		return nil, err
	}
	return c.wrap(out), nil
}

type strFormatter struct {
	r       *renderer
	args    []Value
	kwargs  *Dict // str.format's keyword arguments
	mapping Value // str.format_map's argument
	useMap  bool
	escape  bool // Markup.format: escape what the fields produce
}

// vformat is string.Formatter._vformat: auto is the next automatic field
// number, or -1 once a field was numbered by hand.
func (f *strFormatter) vformat(s string, depth, auto int) (string, int, error) {
	if depth < 0 {
		return "", auto, valueError("Max string recursion exceeded")
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		// Literal text up to a brace.
		start := i
		var c byte
		markup := false
		for i < len(s) {
			c = s[i]
			i++
			if c == '{' || c == '}' {
				markup = true
				break
			}
		}
		litEnd := i
		if markup {
			atEnd := i >= len(s)
			if c == '}' && (atEnd || s[i] != '}') {
				return "", auto, valueError("Single '}' encountered in format string")
			}
			if atEnd && c == '{' {
				return "", auto, valueError("Single '{' encountered in format string")
			}
			if s[i] == c { // "{{" or "}}"
				i++
				markup = false
			} else {
				litEnd--
			}
		}
		b.WriteString(s[start:litEnd])
		if !markup {
			continue
		}
		name, spec, conv, err := parseFormatField(s, &i)
		if err != nil {
			return "", auto, err
		}
		if name == "" {
			if auto < 0 {
				return "", auto, valueError("cannot switch from manual field specification to automatic field numbering")
			}
			name = strconv.Itoa(auto)
			auto++
		} else if strIsDigitString(name) {
			if auto > 0 {
				return "", auto, valueError("cannot switch from manual field specification to automatic field numbering")
			}
			auto = -1
		}
		obj, err := f.field(name)
		if err != nil {
			return "", auto, err
		}
		switch conv {
		case 0:
		case 's':
			obj = toStr(obj)
		case 'r':
			obj = repr(obj)
		case 'a':
			obj = asciiRepr(repr(obj))
		default:
			return "", auto, valueError("Unknown conversion specifier %c", conv)
		}
		spec, auto, err = f.vformat(spec, depth-1, auto)
		if err != nil {
			return "", auto, err
		}
		text, err := f.formatField(obj, spec)
		if err != nil {
			return "", auto, err
		}
		b.WriteString(text)
		if b.Len() > methodLimit {
			return "", auto, limitError("str.format result too large")
		}
	}
	return b.String(), auto, nil
}

func strIsDigitString(s string) bool {
	for _, r := range s {
		if !isDigitRune(r) {
			return false
		}
	}
	return s != ""
}

// parseFormatField reads one replacement field after its "{", as CPython's
// MarkupIterator does; conv is 0 when there is no "!" conversion.
func parseFormatField(s string, pos *int) (name, spec string, conv rune, err error) {
	i := *pos
	defer func() { *pos = i }()
	nameStart := i
	var c byte
	ended := false
	for i < len(s) && !ended {
		c = s[i]
		i++
		switch c {
		case '{':
			return "", "", 0, valueError("unexpected '{' in field name")
		case '[':
			for i < len(s) && s[i] != ']' {
				i++
			}
		case '}', ':', '!':
			ended = true
		}
	}
	if !ended {
		return "", "", 0, valueError("expected '}' before end of string")
	}
	name = s[nameStart : i-1]
	if c == '}' {
		return name, "", 0, nil
	}
	if c == '!' {
		if i >= len(s) {
			return "", "", 0, valueError("end of string while looking for conversion specifier")
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		conv = r
		i += w
		if i < len(s) {
			c = s[i]
			i++
			if c == '}' {
				return name, "", conv, nil
			}
			if c != ':' {
				return "", "", 0, valueError("expected ':' after conversion specifier")
			}
		}
	}
	specStart := i
	depth := 1
	for i < len(s) {
		c = s[i]
		i++
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return name, s[specStart : i-1], conv, nil
			}
		}
	}
	return "", "", 0, valueError("unmatched '{' in format spec")
}

// fieldInteger is CPython's get_integer for a field name part: its value when
// it is all decimal digits, else -1.
func fieldInteger(s string) (int, error) {
	if s == "" {
		return -1, nil
	}
	n := 0
	for _, r := range s {
		d := decimalValue(r)
		if d < 0 {
			return -1, nil
		}
		if n > (math.MaxInt-d)/10 {
			return 0, valueError("Too many decimal digits in format string")
		}
		n = n*10 + d
	}
	return n, nil
}

// field is SandboxedFormatter.get_field: the argument the field name names,
// then its .attr and [key] parts through the sandbox.
func (f *strFormatter) field(name string) (Value, error) {
	end := strings.IndexAny(name, ".[")
	if end < 0 {
		end = len(name)
	}
	first := name[:end]
	idx, err := fieldInteger(first)
	if err != nil {
		return nil, err
	}
	var obj Value
	if idx >= 0 {
		if idx >= len(f.args) {
			return nil, newError("IndexError", "tuple index out of range")
		}
		obj = f.args[idx]
	} else if obj, err = f.keyword(first); err != nil {
		return nil, err
	}
	for pos := end; pos < len(name); {
		c := name[pos]
		pos++
		switch c {
		case '.':
			st := pos
			for pos < len(name) && name[pos] != '.' && name[pos] != '[' {
				pos++
			}
			attr := name[st:pos]
			if attr == "" {
				return nil, valueError("Empty attribute in format string")
			}
			if obj, err = f.r.getAttr(obj, attr); err != nil {
				return nil, err
			}
		case '[':
			st := pos
			for pos < len(name) && name[pos] != ']' {
				pos++
			}
			if pos >= len(name) {
				return nil, valueError("Missing ']' in format string")
			}
			key := name[st:pos]
			pos++
			n, err := fieldInteger(key)
			if err != nil {
				return nil, err
			}
			if key == "" {
				return nil, valueError("Empty attribute in format string")
			}
			if n >= 0 {
				obj, err = f.r.getItem(obj, n)
			} else {
				obj, err = f.r.getItem(obj, key)
			}
			if err != nil {
				return nil, err
			}
		default:
			return nil, valueError("Only '.' or '[' may follow ']' in format field specifier")
		}
	}
	return obj, nil
}

// keyword is kwargs[key] for str.format, mapping[key] for str.format_map.
func (f *strFormatter) keyword(key string) (Value, error) {
	if !f.useMap {
		if f.kwargs != nil {
			if v, ok := f.kwargs.GetStr(key); ok {
				return v, nil
			}
		}
		return nil, newError("KeyError", "%s", repr(key))
	}
	switch m := f.mapping.(type) {
	case *Dict:
		if v, ok := m.GetStr(key); ok {
			return v, nil
		}
		return nil, newError("KeyError", "%s", repr(key))
	case *List:
		return nil, typeError("list indices must be integers or slices, not str")
	case Tuple:
		return nil, typeError("tuple indices must be integers or slices, not str")
	case string, Markup:
		return nil, typeError("string indices must be integers, not 'str'")
	case Undefined:
		return nil, m.fail()
	}
	return nil, typeError("'%s' object is not subscriptable", typeName(f.mapping))
}

// formatField is Formatter.format_field: format(obj, spec), escaped for Markup.
func (f *strFormatter) formatField(obj Value, spec string) (string, error) {
	if !f.escape {
		return formatSpec(obj, spec)
	}
	if m, ok := obj.(Markup); ok {
		if spec != "" {
			return "", valueError("Unsupported format specification for Markup.")
		}
		return string(m), nil
	}
	s, err := formatSpec(obj, spec)
	if err != nil {
		return "", err
	}
	return string(escapeValue(s)), nil
}

// ---------------------------------------------------------------------------
// The format-spec mini-language.

// formatSpec is Python's format(v, spec): the format-spec mini-language
// ([[fill]align][sign][z][#][0][width][grouping][.precision][type]) for str,
// int, bool and float, and object.__format__ (str(v), no spec allowed) for
// everything else.
func formatSpec(v Value, spec string) (string, error) {
	switch x := v.(type) {
	case string:
		return formatStrSpec(x, spec, "str")
	case Markup:
		return formatStrSpec(string(x), spec, "Markup")
	case bool:
		if spec == "" {
			return toStr(x), nil
		}
		n := 0
		if x {
			n = 1
		}
		return formatIntSpec(n, spec, "bool")
	case int:
		if spec == "" {
			return strconv.Itoa(x), nil
		}
		return formatIntSpec(x, spec, "int")
	case float64:
		if spec == "" {
			return formatFloat(x), nil
		}
		return formatFloatSpec(x, spec, "float")
	}
	if spec != "" {
		return "", typeError("unsupported format string passed to %s.__format__", typeName(v))
	}
	return toStr(v), nil
}

// fmtSpec is a parsed format spec.
type fmtSpec struct {
	fill      rune
	align     byte
	sign      byte
	noNeg0    bool
	alt       bool
	width     int // -1: not given
	thousands byte
	under4    bool // '_' every four digits (b, o, x, X)
	precision int  // -1: not given
	typ       rune // 0: not given
}

func isAlignChar(r rune) bool { return r == '<' || r == '>' || r == '=' || r == '^' }

// parseFormatSpec is CPython's parse_internal_render_format_spec.
func parseFormatSpec(spec string, defType rune, defAlign byte, tname string) (fmtSpec, error) {
	p := fmtSpec{fill: ' ', align: defAlign, width: -1, precision: -1, typ: defType}
	rs := []rune(spec)
	pos := 0
	fillSet, alignSet := false, false
	if len(rs) >= 2 && isAlignChar(rs[1]) {
		p.fill, p.align = rs[0], byte(rs[1])
		fillSet, alignSet = true, true
		pos = 2
	} else if len(rs) >= 1 && isAlignChar(rs[0]) {
		p.align = byte(rs[0])
		alignSet = true
		pos = 1
	}
	if pos < len(rs) && (rs[pos] == '+' || rs[pos] == '-' || rs[pos] == ' ') {
		p.sign = byte(rs[pos])
		pos++
	}
	if pos < len(rs) && rs[pos] == 'z' {
		p.noNeg0 = true
		pos++
	}
	if pos < len(rs) && rs[pos] == '#' {
		p.alt = true
		pos++
	}
	if !fillSet && pos < len(rs) && rs[pos] == '0' {
		p.fill = '0'
		if !alignSet && defAlign == '>' {
			p.align = '='
		}
		pos++
	}
	readInt := func() (int, int, error) {
		n, digits := 0, 0
		for pos < len(rs) {
			d := decimalValue(rs[pos])
			if d < 0 {
				break
			}
			if n > (math.MaxInt-d)/10 {
				return 0, 0, valueError("Too many decimal digits in format string")
			}
			n = n*10 + d
			digits++
			pos++
		}
		return n, digits, nil
	}
	n, digits, err := readInt()
	if err != nil {
		return p, err
	}
	if digits > 0 {
		p.width = n
	}
	bothErr := valueError("Cannot specify both ',' and '_'.")
	if pos < len(rs) && rs[pos] == ',' {
		p.thousands = ','
		pos++
	}
	if pos < len(rs) && rs[pos] == '_' {
		if p.thousands != 0 {
			return p, bothErr
		}
		p.thousands = '_'
		pos++
	}
	if pos < len(rs) && rs[pos] == ',' && p.thousands == '_' {
		return p, bothErr
	}
	if pos < len(rs) && rs[pos] == '.' {
		pos++
		n, digits, err := readInt()
		if err != nil {
			return p, err
		}
		if digits == 0 {
			return p, valueError("Format specifier missing precision")
		}
		p.precision = n
	}
	if len(rs)-pos > 1 {
		return p, valueError("Invalid format specifier '%s' for object of type '%s'", spec, tname)
	}
	if len(rs)-pos == 1 {
		p.typ = rs[pos]
	}
	if p.thousands != 0 {
		switch p.typ {
		case 'd', 'e', 'f', 'g', 'E', 'G', '%', 'F', 0:
		case 'b', 'o', 'x', 'X':
			if p.thousands == '_' {
				p.under4 = true
				break
			}
			return p, thousandsError(p.thousands, p.typ)
		default:
			return p, thousandsError(p.thousands, p.typ)
		}
	}
	if p.width > methodLimit || p.precision > methodLimit {
		return p, limitError("format width or precision too large")
	}
	return p, nil
}

func thousandsError(sep byte, typ rune) error {
	if typ > 32 && typ < 128 {
		return valueError("Cannot specify '%c' with '%c'.", sep, typ)
	}
	return valueError("Cannot specify '%c' with '\\x%x'.", sep, typ)
}

func unknownFormatCode(typ rune, tname string) error {
	if typ > 32 && typ < 128 {
		return valueError("Unknown format code '%c' for object of type '%s'", typ, tname)
	}
	return valueError("Unknown format code '\\x%x' for object of type '%s'", typ, tname)
}

func formatStrSpec(s, spec, tname string) (string, error) {
	if spec == "" {
		return s, nil
	}
	p, err := parseFormatSpec(spec, 's', '<', tname)
	if err != nil {
		return "", err
	}
	if p.typ != 's' {
		return "", unknownFormatCode(p.typ, tname)
	}
	switch {
	case p.sign == ' ':
		return "", valueError("Space not allowed in string format specifier")
	case p.sign != 0:
		return "", valueError("Sign not allowed in string format specifier")
	case p.noNeg0:
		return "", valueError("Negative zero coercion (z) not allowed in string format specifier")
	case p.alt:
		return "", valueError("Alternate form (#) not allowed in string format specifier")
	case p.align == '=':
		return "", valueError("'=' alignment not allowed in string format specifier")
	}
	if p.precision >= 0 && utf8.RuneCountInString(s) > p.precision {
		s = string([]rune(s)[:p.precision])
	}
	pad := p.width - utf8.RuneCountInString(s)
	if pad <= 0 {
		return s, nil
	}
	fill := string(p.fill)
	switch p.align {
	case '>':
		return strings.Repeat(fill, pad) + s, nil
	case '^':
		return strings.Repeat(fill, pad/2) + s + strings.Repeat(fill, pad-pad/2), nil
	}
	return s + strings.Repeat(fill, pad), nil
}

func formatIntSpec(x int, spec, tname string) (string, error) {
	p, err := parseFormatSpec(spec, 'd', '>', tname)
	if err != nil {
		return "", err
	}
	switch p.typ {
	case 'b', 'c', 'd', 'o', 'x', 'X', 'n':
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		return formatFloatParsed(float64(x), p), nil
	default:
		return "", unknownFormatCode(p.typ, tname)
	}
	if p.precision >= 0 {
		return "", valueError("Precision not allowed in integer format specifier")
	}
	if p.noNeg0 {
		return "", valueError("Negative zero coercion (z) not allowed in integer format specifier")
	}
	if p.typ == 'c' {
		if p.sign != 0 {
			return "", valueError("Sign not allowed with integer format specifier 'c'")
		}
		if p.alt {
			return "", valueError("Alternate form (#) not allowed with integer format specifier 'c'")
		}
		if x < 0 || x > 0x10ffff {
			return "", newError("OverflowError", "%%c arg not in range(0x110000)")
		}
		return layoutNumber(p, "", "", "", string(rune(x))), nil
	}
	u := uint64(x)
	sign := ""
	if x < 0 {
		u = -u
		sign = "-"
	} else if p.sign == '+' || p.sign == ' ' {
		sign = string(p.sign)
	}
	base, prefix := 10, ""
	switch p.typ {
	case 'b':
		base, prefix = 2, "0b"
	case 'o':
		base, prefix = 8, "0o"
	case 'x':
		base, prefix = 16, "0x"
	case 'X':
		base, prefix = 16, "0X"
	}
	if !p.alt {
		prefix = ""
	}
	digits := strconv.FormatUint(u, base)
	if p.typ == 'X' {
		digits = strings.ToUpper(digits)
	}
	return layoutNumber(p, sign, prefix, digits, ""), nil
}

func formatFloatSpec(x float64, spec, tname string) (string, error) {
	p, err := parseFormatSpec(spec, 0, '>', tname)
	if err != nil {
		return "", err
	}
	switch p.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", unknownFormatCode(p.typ, tname)
	}
	return formatFloatParsed(x, p), nil
}

// floatBody formats a (not negative) with the presentation type typ (e, f,
// g, or r for repr) and precision prec, as format() and %-formatting both do
// before signs and padding: alt is the '#' flag; addDot0 is format()'s
// no-type mode, where a result that looks like an int gets ".0".
func floatBody(a float64, typ rune, prec int, alt, addDot0 bool) string {
	var body string
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	case typ == 'f':
		body = strconv.FormatFloat(a, 'f', prec, 64)
		if alt && prec == 0 {
			body += "."
		}
	case typ == 'e':
		body = strconv.FormatFloat(a, 'e', prec, 64)
		if alt && prec == 0 {
			body = strings.Replace(body, "e", ".e", 1)
		}
	case typ == 'g':
		if prec == 0 {
			prec = 1
		}
		digits, decpt := floatDigits(a, prec)
		if !alt {
			digits = strings.TrimRight(digits, "0")
			if digits == "" {
				digits = "0"
			}
		}
		limit := prec
		if addDot0 {
			limit = prec - 1
		}
		minEnd := 0
		if alt {
			minEnd = prec
		}
		body = layoutFloatDigits(digits, decpt, decpt <= -4 || decpt > limit, alt, addDot0, minEnd)
	default: // 'r': repr
		digits, decpt := floatDigits(a, -1)
		body = layoutFloatDigits(digits, decpt, decpt <= -4 || decpt > 16, alt, addDot0, 0)
	}
	return body
}

// formatFloatParsed is CPython's format_float_internal.
func formatFloatParsed(x float64, p fmtSpec) string {
	typ, prec := p.typ, p.precision
	addDot0 := false
	defPrec := 6
	if typ == 0 {
		addDot0, typ, defPrec = true, 'r', 0
	}
	if typ == 'n' {
		typ = 'g'
	}
	pct := false
	if typ == '%' {
		typ, pct = 'f', true
		x *= 100
	}
	if prec < 0 {
		prec = defPrec
	} else if typ == 'r' {
		typ = 'g'
	}
	upper := false
	switch typ {
	case 'E', 'F', 'G':
		upper = true
		typ = unicode.ToLower(typ)
	}
	neg := math.Signbit(x) && !math.IsNaN(x)
	body := floatBody(math.Abs(x), typ, prec, p.alt, addDot0)
	if neg && p.noNeg0 && strings.Trim(strings.SplitN(body, "e", 2)[0], "0.") == "" {
		neg = false
	}
	if pct {
		body += "%"
	}
	if upper {
		body = strings.ToUpper(body)
	}
	sign := ""
	if neg {
		sign = "-"
	} else if p.sign == '+' || p.sign == ' ' {
		sign = string(p.sign)
	}
	n := 0
	for n < len(body) && body[n] >= '0' && body[n] <= '9' {
		n++
	}
	return layoutNumber(p, sign, "", body[:n], body[n:])
}

// floatDigits returns the decimal digits of a (>= 0) rounded to prec
// significant digits (shortest round-trip when prec < 0), and the position of
// the decimal point relative to them: a = 0.DIGITS × 10^decpt.
func floatDigits(a float64, prec int) (string, int) {
	p := prec - 1
	if prec < 0 {
		p = -1
	}
	s := strconv.FormatFloat(a, 'e', p, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

// layoutFloatDigits is the tail of CPython's format_float_short: it places the
// decimal point (or an exponent) among digits.
func layoutFloatDigits(digits string, decpt int, useExp, alt, addDot0 bool, minEnd int) string {
	exp := 0
	if useExp {
		exp = decpt - 1
		decpt = 1
	}
	vstart := 0
	if decpt <= 0 {
		vstart = decpt - 1
	}
	vend := max(len(digits), minEnd)
	if !useExp && addDot0 {
		vend = max(vend, decpt+1)
	} else {
		vend = max(vend, decpt)
	}
	digit := func(i int) byte {
		if i >= 0 && i < len(digits) {
			return digits[i]
		}
		return '0'
	}
	var b strings.Builder
	for i := vstart; i < decpt; i++ {
		b.WriteByte(digit(i))
	}
	if decpt < vend || alt {
		b.WriteByte('.')
	}
	for i := decpt; i < vend; i++ {
		b.WriteByte(digit(i))
	}
	if useExp {
		fmt.Fprintf(&b, "e%+03d", exp)
	}
	return b.String()
}

// layoutNumber is CPython's calc_number_widths and fill_number: sign, prefix,
// the integer digits (grouped, and zero-padded for "0=" alignment), then the
// rest (fraction, exponent, "%"; or the character of "c"), aligned in width.
func layoutNumber(p fmtSpec, sign, prefix, digits, rest string) string {
	lead := len(sign) + len(prefix)
	restLen := utf8.RuneCountInString(rest)
	minWidth := 0
	if p.fill == '0' && p.align == '=' {
		minWidth = p.width - lead - restLen
	}
	grouped := ""
	if digits != "" {
		group, sep := 0, ""
		switch {
		case p.thousands == 0 || p.typ == 'n':
		case p.under4:
			group, sep = 4, "_"
		default:
			group, sep = 3, string(p.thousands)
		}
		grouped = groupDigits(digits, minWidth, group, sep)
	}
	total := lead + len(grouped) + restLen
	pad := 0
	if p.width > total {
		pad = p.width - total
	}
	fill := string(p.fill)
	switch p.align {
	case '<':
		return sign + prefix + grouped + rest + strings.Repeat(fill, pad)
	case '^':
		return strings.Repeat(fill, pad/2) + sign + prefix + grouped + rest + strings.Repeat(fill, pad-pad/2)
	case '=':
		return sign + prefix + strings.Repeat(fill, pad) + grouped + rest
	}
	return strings.Repeat(fill, pad) + sign + prefix + grouped + rest
}

// groupDigits is CPython's _PyUnicode_InsertThousandsGrouping: it inserts sep
// every group digits from the right (group 0: never) and pads with zeros,
// grouped too, to at least minWidth characters.
func groupDigits(digits string, minWidth, group int, sep string) string {
	if group == 0 {
		if minWidth > len(digits) {
			return strings.Repeat("0", minWidth-len(digits)) + digits
		}
		return digits
	}
	var pieces []string
	remaining, pos := len(digits), len(digits)
	for {
		l := min(group, max(remaining, minWidth, 1))
		zeros := max(0, l-remaining)
		chars := max(0, min(remaining, l))
		piece := strings.Repeat("0", zeros) + digits[pos-chars:pos]
		if len(pieces) > 0 {
			piece += sep
		}
		pieces = append(pieces, piece)
		pos -= chars
		remaining -= chars
		minWidth -= l
		if remaining <= 0 && minWidth <= 0 {
			break
		}
		minWidth -= len(sep)
	}
	var b strings.Builder
	for i := len(pieces) - 1; i >= 0; i-- {
		b.WriteString(pieces[i])
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// list, tuple and dict. The immutable sandbox refuses the mutating methods
// before methodOf is asked (renderer.go's mutatingMethods: list.pop and
// list.clear among them); they are here so methodOf knows the attribute exists.

func listMethod(l *List, name string) Func {
	switch name {
	case "count":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			a, err := bindC("list", name, sigOneArg, args, kwargs)
			if err != nil {
				return nil, err
			}
			return seqCount(l.Items, a[0]), nil
		}
	case "index":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			i, err := seqIndex("list", l.Items, args, kwargs)
			if err == nil && i < 0 {
				a0 := args[0]
				return nil, valueError("%s is not in list", repr(a0))
			}
			return i, err
		}
	case "copy":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			if _, err := bindC("list", name, sigNoArgs, args, kwargs); err != nil {
				return nil, err
			}
			return NewList(append(make([]Value, 0, len(l.Items)), l.Items...)), nil
		}
	case "clear":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			if _, err := bindC("list", name, sigNoArgs, args, kwargs); err != nil {
				return nil, err
			}
			l.Items = []Value{}
			return nil, nil
		}
	case "pop":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			a, err := bindC("list", name, cSig{style: cClinic, max: 1}, args, kwargs)
			if err != nil {
				return nil, err
			}
			i := -1
			if given(a[0]) {
				if i, err = toIndex(a[0]); err != nil {
					return nil, err
				}
			}
			n := len(l.Items)
			if n == 0 {
				return nil, newError("IndexError", "pop from empty list")
			}
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return nil, newError("IndexError", "pop index out of range")
			}
			v := l.Items[i]
			items := make([]Value, 0, n-1)
			items = append(append(items, l.Items[:i]...), l.Items[i+1:]...)
			l.Items = items
			return v, nil
		}
	}
	return nil
}

func tupleMethod(t Tuple, name string) Func {
	switch name {
	case "count":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			a, err := bindC("tuple", name, sigOneArg, args, kwargs)
			if err != nil {
				return nil, err
			}
			return seqCount(t, a[0]), nil
		}
	case "index":
		return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
			i, err := seqIndex("tuple", t, args, kwargs)
			if err == nil && i < 0 {
				return nil, valueError("tuple.index(x): x not in tuple")
			}
			return i, err
		}
	}
	return nil
}

func seqCount(items []Value, x Value) int {
	n := 0
	for _, it := range items {
		if equal(it, x) {
			n++
		}
	}
	return n
}

// seqIndex is list.index and tuple.index: the first position of x within
// [start, stop), or -1.
func seqIndex(owner string, items []Value, args []Value, kwargs *Dict) (int, error) {
	a, err := bindC(owner, "index", cSig{style: cClinic, min: 1, max: 3}, args, kwargs)
	if err != nil {
		return 0, err
	}
	n := len(items)
	bound := func(v Value, def int) (int, error) {
		if !given(v) {
			return def, nil
		}
		i, ok := v.(int)
		if b, isB := v.(bool); isB {
			i, _ = toIndex(b)
			ok = true
		}
		if !ok {
			return 0, typeError("slice indices must be integers or have an __index__ method")
		}
		if i < 0 {
			i += n
			if i < 0 {
				i = 0
			}
		}
		return i, nil
	}
	start, err := bound(a[1], 0)
	if err != nil {
		return 0, err
	}
	stop, err := bound(a[2], n)
	if err != nil {
		return 0, err
	}
	for i := start; i < stop && i < n; i++ {
		if equal(items[i], a[0]) {
			return i, nil
		}
	}
	return -1, nil
}

// dictImpl is a method of dict, called on d.
type dictImpl func(d *Dict, r *renderer, args []Value, kwargs *Dict) (Value, error)

// dictImpls are the methods of dict the sandbox allows, by name.
var dictImpls = map[string]dictImpl{
	"get":      dictGet,
	"keys":     dictViewMethod("keys"),
	"values":   dictViewMethod("values"),
	"items":    dictViewMethod("items"),
	"copy":     dictCopy,
	"fromkeys": dictFromkeys,
}

// dictMethod returns dict.name bound to d, or nil.
func dictMethod(d *Dict, name string) Func {
	m := dictImpls[name]
	if m == nil {
		return nil
	}
	return func(r *renderer, args []Value, kwargs *Dict) (Value, error) {
		return m(d, r, args, kwargs)
	}
}

func dictGet(d *Dict, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := bindC("dict", "get", cSig{style: cClinic, min: 1, max: 2}, args, kwargs)
	if err != nil {
		return nil, err
	}
	var def Value
	if given(a[1]) {
		def = a[1]
	}
	if _, ok := a[0].(Undefined); ok { // hashable in Python, and never a key here
		return def, nil
	}
	if _, err := hashKey(a[0]); err != nil {
		return nil, err
	}
	if v, ok := d.Get(a[0]); ok {
		return v, nil
	}
	return def, nil
}

func dictViewMethod(name string) dictImpl {
	return func(d *Dict, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := bindC("dict", name, sigNoArgs, args, kwargs); err != nil {
			return nil, err
		}
		return &dictView{kind: name[0], d: d}, nil
	}
}

func dictCopy(d *Dict, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	if _, err := bindC("dict", "copy", sigNoArgs, args, kwargs); err != nil {
		return nil, err
	}
	return d.Copy(), nil
}

func dictFromkeys(_ *Dict, _ *renderer, args []Value, kwargs *Dict) (Value, error) {
	a, err := bindC("dict", "fromkeys", cSig{style: cClinic, min: 1, max: 2}, args, kwargs)
	if err != nil {
		return nil, err
	}
	var v Value
	if given(a[1]) {
		v = a[1]
	}
	keys, err := methodIterate(a[0])
	if err != nil {
		return nil, err
	}
	out := NewDict(len(keys))
	for _, k := range keys {
		if err := out.Set(k, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// dictView is what dict.keys(), dict.values() and dict.items() return: a live
// view of the dict. It iterates as the keys, the values or (key, value)
// tuples, has a length, and prints as dict_items([('a', 1)]) and so on.
type dictView struct {
	kind byte // 'k' (keys), 'v' (values) or 'i' (items)
	d    *Dict
}

// typeName is the Python type name: dict_keys, dict_values or dict_items.
func (v *dictView) typeName() string {
	switch v.kind {
	case 'k':
		return "dict_keys"
	case 'v':
		return "dict_values"
	}
	return "dict_items"
}

// items returns what iterating the view yields, in a fresh slice.
func (v *dictView) items() []Value {
	switch v.kind {
	case 'k':
		return append(make([]Value, 0, len(v.d.keys)), v.d.keys...)
	case 'v':
		return append(make([]Value, 0, len(v.d.vals)), v.d.vals...)
	}
	return itemTuples(v.d)
}

// itemTuples returns d's (key, value) tuples. They share one backing array:
// each tuple then costs one allocation (its boxing), not two.
func itemTuples(d *Dict) []Value {
	out := make([]Value, len(d.keys))
	kv := make([]Value, 2*len(d.keys))
	for i, k := range d.keys {
		t := kv[2*i : 2*i+2 : 2*i+2]
		t[0], t[1] = k, d.vals[i]
		out[i] = Tuple(t)
	}
	return out
}

// contains is x in view: a hash lookup for keys and items (an unhashable
// key raises TypeError), equality with each value for values.
func (v *dictView) contains(x Value) (bool, error) {
	switch v.kind {
	case 'k':
		if _, ok := x.(Undefined); ok {
			return false, nil
		}
		if _, err := hashKey(x); err != nil {
			return false, err
		}
		_, ok := v.d.Get(x)
		return ok, nil
	case 'i':
		t, ok := x.(Tuple)
		if !ok || len(t) != 2 {
			return false, nil
		}
		if _, err := hashKey(t[0]); err != nil {
			return false, err
		}
		val, ok := v.d.Get(t[0])
		return ok && equal(val, t[1]), nil
	}
	for _, val := range v.d.vals {
		if equal(val, x) {
			return true, nil
		}
	}
	return false, nil
}

// equal is view == other: keys and items views compare as sets (with each
// other too); a values view only equals itself.
func (v *dictView) equal(other Value) bool {
	o, ok := other.(*dictView)
	if !ok {
		return false
	}
	if v.kind == 'v' || o.kind == 'v' {
		return v == o
	}
	if v.d.Len() != o.d.Len() {
		return false
	}
	for _, x := range v.items() {
		if in, err := o.contains(x); err != nil || !in {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// int and float

func intMethod(x int, owner, name string) Func {
	abs := uint64(x)
	if x < 0 {
		abs = -abs
	}
	var result Value
	switch name {
	case "bit_length":
		result = bits.Len64(abs)
	case "bit_count":
		result = bits.OnesCount64(abs)
	case "conjugate":
		result = x
	case "as_integer_ratio":
		result = Tuple{x, 1}
	default:
		return nil
	}
	return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := bindC(owner, name, sigNoArgs, args, kwargs); err != nil {
			return nil, err
		}
		return result, nil
	}
}

func floatMethod(x float64, name string) Func {
	var result Value
	switch name {
	case "is_integer":
		result = !math.IsInf(x, 0) && !math.IsNaN(x) && x == math.Trunc(x)
	case "conjugate":
		result = x
	default:
		return nil
	}
	return func(_ *renderer, args []Value, kwargs *Dict) (Value, error) {
		if _, err := bindC("float", name, sigNoArgs, args, kwargs); err != nil {
			return nil, err
		}
		return result, nil
	}
}

// numberAttr returns the data attributes of int, bool and float that are not
// methods: real, imag, numerator and denominator ({{ n.real }}).
func numberAttr(obj Value, name string) (Value, bool) {
	switch x := obj.(type) {
	case bool, int:
		n, _ := toIndex(x)
		switch name {
		case "real", "numerator":
			return n, true
		case "imag":
			return 0, true
		case "denominator":
			return 1, true
		}
	case float64:
		switch name {
		case "real":
			return x, true
		case "imag":
			return 0.0, true
		}
	}
	return nil, false
}

// ---------------------------------------------------------------------------
// Private attributes: which names starting with "_" the Python object has, so
// that the sandbox can call their use unsafe (SecurityError) rather than
// undefined, as Jinja2 does. From dir() of each type under Python 3.11.

const objectAttrs = "__class__ __delattr__ __dir__ __doc__ __eq__ __format__ __ge__ " +
	"__getattribute__ __getstate__ __gt__ __hash__ __init__ __init_subclass__ __le__ __lt__ " +
	"__ne__ __new__ __reduce__ __reduce_ex__ __repr__ __setattr__ __sizeof__ __str__ " +
	"__subclasshook__ "

const numberAttrs = "__abs__ __add__ __bool__ __ceil__ __divmod__ __float__ __floor__ " +
	"__floordiv__ __getnewargs__ __int__ __mod__ __mul__ __neg__ __pos__ __pow__ __radd__ " +
	"__rdivmod__ __rfloordiv__ __rmod__ __rmul__ __round__ __rpow__ __rsub__ __rtruediv__ " +
	"__sub__ __truediv__ __trunc__ "

const strAttrs = "__add__ __contains__ __getitem__ __getnewargs__ __iter__ __len__ __mod__ " +
	"__mul__ __rmod__ __rmul__ "

const viewSetAttrs = "__and__ __contains__ __iter__ __len__ __or__ __rand__ __reversed__ __ror__ " +
	"__rsub__ __rxor__ __sub__ __xor__ "

var privateAttrs = func() map[string]map[string]bool {
	byType := map[string]string{
		"str":    strAttrs,
		"Markup": strAttrs + "__html__ __html_format__ __module__ __radd__ __slots__",
		"list": "__add__ __class_getitem__ __contains__ __delitem__ __getitem__ __iadd__ __imul__ " +
			"__iter__ __len__ __mul__ __reversed__ __rmul__ __setitem__",
		"tuple": "__add__ __class_getitem__ __contains__ __getitem__ __getnewargs__ __iter__ __len__ " +
			"__mul__ __rmul__",
		"dict": "__class_getitem__ __contains__ __delitem__ __getitem__ __ior__ __iter__ __len__ __or__ " +
			"__reversed__ __ror__ __setitem__",
		"int": numberAttrs + "__and__ __index__ __invert__ __lshift__ __or__ __rand__ __rlshift__ " +
			"__ror__ __rrshift__ __rshift__ __rxor__ __xor__",
		"float":       numberAttrs + "__getformat__",
		"NoneType":    "__bool__",
		"dict_keys":   viewSetAttrs,
		"dict_items":  viewSetAttrs,
		"dict_values": "__iter__ __len__ __reversed__",
		"generator":   "__del__ __iter__ __name__ __next__ __qualname__",
		"builtin_function_or_method": "__call__ __module__ __name__ __qualname__ __self__ " +
			"__text_signature__",
		"LoopContext": "__annotations__ __call__ __dict__ __iter__ __len__ __module__ __next__ " +
			"__weakref__ _after _before _current _iterable _iterator _last_changed_value _length " +
			"_peek_next _recurse _to_iterator _undefined",
		"Macro": "__call__ __dict__ __module__ __weakref__ _argument_count _async_invoke " +
			"_default_autoescape _environment _func _invoke",
		"Cycler": "__dict__ __module__ __next__ __weakref__",
		"Joiner": "__call__ __dict__ __module__ __weakref__",
	}
	out := make(map[string]map[string]bool, len(byType)+1)
	for t, names := range byType {
		set := map[string]bool{}
		for _, n := range strings.Fields(objectAttrs + names) {
			set[n] = true
		}
		out[t] = set
	}
	out["bool"] = out["int"]
	return out
}()

// hasPrivateAttr reports whether the Python object obj has the attribute name
// (which starts with an underscore).
func hasPrivateAttr(obj Value, name string) bool {
	switch o := obj.(type) {
	case Undefined:
		return false
	case *Namespace:
		// Namespace.__getattribute__ exposes only these and its entries.
		if name == "__class__" || name == "_Namespace__attrs" {
			return true
		}
		_, ok := o.attrs.GetStr(name)
		return ok
	}
	return privateAttrs[typeName(obj)][name]
}
