package jinja

import (
	"fmt"
	"strings"
	"time"
)

// maxRange is Jinja2's sandbox limit on range().
const maxRange = 100000

// globals are the names every template sees: Jinja2's defaults (range, dict,
// namespace, cycler, joiner) and the two transformers adds (raise_exception,
// strftime_now).
var globals map[string]Value

func init() {
	globals = map[string]Value{
		"range":           Func(rangeFunc),
		"dict":            Func(dictFunc),
		"namespace":       Func(namespaceFunc),
		"cycler":          Func(cyclerFunc),
		"joiner":          Func(joinerFunc),
		"raise_exception": Func(raiseException),
		"strftime_now":    Func(strftimeNow),
	}
}

func rangeFunc(_ *renderer, args []Value, kw *Dict) (Value, error) {
	if kw != nil && kw.Len() > 0 {
		return nil, typeError("range() takes no keyword arguments")
	}
	ints := make([]int, len(args))
	for i, a := range args {
		n, ok := asInt(a)
		if !ok {
			return nil, typeError("'%s' object cannot be interpreted as an integer", typeName(a))
		}
		ints[i] = n
	}
	start, stop, step := 0, 0, 1
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	case 0:
		return nil, typeError("range expected at least 1 argument, got 0")
	default:
		return nil, typeError("range expected at most 3 arguments, got %d", len(ints))
	}
	if step == 0 {
		return nil, valueError("range() arg 3 must not be zero")
	}
	r := &Range{start: start, stop: stop, step: step}
	if r.Len() > maxRange {
		return nil, newError("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (%d).", maxRange)
	}
	return r, nil
}

func dictFunc(_ *renderer, args []Value, kw *Dict) (Value, error) {
	d := NewDict(0)
	if len(args) > 1 {
		return nil, typeError("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		if u, ok := args[0].(Undefined); ok {
			// dict() asks its argument for .keys, which an Undefined refuses.
			return nil, u.fail()
		}
		if src, ok := args[0].(*Dict); ok {
			d = src.Copy()
		} else {
			pairs, err := iterate(args[0])
			if err != nil {
				return nil, err
			}
			for i, p := range pairs {
				kv, ok := asSeq(p)
				if !ok || len(kv) != 2 {
					return nil, valueError("dictionary update sequence element #%d has length %d; 2 is required", i, len(kv))
				}
				if err := d.Set(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
		}
	}
	if kw != nil {
		for i, k := range kw.keys {
			d.Set(k, kw.vals[i])
		}
	}
	return d, nil
}

func namespaceFunc(r *renderer, args []Value, kw *Dict) (Value, error) {
	if len(args) == 0 && kw != nil {
		// The keyword dict was built for this call alone: adopt it.
		return &Namespace{attrs: kw}, nil
	}
	d, err := dictFunc(r, args, kw)
	if err != nil {
		return nil, err
	}
	return &Namespace{attrs: d.(*Dict)}, nil
}

// nsBlock is a namespace and room for its attributes, in one allocation.
type nsBlock struct {
	ns Namespace
	d  Dict
	kv [2 * smallDict]Value
}

// maxPooledNamespaces is the most namespace blocks a pooled renderer keeps.
const maxPooledNamespaces = 64

// newNamespace makes an empty namespace with room for n attributes. Nothing
// made during a render outlives it (the render returns a string), so the
// blocks of one render's namespaces are kept by the renderer and reused by
// its next render (see reset): a template that makes its namespaces at the
// top level or once per message allocates none of them after the first
// render.
func (r *renderer) newNamespace(n int) *Namespace {
	if n > smallDict {
		return &Namespace{attrs: NewDict(n)}
	}
	var b *nsBlock
	if r.nsUsed < len(r.namespaces) {
		b = r.namespaces[r.nsUsed]
		r.nsUsed++
	} else {
		b = new(nsBlock)
		if len(r.namespaces) < maxPooledNamespaces {
			r.namespaces = append(r.namespaces, b)
			r.nsUsed++
		}
	}
	b.d.index = nil
	b.ns.attrs = b.d.backed(b.kv[:])
	return &b.ns
}

func cyclerFunc(_ *renderer, args []Value, _ *Dict) (Value, error) {
	if len(args) == 0 {
		return nil, typeError("at least one item has to be provided")
	}
	return &Cycler{items: args}, nil
}

func joinerFunc(_ *renderer, args []Value, kw *Dict) (Value, error) {
	sep := ", "
	if len(args) > 0 {
		sep = toStr(args[0])
	} else if kw != nil {
		if v, ok := kw.GetStr("sep"); ok {
			sep = toStr(v)
		}
	}
	return &Joiner{sep: sep}, nil
}

// generationSupport is AssistantTracker._generation_support, which a
// {% generation %} block calls with the block as caller: it returns caller().
func generationSupport(r *renderer, _ []Value, kw *Dict) (Value, error) {
	caller, _ := kw.GetStr("caller")
	return r.call(caller, nil, nil)
}

// raiseException is transformers' raise_exception(message): a TemplateError.
func raiseException(_ *renderer, args []Value, _ *Dict) (Value, error) {
	msg := ""
	if len(args) > 0 {
		msg = toStr(args[0])
	}
	return nil, &Error{Kind: "TemplateError", Message: msg}
}

// strftimeNow is transformers' strftime_now(format): datetime.now().strftime(format).
func strftimeNow(r *renderer, args []Value, _ *Dict) (Value, error) {
	if len(args) != 1 {
		return nil, typeError("strftime_now() takes 1 positional argument but %d were given", len(args))
	}
	f, ok := isString(args[0])
	if !ok {
		return nil, typeError("strftime() argument 1 must be str, not %s", typeName(args[0]))
	}
	return strftime(r.now(), f), nil
}

// strftime formats t as C's strftime does in the C locale, for the directives
// Python documents.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		// glibc's '-' flag drops the padding of a numeric field (%-d: "5").
		noPad := format[i] == '-' && i+1 < len(format)
		if noPad {
			i++
		}
		mark := b.Len()
		switch format[i] {
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			fmt.Fprintf(&b, "%d", wd)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'X':
			b.WriteString(t.Format("15:04:05"))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z', 'Z':
			// datetime.now() is naive: no offset, no zone name.
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'F':
			fmt.Fprintf(&b, "%d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			if noPad {
				b.WriteByte('-')
			}
			b.WriteByte(format[i])
		}
		if noPad {
			unpad(&b, mark)
		}
	}
	return b.String()
}

// unpad strips the leading zeros and spaces of the field written since mark,
// keeping at least one character.
func unpad(b *strings.Builder, mark int) {
	s := b.String()
	field := strings.TrimLeft(s[mark:], "0 ")
	if field == "" && len(s) > mark {
		field = s[len(s)-1:]
	}
	b.Reset()
	b.WriteString(s[:mark])
	b.WriteString(field)
}
