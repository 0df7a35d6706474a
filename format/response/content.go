package response

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/dragoman-dev/dragoman/chat"
)

// isPySpace is Python's str.isspace: Unicode White_Space plus the
// separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F) || r == 0x85 || r == 0xA0
}

func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

func argBool(args *Object, key string, def bool) bool {
	if v, ok := args.Get(key); ok {
		if b, isBool := v.(bool); isBool {
			return b
		}
		return truthy(v)
	}
	return def
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case Number:
		f, _ := strconv.ParseFloat(v.Lit, 64)
		return f != 0
	case *Object:
		return v.Len() > 0
	case []any:
		return len(v) > 0
	}
	return true
}

func argString(args *Object, key, def string) string {
	if v, ok := args.Get(key); ok {
		if s, isStr := v.(string); isStr {
			return s
		}
	}
	return def
}

// parseContent runs the named content parser on body.
func (f *Field) parseContent(body string) (any, error) {
	return runParser(f.parser, f.args, body, f)
}

func runParser(name string, args *Object, body string, f *Field) (any, error) {
	strip := argBool(args, "strip", true)
	s := body
	if strip {
		s = pyStrip(body)
	}
	switch name {
	case "text":
		return s, nil
	case "int":
		return pyInt(s)
	case "float":
		return pyFloat(s)
	case "bool":
		l := strings.ToLower(pyStrip(s))
		return l == "true" || l == "1", nil
	case "json":
		return parseJSONContent(body, args, strip)
	case "xml-inline":
		return parseXMLInline(body, args, f)
	case "kv-lines":
		return parseKVLines(body, args, f)
	}
	return nil, fmt.Errorf("unknown content parser '%s'. Available: ['%s']", name, strings.Join(contentParsers, "', '"))
}

// pyInt is Python's int(text): surrounding whitespace, a sign, digits with
// single underscores between them.
func pyInt(text string) (any, error) {
	s := pyStrip(text)
	t := s
	if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
		t = t[1:]
	}
	if !validDigits(t) {
		return nil, fmt.Errorf("invalid literal for int() with base 10: %q", text)
	}
	digits := strings.ReplaceAll(s, "_", "")
	n, ok := new(big.Int).SetString(strings.TrimPrefix(digits, "+"), 10)
	if !ok {
		return nil, fmt.Errorf("invalid literal for int() with base 10: %q", text)
	}
	return IntNumber(n), nil
}

func validDigits(t string) bool {
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' {
		return false
	}
	prevUnderscore := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			prevUnderscore = false
		case c == '_' && !prevUnderscore:
			prevUnderscore = true
		default:
			return false
		}
	}
	return true
}

// pyFloat is Python's float(text).
func pyFloat(text string) (any, error) {
	f, err := pyFloat64(text)
	if err != nil {
		return nil, err
	}
	return floatNumber(f), nil
}

func pyFloat64(text string) (float64, error) {
	s := pyStrip(text)
	bad := fmt.Errorf("could not convert string to float: %q", text)
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 {
		return 0, bad
	}
	switch strings.ToLower(t) {
	case "inf", "infinity", "nan":
	default:
		// digits, one '.', an exponent; underscores only between digits
		mant, exp := t, ""
		if i := strings.IndexAny(t, "eE"); i >= 0 {
			mant, exp = t[:i], t[i+1:]
			exp = strings.TrimLeft(exp, "+-")
			if len(t[i+1:])-len(exp) > 1 || !validDigits(exp) {
				return 0, bad
			}
		}
		ip, fp, hasDot := strings.Cut(mant, ".")
		if (ip == "" && fp == "") || (ip != "" && !validDigits(ip)) || (fp != "" && !validDigits(fp)) || (!hasDot && ip == "") {
			return 0, bad
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil // ±inf or 0, as Python gives
		}
		return 0, bad
	}
	return f, nil
}

func floatNumber(f float64) Number {
	switch {
	case math.IsNaN(f):
		return Number{Lit: "NaN", Float: true}
	case math.IsInf(f, 1):
		return Number{Lit: "Infinity", Float: true}
	case math.IsInf(f, -1):
		return Number{Lit: "-Infinity", Float: true}
	}
	b, _ := json.Marshal(f)
	lit := string(b)
	if !strings.ContainsAny(lit, ".eE") {
		lit += ".0" // a float stays a float in the JSON written, as Python's json.dumps
	}
	return Number{Lit: lit, Float: true}
}

