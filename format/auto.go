package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Derived parsers: for a template no family claims, Derive renders probe
// conversations through it (sentinel tool names, argument names and values;
// one call and two; with and without reasoning), locates the markup around the
// sentinels, and describes it as a Derived, whose Family parses output with
// the shared engine. Derive never consults the registry: it knows markup
// shapes, not families.

// ArgEncoding says how a derived call writes its name and arguments.
type ArgEncoding uint8

const (
	// JSONCall: one JSON object holds the name and the arguments
	// ({"name": NAME, "arguments": {...}}), or has the name as its only key
	// ({NAME: {...}}).
	JSONCall ArgEncoding = iota + 1
	// NameJSON: the name, a separator, then the arguments as a JSON object.
	NameJSON
	// Tagged: the name, then each argument as a key and a raw-text value
	// between markers, typed by the tool's schema.
	Tagged
)

func (e ArgEncoding) String() string {
	switch e {
	case JSONCall:
		return "JSON object with name and arguments"
	case NameJSON:
		return "name, then a JSON object of arguments"
	case Tagged:
		return "name, then tagged key/value arguments"
	}
	return "unknown"
}

// Derived is the markup Derive found in a template. Markers are kept as the
// template renders them; the parser treats whitespace at their edges and
// between their words as layout.
type Derived struct {
	// ThinkOpen and ThinkClose delimit reasoning; empty when the template
	// renders none. LeadingClose: with reasoning off the prompt ends with a
	// bare close marker, so an answer may start with one.
	ThinkOpen, ThinkClose string
	LeadingClose          bool

	// SectionOpen and SectionClose wrap all the calls of one output (empty
	// when each call stands alone); CallOpen and CallClose wrap one call;
	// CallSep stands between two calls.
	SectionOpen, SectionClose string
	CallOpen, CallClose       string
	CallSep                   string
	// List: the calls are the elements of one JSON array (SectionOpen ends
	// with "[", SectionClose starts with "]").
	List bool
	// OneCall: the template renders only the first call of a message.
	OneCall bool

	Encoding ArgEncoding
	// JSONCall: the keys of the name, the arguments and the call id (IDKey
	// empty when the object carries no id); NameIsKey: {NAME: {...}}.
	NameKey, ArgsKey, IDKey string
	NameIsKey               bool
	// NameJSON and Tagged: the text between the name and the arguments.
	NameEnd string
	// Tagged: each argument is KeyOpen KEY KeyEnd VALUE ValueEnd.
	KeyOpen, KeyEnd, ValueEnd string
}

// Derive finds the tool-call markup of a chat template from its renders. It
// returns an error that names what is missing when the template renders no
// assistant calls, or renders them in a form a derived parser cannot parse.
func Derive(src string) (*Derived, error) {
	r, err := newAutoRenderer(src)
	if err != nil {
		return nil, err
	}
	d := &Derived{}
	d.deriveReasoning(r)
	o1, o2, err := r.callOutputs()
	if err != nil {
		return nil, err
	}
	o1, o2 = d.stripEmptyReasoning(o1), d.stripEmptyReasoning(o2)
	if err := d.deriveCalls(o1, o2); err != nil {
		return nil, err
	}
	if err := d.check(o1, o2); err != nil {
		return nil, err
	}
	return d, nil
}

