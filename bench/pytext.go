package bench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeText reads a prompting-mode answer — text, not tool calls — as
// upstream's decoder does (FORMAT.md §6.2): the text stripped of backticks,
// newlines and spaces at its ends, wrapped in [ ] when it does not begin
// with "[", and read as a Python list of calls with keyword arguments:
// [get_weather(city="Paris"), math.add(a=1, b=2)]. Callee names keep their
// dots. Values are Python literals: strings (any quotes, prefixes r and u,
// adjacent ones joined), ints (decimal, 0x, 0o, 0b, underscores) and
// floats, True, False, None, lists, tuples (which stay tuples: a tuple is
// not a list to the checker, as to Python), dicts with string keys; a
// leading sign is applied and arithmetic on numbers evaluated (+ - * / //
// % **, and + on strings); a bare identifier is its name as a string; a
// subscript (x[0]), an attribute (a.b) and a call without keyword
// arguments are their source text, as the model wrote it (upstream
// re-prints it with ast.unparse, which may space it otherwise); a call with
// keyword arguments is the map {name: {arguments}}. Anything else —
// positional arguments in a call of the list, sets, lambdas, comprehensions,
// bytes, f-strings — is a decode error, as for upstream an expression it
// cannot resolve.
func DecodeText(text string) ([]Call, error) {
	text = strings.Trim(text, "`\n ")
	if !strings.HasPrefix(text, "[") {
		text = "[" + text + "]"
	}
	p := &pyParser{src: text}
	p.space()
	if !p.eat("[") {
		return nil, p.errorf("not a list")
	}
	var calls []Call
	for {
		p.space()
		if p.eat("]") {
			break
		}
		if len(calls) > 0 {
			if !p.eat(",") {
				return nil, p.errorf("expected , or ]")
			}
			p.space()
			if p.eat("]") {
				break
			}
		}
		c, err := p.topCall()
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	p.space()
	if p.pos < len(p.src) {
		return nil, p.errorf("text after the list")
	}
	return calls, nil
}

// CheckText scores an answer given as text (DecodeText), as upstream scores
// a prompting model: a text that does not decode is no call — a pass on
// irrelevance, a fail elsewhere.
func CheckText(it *Item, text string, opt Options) Result {
	calls, err := DecodeText(text)
	switch it.Expected.Mode {
	case ModeNoCall:
		if err == nil && len(calls) > 0 {
			return fail(ErrCallMade, "%d call(s) made where none was expected (first: %s)", len(calls), calls[0].Name)
		}
		return pass
	case ModeAnyCall:
		if err != nil || len(calls) == 0 {
			return fail(ErrNoCallMade, "no call made where one was expected")
		}
		return pass
	}
	if err != nil {
		return fail(ErrDecode, "the text is not a list of calls: %v", err)
	}
	return CheckCalls(it, calls, opt)
}

type pyParser struct {
	src string
	pos int
}

var errPy = errors.New("python")

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", errPy, p.pos, fmt.Sprintf(format, args...))
}

// space skips whitespace (newlines included: inside brackets Python allows
// them) and backslash continuations.
func (p *pyParser) space() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			p.pos++
		case c == '\\' && strings.HasPrefix(p.src[p.pos:], "\\\n"):
			p.pos += 2
		default:
			return
		}
	}
}