// parseJSONContent applies string_delims, then unquoted_keys, then parses.
func parseJSONContent(body string, args *Object, strip bool) (any, error) {
	text := body
	var protected []string
	if sd, ok := args.Get("string_delims"); ok {
		if strings.ContainsAny(text, "\x01\x02") {
			return nil, errors.New("json content with string_delims cannot contain U+0001 or U+0002")
		}
		pairs, _ := sd.([]any)
		for _, p := range pairs {
			pair, _ := p.([]any)
			if len(pair) != 2 {
				continue
			}
			open, _ := pair[0].(string)
			close, _ := pair[1].(string)
			if open == "" || close == "" {
				continue
			}
			var b strings.Builder
			rest := text
			for {
				i := strings.Index(rest, open)
				if i < 0 {
					break
				}
				j := strings.Index(rest[i+len(open):], close)
				if j < 0 {
					break
				}
				b.WriteString(rest[:i])
				fmt.Fprintf(&b, "\x01%d\x02", len(protected))
				protected = append(protected, rest[i+len(open):i+len(open)+j])
				rest = rest[i+len(open)+j+len(close):]
			}
			b.WriteString(rest)
			text = b.String()
		}
	}
	if argBool(args, "unquoted_keys", false) {
		text = quoteKeys(text)
	}
	if len(protected) > 0 {
		var b strings.Builder
		for i := 0; i < len(text); i++ {
			if text[i] == '\x01' {
				j := strings.IndexByte(text[i:], '\x02')
				n, _ := strconv.Atoi(text[i+1 : i+j])
				enc, _ := json.Marshal(protected[n])
				b.Write(enc)
				i += j
				continue
			}
			b.WriteByte(text[i])
		}
		text = b.String()
	}
	v, err := ParseJSON(text)
	if err != nil {
		if argBool(args, "allow_non_json", false) {
			if strip {
				return pyStrip(body), nil
			}
			return body, nil
		}
		return nil, errInvalidJSON{err}
	}
	return v, nil
}

// quoteKeys quotes a bare word key written directly after { or , and
// directly followed by ':'.
func quoteKeys(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		b.WriteByte(c)
		i++
		if c != '{' && c != ',' {
			continue
		}
		j := i
		for j < len(s) {
			r := rune(s[j])
			if r < 0x80 && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
				j++
				continue
			}
			if r >= 0x80 {
				rr, w := decodeRune(s[j:])
				if isWordRune(rr) {
					j += w
					continue
				}
			}
			break
		}
		if j > i && j < len(s) && s[j] == ':' {
			b.WriteByte('"')
			b.WriteString(s[i:j])
			b.WriteByte('"')
			i = j
		}
	}
	return b.String()
}

func (f *Field) parseValue(raw string) (any, error) {
	if f.valueParser == nil {
		return raw, nil
	}
	return runParser(f.valueParser.name, f.valueParser.args, raw, nil)
}

func parseXMLInline(body string, args *Object, f *Field) (any, error) {
	if f == nil || f.tag == nil {
		return nil, errors.New("xml-inline content parser requires 'tag_pattern'")
	}
	out := NewObject()
	merge := argBool(args, "merge_duplicates", false)
	strict := argBool(args, "strict", false)
	last := 0
	for _, m := range f.tag.findAll(body) {
		if strict && pyStrip(body[last:m[0]]) != "" {
			return nil, fmt.Errorf("xml-inline (strict): unexpected text %q", body[last:m[0]])
		}
		last = f.tag.consumedEnd(m)
		key, ok := f.tag.group(body, m, "key")
		if !ok {
			continue
		}
		raw, _ := f.tag.group(body, m, "value")
		val, err := f.parseValue(raw)
		if err != nil {
			return nil, err
		}
		if merge {
			if old, ok := out.Get(key); ok {
				if l, isList := old.([]any); isList {
					out.Set(key, append(l, val))
				} else {
					out.Set(key, []any{old, val})
				}
				continue
			}
		}
		out.Set(key, val)
	}
	if strict && pyStrip(body[last:]) != "" {
		return nil, fmt.Errorf("xml-inline (strict): unexpected text %q", body[last:])
	}
	return out, nil
}