// callOutputs renders the assistant message with one call and with two, in
// the first message shape the template renders calls for.
func (r *autoRenderer) callOutputs() (o1, o2 string, err error) {
	var firstErr error
	rendered := false
	for _, shape := range callShapes {
		o1, err = r.output(assistantCalls(1, shape), nil)
		rendered = rendered || err == nil
		if err == nil && strings.Contains(o1, autoNames[0]) {
			o2, err = r.output(assistantCalls(2, shape), nil)
			if err != nil {
				o2 = "" // the template refuses two calls
			}
			return o1, o2, nil
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil && !rendered {
		return "", "", errors.New("the template fails to render an assistant message with tool_calls: " + firstErr.Error())
	}
	return "", "", errors.New("the template does not render assistant tool_calls")
}

// deriveReasoning renders a last assistant message with reasoning and takes
// the markup tokens right before and after the reasoning text.
func (d *Derived) deriveReasoning(r *autoRenderer) {
	for _, key := range []string{"reasoning_content", "thinking", "reasoning"} {
		for _, kwargs := range []map[string]any{nil, {"enable_thinking": true}} {
			msg := map[string]any{"role": "assistant", "content": autoContent, key: autoReasoning}
			out, err := r.render(msg, false, kwargs)
			at := strings.LastIndex(out, autoReasoning)
			if err != nil || at < 0 {
				continue
			}
			open := tokenBefore(out[:at])
			close := tokenAfter(out[at+len(autoReasoning):])
			if open == "" || close == "" || open == close {
				continue
			}
			d.ThinkOpen, d.ThinkClose = open, close
			// With reasoning off, a prompt that ends with a bare close
			// marker makes the model start its answer with one.
			prompt, err := r.render(nil, true, map[string]any{"enable_thinking": false})
			p := strings.TrimRight(prompt, " \t\r\n")
			if err == nil && strings.HasSuffix(p, close) && !strings.HasSuffix(strings.TrimRight(p[:len(p)-len(close)], " \t\r\n"), open) {
				d.LeadingClose = true
			}
			return
		}
	}
	d.promptReasoning(r)
}

// promptReasoning is the fallback for templates that drop reasoning from
// past turns: a generation prompt with thinking on that ends with an open
// marker, and with thinking off ends with that marker and a close marker.
func (d *Derived) promptReasoning(r *autoRenderer) {
	for _, key := range []string{"enable_thinking", "thinking"} {
		on, err1 := r.render(nil, true, map[string]any{key: true})
		off, err2 := r.render(nil, true, map[string]any{key: false})
		if err1 != nil || err2 != nil {
			continue
		}
		open := tokenBefore(on)
		close := tokenBefore(off)
		rest := strings.TrimSuffix(strings.TrimRight(off, " \t\r\n"), close)
		if open == "" || close == "" || open == close || !strings.HasSuffix(strings.TrimRight(rest, " \t\r\n"), open) {
			continue
		}
		d.ThinkOpen, d.ThinkClose = open, close
		return
	}
}

// tokenBefore returns the markup token that ends s (after trailing
// whitespace): a tag or bracketed keyword.
func tokenBefore(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if s == "" || !isCloser(s[len(s)-1]) {
		return ""
	}
	open := byte('<')
	if s[len(s)-1] == ']' {
		open = '['
	}
	i := strings.LastIndexByte(s, open)
	if i < 0 || strings.ContainsAny(s[i:], " \t\r\n") {
		return ""
	}
	return s[i:]
}

// tokenAfter returns the markup token that starts s (after leading
// whitespace).
func tokenAfter(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	if s == "" || !isOpener(s[0]) {
		return ""
	}
	closeCh := byte('>')
	if s[0] == '[' {
		closeCh = ']'
	}
	i := strings.IndexByte(s, closeCh)
	if i < 0 || strings.ContainsAny(s[:i], " \t\r\n") {
		return ""
	}
	return s[:i+1]
}

// stripEmptyReasoning removes an empty reasoning block the template writes
// before the calls of a message without reasoning.
func (d *Derived) stripEmptyReasoning(o string) string {
	if d.ThinkOpen == "" {
		return o
	}
	t := strings.TrimLeft(o, " \t\r\n")
	if rest, ok := strings.CutPrefix(t, d.ThinkOpen); ok {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t\r\n"), d.ThinkClose); ok {
			return rest
		}
	}
	return o
}

// body is where the arguments of one probe call sit in an output.
type body struct {
	start, end int // the call's own text: from the name (or its JSON object) to the end of its arguments
}

// deriveCalls finds the encoding of the first call, then the markers around
// calls from the one-call and the two-call outputs.
func (d *Derived) deriveCalls(o1, o2 string) error {
	b1, err := d.deriveEncoding(o1, 0)
	if err != nil {
		return err
	}
	x := o1[:b1.start] // section open + call open
	y := o1[b1.end:]   // call close + section close
	var b2a, b2b body
	if i := strings.Index(o2, autoNames[1]); o2 != "" && i >= 0 {
		if b2a, err = d.locate(o2, 0); err != nil {
			return err
		}
		if b2b, err = d.locate(o2, 1); err != nil {
			return err
		}
		if b2b.start < b2a.end {
			return errors.New("the second call is rendered inside the first")
		}
	} else {
		d.OneCall = true
	}
	if d.OneCall {
		// No second call to tell the section from the call: the markers
		// around the one call wrap each call.
		d.CallOpen, d.CallClose = x, y
		return d.finishMarkers()
	}
	g := o2[b2a.end:b2b.start] // call close + separator + call open
	closeLen, openLen := splitGap(g, y, x)
	d.CallClose = g[:closeLen]
	d.CallSep = g[closeLen : len(g)-openLen]
	d.CallOpen = g[len(g)-openLen:]
	d.SectionOpen = x[:len(x)-openLen]
	d.SectionClose = y[closeLen:]
	return d.finishMarkers()
}

// finishMarkers checks the derived markers and sets up a JSON list.
func (d *Derived) finishMarkers() error {
	so, sc := strings.TrimSpace(d.SectionOpen), strings.TrimSpace(d.SectionClose)
	sep := strings.TrimSpace(d.CallSep)
	if strings.HasSuffix(so, "[") && strings.HasPrefix(sc, "]") && (sep == "," || d.OneCall) && d.Encoding == JSONCall &&
		strings.TrimSpace(d.CallOpen) == "" && strings.TrimSpace(d.CallClose) == "" {
		d.List = true
	}
	if strings.TrimSpace(d.SectionOpen) == "" && strings.TrimSpace(d.CallOpen) == "" {
		return errors.New("the calls have no opening marker (" + d.describeBody() + " at the start of the output): a derived parser cannot tell a call from content")
	}
	for _, m := range []string{d.SectionOpen, d.SectionClose, d.CallOpen, d.CallClose, d.CallSep, d.NameEnd, d.KeyOpen, d.KeyEnd, d.ValueEnd} {
		if s := containsSentinel(m); s != "" {
			return fmt.Errorf("the markup %q repeats the probe's %s: the markers depend on the call, which a derived parser cannot express", m, s)
		}
	}
	if t := d.trigger(); !isOpener(t[0]) && !strings.HasSuffix(t, ">") && !strings.HasSuffix(t, "]") {
		return fmt.Errorf("the calls open with %q, which is not a markup token (a tag or a bracketed keyword): a derived parser cannot tell a call from content", t)
	}
	if d.List && d.SectionOpen != "" {
		return nil
	}
	if d.CallSep != "" && sep != "" && d.SectionOpen == "" {
		return fmt.Errorf("calls without a section wrapper are joined by %q, which a derived parser cannot express", d.CallSep)
	}
	return nil
}

func (d *Derived) describeBody() string {
	switch d.Encoding {
	case JSONCall:
		return "a JSON object"
	case NameJSON:
		return "the name"
	}
	return "the name"
}

// containsSentinel names the probe sentinel s contains, if any.
func containsSentinel(s string) string {
	for _, n := range autoNames {
		if strings.Contains(s, n) {
			return "tool name"
		}
	}
	for i := range autoKeys {
		if strings.Contains(s, autoKeys[i]) {
			return "argument name"
		}
		if strings.Contains(s, autoValues[i]) {
			return "argument value"
		}
	}
	if strings.Contains(s, autoCallID[:len(autoCallID)-1]) {
		return "call id"
	}
	return ""
}

// splitGap splits the text between two calls, g = call close + separator +
// call open, using that the call close also starts after (the text after the
// last call) and the call open also ends before (the text before the first).
// Where both could claim the same characters, it splits at a token boundary.
func splitGap(g, after, before string) (closeLen, openLen int) {
	lcp := commonPrefix(g, after)
	lcs := commonSuffix(g, before)
	if lcp+lcs <= len(g) {
		return lcp, lcs
	}
	// The close and the open overlap: choose the split i (close = g[:i],
	// open = g[i:] after whitespace) at the best token boundary.
	best, bestScore := len(g)-lcs, -1
	for i := len(g) - lcs; i <= lcp; i++ {
		score := 0
		if i > 0 && isCloser(g[i-1]) {
			score += 2
		}
		if i < len(g) && isOpener(g[i]) {
			score += 2
		}
		if i > 0 && isJSONSpace(g[i-1]) || i < len(g) && isJSONSpace(g[i]) {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best, len(g) - best
}

// deriveEncoding finds how the first call of o writes its name and
// arguments, and returns where that text is.
func (d *Derived) deriveEncoding(o string, _ int) (body, error) {
	name := autoNames[0]
	at := strings.Index(o, name)
	if at < 0 {
		return body{}, errors.New("the template does not render assistant tool_calls")
	}
	want := map[string]any{autoKeys[0]: autoValues[0], autoKeys[1]: autoValues[1]}
	// A JSON object that holds the name.
	if b, ok := d.jsonCall(o, at, 0); ok {
		return b, nil
	}
	rest := o[at+len(name):]
	// The name, then a JSON object of the arguments.
	if j := strings.IndexByte(rest, '{'); j >= 0 {
		if n, complete := jsonValueEnd(rest[j:]); complete && jsonEquals(rest[j:j+n], want) {
			d.Encoding, d.NameEnd = NameJSON, rest[:j]
			return body{at, at + len(name) + j + n}, nil
		}
	}
	// The name, then keys and values as raw text between markers.
	k0 := strings.Index(rest, autoKeys[0])
	v0 := strings.Index(rest, autoValues[0])
	k1 := strings.Index(rest, autoKeys[1])
	v1 := strings.Index(rest, autoValues[1])
	if k0 < 0 || v0 < 0 || k1 < 0 || v1 < 0 || !(k0 < v0 && v0 < k1 && k1 < v1) {
		return body{}, errors.New("arguments rendered in a form auto cannot parse: " + snippet(o))
	}
	a := rest[:k0]                        // name end + key open
	kv := rest[k0+len(autoKeys[0]) : v0]  // key end
	g := rest[v0+len(autoValues[0]) : k1] // value end + key open
	kv2 := rest[k1+len(autoKeys[1]) : v1] // key end, again
	after := rest[v1+len(autoValues[1]):] // value end + call close + …
	if kv != kv2 {
		return body{}, fmt.Errorf("arguments rendered in a form auto cannot parse: the text between key and value differs (%q, %q)", kv, kv2)
	}
	closeLen, openLen := splitGap(g, after, a)
	d.Encoding = Tagged
	d.KeyOpen = g[len(g)-openLen:]
	d.ValueEnd = g[:closeLen]
	d.KeyEnd = kv
	d.NameEnd = a[:len(a)-openLen]
	if sep := strings.TrimSpace(g[closeLen : len(g)-openLen]); sep != "" {
		return body{}, fmt.Errorf("arguments rendered in a form auto cannot parse: arguments are joined by %q in %s", sep, snippet(o))
	}
	if strings.TrimSpace(d.KeyOpen) == "" || strings.TrimSpace(d.ValueEnd) == "" || strings.TrimSpace(d.KeyEnd) == "" {
		return body{}, errors.New("arguments rendered in a form auto cannot parse (keys or values have no markers of their own): " + snippet(o))
	}
	core := len(strings.TrimRight(d.ValueEnd, " \t\r\n"))
	return body{at, at + len(name) + v1 + len(autoValues[1]) + core}, nil
}

// locate finds the text of probe call i in o with the encoding derived.
func (d *Derived) locate(o string, i int) (body, error) {
	at := strings.Index(o, autoNames[i])
	if at < 0 {
		return body{}, errors.New("the second call is not rendered")
	}
	switch d.Encoding {
	case JSONCall:
		if b, ok := d.jsonCall(o, at, i); ok {
			return b, nil
		}
	case NameJSON:
		rest := o[at:]
		if j := strings.IndexByte(rest, '{'); j >= 0 {
			if n, complete := jsonValueEnd(rest[j:]); complete {
				return body{at, at + j + n}, nil
			}
		}
	case Tagged:
		v := strings.Index(o[at:], autoValues[2*i+1])
		if v >= 0 {
			end := at + v + len(autoValues[2*i+1])
			core := strings.TrimSpace(d.ValueEnd)
			if j := strings.Index(o[end:], core); j >= 0 {
				return body{at, end + j + len(core)}, nil
			}
		}
	}
	return body{}, fmt.Errorf("the calls are rendered differently: the second call does not match the first (%s)", snippet(o))
}

// jsonCall finds a JSON object around o[at:] (the name of probe call i) that
// holds the call: the name under one key and the arguments (an object, or a
// string holding one) under another; or the name as its only key.
func (d *Derived) jsonCall(o string, at, i int) (body, bool) {
	name := autoNames[i]
	want := map[string]any{autoKeys[2*i]: autoValues[2*i], autoKeys[2*i+1]: autoValues[2*i+1]}
	for b := strings.LastIndexByte(o[:at], '{'); b >= 0; b = strings.LastIndexByte(o[:b], '{') {
		n, complete := jsonValueEnd(o[b:])
		if !complete || b+n <= at {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(o[b:b+n]), &obj) != nil {
			continue
		}
		if len(obj) == 1 {
			if v, ok := obj[name]; ok && jsonEquals(string(v), want) {
				d.Encoding, d.NameIsKey = JSONCall, true
				return body{b, b + n}, true
			}
		}
		nameKey, argsKey, idKey := "", "", ""
		for k, v := range obj {
			var s string
			switch {
			case json.Unmarshal(v, &s) == nil && s == name:
				nameKey = k
			case jsonEquals(string(v), want):
				argsKey = k
			case json.Unmarshal(v, &s) == nil && jsonEquals(s, want):
				argsKey = k
			case json.Unmarshal(v, &s) == nil && strings.HasPrefix(s, autoCallID[:len(autoCallID)-1]):
				idKey = k
			}
		}
		if nameKey != "" && argsKey != "" {
			if d.Encoding == 0 {
				d.Encoding, d.NameKey, d.ArgsKey, d.IDKey = JSONCall, nameKey, argsKey, idKey
			}
			return body{b, b + n}, true
		}
	}
	return body{}, false
}

// jsonEquals reports whether text is JSON equal to want.
func jsonEquals(text string, want map[string]any) bool {
	var got map[string]any
	if json.Unmarshal([]byte(text), &got) != nil {
		return false
	}
	return reflect.DeepEqual(got, want)
}

func snippet(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// check parses the probe outputs with the derived parser: it must find the
// probe calls exactly, or the derivation is wrong.
func (d *Derived) check(o1, o2 string) error {
	outputs := []string{o1}
	if !d.OneCall {
		outputs = append(outputs, o2)
	}
	for n, o := range outputs {
		r := Run(d.Family().New(Options{Tools: autoChatTools()}), o)
		rest := strings.TrimSpace(r.Content)
		if rest != "" && strings.TrimSpace(d.SectionOpen) == "" && rest == strings.TrimSpace(d.SectionClose) {
			rest = "" // a stop token the template writes after the calls
		}
		if len(r.ToolCalls) != n+1 || rest != "" {
			if n == 1 {
				return fmt.Errorf("the markup of a second call differs from the first (a per-call counter or id in the markup?), so the derived markup does not parse the render of two calls: %s", snippet(o))
			}
			return fmt.Errorf("the derived markup does not parse its own render of a call (%d found, content %q): %s", len(r.ToolCalls), r.Content, snippet(o))
		}
		for i, c := range r.ToolCalls {
			want := map[string]any{autoKeys[2*i]: autoValues[2*i], autoKeys[2*i+1]: autoValues[2*i+1]}
			if c.Function.Name != autoNames[i] || !jsonEquals(c.Function.Arguments, want) {
				return fmt.Errorf("the derived markup misreads its own render: call %d is %s(%s)", i, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	return nil
}

// String explains the derivation, one item a line.
func (d *Derived) String() string {
	var b strings.Builder
	line := func(label, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-14s %q\n", label+":", v)
		}
	}
	line("reasoning", joinNonEmpty(d.ThinkOpen, d.ThinkClose, " … "))
	if d.LeadingClose {
		b.WriteString("reasoning off:  the answer may start with a bare close marker\n")
	}
	line("section open", d.SectionOpen)
	line("section close", d.SectionClose)
	line("call open", d.CallOpen)
	line("call close", d.CallClose)
	line("call sep", d.CallSep)
	fmt.Fprintf(&b, "%-14s %s\n", "arguments:", d.Encoding)
	switch d.Encoding {
	case JSONCall:
		if d.NameIsKey {
			b.WriteString("               {NAME: {arguments}}\n")
		} else {
			fmt.Fprintf(&b, "               name key %q, arguments key %q", d.NameKey, d.ArgsKey)
			if d.IDKey != "" {
				fmt.Fprintf(&b, ", id key %q", d.IDKey)
			}
			b.WriteString("\n")
		}
	case NameJSON:
		line("name end", d.NameEnd)
	case Tagged:
		line("name end", d.NameEnd)
		line("key open", d.KeyOpen)
		line("key end", d.KeyEnd)
		line("value end", d.ValueEnd)
	}
	if d.List {
		b.WriteString("calls:         elements of one JSON array\n")
	}
	if d.OneCall {
		b.WriteString("calls:         the template renders one call per message\n")
	}
	return b.String()
}

func joinNonEmpty(a, b, sep string) string {
	if a == "" && b == "" {
		return ""
	}
	return a + sep + b
}