func (p *pyParser) eat(s string) bool {
	if strings.HasPrefix(p.src[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *pyParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func (p *pyParser) ident() string {
	start := p.pos
	if p.pos < len(p.src) && isIdentStart(p.src[p.pos]) {
		for p.pos < len(p.src) && isIdentPart(p.src[p.pos]) {
			p.pos++
		}
	}
	return p.src[start:p.pos]
}

// dotted reads name(.name)*.
func (p *pyParser) dotted() string {
	start := p.pos
	if p.ident() == "" {
		return ""
	}
	for {
		save := p.pos
		p.space()
		if !p.eat(".") {
			p.pos = save
			return strings.Join(strings.Fields(p.src[start:p.pos]), "")
		}
		p.space()
		if p.ident() == "" {
			p.pos = save
			return strings.Join(strings.Fields(p.src[start:p.pos]), "")
		}
	}
}

// topCall reads one call of the list: a dotted name and keyword arguments.
func (p *pyParser) topCall() (Call, error) {
	name := p.dotted()
	if name == "" {
		return Call{}, p.errorf("expected a call")
	}
	p.space()
	if !p.eat("(") {
		return Call{}, p.errorf("%s is not called", name)
	}
	args, positional, err := p.arguments()
	if err != nil {
		return Call{}, err
	}
	if positional {
		return Call{}, p.errorf("%s has a positional argument: the calls take keyword arguments only", name)
	}
	return Call{Name: name, Args: args}, nil
}

// arguments reads a call's arguments after "(" up to ")": the keyword
// arguments as a map in order, and whether there were positional ones.
func (p *pyParser) arguments() (Value, bool, error) {
	var mems []Member
	positional := false
	for n := 0; ; n++ {
		p.space()
		if p.eat(")") {
			return Map(mems...), positional, nil
		}
		if n > 0 {
			if !p.eat(",") {
				return Value{}, false, p.errorf("expected , or )")
			}
			p.space()
			if p.eat(")") {
				return Map(mems...), positional, nil
			}
		}
		save := p.pos
		if k := p.ident(); k != "" {
			p.space()
			if p.peek() == '=' && !strings.HasPrefix(p.src[p.pos:], "==") {
				p.pos++
				v, err := p.expr()
				if err != nil {
					return Value{}, false, err
				}
				if i := Map(mems...).index(k); i >= 0 {
					return Value{}, false, p.errorf("keyword argument %s repeated", k)
				}
				mems = append(mems, Member{Key: k, Value: v})
				continue
			}
		}
		p.pos = save
		if _, err := p.expr(); err != nil {
			return Value{}, false, err
		}
		positional = true
	}
}

// expr: sums of terms.
func (p *pyParser) expr() (Value, error) {
	v, err := p.term()
	for err == nil {
		p.space()
		op := p.peek()
		if op != '+' && op != '-' {
			return v, nil
		}
		p.pos++
		var w Value
		if w, err = p.term(); err == nil {
			v, err = p.arith(string(op), v, w)
		}
	}
	return v, err
}

func (p *pyParser) term() (Value, error) {
	v, err := p.unary()
	for err == nil {
		p.space()
		var op string
		switch {
		case p.eat("//"):
			op = "//"
		case strings.HasPrefix(p.src[p.pos:], "**"):
			return v, nil
		case p.eat("*"):
			op = "*"
		case p.eat("/"):
			op = "/"
		case p.eat("%"):
			op = "%"
		default:
			return v, nil
		}
		var w Value
		if w, err = p.unary(); err == nil {
			v, err = p.arith(op, v, w)
		}
	}
	return v, err
}

func (p *pyParser) unary() (Value, error) {
	p.space()
	switch {
	case p.eat("-"):
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		return p.arith("-", Int(0), v)
	case p.eat("+"):
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		return p.arith("+", Int(0), v)
	}
	return p.power()
}

// power: a ** b binds tighter than a unary minus on its left, looser on its
// right (-2 ** 2 is -4, 2 ** -1 is 0.5).
func (p *pyParser) power() (Value, error) {
	v, err := p.primary()
	if err != nil {
		return v, err
	}
	p.space()
	if p.eat("**") {
		w, err := p.unary()
		if err != nil {
			return w, err
		}
		return p.arith("**", v, w)
	}
	return v, nil
}

// primary reads a literal, a name, a call, a subscript or an attribute.
func (p *pyParser) primary() (Value, error) {
	p.space()
	start := p.pos
	c := p.peek()
	switch {
	case c == '"' || c == '\'':
		return p.strings()
	case c >= '0' && c <= '9' || c == '.' && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9':
		return p.number()
	case c == '[':
		p.pos++
		items, _, err := p.sequence("]")
		return List(items...), err
	case c == '(':
		p.pos++
		items, tuple, err := p.sequence(")")
		if err != nil || tuple || len(items) != 1 {
			return Value{kind: KindTuple, items: items}, err
		}
		return items[0], nil // (x) is x
	case c == '{':
		p.pos++
		return p.dict()
	case isIdentStart(c):
	default:
		return Value{}, p.errorf("unexpected %q", string(c))
	}
	// A string prefix: r"…", u'…' (bytes and f-strings are not values).
	if q := p.pos + 1; q < len(p.src) && (p.src[q] == '"' || p.src[q] == '\'') {
		switch c {
		case 'r', 'R', 'u', 'U':
			return p.strings()
		}
		return Value{}, p.errorf("a %c-string is not a value", c)
	}
	name := p.dotted()
	p.space()
	switch p.peek() {
	case '(':
		p.pos++
		args, _, err := p.arguments()
		if err != nil {
			return Value{}, err
		}
		if p.postfix() {
			return String(p.src[start:p.pos]), nil
		}
		if len(args.mems) > 0 {
			return Map(Member{Key: name, Value: args}), nil
		}
		return String(strings.TrimSpace(p.src[start:p.pos])), nil
	case '[':
		if !p.postfix() {
			return Value{}, p.errorf("bad subscript")
		}
		return String(strings.TrimSpace(p.src[start:p.pos])), nil
	}
	switch name {
	case "True":
		return Bool(true), nil
	case "False":
		return Bool(false), nil
	case "None":
		return Null(), nil
	case "lambda", "not", "await", "yield":
		return Value{}, p.errorf("%s is not a value", name)
	}
	return String(name), nil
}

// postfix reads any subscripts and calls that follow, reporting whether
// there were any.
func (p *pyParser) postfix() bool {
	more := false
	for {
		save := p.pos
		p.space()
		var closer string
		switch {
		case p.eat("["):
			closer = "]"
		case p.eat("("):
			closer = ")"
		case p.eat("."):
			p.space()
			if p.ident() == "" {
				p.pos = save
				return more
			}
			more = true
			continue
		default:
			p.pos = save
			return more
		}
		if _, _, err := p.sequence(closer); err != nil {
			p.pos = save
			return more
		}
		more = true
	}
}

// sequence reads expressions separated by commas up to closer; tuple says a
// comma was seen (so that (x,) is a tuple and (x) is x). Slices and keyword
// arguments in a subscript's or a source-text call's brackets are read as
// part of their source text.
func (p *pyParser) sequence(closer string) ([]Value, bool, error) {
	var items []Value
	comma := false
	for {
		p.space()
		if p.eat(closer) {
			return items, comma, nil
		}
		if len(items) > 0 {
			if !p.eat(",") {
				return nil, false, p.errorf("expected , or %s", closer)
			}
			comma = true
			p.space()
			if p.eat(closer) {
				return items, comma, nil
			}
		}
		v, err := p.expr()
		if err != nil {
			return nil, false, err
		}
		p.space()
		if closer == "]" && p.peek() == ':' { // a slice
			p.pos++
			p.space()
			if p.peek() != ']' {
				if _, err := p.expr(); err != nil {
					return nil, false, err
				}
			}
		}
		items = append(items, v)
	}
}

// dict reads {key: value, …} after "{"; keys must be strings.
func (p *pyParser) dict() (Value, error) {
	var mems []Member
	for {
		p.space()
		if p.eat("}") {
			return Map(mems...), nil
		}
		if len(mems) > 0 {
			if !p.eat(",") {
				return Value{}, p.errorf("expected , or }")
			}
			p.space()
			if p.eat("}") {
				return Map(mems...), nil
			}
		}
		k, err := p.expr()
		if err != nil {
			return Value{}, err
		}
		p.space()
		if !p.eat(":") {
			return Value{}, p.errorf("a set is not a value")
		}
		if k.Kind() != KindString {
			return Value{}, p.errorf("a dict key of type %s", k.Kind())
		}
		v, err := p.expr()
		if err != nil {
			return Value{}, err
		}
		if i := Map(mems...).index(k.s); i >= 0 {
			mems[i].Value = v // Python keeps the last value, in the first key's place
			continue
		}
		mems = append(mems, Member{Key: k.s, Value: v})
	}
}

// strings reads one or more adjacent string literals, joined.
func (p *pyParser) strings() (Value, error) {
	var b strings.Builder
	for n := 0; ; n++ {
		save := p.pos
		p.space()
		raw := false
		if c := p.peek(); c == 'r' || c == 'R' || c == 'u' || c == 'U' {
			if q := p.pos + 1; q < len(p.src) && (p.src[q] == '"' || p.src[q] == '\'') {
				raw = c == 'r' || c == 'R'
				p.pos++
			}
		}
		q := p.peek()
		if q != '"' && q != '\'' {
			p.pos = save
			if n == 0 {
				return Value{}, p.errorf("expected a string")
			}
			return String(b.String()), nil
		}
		if err := p.stringBody(&b, raw); err != nil {
			return Value{}, err
		}
	}
}

func (p *pyParser) stringBody(b *strings.Builder, raw bool) error {
	quote := p.src[p.pos : p.pos+1]
	if strings.HasPrefix(p.src[p.pos:], strings.Repeat(quote, 3)) {
		quote = strings.Repeat(quote, 3)
	}
	p.pos += len(quote)
	for {
		if p.pos >= len(p.src) {
			return p.errorf("unterminated string")
		}
		if p.eat(quote) {
			return nil
		}
		c := p.src[p.pos]
		if c == '\n' && len(quote) == 1 {
			return p.errorf("a newline in a string")
		}
		if c != '\\' || p.pos+1 >= len(p.src) {
			_, n := utf8.DecodeRuneInString(p.src[p.pos:])
			b.WriteString(p.src[p.pos : p.pos+n])
			p.pos += n
			continue
		}
		e := p.src[p.pos+1]
		if raw {
			b.WriteString(p.src[p.pos : p.pos+2]) // r"\n" is a backslash and an n; r"\"" keeps both
			p.pos += 2
			continue
		}
		p.pos += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.pos+n > len(p.src) {
				return p.errorf("a short \\%c escape", e)
			}
			r, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
			if err != nil || r > utf8.MaxRune {
				return p.errorf("a bad \\%c escape", e)
			}
			b.WriteRune(rune(r))
			p.pos += n
		case '0', '1', '2', '3', '4', '5', '6', '7':
			end := p.pos - 1
			for end < len(p.src) && end < p.pos+2 && p.src[end] >= '0' && p.src[end] <= '7' {
				end++
			}
			r, _ := strconv.ParseUint(p.src[p.pos-1:end], 8, 32)
			b.WriteRune(rune(r))
			p.pos = end
		default:
			b.WriteByte('\\') // Python keeps an unknown escape as it is
			b.WriteByte(e)
		}
	}
}

// number reads an int or float literal.
func (p *pyParser) number() (Value, error) {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isIdentPart(c) || c == '.' || (c == '+' || c == '-') && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E') && !strings.HasPrefix(strings.ToLower(p.src[start:]), "0x") {
			p.pos++
			continue
		}
		break
	}
	lit := p.src[start:p.pos]
	clean := strings.ReplaceAll(lit, "_", "")
	if strings.HasSuffix(clean, "j") || strings.HasSuffix(clean, "J") {
		return Value{}, p.errorf("a complex number is not a value")
	}
	if len(clean) > 1 && clean[0] == '0' && strings.ContainsAny(clean[1:2], "xXoObB") {
		n, ok := new(big.Int).SetString(clean, 0)
		if !ok {
			return Value{}, p.errorf("bad number %q", lit)
		}
		return numberValue(n.String())
	}
	if !strings.ContainsAny(clean, ".eE") {
		if len(clean) > 1 && clean[0] == '0' && strings.Trim(clean, "0") != "" {
			return Value{}, p.errorf("a leading zero in %q", lit)
		}
		n, ok := new(big.Int).SetString(clean, 10)
		if !ok {
			return Value{}, p.errorf("bad number %q", lit)
		}
		return numberValue(n.String())
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Value{}, p.errorf("bad number %q", lit)
	}
	return Float(f), nil
}