func parseKVLines(body string, args *Object, f *Field) (any, error) {
	lineSep := argString(args, "line_sep", "\n")
	kvSep := argString(args, "kv_sep", ":")
	strip := argBool(args, "strip", true)
	out := NewObject()
	if lineSep == "" || kvSep == "" {
		return nil, errors.New("kv-lines separators must not be empty")
	}
	for _, line := range strings.Split(body, lineSep) {
		if strip {
			line = pyStrip(line)
		}
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, kvSep)
		if !ok {
			continue
		}
		k, v = pyStrip(k), pyStrip(v)
		var val any = v
		if f != nil && f.valueParser != nil {
			var err error
			if val, err = f.parseValue(v); err != nil {
				return nil, err
			}
		}
		out.Set(k, val)
	}
	return out, nil
}

// ---- transforms ----

type scope struct {
	names []string
	vals  []any
	nbuf  [4]string
	vbuf  [4]any
}

func newScope(sc *scope) *scope {
	sc.names, sc.vals = sc.nbuf[:0], sc.vbuf[:0]
	return sc
}

func (s *scope) get(k string) (any, bool) {
	for i, n := range s.names {
		if n == k {
			return s.vals[i], true
		}
	}
	return nil, false
}

func (s *scope) set(k string, v any) {
	for i, n := range s.names {
		if n == k {
			s.vals[i] = v
			return
		}
	}
	s.names = append(s.names, k)
	s.vals = append(s.vals, v)
}

// placeholder is a transform string that is exactly {name} or
// {name.key...}, compiled when the template loads.
type placeholder struct {
	raw  string
	path []string
}

// compileTransform replaces placeholder strings by placeholders.
func compileTransform(tr any) any {
	switch t := tr.(type) {
	case string:
		if m := placeholderRe.FindStringSubmatch(t); m != nil {
			return placeholder{raw: t, path: strings.Split(m[1], ".")}
		}
	case *Object:
		out := NewObject()
		for _, k := range t.Keys {
			out.Set(k, compileTransform(t.Val(k)))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = compileTransform(e)
		}
		return out
	}
	return tr
}

