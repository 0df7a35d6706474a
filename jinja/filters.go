package jinja

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The builtin filters of Jinja2 3.1, as ImmutableSandboxedEnvironment with
// autoescape off runs them, with transformers' tojson in place of Jinja2's.
// Each filter binds its arguments as the Python function does, so argument
// errors carry Python's messages (which name the Python function).
//
// Not provided: urlize.
// TODO: urlize, if a chat template ever needs it.
func init() {
	for name, f := range map[string]filterFunc{
		"abs":            filterAbs,
		"attr":           filterAttr,
		"batch":          filterBatch,
		"capitalize":     filterCapitalize,
		"center":         filterCenter,
		"count":          filterLength,
		"d":              filterDefault,
		"default":        filterDefault,
		"dictsort":       filterDictsort,
		"e":              filterEscape,
		"escape":         filterEscape,
		"filesizeformat": filterFilesizeformat,
		"first":          filterFirst,
		"float":          filterFloat,
		"forceescape":    filterForceescape,
		"format":         filterFormat,
		"groupby":        filterGroupby,
		"indent":         filterIndent,
		"int":            filterInt,
		"items":          filterItems,
		"join":           filterJoin,
		"last":           filterLast,
		"length":         filterLength,
		"list":           filterList,
		"lower":          filterLower,
		"map":            filterMap,
		"max":            filterMax,
		"min":            filterMin,
		"pprint":         filterPprint,
		"random":         filterRandom,
		"reject":         filterReject,
		"rejectattr":     filterRejectattr,
		"replace":        filterReplace,
		"reverse":        filterReverse,
		"round":          filterRound,
		"safe":           filterSafe,
		"select":         filterSelect,
		"selectattr":     filterSelectattr,
		"slice":          filterSlice,
		"sort":           filterSort,
		"string":         filterString,
		"striptags":      filterStriptags,
		"sum":            filterSum,
		"title":          filterTitle,
		"tojson":         filterTojson,
		"trim":           filterTrim,
		"truncate":       filterTruncate,
		"unique":         filterUnique,
		"upper":          filterUpper,
		"urlencode":      filterUrlencode,
		"wordcount":      filterWordcount,
		"wordwrap":       filterWordwrap,
		"xmlattr":        filterXmlattr,
	} {
		builtinFilters[name] = f
	}
}

// ---------------------------------------------------------------------------
// Argument binding

// signature is a Python function's signature, enough to bind template
// arguments to it and to fail with CPython's messages.
type signature struct {
	name     string   // the Python function, as CPython's messages name it
	hidden   string   // a leading parameter Jinja2 passes itself (environment, context), or ""
	params   []string // parameter names, the filtered value first
	defaults []Value  // defaults of the last len(defaults) parameters
}

// maxParams bounds a signature's parameters, the filtered value included.
const maxParams = 6

// boundArgs are a call's arguments in parameter order, the value first and
// defaults filled in; a fixed array, so that binding allocates nothing.
type boundArgs [maxParams]Value

func newSig(name, hidden, params string, defaults ...Value) *signature {
	s := &signature{name: name, hidden: hidden, params: strings.Fields(params), defaults: defaults}
	if len(s.params) > maxParams || len(defaults) >= len(s.params) {
		panic("jinja: bad signature for " + name)
	}
	return s
}

// The filters' signatures, built once.
var (
	sigEscape           = newSig("escape", "", "s")
	sigDoForceescape    = newSig("do_forceescape", "", "value")
	sigDoMarkSafe       = newSig("do_mark_safe", "", "value")
	sigSoftStr          = newSig("soft_str", "", "s")
	sigDoFloat          = newSig("do_float", "", "value default", 0.0)
	sigDoInt            = newSig("do_int", "", "value default base", 0, 10)
	sigDoRound          = newSig("do_round", "", "value precision method", 0, "common")
	sigDoFilesizeformat = newSig("do_filesizeformat", "", "value binary", false)
	sigDoUpper          = newSig("do_upper", "", "s")
	sigDoLower          = newSig("do_lower", "", "s")
	sigDoCapitalize     = newSig("do_capitalize", "", "s")
	sigDoTitle          = newSig("do_title", "", "s")
	sigDoCenter         = newSig("do_center", "", "value width", 80)
	sigDoTrim           = newSig("do_trim", "", "value chars", nil)
	sigDoReplace        = newSig("do_replace", "eval_ctx", "s old new count", nil)
	sigDoIndent         = newSig("do_indent", "", "s width first blank", 4, false, false)
	sigDoTruncate       = newSig("do_truncate", "env", "s length killwords end leeway", 255, false, "...", nil)
	sigDoWordcount      = newSig("do_wordcount", "", "s")
	sigDoStriptags      = newSig("do_striptags", "", "value")
	sigDoUrlencode      = newSig("do_urlencode", "", "value")
	sigDoXmlattr        = newSig("do_xmlattr", "eval_ctx", "d autospace", true)
	sigDoWordwrap       = newSig("do_wordwrap", "environment", "s width break_long_words wrapstring break_on_hyphens", 79, true, nil, true)
	sigSyncDoList       = newSig("sync_do_list", "", "value")
	sigSyncDoFirst      = newSig("sync_do_first", "environment", "seq")
	sigDoLast           = newSig("do_last", "environment", "seq")
	sigDoReverse        = newSig("do_reverse", "", "value")
	sigDoRandom         = newSig("do_random", "context", "seq")
	sigSyncDoJoin       = newSig("sync_do_join", "eval_ctx", "value d attribute", "", nil)
	sigDoBatch          = newSig("do_batch", "", "value linecount fill_with", nil)
	sigSyncDoSlice      = newSig("sync_do_slice", "", "value slices fill_with", nil)
	sigDoItems          = newSig("do_items", "", "value")
	sigDoDictsort       = newSig("do_dictsort", "", "value case_sensitive by reverse", false, "key", false)
	sigDoSort           = newSig("do_sort", "environment", "value reverse case_sensitive attribute", false, false, nil)
	sigSyncDoUnique     = newSig("sync_do_unique", "environment", "value case_sensitive attribute", false, nil)
	sigDoMin            = newSig("do_min", "environment", "value case_sensitive attribute", false, nil)
	sigDoMax            = newSig("do_max", "environment", "value case_sensitive attribute", false, nil)
	sigSyncDoSum        = newSig("sync_do_sum", "environment", "iterable attribute start", nil, 0)
	sigSyncDoGroupby    = newSig("sync_do_groupby", "environment", "value attribute default case_sensitive", nil, false)
	sigDoAttr           = newSig("do_attr", "environment", "obj name")
	sigDoDefault        = newSig("do_default", "", "value default_value boolean", "", false)
	sigTojson           = newSig("tojson", "", "x ensure_ascii indent separators sort_keys", false, nil, nil, false)
	sigDoPprint         = newSig("do_pprint", "", "value")
)

// bind returns the value and arguments in parameter order with defaults
// filled in. Errors are checked in CPython's order: keywords, then too many
// positionals, then missing ones.
func (s *signature) bind(v Value, args []Value, kwargs *Dict) (out boundArgs, err error) {
	n := len(s.params)
	firstDefault := n - len(s.defaults)
	given := 1 + len(args)
	if (kwargs == nil || kwargs.Len() == 0) && given <= n && given >= firstDefault {
		// The common call: positional arguments only, none missing.
		out[0] = v
		copy(out[1:], args)
		copy(out[given:n], s.defaults[given-firstDefault:])
		return out, nil
	}
	var set uint // bit j: parameter j has a value
	out[0], set = v, 1
	for i := 0; i < len(args) && i+1 < n; i++ {
		out[i+1] = args[i]
		set |= 1 << (i + 1)
	}
	if kwargs != nil {
		for i, k := range kwargs.Keys() {
			name, _ := isString(k)
			if name == s.hidden && name != "" {
				return out, typeError("%s() got multiple values for argument '%s'", s.name, name)
			}
			j := slices.Index(s.params, name)
			if j < 0 {
				return out, typeError("%s() got an unexpected keyword argument '%s'", s.name, name)
			}
			if set&(1<<j) != 0 {
				return out, typeError("%s() got multiple values for argument '%s'", s.name, name)
			}
			out[j] = kwargs.Values()[i]
			set |= 1 << j
		}
	}
	if given > n {
		total := n
		if s.hidden != "" {
			total, given = total+1, given+1
		}
		if len(s.defaults) > 0 {
			return out, typeError("%s() takes from %d to %d positional arguments but %d were given",
				s.name, total-len(s.defaults), total, given)
		}
		plural := "s"
		if total == 1 {
			plural = ""
		}
		return out, typeError("%s() takes %d positional argument%s but %d were given", s.name, total, plural, given)
	}
	var missing []string
	for j := 0; j < n; j++ {
		switch {
		case set&(1<<j) != 0:
		case j >= firstDefault:
			out[j] = s.defaults[j-firstDefault]
		default:
			missing = append(missing, "'"+s.params[j]+"'")
		}
	}
	if len(missing) > 0 {
		return out, missingArgs(s.name, missing)
	}
	return out, nil
}

// missingArgs is CPython's "f() missing 2 required positional arguments: 'a' and 'b'".
func missingArgs(fn string, names []string) error {
	var list string
	switch len(names) {
	case 1:
		return typeError("%s() missing 1 required positional argument: %s", fn, names[0])
	case 2:
		list = names[0] + " and " + names[1]
	default:
		list = strings.Join(names[:len(names)-1], ", ") + ", and " + names[len(names)-1]
	}
	return typeError("%s() missing %d required positional arguments: %s", fn, len(names), list)
}

// bindOne checks the call of a C builtin that takes exactly one argument, as
// abs() and len() are.
func bindOne(fn string, args []Value, kwargs *Dict) error {
	if kwargs != nil && kwargs.Len() > 0 {
		return typeError("%s() takes no keyword arguments", fn)
	}
	if len(args) > 0 {
		return typeError("%s() takes exactly one argument (%d given)", fn, len(args)+1)
	}
	return nil
}

// maxPad bounds the padding a template may ask for ('%*d', center, indent):
// Python would build the string, but a hostile width must not exhaust memory.
const maxPad = 1 << 24

func checkPad(n int) error {
	if n > maxPad {
		return limitError("a width or precision of %d is beyond the sandbox limit", n)
	}
	return nil
}