// arith evaluates a binary operation as Python does: ints exactly, floats
// as IEEE doubles, an int with a float as floats, + on strings joined.
func (p *pyParser) arith(op string, a, b Value) (Value, error) {
	if a.Kind() == KindString && b.Kind() == KindString && op == "+" {
		return String(a.s + b.s), nil
	}
	x, ok1 := a.number()
	y, ok2 := b.number()
	if !ok1 || !ok2 {
		return Value{}, p.errorf("%s between %s and %s", op, a.Kind(), b.Kind())
	}
	if x.Kind() == KindInt && y.Kind() == KindInt && op != "/" {
		i, j := bigOf(x), bigOf(y)
		r := new(big.Int)
		switch op {
		case "+":
			r.Add(i, j)
		case "-":
			r.Sub(i, j)
		case "*":
			r.Mul(i, j)
		case "//", "%":
			if j.Sign() == 0 {
				return Value{}, p.errorf("division by zero")
			}
			q, m := new(big.Int).DivMod(i, j, new(big.Int)) // Euclidean: m ≥ 0
			if m.Sign() != 0 && j.Sign() < 0 {              // Python's floor: m takes j's sign, q one less
				q.Sub(q, big.NewInt(1))
				m.Add(m, j)
			}
			if op == "//" {
				r = q
			} else {
				r = m
			}
		case "**":
			if j.Sign() < 0 {
				return Float(math.Pow(floatOf(x), floatOf(y))), nil
			}
			if j.BitLen() > 16 {
				return Value{}, p.errorf("an exponent too large")
			}
			r.Exp(i, j, nil)
		}
		return numberValue(r.String())
	}
	f, g := floatOf(x), floatOf(y)
	switch op {
	case "+":
		return Float(f + g), nil
	case "-":
		return Float(f - g), nil
	case "*":
		return Float(f * g), nil
	case "/", "//", "%":
		if g == 0 {
			return Value{}, p.errorf("division by zero")
		}
		switch op {
		case "/":
			return Float(f / g), nil
		case "//":
			return Float(math.Floor(f / g)), nil
		}
		m := math.Mod(f, g)
		if m != 0 && (m < 0) != (g < 0) {
			m += g
		}
		return Float(m), nil
	}
	return Float(math.Pow(f, g)), nil
}

func bigOf(v Value) *big.Int {
	if v.bigI != nil {
		return v.bigI
	}
	return big.NewInt(v.i)
}

func floatOf(v Value) float64 {
	if v.Kind() == KindFloat {
		return v.f
	}
	return v.asFloat().f
}