func applyTransform(tr any, sc *scope) (any, error) {
	switch t := tr.(type) {
	case placeholder:
		path := t.path
		v, ok := sc.get(path[0])
		if !ok {
			return nil, fmt.Errorf("transform placeholder '%s' is not defined. Available: ['%s']", t, strings.Join(sc.names, "', '"))
		}
		for _, k := range path[1:] {
			o, isObj := v.(*Object)
			if !isObj {
				return nil, fmt.Errorf("transform placeholder '%s' cannot index into %s at '%s'", t, typeName(v), k)
			}
			next, ok := o.Get(k)
			if !ok {
				return nil, fmt.Errorf("transform placeholder '%s' is missing key '%s'. Available: ['%s']", t, k, strings.Join(o.Keys, "', '"))
			}
			v = next
		}
		return v, nil
	case *Object:
		// the keys are shared with the template (full, so an append copies)
		out := &Object{Keys: t.Keys[:len(t.Keys):len(t.Keys)]}
		if len(t.Keys) <= objectInline {
			out.vals = out.vbuf[:len(t.Keys)]
		} else {
			out.vals = make([]any, len(t.Keys))
		}
		if t.index != nil {
			out.index = make(map[string]int, len(t.Keys))
			for i, k := range t.Keys {
				out.index[k] = i
			}
		}
		for i := range t.Keys {
			v, err := applyTransform(t.vals[i], sc)
			if err != nil {
				return nil, err
			}
			out.vals[i] = v
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			v, err := applyTransform(e, sc)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return tr, nil
}

// value turns a closed region's body into the field's value: content parser,
// transform, then the tools' casting.
func (f *Field) value(body string, groups []string, tools map[string]*toolSchema) (any, error) {
	v, err := f.parseContent(body)
	if err != nil {
		return nil, err
	}
	if f.transform != nil {
		if f.transformEach {
			l, isList := v.([]any)
			if !isList {
				return nil, fmt.Errorf("Field '%s': transform_each requires the content to parse to a list, got %s", f.Name, typeName(v))
			}
			out := make([]any, 0, len(l))
			for _, e := range l {
				o, isObj := e.(*Object)
				if !isObj {
					return nil, fmt.Errorf("Field '%s': transform_each requires list elements to be objects, got %s", f.Name, typeName(e))
				}
				var scBuf scope
				sc := newScope(&scBuf)
				for _, k := range o.Keys {
					sc.set(k, o.Val(k))
				}
				for i := 0; i+1 < len(groups); i += 2 {
					if _, ok := sc.get(groups[i]); !ok {
						sc.set(groups[i], groups[i+1])
					}
				}
				r, err := applyTransform(f.transform, sc)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			v = out
		} else {
			var scBuf scope
			sc := newScope(&scBuf)
			sc.set("content", v)
			for i := 0; i+1 < len(groups); i += 2 {
				if groups[i] != "content" {
					sc.set(groups[i], groups[i+1])
				}
			}
			if v, err = applyTransform(f.transform, sc); err != nil {
				return nil, err
			}
		}
	}
	if tools != nil {
		castValue(v, tools)
	}
	return v, nil
}

// ---- casting arguments by the tools' schemas ----

type toolSchema struct {
	props *Object // parameters.properties
}

// toolSchemas indexes the tools (OpenAI shape or the bare function object).
func toolSchemas(tools []chat.Tool) map[string]*toolSchema {
	if tools == nil {
		return nil
	}
	out := map[string]*toolSchema{}
	for _, t := range tools {
		ts := &toolSchema{}
		if len(t.Function.Parameters) > 0 {
			if v, err := ParseJSON(string(t.Function.Parameters)); err == nil {
				if o, ok := v.(*Object); ok {
					if p, ok := o.Get("properties"); ok {
						ts.props, _ = p.(*Object)
					}
				}
			}
		}
		out[t.Function.Name] = ts
	}
	return out
}

func castValue(v any, tools map[string]*toolSchema) {
	if l, ok := v.([]any); ok {
		for _, e := range l {
			castCall(e, tools)
		}
		return
	}
	castCall(v, tools)
}

func castCall(v any, tools map[string]*toolSchema) {
	o, ok := v.(*Object)
	if !ok {
		return
	}
	fn, _ := o.Val("function").(*Object)
	if fn == nil {
		return
	}
	name, isStr := fn.Val("name").(string)
	args, isObj := fn.Val("arguments").(*Object)
	if !isStr || !isObj {
		return
	}
	ts := tools[name]
	if ts == nil || ts.props == nil || ts.props.Len() == 0 {
		return
	}
	for _, k := range args.Keys {
		prop, _ := ts.props.Val(k).(*Object)
		if prop == nil {
			continue
		}
		types := declaredTypes(prop)
		if len(types) == 0 {
			continue
		}
		switch a := args.Val(k).(type) {
		case string:
			args.Set(k, castString(a, types))
		case []any:
			for i, e := range a {
				if s, ok := e.(string); ok {
					a[i] = castString(s, types)
				}
			}
		}
	}
}

func declaredTypes(prop *Object) []string {
	var out []string
	switch t := prop.Val("type").(type) {
	case string:
		out = append(out, t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if l, ok := prop.Val(k).([]any); ok {
			for _, alt := range l {
				if ao, ok := alt.(*Object); ok {
					out = append(out, declaredTypes(ao)...)
				}
			}
		}
	}
	if b, ok := prop.Val("nullable").(bool); ok && b {
		out = append(out, "null")
	}
	return out
}

func castString(s string, types []string) any {
	for _, t := range types {
		switch t {
		case "integer":
			if v, err := pyInt(s); err == nil {
				return v
			}
		case "number":
			f, err := pyFloat64(s)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			if !strings.Contains(s, ".") && f == math.Trunc(f) {
				bf := new(big.Float).SetFloat64(f)
				bi, _ := bf.Int(nil)
				return IntNumber(bi)
			}
			return floatNumber(f)
		case "boolean":
			switch strings.ToLower(pyStrip(s)) {
			case "true", "1":
				return true
			case "false", "0":
				return false
			}
		case "null":
			if p := pyStrip(s); p == "null" || p == "None" {
				return nil
			}
		case "object":
			if v, err := ParseJSON(s); err == nil {
				if _, ok := v.(*Object); ok {
					return v
				}
			}
		case "array":
			if v, err := ParseJSON(s); err == nil {
				if _, ok := v.([]any); ok {
					return v
				}
			}
		}
	}
	return s
}

type errInvalidJSON struct{ err error }

func (e errInvalidJSON) Error() string { return "invalid JSON: " + e.err.Error() }