// checkOwnKwargs fails as CPython does when a keyword argument meant for
// **kwargs names one of fn's own parameters.
func checkOwnKwargs(fn string, kwargs *Dict, own ...string) error {
	if kwargs == nil {
		return nil
	}
	for _, k := range kwargs.Keys() {
		if name, _ := k.(string); slices.Contains(own, name) {
			return typeError("%s() got multiple values for argument '%s'", fn, name)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Conversions shared by the filters

// mapText applies f to the text of v. Markup stays Markup, as markupsafe's
// str methods keep it; anything else goes through str() first (soft_str).
func mapText(v Value, f func(string) string) Value {
	switch s := v.(type) {
	case string:
		if out := f(s); !sameString(out, s) {
			return out
		}
		return v // unchanged: no new string to box
	case Markup:
		if out := f(string(s)); !sameString(out, string(s)) {
			return Markup(out)
		}
		return v
	}
	return f(toStr(v))
}

// sameString reports whether a and b are equal, cheaply when one was made
// from the other without a change.
func sameString(a, b string) bool {
	return len(a) == len(b) && a == b
}

// iterValues is iter(v) drained. Iterating a Markup yields plain str
// characters, as str.__iter__ does for the subclass.
func iterValues(v Value) ([]Value, error) {
	if m, ok := v.(Markup); ok {
		return strChars(string(m))
	}
	return iterate(v)
}

// newGenerator wraps items as the generator the Python function name returns.
func newGenerator(name string, items []Value) *Generator {
	return &Generator{items: items, name: name}
}

// lazyGenerator returns the generator made by the Python generator function
// name, whose body computes the items. Python runs such a body only when the
// generator is first iterated, so its errors belong there (a generator that
// is only printed never fails).
func lazyGenerator(name string, body func() ([]Value, error)) (Value, error) {
	return &Generator{name: name, fill: body}, nil
}

func filterArgumentError(format string, args ...any) error {
	return newError("FilterArgumentError", format, args...)
}

// ---------------------------------------------------------------------------
// Escaping (markupsafe)

// escapeText replaces the five characters markupsafe escapes.
func escapeText(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeValue is markupsafe.escape(v): Markup is already safe, anything else
// is turned into str (Undefined into "") and escaped. The evaluator uses it
// for Markup + str.
func escapeValue(v Value) Markup {
	if m, ok := v.(Markup); ok {
		return m
	}
	return Markup(escapeText(toStr(v)))
}

func filterEscape(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigEscape.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return escapeValue(v), nil
}

// forceescape escapes even Markup: str(Markup) drops the safety.
func filterForceescape(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoForceescape.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return Markup(escapeText(toStr(v))), nil
}

func filterSafe(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoMarkSafe.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return Markup(toStr(v)), nil
}

func filterString(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigSoftStr.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return mapText(v, func(s string) string { return s }), nil
}

// ---------------------------------------------------------------------------
// Python's string operations the filters need beyond pystr.go

// numSpace is the whitespace int() and float() strip: str.isspace without
// the information separators U+001C..U+001F.
func numSpace(r rune) bool { return isSpaceRune(r) && (r < 0x1c || r > 0x1f) }

// pyStrip is str.strip(chars): whitespace when chars is nil.
func pyStrip(s string, chars *string) string {
	if chars == nil {
		return strings.TrimFunc(s, isSpaceRune)
	}
	return strings.Trim(s, *chars)
}

// pyIsDigits is str.isdigit() for the digits int() accepts; pyAtoi reads them.
func pyIsDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func pyAtoi(s string) (int, bool) {
	n := 0
	for _, r := range s {
		d := decimalValue(r)
		if d < 0 || n > (math.MaxInt-9)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// ---------------------------------------------------------------------------
// Attribute lookup (make_attrgetter)

// attrParts splits a dotted attribute path; parts made of digits are looked
// up as integers, as Jinja2's _prepare_attribute_parts does.
func attrParts(attr Value) []Value {
	if attr == nil {
		return nil
	}
	s, ok := attr.(string)
	if !ok {
		return []Value{attr}
	}
	var parts []Value
	for _, p := range strings.Split(s, ".") {
		if n, ok := pyAtoi(p); ok && pyIsDigits(p) {
			parts = append(parts, n)
		} else {
			parts = append(parts, p)
		}
	}
	return parts
}

// attrGetter is Jinja2's make_attrgetter: it follows the path with sandboxed
// getitem, replacing an undefined result by def when def is not None.
func (r *renderer) attrGetter(attr Value, post func(Value) Value, def Value) func(Value) (Value, error) {
	// Most paths are one plain name, looked up as attr itself.
	var parts []Value
	n := 1
	if s, ok := attr.(string); !ok || strings.Contains(s, ".") || pyIsDigits(s) {
		parts = attrParts(attr)
		n = len(parts)
	}
	return func(item Value) (Value, error) {
		for i := 0; i < n; i++ {
			p := attr
			if parts != nil {
				p = parts[i]
			}
			var err error
			if item, err = r.getItem(item, p); err != nil {
				return nil, err
			}
			if _, undef := item.(Undefined); undef && def != nil {
				item = def
			}
		}
		if post != nil {
			item = post(item)
		}
		return item, nil
	}
}

// multiAttrGetter is make_multi_attrgetter: "a,b.c" gives a key list per item.
func (r *renderer) multiAttrGetter(attr Value, post func(Value) Value) func(Value) (Value, error) {
	var getters []func(Value) (Value, error)
	if s, ok := attr.(string); ok {
		for _, a := range strings.Split(s, ",") {
			getters = append(getters, r.attrGetter(a, post, nil))
		}
	} else {
		getters = append(getters, r.attrGetter(attr, post, nil))
	}
	return func(item Value) (Value, error) {
		key := make([]Value, len(getters))
		for i, g := range getters {
			var err error
			if key[i], err = g(item); err != nil {
				return nil, err
			}
		}
		return NewList(key), nil
	}
}

// ignoreCase lowers strings (keeping Markup Markup) and leaves the rest.
func ignoreCase(v Value) Value {
	switch s := v.(type) {
	case string:
		if low := strLower(s); !sameString(low, s) {
			return low
		}
	case Markup:
		if low := strLower(string(s)); !sameString(low, string(s)) {
			return Markup(low)
		}
	}
	return v
}

func caseFolder(caseSensitive Value) func(Value) Value {
	if truthy(caseSensitive) {
		return nil
	}
	return ignoreCase
}

// sortByKeys is sorted(items, key=..., reverse=reverse) once the keys are
// computed. Like CPython it reverses, sorts stably and reverses back, so
// equal items keep their order either way.
func sortByKeys(items, keys []Value, reverse bool) ([]Value, error) {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	if reverse {
		slices.Reverse(idx)
	}
	err := pySort(idx, func(a, b int) (bool, error) {
		c, err := compare("<", keys[a], keys[b])
		return c < 0, err
	})
	if err != nil {
		return nil, err
	}
	if reverse {
		slices.Reverse(idx)
	}
	out := make([]Value, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Number filters

func filterAbs(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := bindOne("abs", args, kwargs); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int:
		if x < 0 {
			return negInt(x)
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, typeError("bad operand type for abs(): '%s'", typeName(v))
}

// filterFloat is do_float: float(value), or the default when Python's float()
// raises TypeError or ValueError.
func filterFloat(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoFloat.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	if u, ok := v.(Undefined); ok {
		return nil, u.fail()
	}
	if f, ok := pyFloat(v); ok {
		return f, nil
	}
	return a[1], nil
}

// pyFloat is Python's float(v) for the values it accepts.
func pyFloat(v Value) (float64, bool) {
	switch x := v.(type) {
	case bool, int, float64:
		f, _ := number(x)
		return f, true
	case string:
		return parsePyFloat(x)
	case Markup:
		return parsePyFloat(string(x))
	}
	return 0, false
}

// parsePyFloat reads a float literal as Python's float(str) does: surrounding
// whitespace, '_' between digits, any script's decimal digits, inf and nan.
func parsePyFloat(s string) (float64, bool) {
	s = strings.TrimFunc(s, numSpace)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	clean, ok := cleanDigits(s, true)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true // out of range: ±inf or 0, as Python gives
}

// cleanDigits validates a decimal literal in Python's grammar (an optional sign,
// digits with single '_' between them, and for floats a fraction and an
// exponent) and returns it in ASCII without underscores.
func cleanDigits(s string, isFloat bool) (string, bool) {
	var b strings.Builder
	runes := []rune(s)
	i := 0
	if i < len(runes) && (runes[i] == '+' || runes[i] == '-') {
		b.WriteRune(runes[i])
		i++
	}
	digits := func() int {
		n := 0
		for i < len(runes) {
			if d := decimalValue(runes[i]); d >= 0 {
				b.WriteByte(byte('0' + d))
				n++
				i++
			} else if runes[i] == '_' && n > 0 && i+1 < len(runes) && decimalValue(runes[i+1]) >= 0 {
				i++
			} else {
				break
			}
		}
		return n
	}
	mant := digits()
	if !isFloat {
		return b.String(), mant > 0 && i == len(runes)
	}
	if i < len(runes) && runes[i] == '.' {
		b.WriteByte('.')
		i++
		mant += digits()
	}
	if mant == 0 {
		return "", false
	}
	if i < len(runes) && (runes[i] == 'e' || runes[i] == 'E') {
		b.WriteByte('e')
		i++
		if i < len(runes) && (runes[i] == '+' || runes[i] == '-') {
			b.WriteRune(runes[i])
			i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return b.String(), i == len(runes)
}

// filterInt is do_int: int(value) (int(value, base) for strings), falling back
// to int(float(value)) and then to the default, as Jinja2 does.
func filterInt(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoInt.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	if u, ok := v.(Undefined); ok {
		return nil, u.fail()
	}
	switch x := v.(type) {
	case bool, int:
		n, _ := toIndex(x)
		return n, nil
	case float64:
		return intOr(floatToInt(x))(a[1])
	case string, Markup:
		s, _ := isString(x)
		base, isInt := a[2].(int)
		if b, isBool := a[2].(bool); isBool {
			base, _ = toIndex(b)
			isInt = true
		}
		if isInt {
			n, err := parsePyInt(s, base)
			if err == nil || isLimitError(err) {
				return n, err
			}
		}
		if f, ok := parsePyFloat(s); ok {
			return intOr(floatToInt(f))(a[1])
		}
	}
	return a[1], nil
}

// intOr is do_int's fallback: a conversion's int, or the default when it
// raised as Python's would (not when it is beyond this engine's ints).
func intOr(n int, err error) func(def Value) (Value, error) {
	return func(def Value) (Value, error) {
		switch {
		case err == nil:
			return n, nil
		case isLimitError(err):
			return nil, err
		}
		return def, nil
	}
}

// errNotInt is what parsePyInt returns for text that is no int.
var errNotInt = valueError("invalid literal for int()")

// parsePyInt is int(s, base): base 0 infers the base from a prefix, a
// matching 0x/0o/0b prefix is allowed, and '_' may separate digits. Text
// that is no int gives errNotInt; an int beyond 64 bits intTooLarge.
func parsePyInt(s string, base int) (int, error) {
	n, ok, tooBig := scanPyInt(s, base)
	switch {
	case tooBig:
		return 0, intTooLarge("int(%s)", repr(s))
	case !ok:
		return 0, errNotInt
	}
	return n, nil
}

// scanPyInt reads s as parsePyInt does; tooBig reports valid digits beyond
// 64 bits.
func scanPyInt(s string, base int) (n int, ok, tooBig bool) {
	if base != 0 && (base < 2 || base > 36) {
		return 0, false, false
	}
	s = strings.TrimFunc(s, numSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	prefixed := false
	if len(s) >= 2 && s[0] == '0' {
		p := 0
		switch s[1] {
		case 'x', 'X':
			p = 16
		case 'o', 'O':
			p = 8
		case 'b', 'B':
			p = 2
		}
		if p != 0 && (base == 0 || base == p) {
			base, s, prefixed = p, s[2:], true
		}
	}
	if base == 0 {
		base = 10
		// Base 0 forbids leading zeros on a nonzero decimal number.
		if strings.HasPrefix(s, "0") && strings.Trim(s, "0_") != "" {
			return 0, false, false
		}
	}
	if prefixed && strings.HasPrefix(s, "_") {
		s = s[1:]
	}
	u, digits := uint64(0), 0
	runes := []rune(s)
	for i, c := range runes {
		if c == '_' {
			if digits == 0 || i+1 == len(runes) || runes[i+1] == '_' {
				return 0, false, false
			}
			continue
		}
		d := decimalValue(c)
		switch {
		case d >= 0:
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
		}
		if d < 0 || d >= base {
			return 0, false, false
		}
		if u > (1<<63-uint64(d))/uint64(base) {
			tooBig = true // still read on: the rest may be no digits
		} else {
			u = u*uint64(base) + uint64(d)
		}
		digits++
	}
	switch {
	case digits == 0:
		return 0, false, false
	case tooBig || (u == 1<<63 && !neg):
		return 0, true, true
	case neg:
		return int(-u), true, false
	}
	return int(u), true, false
}

// filterRound is do_round: round(value, precision) for "common", else
// math.ceil/floor(value * 10**precision) / 10**precision.
func filterRound(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoRound.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	method, _ := a[2].(string)
	if method != "common" && method != "ceil" && method != "floor" {
		return nil, filterArgumentError("method must be common, ceil or floor")
	}
	if method == "common" {
		return pyRound(v, a[1])
	}
	// 10**precision: an int for an int precision, a float for a float one.
	var scale float64
	switch p := a[1].(type) {
	case float64:
		scale = math.Pow(10, p)
	case int, bool:
		n, _ := toIndex(p)
		scale = math.Pow(10, float64(n))
	default:
		return nil, typeError("unsupported operand type(s) for ** or pow(): 'int' and '%s'", typeName(a[1]))
	}
	x, ok := number(v)
	if !ok {
		switch v.(type) {
		case Undefined:
			return nil, v.(Undefined).fail()
		case string, Markup, *List, Tuple: // a sequence times an int is fine; ceil() is not
			return nil, typeError("must be real number, not %s", typeName(v))
		}
		return nil, typeError("unsupported operand type(s) for *: '%s' and 'int'", typeName(v))
	}
	// math.ceil and math.floor return Python ints, which have no negative
	// zero: adding +0 turns a -0 from Go's Ceil into 0.
	if method == "ceil" {
		return math.Ceil(x*scale)/scale + 0, nil
	}
	return math.Floor(x*scale)/scale + 0, nil
}

// pyRound is Python's round(x, ndigits): exact, ties to even. Ints stay ints,
// floats stay floats; round(x, None) gives an int.
func pyRound(v Value, ndigits Value) (Value, error) {
	switch v.(type) {
	case bool, int, float64:
	default:
		return nil, typeError("type %s doesn't define __round__ method", typeName(v))
	}
	if ndigits == nil {
		f, _ := number(v)
		if _, isFloat := v.(float64); !isFloat {
			n, _ := toIndex(v)
			return n, nil
		}
		n, err := floatToInt(roundHalfEven(f, 0))
		if err != nil {
			return nil, err
		}
		return n, nil
	}
	nd, err := toIndex(ndigits)
	if err != nil {
		return nil, err
	}
	if f, isFloat := v.(float64); isFloat {
		return roundHalfEven(f, nd), nil
	}
	n, _ := toIndex(v)
	if nd >= 0 {
		return n, nil
	}
	// An int rounded to tens, hundreds...: exact, ties to even.
	q := new(big.Rat).SetFrac(big.NewInt(int64(n)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-nd)), nil))
	rq := ratRoundHalfEven(q)
	rq.Mul(rq, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-nd)), nil))
	if !rq.IsInt64() {
		return nil, intTooLarge("round(%d, %d)", n, nd)
	}
	return int(rq.Int64()), nil
}

// roundHalfEven rounds f to nd decimal places exactly, as float.__round__ does.
func roundHalfEven(f float64, nd int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	if nd > 330 {
		return f
	}
	if nd < -330 {
		return math.Copysign(0, f)
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(nd))), nil))
	x := new(big.Rat).SetFloat64(f)
	if nd >= 0 {
		x.Mul(x, scale)
	} else {
		x.Quo(x, scale)
	}
	n := new(big.Rat).SetInt(ratRoundHalfEven(x))
	if nd >= 0 {
		n.Quo(n, scale)
	} else {
		n.Mul(n, scale)
	}
	out, _ := n.Float64()
	if out == 0 {
		return math.Copysign(0, f)
	}
	return out
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ratRoundHalfEven rounds x to the nearest integer, ties to even.
func ratRoundHalfEven(x *big.Rat) *big.Int {
	num, den := x.Num(), x.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated toward zero
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	c := twice.Cmp(den)
	if c > 0 || (c == 0 && q.Bit(0) == 1) {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// filterFilesizeformat is do_filesizeformat.
func filterFilesizeformat(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoFilesizeformat.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	size, err := floatArg(v)
	if err != nil {
		return nil, err
	}
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if truthy(a[1]) {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	switch {
	case size == 1:
		return "1 Byte", nil
	case size < base:
		n, err := floatToInt(size)
		if err != nil {
			return nil, err
		}
		return strconv.Itoa(n) + " Bytes", nil
	}
	for i, p := range prefixes {
		// base ** (i + 2) is an exact int in Python, rounded once when divided into.
		exact := new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(i+2)), nil)
		unit, _ := new(big.Float).SetInt(exact).Float64()
		if size < unit || i == len(prefixes)-1 {
			return pyFixed(base*size/unit, 1) + " " + p, nil
		}
	}
	return nil, nil // not reached
}

// pyFixed is format(f, '.Nf'), with Python's names for the non-finite values.
func pyFixed(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// floatArg is Python's float(v) with its errors.
func floatArg(v Value) (float64, error) {
	if u, ok := v.(Undefined); ok {
		return 0, u.fail()
	}
	if f, ok := pyFloat(v); ok {
		return f, nil
	}
	if _, ok := isString(v); ok {
		return 0, valueError("could not convert string to float: %s", repr(v))
	}
	return 0, typeError("float() argument must be a string or a real number, not '%s'", typeName(v))
}

// pyInt is Python's int(v) with its errors; the result may be a float64
// beyond int64 (formatted exactly by %d).
func pyInt(v Value) (Value, error) {
	switch x := v.(type) {
	case Undefined:
		return nil, x.fail()
	case bool, int:
		return toIndex(x)
	case float64:
		switch {
		case math.IsNaN(x):
			return nil, valueError("cannot convert float NaN to integer")
		case math.IsInf(x, 0):
			return nil, newError("OverflowError", "cannot convert float infinity to integer")
		}
		return math.Trunc(x), nil
	case string, Markup:
		s, _ := isString(x)
		n, err := parsePyInt(s, 10)
		if err == errNotInt {
			return nil, valueError("invalid literal for int() with base 10: %s", repr(v))
		}
		return n, err
	}
	return nil, typeError("int() argument must be a string, a bytes-like object or a real number, not '%s'", typeName(v))
}

// ---------------------------------------------------------------------------
// String filters

func filterUpper(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoUpper.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return mapText(v, strUpper), nil
}

func filterLower(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoLower.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return mapText(v, strLower), nil
}

func filterCapitalize(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoCapitalize.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return mapText(v, strCapitalize), nil
}

// filterTitle is do_title: words start after '-', whitespace and opening
// brackets; each piece gets its first character uppercased and the rest
// lowercased. The result is a plain str even for Markup.
func filterTitle(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoTitle.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	isSep := func(c rune) bool { return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || isSpaceRune(c) }
	var b strings.Builder
	runes := []rune(toStr(v))
	for i := 0; i < len(runes); {
		j := i
		sep := isSep(runes[i])
		for j < len(runes) && isSep(runes[j]) == sep {
			j++
		}
		if sep {
			b.WriteString(string(runes[i:j]))
		} else {
			b.WriteString(strUpper(string(runes[i])) + strLower(string(runes[i+1:j])))
		}
		i = j
	}
	return b.String(), nil
}

// filterCenter is str.center(width): the extra space goes left when the
// padding and the width are both odd, as in CPython.
func filterCenter(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoCenter.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	width, err := toIndex(a[1])
	if err != nil {
		return nil, err
	}
	if err := checkPad(width); err != nil {
		return nil, err
	}
	return mapText(v, func(s string) string {
		n := utf8.RuneCountInString(s)
		if width <= n {
			return s
		}
		pad := width - n
		left := pad/2 + (pad & width & 1)
		return strings.Repeat(" ", left) + s + strings.Repeat(" ", pad-left)
	}), nil
}

// filterTrim is str.strip(chars); Markup stays Markup.
func filterTrim(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoTrim.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	var chars *string
	if a[1] != nil {
		s, ok := isString(a[1])
		if !ok {
			return nil, typeError("strip arg must be None or str")
		}
		chars = &s
	}
	return mapText(v, func(s string) string { return pyStrip(s, chars) }), nil
}

// filterReplace is do_replace with autoescape off: str(s).replace(str(old),
// str(new), count), always a plain str.
func filterReplace(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoReplace.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	count := -1
	if a[3] != nil {
		if count, err = toIndex(a[3]); err != nil {
			return nil, err
		}
	}
	s, old, repl := toStr(v), toStr(a[1]), toStr(a[2])
	if err := checkReplace(s, old, repl, count); err != nil {
		return nil, err
	}
	return pyReplace(s, old, repl, count), nil
}

// pyReplace is str.replace; a negative count replaces all. An empty old
// inserts new around every character, as in Python.
func pyReplace(s, old, new string, count int) string {
	if old != "" {
		return strings.Replace(s, old, new, count)
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if count < 0 || n < count {
			b.WriteString(new)
			n++
		}
		b.WriteRune(r)
	}
	if count < 0 || n < count {
		b.WriteString(new)
	}
	return b.String()
}

// filterIndent is do_indent (Jinja2 >= 3.0): width is a number of spaces or a
// string; the first line and blank lines are skipped unless asked for.
func filterIndent(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoIndent.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	var indention string
	if s, ok := isString(a[1]); ok {
		indention = s
	} else if n, err := toIndex(a[1]); err == nil {
		if err := checkPad(n); err != nil {
			return nil, err
		}
		indention = strings.Repeat(" ", max(n, 0))
	} else if u, ok := a[1].(Undefined); ok {
		return nil, u.fail() // " " * Undefined
	} else {
		return nil, typeError("can't multiply sequence by non-int of type '%s'", typeName(a[1]))
	}
	// s += "\n" needs a str.
	s, ok := isString(v)
	switch x := v.(type) {
	case Undefined:
		return nil, x.fail()
	case *List: // list += str extends the list, which has no splitlines
		return nil, newError("AttributeError", "'list' object has no attribute 'splitlines'")
	case Tuple:
		return nil, typeError("can only concatenate tuple (not \"str\") to tuple")
	default:
		if !ok {
			return nil, typeError("unsupported operand type(s) for +=: '%s' and 'str'", typeName(v))
		}
	}
	lines := splitLines(s+"\n", false)
	if err := checkIndent(lines, truthy(a[3]), len(s), len(indention)); err != nil {
		return nil, err
	}
	var out string
	if truthy(a[3]) {
		out = strings.Join(lines, "\n"+indention)
	} else {
		out = lines[0]
		rest := lines[1:]
		for i, l := range rest {
			if l != "" {
				rest[i] = indention + l
			}
		}
		if len(rest) > 0 {
			out += "\n" + strings.Join(rest, "\n")
		}
	}
	if truthy(a[2]) {
		out = indention + out
	}
	if _, isMarkup := v.(Markup); isMarkup {
		return Markup(out), nil
	}
	return out, nil
}

// checkIndent refuses an indent whose result would pass maxValueBytes: an
// indention for each line indented (blank ones only with blank), and one
// more for first.
func checkIndent(lines []string, blank bool, size, width int) error {
	if width == 0 {
		return nil
	}
	n := 1
	for _, l := range lines {
		if blank || l != "" {
			n++
		}
	}
	if n > (maxValueBytes-size)/width {
		return tooLong("an indented string", size+n*width)
	}
	return nil
}

// filterTruncate is do_truncate with Jinja2's default leeway of 5.
func filterTruncate(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoTruncate.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	limit, killwords, endV, leeway := a[1], truthy(a[2]), a[3], a[4]
	if leeway == nil {
		leeway = 5 // policies["truncate.leeway"]
	}
	endLen, err := length(endV)
	if err != nil {
		return nil, err
	}
	if ok, err := pyCmp(">=", limit, endLen); err != nil || !ok {
		return nil, assertion(err, "expected length >= %d, got %s", endLen, toStr(limit))
	}
	if ok, err := pyCmp(">=", leeway, 0); err != nil || !ok {
		return nil, assertion(err, "expected leeway >= 0, got %s", toStr(leeway))
	}
	n, err := length(v)
	if err != nil {
		return nil, err
	}
	bound, err := pyAdd(limit, leeway)
	if err != nil {
		return nil, err
	}
	if short, err := pyCmp("<=", n, bound); err != nil || short {
		return v, err
	}
	// s[:length - len(end)] needs an int.
	cut, err := toIndex(limit)
	if err != nil {
		return nil, typeError("slice indices must be integers or None or have an __index__ method")
	}
	s, ok := isString(v)
	if !ok {
		switch {
		case !killwords:
			return nil, newError("AttributeError", "'%s' object has no attribute 'rsplit'", typeName(v))
		case typeName(v) == "list" || typeName(v) == "tuple":
			return nil, typeError("can only concatenate %s (not \"%s\") to %s", typeName(v), typeName(endV), typeName(v))
		}
		return nil, typeError("'%s' object is not subscriptable", typeName(v))
	}
	end, ok := isString(endV)
	if !ok {
		return nil, typeError("can only concatenate str (not \"%s\") to str", typeName(endV))
	}
	head := string([]rune(s)[:cut-endLen])
	if !killwords {
		if i := strings.LastIndexByte(head, ' '); i >= 0 {
			head = head[:i]
		}
	}
	if _, isMarkup := v.(Markup); isMarkup {
		return Markup(head + escapeText(end)), nil
	}
	return head + end, nil
}

// pyCmp is Python's a <op> b for the ordering operators.
func pyCmp(op string, a, b Value) (bool, error) {
	c, err := compare(op, a, b)
	if err != nil {
		return false, err
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// assertion is the AssertionError of a failed assert, or err when evaluating
// the condition failed.
func assertion(err error, format string, args ...any) error {
	if err != nil {
		return err
	}
	return newError("AssertionError", format, args...)
}

// filterWordcount counts the matches of \w+.
func filterWordcount(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoWordcount.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	n := 0
	inWord := false
	for _, c := range toStr(v) {
		w := c == '_' || isAlnumRune(c)
		if w && !inWord {
			n++
		}
		inWord = w
	}
	return n, nil
}

// filterStriptags is Markup(v).striptags(): comments, then tags, are removed,
// whitespace is collapsed and entities are unescaped. The result is a str.
func filterStriptags(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoStriptags.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return stripTags(toStr(v)), nil
}

// filterUrlencode is do_urlencode: a str (or any non-iterable) is quoted with
// '/' kept; a dict or an iterable of pairs becomes a query string.
func filterUrlencode(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoUrlencode.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	var pairs []Value
	switch x := v.(type) {
	case string, Markup:
		return urlQuote(x, false), nil
	case *Dict:
		for i, k := range x.Keys() {
			pairs = append(pairs, Tuple{k, x.Values()[i]})
		}
	default:
		items, err := iterValues(v)
		if err != nil {
			if _, lazy := v.(*Generator); lazy {
				// An iterable whose iteration fails: Python raises.
				return nil, err
			}
			return urlQuote(v, false), nil
		}
		pairs = items
	}
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		kv, err := unpack(p, 2)
		if err != nil {
			return nil, err
		}
		parts = append(parts, urlQuote(kv[0], true)+"="+urlQuote(kv[1], true))
	}
	return strings.Join(parts, "&"), nil
}

// urlQuote is Jinja2's url_quote: urllib's quote of the UTF-8 bytes of str(v)
// (letters, digits and "_.-~" kept), keeping '/' unless forQS, where spaces
// become '+'.
func urlQuote(v Value, forQS bool) string {
	const hex = "0123456789ABCDEF"
	s := toStr(v)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0:
			b.WriteByte(c)
		case c == '/' && !forQS:
			b.WriteByte(c)
		case c == ' ' && forQS:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// unpack is Python's "a, b = v" for n targets.
func unpack(v Value, n int) ([]Value, error) {
	items, err := iterValues(v)
	if err != nil {
		return nil, typeError("cannot unpack non-iterable %s object", typeName(v))
	}
	if len(items) > n {
		return nil, valueError("too many values to unpack (expected %d)", n)
	}
	if len(items) < n {
		return nil, valueError("not enough values to unpack (expected %d, got %d)", n, len(items))
	}
	return items, nil
}

// filterXmlattr is do_xmlattr with autoescape off: a plain str.
func filterXmlattr(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoXmlattr.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*Dict)
	if !ok {
		if u, isU := v.(Undefined); isU {
			return nil, u.fail()
		}
		return nil, newError("AttributeError", "'%s' object has no attribute 'items'", typeName(v))
	}
	var items []string
	for i, k := range d.Keys() {
		val := d.Values()[i]
		if _, undef := val.(Undefined); undef || val == nil {
			continue
		}
		key, ok := isString(k)
		if !ok {
			return nil, typeError("expected string or bytes-like object, got '%s'", typeName(k))
		}
		if strings.ContainsFunc(key, func(c rune) bool {
			return strings.ContainsRune("/>= \t\n\r\f\v", c) // [\s/>=] with re.ASCII
		}) {
			return nil, valueError("Invalid character in attribute name: %s", repr(key))
		}
		items = append(items, escapeText(key)+`="`+string(escapeValue(val))+`"`)
	}
	out := strings.Join(items, " ")
	if truthy(a[1]) && out != "" {
		out = " " + out
	}
	return out, nil
}

// filterWordwrap is do_wordwrap: each line of the text is wrapped on its own
// with textwrap.wrap and the pieces are joined with wrapstring.
func filterWordwrap(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoWordwrap.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	// Python evaluates wrapstring.join, then s.splitlines(), then wraps.
	wrapstring := "\n"
	if a[3] != nil {
		var ok bool
		if wrapstring, ok = isString(a[3]); !ok {
			return nil, newError("AttributeError", "'%s' object has no attribute 'join'", typeName(a[3]))
		}
	}
	s, ok := isString(v)
	if !ok {
		if u, isU := v.(Undefined); isU {
			return nil, u.fail()
		}
		return nil, newError("AttributeError", "'%s' object has no attribute 'splitlines'", typeName(v))
	}
	tw := textWrapper{width: a[1], breakLongWords: truthy(a[2]), breakOnHyphens: truthy(a[4])}
	var paras []string
	for _, line := range splitLines(s, false) {
		lines, err := tw.wrap(line)
		if err != nil {
			return nil, err
		}
		paras = append(paras, strings.Join(lines, wrapstring))
	}
	return strings.Join(paras, wrapstring), nil
}

// ---------------------------------------------------------------------------
// Sequence filters

// filterLength is len(v) (the count and length filters).
func filterLength(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := bindOne("len", args, kwargs); err != nil {
		return nil, err
	}
	return length(v)
}

func filterList(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigSyncDoList.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	return NewList(slices.Clone(items)), nil
}

func filterFirst(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigSyncDoFirst.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	if g, ok := v.(*Generator); ok {
		items, err := iterate(g) // runs a pending body
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return Undefined{Hint: "No first item, sequence was empty."}, nil
		}
		// next(iter(gen)) takes one item and leaves the rest for later.
		g.items, g.consumed = items[1:], false
		return items[0], nil
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return Undefined{Hint: "No first item, sequence was empty."}, nil
	}
	return items[0], nil
}

func filterLast(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoLast.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	items, err := reversedItems(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return Undefined{Hint: "No last item, sequence was empty."}, nil
	}
	return items[0], nil
}

// reversedItems is reversed(v) drained. Sequences and dict views can be
// reversed (anything with a length but the loop object), generators cannot.
// A Markup reverses through its __getitem__, so unlike iteration it yields
// Markup characters.
func reversedItems(v Value) ([]Value, error) {
	if m, ok := v.(Markup); ok {
		chars, err := strChars(string(m))
		if err != nil {
			return nil, err
		}
		for i, c := range chars {
			chars[i] = Markup(c.(string))
		}
		slices.Reverse(chars)
		return chars, nil
	}
	_, isLoop := v.(*LoopInfo)
	if _, err := length(v); err != nil || isLoop {
		return nil, typeError("'%s' object is not reversible", typeName(v))
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(items)
	slices.Reverse(out)
	return out, nil
}

// reverseIteratorName is the type of reversed(v), as its repr shows.
func reverseIteratorName(v Value) string {
	switch tn := typeName(v); {
	case tn == "list":
		return "list_reverseiterator"
	case tn == "range":
		return "range_iterator"
	case tn == "dict":
		return "dict_reversekeyiterator"
	case strings.HasPrefix(tn, "dict_"): // dict_keys, dict_values, dict_items
		return "dict_reverse" + strings.TrimSuffix(tn[len("dict_"):], "s") + "iterator"
	}
	return "reversed"
}

// filterReverse is do_reverse: a reversed str, a reverse iterator over a
// sequence, or for other iterables a reversed list.
func filterReverse(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoReverse.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	if s, ok := isString(v); ok {
		runes := []rune(s)
		slices.Reverse(runes)
		return mapText(v, func(string) string { return string(runes) }), nil
	}
	if items, err := reversedItems(v); err == nil {
		return &Generator{items: items, iterType: reverseIteratorName(v)}, nil
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, filterArgumentError("argument must be iterable")
	}
	out := slices.Clone(items)
	slices.Reverse(out)
	return NewList(out), nil
}

// filterRandom is do_random: random.choice(seq). Its pick cannot match
// Python's, but a template using it renders.
func filterRandom(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoRandom.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	n, err := length(v)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return Undefined{Hint: "No random item, sequence was empty."}, nil
	}
	return r.getItem(v, rand.IntN(n))
}

// filterJoin is do_join with autoescape off: str(d).join(map(str, items)), a
// plain str even when items are Markup.
func filterJoin(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigSyncDoJoin.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	get := func(x Value) (Value, error) { return x, nil }
	if a[2] != nil {
		get = r.attrGetter(a[2], nil, nil)
	}
	sep := toStr(a[1])
	parts := make([]string, len(items))
	size := 0
	for i, it := range items {
		x, err := get(it)
		if err != nil {
			return nil, err
		}
		parts[i] = toStr(x)
		// Checked as the parts come: each may be a repr of up to
		// maxValueBytes, and there may be maxValueItems of them.
		if size += len(parts[i]) + len(sep); size > maxValueBytes+len(sep) {
			return nil, tooLong("a join", size)
		}
	}
	return strings.Join(parts, sep), nil
}

// filterBatch is do_batch: lists of linecount items, the last one filled up
// with fill_with when it is given.
func filterBatch(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoBatch.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	linecount, fill := a[1], a[2]
	return lazyGenerator("do_batch", func() ([]Value, error) { return batchItems(v, linecount, fill) })
}

func batchItems(v, linecount, fill Value) ([]Value, error) {
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	var out []Value
	var tmp []Value
	for _, it := range items {
		if equal(len(tmp), linecount) {
			out = append(out, NewList(tmp))
			tmp = nil
		}
		tmp = append(tmp, it)
	}
	if len(tmp) > 0 {
		if fill != nil {
			c, err := compare("<", len(tmp), linecount)
			if err != nil {
				return nil, err
			}
			if c < 0 {
				// [fill_with] * (linecount - len(tmp)) needs an int.
				n, err := toIndex(linecount)
				if err != nil {
					return nil, typeError("can't multiply sequence by non-int of type '%s'", typeName(linecount))
				}
				if err := checkPad(n); err != nil {
					return nil, err
				}
				for len(tmp) < n {
					tmp = append(tmp, fill)
				}
			}
		}
		out = append(out, NewList(tmp))
	}
	return out, nil
}

// filterSlice is sync_do_slice: the items cut into `slices` columns, the
// first ones one longer, the others filled with fill_with when given.
func filterSlice(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigSyncDoSlice.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	slicesV, fill := a[1], a[2]
	return lazyGenerator("sync_do_slice", func() ([]Value, error) { return sliceColumns(v, slicesV, fill) })
}

func sliceColumns(v, slicesV, fill Value) ([]Value, error) {
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	count, err := toIndex(slicesV)
	if err != nil {
		// len(seq) // slices, then range(slices), fail in this order.
		f, isFloat := slicesV.(float64)
		switch {
		case isUndefined(slicesV):
			return nil, slicesV.(Undefined).fail()
		case !isFloat:
			return nil, typeError("unsupported operand type(s) for //: 'int' and '%s'", typeName(slicesV))
		case f == 0:
			return nil, newError("ZeroDivisionError", "float floor division by zero")
		}
		return nil, err
	}
	if count == 0 {
		return nil, newError("ZeroDivisionError", "integer division or modulo by zero")
	}
	if err := checkPad(count); err != nil {
		return nil, err
	}
	n := len(items)
	per, extra := floorDiv(n, count), floorMod(n, count)
	offset := 0
	var out []Value
	for i := 0; i < count; i++ {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		idx, _ := sliceBounds(start, end, nil, n)
		column := make([]Value, 0, len(idx)+1)
		for _, j := range idx {
			column = append(column, items[j])
		}
		if fill != nil && i >= extra {
			column = append(column, fill)
		}
		out = append(out, NewList(column))
	}
	return out, nil
}

// filterItems is do_items: the (key, value) pairs of a dict.
func filterItems(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoItems.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	return lazyGenerator("do_items", func() ([]Value, error) {
		switch d := v.(type) {
		case Undefined:
			return nil, nil
		case *Dict:
			return itemTuples(d), nil
		}
		return nil, typeError("Can only get item pairs from a mapping.")
	})
}

// filterDictsort is do_dictsort: the (key, value) pairs sorted by key or value.
func filterDictsort(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoDictsort.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	pos := 0
	switch by, _ := a[2].(string); by {
	case "key":
	case "value":
		pos = 1
	default:
		return nil, filterArgumentError(`You can only sort by either "key" or "value"`)
	}
	d, ok := v.(*Dict)
	if !ok {
		if u, isU := v.(Undefined); isU {
			return nil, u.fail()
		}
		return nil, newError("AttributeError", "'%s' object has no attribute 'items'", typeName(v))
	}
	fold := caseFolder(a[1])
	pairs := itemTuples(d)
	keys := make([]Value, d.Len())
	for i := range pairs {
		keys[i] = pairs[i].(Tuple)[pos]
		if fold != nil {
			keys[i] = fold(keys[i])
		}
	}
	reverse, err := toIndex(a[3]) // sorted() wants an int-like reverse
	if err != nil {
		return nil, err
	}
	out, err := sortByKeys(pairs, keys, reverse != 0)
	if err != nil {
		return nil, err
	}
	return NewList(out), nil
}

// filterSort is do_sort.
func filterSort(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoSort.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	keyOf := r.multiAttrGetter(a[3], caseFolder(a[2]))
	keys := make([]Value, len(items))
	for i, it := range items {
		if keys[i], err = keyOf(it); err != nil {
			return nil, err
		}
	}
	reverse, err := toIndex(a[1]) // sorted() wants an int-like reverse
	if err != nil {
		return nil, err
	}
	out, err := sortByKeys(items, keys, reverse != 0)
	if err != nil {
		return nil, err
	}
	return NewList(out), nil
}

// filterUnique is sync_do_unique: first occurrences, compared case-insensitively
// unless case_sensitive.
func filterUnique(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigSyncDoUnique.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	keyOf := r.attrGetter(a[2], caseFolder(a[1]), nil)
	return lazyGenerator("sync_do_unique", func() ([]Value, error) { return uniqueItems(v, keyOf) })
}

func uniqueItems(v Value, keyOf func(Value) (Value, error)) ([]Value, error) {
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	seen := map[any]bool{}
	var out []Value
	for _, it := range items {
		k, err := keyOf(it)
		if err != nil {
			return nil, err
		}
		var h any = undefinedKey{} // all Undefined values hash and compare equal
		if _, undef := k.(Undefined); !undef {
			if h, err = hashKey(k); err != nil {
				return nil, err
			}
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, it)
		}
	}
	return out, nil
}

func isUndefined(v Value) bool {
	_, ok := v.(Undefined)
	return ok
}

// undefinedKey is the set key of every Undefined (Jinja2 hashes them by type).
type undefinedKey struct{}

func filterMin(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoMin.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	return r.minMax(v, "<", a[1], a[2])
}

func filterMax(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoMax.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	return r.minMax(v, ">", a[1], a[2])
}

// minMax is Python's min or max with a key: the first best item wins.
func (r *renderer) minMax(v Value, op string, caseSensitive, attribute Value) (Value, error) {
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return Undefined{Hint: "No aggregated item, sequence was empty."}, nil
	}
	keyOf := r.attrGetter(attribute, caseFolder(caseSensitive), nil)
	best := items[0]
	bestKey, err := keyOf(best)
	if err != nil {
		return nil, err
	}
	for _, it := range items[1:] {
		k, err := keyOf(it)
		if err != nil {
			return nil, err
		}
		c, err := compare(op, k, bestKey)
		if err != nil {
			return nil, err
		}
		if (op == "<" && c < 0) || (op == ">" && c > 0) {
			best, bestKey = it, k
		}
	}
	return best, nil
}

// filterSum is sync_do_sum: sum(items, start), optionally of an attribute.
func filterSum(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigSyncDoSum.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	// sum() takes iter(iterable) before it checks start, and only then
	// consumes the items; a generator is iterable without running it.
	if _, isGen := v.(*Generator); !isGen {
		if _, err := iterValues(v); err != nil {
			return nil, err
		}
	}
	if _, ok := isString(a[2]); ok {
		return nil, typeError("sum() can't sum strings [use ''.join(seq) instead]")
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	get := func(x Value) (Value, error) { return x, nil }
	if a[1] != nil {
		get = r.attrGetter(a[1], nil, nil)
	}
	total := a[2]
	for _, it := range items {
		x, err := get(it)
		if err != nil {
			return nil, err
		}
		if total, err = pyAdd(total, x); err != nil {
			return nil, err
		}
		// Each + of lists copies the sum so far: summing many is quadratic.
		if err := r.charge(weight(total)); err != nil {
			return nil, err
		}
	}
	return total, nil
}

// pyAdd is Python's a + b for the values sum() meets: numbers, lists, tuples.
func pyAdd(a, b Value) (Value, error) {
	if u, ok := a.(Undefined); ok {
		return nil, u.fail()
	}
	if u, ok := b.(Undefined); ok {
		return nil, u.fail()
	}
	if isNumber(a) && isNumber(b) {
		_, af := a.(float64)
		_, bf := b.(float64)
		if af || bf {
			x, _ := number(a)
			y, _ := number(b)
			return x + y, nil
		}
		x, _ := toIndex(a)
		y, _ := toIndex(b)
		return addInt(x, y)
	}
	switch x := a.(type) {
	case *List:
		if y, ok := b.(*List); ok {
			if n := len(x.Items) + len(y.Items); n > maxValueItems {
				return nil, limitError("a list of %d items exceeds the limit of %d", n, maxValueItems)
			}
			return NewList(append(slices.Clone(x.Items), y.Items...)), nil
		}
		return nil, typeError("can only concatenate list (not \"%s\") to list", typeName(b))
	case Tuple:
		if y, ok := b.(Tuple); ok {
			if n := len(x) + len(y); n > maxValueItems {
				return nil, limitError("a tuple of %d items exceeds the limit of %d", n, maxValueItems)
			}
			return append(slices.Clone(x), y...), nil
		}
		return nil, typeError("can only concatenate tuple (not \"%s\") to tuple", typeName(b))
	case string, Markup:
		if y, ok := isString(b); ok {
			if n := weight(x) + len(y); n > maxValueBytes {
				return nil, tooLong("a string", n)
			}
			if m, isM := a.(Markup); isM {
				return m + escapeValue(y), nil
			}
			if m, isM := b.(Markup); isM {
				return escapeValue(x) + m, nil
			}
			return x.(string) + y, nil
		}
		return nil, typeError("can only concatenate str (not \"%s\") to str", typeName(b))
	}
	return nil, typeError("unsupported operand type(s) for +: '%s' and '%s'", typeName(a), typeName(b))
}

// filterGroupby is sync_do_groupby: items sorted by the attribute and grouped
// by equal keys, as (grouper, list) tuples. Without case_sensitive the keys
// are compared lowercased, and the grouper is the first item's real value.
func filterGroupby(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigSyncDoGroupby.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	keyOf := r.attrGetter(a[1], caseFolder(a[3]), a[2])
	keys := make([]Value, len(items))
	for i, it := range items {
		if keys[i], err = keyOf(it); err != nil {
			return nil, err
		}
	}
	sorted, err := sortByKeys(items, keys, false)
	if err != nil {
		return nil, err
	}
	realKey := r.attrGetter(a[1], nil, a[2])
	var out []Value
	var group []Value
	var groupKey Value
	flush := func() error {
		if group == nil {
			return nil
		}
		grouper := groupKey
		if !truthy(a[3]) {
			var err error
			if grouper, err = realKey(group[0]); err != nil {
				return err
			}
		}
		out = append(out, newGroupTuple(grouper, NewList(group)))
		return nil
	}
	for _, it := range sorted {
		k, err := keyOf(it)
		if err != nil {
			return nil, err
		}
		if group != nil && equal(k, groupKey) {
			group = append(group, it)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		group, groupKey = []Value{it}, k
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return NewList(out), nil
}

// groupMark fills the hidden third slot of a groupby result (see newGroupTuple).
type groupMark struct{}

// newGroupTuple is the (grouper, list) namedtuple (Jinja2's _GroupTuple) that
// groupby yields. It is a Tuple like any other, so it prints, iterates,
// unpacks, indexes, slices, compares and serialises as a tuple, as the
// namedtuple does; only its backing array is one slot longer, that slot
// holding groupMark, which is how groupAttr tells it from a plain pair. (A
// tuple is never appended to in place, and slicing or adding tuples copies
// only their items, so the mark cannot reach another tuple.)
func newGroupTuple(grouper, list Value) Tuple {
	t := make(Tuple, 3)
	t[0], t[1], t[2] = grouper, list, groupMark{}
	return t[:2]
}

// isGroupTuple reports whether v is a groupby result.
func isGroupTuple(v Value) bool {
	t, ok := v.(Tuple)
	if !ok || len(t) != 2 || cap(t) < 3 {
		return false
	}
	_, mark := t[:3][2].(groupMark)
	return mark
}

// groupAttr returns the attribute name of obj when obj is a groupby result
// and name is one of its fields, grouper and list; the tuple methods (count,
// index) are found as for any tuple.
func groupAttr(obj Value, name string) (Value, bool) {
	if (name != "grouper" && name != "list") || !isGroupTuple(obj) {
		return nil, false
	}
	t := obj.(Tuple)
	if name == "grouper" {
		return t[0], true
	}
	return t[1], true
}

// filterAttr is do_attr: the Python attribute only, never the item.
func filterAttr(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoAttr.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	name, ok := isString(a[1])
	if !ok {
		return nil, typeError("attribute name must be string, not '%s'", typeName(a[1]))
	}
	if u, isU := v.(Undefined); isU {
		return nil, u.fail()
	}
	if val, ok, err := r.attribute(v, name); ok || err != nil {
		return val, err
	}
	return undefinedAttr(v, name), nil
}

// filterDefault is do_default.
func filterDefault(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigDoDefault.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	if _, undef := v.(Undefined); undef || (truthy(a[2]) && !truthy(v)) {
		return a[1], nil
	}
	return v, nil
}

// ---------------------------------------------------------------------------
// map, select, reject, selectattr, rejectattr

// filterMap is sync_do_map: an attribute of each item, or a filter applied to it.
func filterMap(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("sync_do_map", kwargs, "context", "value"); err != nil {
		return nil, err
	}
	return lazyGenerator("sync_do_map", func() ([]Value, error) { return r.mapItems(v, args, kwargs) })
}

func (r *renderer) mapItems(v Value, args []Value, kwargs *Dict) ([]Value, error) {
	if !truthy(v) {
		return nil, nil
	}
	var fn func(Value) (Value, error)
	attr, hasAttr := Value(nil), false
	if kwargs != nil {
		attr, hasAttr = kwargs.GetStr("attribute")
	}
	switch {
	case len(args) == 0 && hasAttr:
		def, _ := kwargs.GetStr("default")
		for _, k := range kwargs.Keys() {
			if k != "attribute" && k != "default" {
				return nil, filterArgumentError("Unexpected keyword argument %s", repr(k))
			}
		}
		fn = r.attrGetter(attr, nil, def)
	case len(args) == 0:
		return nil, filterArgumentError("map requires a filter argument")
	default:
		name, rest := args[0], args[1:]
		fn = func(item Value) (Value, error) { return filterByName(r, name, item, rest, kwargs) }
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(items))
	for i, it := range items {
		if out[i], err = fn(it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// noCallable is the error for a filter or test name that is not registered;
// an undefined name gets Jinja2's hint about quoting.
func noCallable(kind string, name Value) error {
	msg := "No " + kind + " named " + repr(name) + "."
	if u, ok := name.(Undefined); ok {
		msg += " (" + u.fail().Message + "; did you forget to quote the callable name?)"
	}
	return newError("TemplateRuntimeError", "%s", msg)
}

// filterByName is environment.call_filter for a filter named at run time.
func filterByName(r *renderer, name Value, v Value, args []Value, kwargs *Dict) (Value, error) {
	s, _ := name.(string)
	f, ok := builtinFilters[s]
	if !ok {
		return nil, noCallable("filter", name)
	}
	out, err := f(r, v, args, kwargs)
	if err != nil {
		return nil, err
	}
	return out, r.chargeCall(v, args, out) // map runs one per item
}

func filterSelect(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("sync_do_select", kwargs, "context", "value"); err != nil {
		return nil, err
	}
	return r.selectOrReject(v, args, kwargs, true, false)
}

func filterReject(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("sync_do_reject", kwargs, "context", "value"); err != nil {
		return nil, err
	}
	return r.selectOrReject(v, args, kwargs, false, false)
}

func filterSelectattr(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("sync_do_selectattr", kwargs, "context", "value"); err != nil {
		return nil, err
	}
	return r.selectOrReject(v, args, kwargs, true, true)
}

func filterRejectattr(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("sync_do_rejectattr", kwargs, "context", "value"); err != nil {
		return nil, err
	}
	return r.selectOrReject(v, args, kwargs, false, true)
}

// selectOrReject keeps the items for which the test (or truthiness, without a
// test name) of the item, or of its attribute, is keep.
func (r *renderer) selectOrReject(v Value, args []Value, kwargs *Dict, keep, lookupAttr bool) (Value, error) {
	return lazyGenerator("select_or_reject", func() ([]Value, error) { return r.selectItems(v, args, kwargs, keep, lookupAttr) })
}

func (r *renderer) selectItems(v Value, args []Value, kwargs *Dict, keep, lookupAttr bool) ([]Value, error) {
	if !truthy(v) {
		return nil, nil
	}
	get := func(x Value) (Value, error) { return x, nil }
	if lookupAttr {
		if len(args) == 0 {
			return nil, filterArgumentError("Missing parameter for attribute name")
		}
		get = r.attrGetter(args[0], nil, nil)
		args = args[1:]
	}
	test := func(x Value) (bool, error) { return truthy(x), nil }
	if len(args) > 0 {
		name, rest := args[0], args[1:]
		test = func(x Value) (bool, error) { return testByName(r, name, x, rest, kwargs) }
	}
	items, err := iterValues(v)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, it := range items {
		x, err := get(it)
		if err != nil {
			return nil, err
		}
		ok, err := test(x)
		if err != nil {
			return nil, err
		}
		if ok == keep {
			out = append(out, it)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// tojson, pprint, format

// filterTojson is transformers' tojson: json.dumps(x, ensure_ascii=False,
// indent=None, separators=None, sort_keys=False), a plain str.
func filterTojson(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	a, err := sigTojson.bind(v, args, kwargs)
	if err != nil {
		return nil, err
	}
	return toJSON(v, a[2], a[3], truthy(a[4]), truthy(a[1]))
}

// writeJSON is {{ v | tojson(args) }}: filterTojson with the JSON encoded
// straight into the output. It returns the length written.
func (r *renderer) writeJSON(v Value, args []Value, kwargs *Dict) (int, error) {
	a, err := sigTojson.bind(v, args, kwargs)
	if err != nil {
		return 0, err
	}
	mark := len(r.out)
	if r.out, err = appendToJSON(r.out, v, a[2], a[3], truthy(a[4]), truthy(a[1])); err != nil {
		return 0, err
	}
	return len(r.out) - mark, nil
}

// filterPprint is pprint.pformat(value).
func filterPprint(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if _, err := sigDoPprint.bind(v, args, kwargs); err != nil {
		return nil, err
	}
	var b strings.Builder
	pformat(&b, v, 0, 0, 0, new(int))
	return b.String(), nil
}

// filterFormat is do_format: value % args (or % kwargs), printf-style.
func filterFormat(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error) {
	if err := checkOwnKwargs("do_format", kwargs, "value"); err != nil {
		return nil, err
	}
	if len(args) > 0 && kwargs != nil && kwargs.Len() > 0 {
		return nil, filterArgumentError("can't handle positional and keyword arguments at the same time")
	}
	var arg Value = Tuple(args)
	if kwargs != nil && kwargs.Len() > 0 {
		arg = kwargs
	}
	if m, ok := v.(Markup); ok {
		s, err := pyPercent(string(m), arg, true)
		return Markup(s), err
	}
	return pyPercent(toStr(v), arg, false)
}

// ---------------------------------------------------------------------------
// printf-style formatting (str % args)

// pyPercent is Python's format % arg. arg is a Tuple of positional values, a
// mapping (for %(name)s) or a single value. With markup set, as for a Markup
// format string, the text of %s, %r and %a conversions is escaped.
func pyPercent(format string, arg Value, markup bool) (string, error) {
	st := percentState{args: arg, arglen: -1, argidx: -2}
	if t, ok := arg.(Tuple); ok {
		st.arglen, st.argidx = len(t), 0
	} else if _, isStr := isString(arg); !isStr {
		// PyMapping_Check: anything subscriptable but a tuple or str.
		switch arg.(type) {
		case *Dict, *List, Undefined:
			st.dict = arg
		}
	}
	var b strings.Builder
	runes := []rune(format)
	for i := 0; i < len(runes); i++ {
		if runes[i] != '%' {
			b.WriteRune(runes[i])
			continue
		}
		next, err := st.convert(&b, runes, i+1, markup)
		if e, ok := err.(*Error); ok && e.Kind == "LimitError" && st.limitErr == nil {
			// Python would build the huge field and go on; report the
			// limit only if nothing else goes wrong first.
			st.limitErr, err = e, nil
		}
		if err != nil {
			return "", err
		}
		i = next
	}
	if st.argidx < st.arglen && st.dict == nil {
		return "", typeError("not all arguments converted during string formatting")
	}
	if st.limitErr != nil {
		return "", st.limitErr
	}
	return b.String(), nil
}

type percentState struct {
	args           Value
	arglen, argidx int
	dict           Value
	limitErr       error // a field too wide to build, reported at the end
}

// next is CPython's getnextarg: a tuple's next item, or the single argument once.
func (st *percentState) next() (Value, error) {
	if st.argidx >= st.arglen {
		return nil, typeError("not enough arguments for format string")
	}
	st.argidx++
	if st.arglen < 0 {
		return st.args, nil
	}
	return st.args.(Tuple)[st.argidx-1], nil
}

type percentSpec struct {
	left, plus, space, alt, zero bool
	width, prec                  int // -1 when absent
}

// convert handles one conversion starting after its '%' at runes[i] and returns
// the index of its last character.
func (st *percentState) convert(b *strings.Builder, runes []rune, i int, markup bool) (int, error) {
	incomplete := func() (int, error) { return 0, valueError("incomplete format") }
	if i >= len(runes) {
		return incomplete()
	}
	if runes[i] == '%' {
		b.WriteByte('%')
		return i, nil
	}
	if runes[i] == '(' {
		if st.dict == nil {
			return 0, typeError("format requires a mapping")
		}
		depth, start := 1, i+1
		for i++; i < len(runes) && depth > 0; i++ {
			if runes[i] == '(' {
				depth++
			} else if runes[i] == ')' {
				depth--
			}
		}
		if depth > 0 {
			return 0, valueError("incomplete format key")
		}
		v, err := pctSubscript(st.dict, string(runes[start:i-1]))
		if err != nil {
			return 0, err
		}
		st.args, st.arglen, st.argidx = v, -1, -2
	}
	spec := percentSpec{width: -1, prec: -1}
flags:
	for ; i < len(runes); i++ {
		switch runes[i] {
		case '-':
			spec.left = true
		case '+':
			spec.plus = true
		case ' ':
			spec.space = true
		case '#':
			spec.alt = true
		case '0':
			spec.zero = true
		default:
			break flags
		}
	}
	num := func() (int, error) {
		if i < len(runes) && runes[i] == '*' {
			i++
			v, err := st.next()
			if err != nil {
				return 0, err
			}
			n, err := toIndex(v) // an int; a bool is one too
			if err != nil || markup {
				// Markup wraps every argument in a helper, never an int.
				return 0, typeError("* wants int")
			}
			return n, nil
		}
		n := -1
		for i < len(runes) && runes[i] >= '0' && runes[i] <= '9' {
			n = max(n, 0)*10 + int(runes[i]-'0')
			i++
		}
		return n, nil
	}
	var err error
	if spec.width, err = num(); err != nil {
		return 0, err
	}
	if spec.width < -1 || (spec.width < 0 && i > 0 && runes[i-1] == '*') {
		spec.left, spec.width = true, -spec.width
	}
	if i < len(runes) && runes[i] == '.' {
		i++
		if spec.prec, err = num(); err != nil {
			return 0, err
		}
		spec.prec = max(spec.prec, 0)
	}

	for i < len(runes) && (runes[i] == 'h' || runes[i] == 'l' || runes[i] == 'L') {
		i++
	}
	if i >= len(runes) {
		return incomplete()
	}
	c := runes[i]
	v, err := st.next()
	if err != nil {
		return 0, err
	}
	text, err := pctOne(c, v, spec, markup, i)
	if err != nil {
		return i, err
	}
	b.WriteString(text)
	return i, nil
}

// subscript is mapping[key] for a %(key)s conversion.
func pctSubscript(m Value, key string) (Value, error) {
	switch d := m.(type) {
	case *Dict:
		if v, ok := d.GetStr(key); ok {
			return v, nil
		}
		return nil, newError("KeyError", "%s", repr(key))
	case Undefined:
		return nil, d.fail()
	}
	return nil, typeError("%s indices must be integers or slices, not str", typeName(m))
}

// formatOne formats v for the conversion character c at index pos.
func pctOne(c rune, v Value, spec percentSpec, markup bool, pos int) (string, error) {
	if markup {
		// markupsafe wraps each argument in a _MarkupEscapeHelper, which
		// converts with int() and float() and is no int itself.
		switch c {
		case 'x', 'X', 'o':
			return "", typeError("%%%c format: an integer is required, not _MarkupEscapeHelper", c)
		case 'c':
			return "", typeError("%%c requires int or char")
		case 'd', 'i', 'u':
			n, err := pyInt(v)
			if e, ok := err.(*Error); ok && e.Kind == "TypeError" {
				return "", typeError("%%%c format: a real number is required, not _MarkupEscapeHelper", c)
			}
			if err != nil {
				return "", err
			}
			v = n
		case 'e', 'E', 'f', 'F', 'g', 'G':
			f, err := floatArg(v)
			if err != nil {
				return "", err
			}
			v = f
		}
	}
	switch c {
	case 's', 'r', 'a':
		var s string
		switch c {
		case 's':
			s = toStr(v)
		case 'r':
			s = repr(v)
		default:
			s = asciiRepr(repr(v))
		}
		if markup {
			s = string(escapeValue(s))
			if c == 's' {
				s = string(escapeValue(v))
			}
		}
		if spec.prec >= 0 {
			if r := []rune(s); len(r) > spec.prec {
				s = string(r[:spec.prec])
			}
		}
		if err := checkPad(spec.width); err != nil {
			return "", err
		}
		return pctPad(s, spec, false), nil
	case 'd', 'i', 'u', 'x', 'X', 'o':
		return pctInt(c, v, spec)
	case 'e', 'E', 'f', 'F', 'g', 'G':
		f, ok := pyFloat(v)
		if _, isStr := isString(v); isStr || !ok {
			if u, isU := v.(Undefined); isU {
				return "", u.fail()
			}
			return "", typeError("must be real number, not %s", typeName(v))
		}
		if err := checkPad(max(spec.width, spec.prec)); err != nil {
			return "", err
		}
		return pctFloat(c, f, spec), nil
	case 'c':
		var s string
		switch x := v.(type) {
		case int, bool:
			n, _ := toIndex(x)
			if n < 0 || n > 0x10ffff {
				return "", newError("OverflowError", "%%c arg not in range(0x110000)")
			}
			s = string(rune(n))
		case string, Markup:
			t, _ := isString(x)
			if utf8.RuneCountInString(t) != 1 {
				return "", typeError("%%c requires int or char")
			}
			s = t
		default:
			return "", typeError("%%c requires int or char")
		}
		if err := checkPad(spec.width); err != nil {
			return "", err
		}
		return pctPad(s, spec, false), nil
	}
	return "", valueError("unsupported format character '%c' (0x%x) at index %d", c, c, pos)
}

// pad applies width: spaces on the left (right with '-'), or zeros after the
// sign and any 0x prefix when numeric and '0' is set.
func pctPad(s string, spec percentSpec, numeric bool) string {
	n := utf8.RuneCountInString(s)
	if spec.width <= n {
		return s
	}
	fill := spec.width - n
	switch {
	case spec.left:
		return s + strings.Repeat(" ", fill)
	case spec.zero && numeric:
		head := 0
		if head < len(s) && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			head++
		}
		if len(s) >= head+2 && s[head] == '0' && strings.IndexByte("xXo", s[head+1]) >= 0 {
			head += 2
		}
		return s[:head] + strings.Repeat("0", fill) + s[head:]
	}
	return strings.Repeat(" ", fill) + s
}

func pctSigned(neg bool, body string, spec percentSpec) string {
	switch {
	case neg:
		return "-" + body
	case spec.plus:
		return "+" + body
	case spec.space:
		return " " + body
	}
	return body
}

// pctInt handles %d %i %u (any real number, truncated) and %x %X %o
// (integers only).
func pctInt(c rune, v Value, spec percentSpec) (string, error) {
	var n *big.Int
	switch x := v.(type) {
	case int:
		n = big.NewInt(int64(x))
	case bool:
		i, _ := toIndex(x)
		n = big.NewInt(int64(i))
	case float64:
		if c == 'x' || c == 'X' || c == 'o' {
			return "", typeError("%%%c format: an integer is required, not float", c)
		}
		switch {
		case math.IsNaN(x):
			return "", valueError("cannot convert float NaN to integer")
		case math.IsInf(x, 0):
			return "", newError("OverflowError", "cannot convert float infinity to integer")
		}
		n, _ = new(big.Float).SetFloat64(math.Trunc(x)).Int(nil)
	case Undefined:
		if c == 'd' || c == 'i' || c == 'u' {
			return "", x.fail()
		}
		return "", typeError("%%%c format: an integer is required, not Undefined", c)
	default:
		if c == 'x' || c == 'X' || c == 'o' {
			return "", typeError("%%%c format: an integer is required, not %s", c, typeName(v))
		}
		return "", typeError("%%%c format: a real number is required, not %s", c, typeName(v))
	}
	if err := checkPad(max(spec.width, spec.prec)); err != nil {
		return "", err
	}
	base, prefix := 10, ""
	switch c {
	case 'x':
		base, prefix = 16, "0x"
	case 'X':
		base, prefix = 16, "0X"
	case 'o':
		base, prefix = 8, "0o"
	}
	digits := new(big.Int).Abs(n).Text(base)
	if c == 'X' {
		digits = strings.ToUpper(digits)
	}
	if spec.prec > len(digits) {
		digits = strings.Repeat("0", spec.prec-len(digits)) + digits
	}
	if spec.alt {
		digits = prefix + digits
	}
	return pctPad(pctSigned(n.Sign() < 0, digits, spec), spec, true), nil
}

// pctFloat handles %e %f %g and their upper-case forms as CPython does.
func pctFloat(c rune, f float64, spec percentSpec) string {
	prec := spec.prec
	if prec < 0 {
		prec = 6
	}
	body := floatBody(math.Abs(f), unicode.ToLower(c), prec, spec.alt, false)
	if unicode.IsUpper(c) {
		body = strings.ToUpper(body)
	}
	return pctPad(pctSigned(math.Signbit(f) && !math.IsNaN(f), body, spec), spec, true)
}

// ---------------------------------------------------------------------------
// textwrap.wrap

// textWrapper is Python's textwrap.TextWrapper with expand_tabs,
// replace_whitespace and fix_sentence_endings off, as do_wordwrap uses it.
type textWrapper struct {
	width                          Value // an int, or a float, as Python allows
	breakLongWords, breakOnHyphens bool
}

// twSpace is textwrap's whitespace: ASCII only.
func twSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

func isWordChar(r rune) bool { return r == '_' || isAlnumRune(r) }

// isLetter is textwrap's [^\d\W]: a word character that is not a decimal digit.
func isLetter(r rune) bool { return isWordChar(r) && !unicode.IsDigit(r) }

func isWordPunct(r rune) bool { return isWordChar(r) || strings.ContainsRune(`!"'&.,?`, r) }

// split cuts text into chunks as TextWrapper._split does: runs of whitespace,
// and words, which with break_on_hyphens also end after a hyphen between
// letters and before an em-dash ("--").
func (tw *textWrapper) split(text string) []string {
	t := []rune(text)
	at := func(i int) rune {
		if i < 0 || i >= len(t) {
			return -1
		}
		return t[i]
	}
	// emDash reports whether two or more hyphens start at i and a word
	// character follows them.
	emDash := func(i int) bool {
		j := i
		for at(j) == '-' {
			j++
		}
		return j-i >= 2 && j < len(t) && isWordChar(t[j])
	}
	var chunks []string
	for i := 0; i < len(t); {
		j := i + 1
		switch {
		case twSpace(t[i]):
			for j < len(t) && twSpace(t[j]) {
				j++
			}
		case !tw.breakOnHyphens:
			for j < len(t) && !twSpace(t[j]) {
				j++
			}
		case i > 0 && isWordPunct(t[i-1]) && emDash(i):
			for at(j) == '-' {
				j++
			}
		default:
			j = tw.wordEnd(t, i, at, emDash)
		}
		chunks = append(chunks, string(t[i:j]))
		i = j
	}
	return chunks
}

// wordEnd finds the shortest word starting at i that ends at a breakable
// hyphen, at whitespace or the end, or before an em-dash.
func (tw *textWrapper) wordEnd(t []rune, i int, at func(int) rune, emDash func(int) bool) int {
	for e := i + 1; ; e++ {
		// A hyphen after two letters (or letter-hyphen-letter), followed by
		// a letter, an optional hyphen, and a letter.
		if at(e) == '-' && ((isLetter(at(e-2)) && isLetter(at(e-1))) ||
			(isLetter(at(e-3)) && at(e-2) == '-' && isLetter(at(e-1)))) &&
			isLetter(at(e+1)) && (isLetter(at(e+2)) || (at(e+2) == '-' && isLetter(at(e+3)))) {
			return e + 1
		}
		if e == len(t) || twSpace(t[e]) {
			return e
		}
		if isWordPunct(at(e-1)) && emDash(e) {
			return e
		}
	}
}

// wrap is TextWrapper.wrap for one paragraph.
func (tw *textWrapper) wrap(text string) ([]string, error) {
	if bad, err := pyCmp("<=", tw.width, 0); err != nil || bad {
		if err != nil {
			return nil, err
		}
		return nil, valueError("invalid width %s (must be > 0)", repr(tw.width))
	}
	width, _ := number(tw.width)
	blank := func(s string) bool { return strings.TrimFunc(s, isSpaceRune) == "" }
	rlen := utf8.RuneCountInString
	chunks := tw.split(text)
	slices.Reverse(chunks) // a stack: the next chunk is last
	var lines []string
	for len(chunks) > 0 {
		var cur []string
		curLen := 0
		// Whitespace at the start of a line is dropped, except at the very start.
		if blank(chunks[len(chunks)-1]) && len(lines) > 0 {
			chunks = chunks[:len(chunks)-1]
		}
		for len(chunks) > 0 {
			l := rlen(chunks[len(chunks)-1])
			if float64(curLen+l) > width {
				break
			}
			cur = append(cur, chunks[len(chunks)-1])
			chunks = chunks[:len(chunks)-1]
			curLen += l
		}
		if len(chunks) > 0 && float64(rlen(chunks[len(chunks)-1])) > width {
			var err error
			if cur, chunks, err = tw.handleLongWord(chunks, cur, curLen); err != nil {
				return nil, err
			}
		}
		if len(cur) > 0 && blank(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			lines = append(lines, strings.Join(cur, ""))
		}
	}
	return lines, nil
}

// handleLongWord puts as much of a too-long chunk on the line as fits (up to
// its last hyphen when breaking on hyphens), or the whole chunk on an empty
// line when long words may not be broken.
func (tw *textWrapper) handleLongWord(chunks, cur []string, curLen int) ([]string, []string, error) {
	top := len(chunks) - 1
	if !tw.breakLongWords {
		if len(cur) == 0 {
			cur = append(cur, chunks[top])
			chunks = chunks[:top]
		}
		return cur, chunks, nil
	}
	width, _ := number(tw.width)
	spaceLeft := 1
	if width >= 1 {
		// width - cur_len; with a float width Python then fails to slice.
		w, err := toIndex(tw.width)
		if err != nil {
			return nil, nil, typeError("slice indices must be integers or None or have an __index__ method")
		}
		spaceLeft = w - curLen // may be 0: then nothing more fits
	}
	chunk := []rune(chunks[top])
	end := spaceLeft
	if tw.breakOnHyphens && len(chunk) > spaceLeft {
		hyphen := -1
		for k := min(spaceLeft, len(chunk)) - 1; k >= 0; k-- {
			if chunk[k] == '-' {
				hyphen = k
				break
			}
		}
		if hyphen > 0 && strings.Trim(string(chunk[:hyphen]), "-") != "" {
			end = hyphen + 1
		}
	}
	end = min(end, len(chunk))
	cur = append(cur, string(chunk[:end]))
	chunks[top] = string(chunk[end:])
	return cur, chunks, nil
}

// ---------------------------------------------------------------------------
// pprint.pformat

// pformat writes pprint.pformat(v) (width 80, indent 1, dicts sorted): the
// repr when it fits, otherwise dicts, lists and tuples one item per line and
// long strings cut into several literals.
//
// As pprint does, it takes the repr of each value it meets, so a deep
// value's text is made once per level: work counts those bytes, which
// may not pass maxPprintWork, and the output may not pass maxValueBytes
// (the indentation of a deep value's items multiplies it). Past either it
// panics with a reprLimit.
func pformat(b *strings.Builder, v Value, indent, allowance, level int, work *int) {
	if b.Len() > maxValueBytes {
		panic(reprLimit{tooLong("pprint's output", b.Len())})
	}
	rep := safeRepr(v)
	if *work += len(rep); *work > maxPprintWork {
		panic(reprLimit{limitError("pprint: the reprs of the value's levels exceed %d bytes", maxPprintWork)})
	}
	if utf8.RuneCountInString(rep) <= 80-indent-allowance {
		b.WriteString(rep)
		return
	}
	switch x := v.(type) {
	case *Dict:
		b.WriteByte('{')
		if x.Len() > 0 {
			keys, vals := sortedItems(x)
			indent++
			for i := range keys {
				last := i == len(keys)-1
				kr := safeRepr(keys[i])
				b.WriteString(kr + ": ")
				pformat(b, vals[i], indent+utf8.RuneCountInString(kr)+2, map[bool]int{true: allowance + 1, false: 1}[last], level+1, work)
				if !last {
					b.WriteString(",\n" + strings.Repeat(" ", indent))
				}
			}
		}
		b.WriteByte('}')
	case *List:
		b.WriteByte('[')
		pformatItems(b, x.Items, indent, allowance+1, level+1, work)
		b.WriteByte(']')
	case Tuple:
		end := ")"
		if len(x) == 1 {
			end = ",)"
		}
		b.WriteByte('(')
		pformatItems(b, x, indent, allowance+len(end), level+1, work)
		b.WriteString(end)
	case string:
		pformatStr(b, x, indent, allowance, level+1)
	default:
		b.WriteString(rep)
	}
}

// maxPprintWork bounds the repr bytes one pprint makes (see pformat).
const maxPprintWork = 4 * maxValueBytes

func pformatItems(b *strings.Builder, items []Value, indent, allowance, level int, work *int) {
	indent++
	for i, it := range items {
		if i > 0 {
			b.WriteString(",\n" + strings.Repeat(" ", indent))
		}
		a := 1
		if i == len(items)-1 {
			a = allowance
		}
		pformat(b, it, indent, a, level, work)
	}
}

// pformatStr splits a long string into literals of at most the available
// width, at line ends and then after whitespace, wrapped in parentheses at
// the top level.
func pformatStr(b *strings.Builder, s string, indent, allowance, level int) {
	if s == "" {
		b.WriteString(repr(s))
		return
	}
	var lines []string
	for rest := s; rest != ""; {
		i := lineEnd(rest)
		lines = append(lines, rest[:i])
		rest = rest[i:]
	}
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := 80 - indent
	maxWidth1 := maxWidth
	var chunks []string
	for i, line := range lines {
		rep := repr(line)
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if utf8.RuneCountInString(rep) <= maxWidth1 {
			chunks = append(chunks, rep)
			continue
		}
		parts := wordsAndSpaces(line)
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if utf8.RuneCountInString(repr(candidate)) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, repr(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, repr(current))
		}
	}
	if len(chunks) == 1 {
		b.WriteString(repr(s))
		return
	}
	if level == 1 {
		b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		b.WriteString(c)
	}
	if level == 1 {
		b.WriteByte(')')
	}
}

// lineEnd is the length of the first line of s, its line break included
// (str.splitlines(keepends=True)).
func lineEnd(s string) int {
	for i, r := range s {
		if r == '\r' && strings.HasPrefix(s[i:], "\r\n") {
			return i + 2
		}
		if isLineBreak(r) {
			return i + utf8.RuneLen(r)
		}
	}
	return len(s)
}

// wordsAndSpaces is re.findall(r'\S*\s*', s) without the final empty match.
func wordsAndSpaces(s string) []string {
	var parts []string
	runes := []rune(s)
	for i := 0; i < len(runes); {
		j := i
		for j < len(runes) && !isSpaceRune(runes[j]) {
			j++
		}
		for j < len(runes) && isSpaceRune(runes[j]) {
			j++
		}
		parts = append(parts, string(runes[i:j]))
		i = j
	}
	return parts
}

// safeRepr is pprint's repr: dicts with sorted keys, at any depth. It is
// bounded as repr is: past maxValueDepth or maxValueBytes it panics with a
// reprLimit.
func safeRepr(v Value) string {
	var b strings.Builder
	(&reprState{b: &b}).writeSafe(v)
	return b.String()
}

func (s *reprState) writeSafe(v Value) {
	b := s.b
	switch v.(type) {
	case *Dict, *List, Tuple:
		if s.depth++; s.depth > maxValueDepth {
			panic(reprLimit{limitError("repr: the value nests deeper than %d", maxValueDepth)})
		}
		defer func() { s.depth-- }()
		if b.Len() > maxValueBytes {
			panic(reprLimit{tooLong("a repr", b.Len())})
		}
	default:
		s.write(v)
		return
	}
	switch x := v.(type) {
	case *Dict:
		keys, vals := sortedItems(x)
		b.WriteByte('{')
		for i := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			s.writeSafe(keys[i])
			b.WriteString(": ")
			s.writeSafe(vals[i])
		}
		b.WriteByte('}')
	case *List:
		b.WriteByte('[')
		s.writeSafeItems(x.Items)
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		s.writeSafeItems(x)
		if len(x) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
}

func (s *reprState) writeSafeItems(items []Value) {
	for i, it := range items {
		if i > 0 {
			s.b.WriteString(", ")
		}
		s.writeSafe(it)
	}
}

// sortedItems orders a dict's items as pprint does: by key, and keys that
// cannot be compared by their type's name.
func sortedItems(d *Dict) ([]Value, []Value) {
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	keys := d.Keys()
	_ = pySort(idx, func(a, b int) (bool, error) {
		c, err := compare("<", keys[a], keys[b])
		if err != nil {
			return "<class '"+typeName(keys[a])+"'>" < "<class '"+typeName(keys[b])+"'>", nil
		}
		return c < 0, nil
	})
	ks, vs := make([]Value, len(idx)), make([]Value, len(idx))
	for i, j := range idx {
		ks[i], vs[i] = keys[j], d.Values()[j]
	}
	return ks, vs
}
