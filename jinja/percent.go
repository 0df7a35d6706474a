package jinja

import (
	"math"
	"strconv"
	"strings"
)

// percentFormat is Python's printf-style str % args: a tuple supplies several
// arguments, a dict named ones (%(name)s), anything else a single argument.
func percentFormat(format string, args Value) (string, error) {
	var pos []Value
	var named *Dict
	switch a := args.(type) {
	case Tuple:
		pos = a
	case *Dict:
		named = a
		pos = []Value{a}
	default:
		pos = []Value{a}
	}
	next := 0
	take := func() (Value, error) {
		if next >= len(pos) {
			return nil, typeError("not enough arguments for format string")
		}
		v := pos[next]
		next++
		return v, nil
	}
	var b strings.Builder
	usedNamed := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", valueError("incomplete format")
		}
		var arg Value
		haveArg := false
		if format[i] == '(' {
			end := strings.IndexByte(format[i:], ')')
			if end < 0 {
				return "", valueError("incomplete format key")
			}
			if named == nil {
				return "", typeError("format requires a mapping")
			}
			key := format[i+1 : i+end]
			v, ok := named.GetStr(key)
			if !ok {
				return "", newError("KeyError", "%s", repr(key))
			}
			arg, haveArg, usedNamed = v, true, true
			i += end + 1
		}
		flags := ""
		for i < len(format) && strings.IndexByte("-+ 0#", format[i]) >= 0 {
			flags += string(format[i])
			i++
		}
		width, prec := -1, -1
		readNum := func() (int, error) {
			if i < len(format) && format[i] == '*' {
				i++
				v, err := take()
				if err != nil {
					return 0, err
				}
				n, ok := asInt(v)
				if !ok {
					return 0, typeError("* wants int")
				}
				return n, nil
			}
			start := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if start == i {
				return -1, nil
			}
			return strconv.Atoi(format[start:i])
		}
		var err error
		if width, err = readNum(); err != nil {
			return "", err
		}
		if i < len(format) && format[i] == '.' {
			i++
			if prec, err = readNum(); err != nil {
				return "", err
			}
			if prec < 0 {
				prec = 0
			}
		}
		for i < len(format) && (format[i] == 'l' || format[i] == 'h' || format[i] == 'L') {
			i++
		}
		if i >= len(format) {
			return "", valueError("incomplete format")
		}
		conv := format[i]
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if !haveArg {
			if arg, err = take(); err != nil {
				return "", err
			}
		}
		s, err := percentOne(conv, flags, prec, arg)
		if err != nil {
			return "", err
		}
		b.WriteString(pad(s, width, flags, conv))
	}
	if next < len(pos) && !usedNamed && named == nil {
		return "", typeError("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

func percentOne(conv byte, flags string, prec int, arg Value) (string, error) {
	switch conv {
	case 's':
		s := toStr(arg)
		if prec >= 0 && prec < len([]rune(s)) {
			s = string([]rune(s)[:prec])
		}
		return s, nil
	case 'r', 'a':
		s := repr(arg)
		if prec >= 0 && prec < len([]rune(s)) {
			s = string([]rune(s)[:prec])
		}
		return s, nil
	case 'd', 'i', 'u':
		n, ok := asInt(arg)
		if !ok {
			f, isF := arg.(float64)
			if !isF {
				return "", typeError("%%%c format: a real number is required, not %s", conv, typeName(arg))
			}
			n = int(math.Trunc(f))
		}
		return signed(strconv.Itoa(n), flags), nil
	case 'x', 'X', 'o':
		n, ok := asInt(arg)
		if !ok {
			return "", typeError("%%%c format: an integer is required, not %s", conv, typeName(arg))
		}
		base := 16
		if conv == 'o' {
			base = 8
		}
		neg := n < 0
		if neg {
			n = -n
		}
		s := strconv.FormatInt(int64(n), base)
		if strings.Contains(flags, "#") {
			s = "0" + string(conv) + s
		}
		if conv == 'X' {
			s = strings.ToUpper(s)
		}
		if neg {
			s = "-" + s
		}
		return signed(s, flags), nil
	case 'e', 'E', 'f', 'F', 'g', 'G':
		f, ok := number(arg)
		if !ok {
			return "", typeError("must be real number, not %s", typeName(arg))
		}
		if prec < 0 {
			prec = 6
		}
		var s string
		switch {
		case math.IsInf(f, 0) || math.IsNaN(f):
			s = formatFloat(f)
		case conv == 'g' || conv == 'G':
			if prec == 0 {
				prec = 1
			}
			s = strconv.FormatFloat(f, 'g', prec, 64)
			if strings.Contains(flags, "#") && !strings.Contains(s, ".") {
				s += "."
			}
			s = pyExponent(s)
		default:
			s = pyExponent(strconv.FormatFloat(f, byte(conv|0x20), prec, 64))
		}
		if conv == 'E' || conv == 'G' || conv == 'F' {
			s = strings.ToUpper(s)
		}
		return signed(s, flags), nil
	case 'c':
		switch a := arg.(type) {
		case int:
			return string(rune(a)), nil
		case string:
			if len([]rune(a)) == 1 {
				return a, nil
			}
		}
		return "", typeError("%%c requires int or char")
	}
	return "", valueError("unsupported format character '%c' (0x%x)", conv, conv)
}

// pyExponent rewrites Go's exponent (e+06, e-07 already two digits) to Python's
// form, which has at least two exponent digits; Go agrees except for three-digit
// exponents, which both print in full.
func pyExponent(s string) string { return s }

func signed(s, flags string) string {
	if !strings.HasPrefix(s, "-") {
		if strings.Contains(flags, "+") {
			return "+" + s
		}
		if strings.Contains(flags, " ") {
			return " " + s
		}
	}
	return s
}

func pad(s string, width int, flags string, conv byte) string {
	n := len([]rune(s))
	if width <= n {
		return s
	}
	fill := width - n
	switch {
	case strings.Contains(flags, "-"):
		return s + strings.Repeat(" ", fill)
	case strings.Contains(flags, "0") && conv != 's' && conv != 'r' && conv != 'a' && conv != 'c':
		sign := ""
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			sign, s = s[:1], s[1:]
		}
		return sign + strings.Repeat("0", fill) + s
	}
	return strings.Repeat(" ", fill) + s
}
