package format

import (
	"errors"
	"strings"
)

// Calls written as invoke elements holding one parameter element per argument
// (Step-3, Muse Glimmer, MiniMax M2, DSML): the parser of the
// namespaced form and the grammar.

// parseInvoke parses <NS:invoke name="N"><NS:parameter name="K">V</NS:parameter>…</NS:invoke>
// at the start of s (layout whitespace between elements is skipped; values are
// kept exactly). It returns the text after the element.
func parseInvoke(s, ns string) (name string, keys, values []string, rest string, err error) {
	open := "<" + ns + `:invoke name="`
	s = trimLayout(s)
	if !strings.HasPrefix(s, open) {
		return "", nil, nil, "", errors.New("expected " + open + "…\">")
	}
	name, s, ok := strings.Cut(s[len(open):], `">`)
	if !ok || name == "" || strings.ContainsAny(name, "<>\"\n") {
		return "", nil, nil, "", errors.New("the " + ns + ":invoke element has no valid name")
	}
	paramOpen := "<" + ns + `:parameter name="`
	paramClose := "</" + ns + ":parameter>"
	invokeClose := "</" + ns + ":invoke>"
	for {
		s = trimLayout(s)
		switch {
		case strings.HasPrefix(s, invokeClose):
			return name, keys, values, s[len(invokeClose):], nil
		case !strings.HasPrefix(s, paramOpen):
			return "", nil, nil, "", errors.New("the " + ns + ":invoke element of " + quote(name) + " is not closed")
		}
		key, after, ok := strings.Cut(s[len(paramOpen):], `">`)
		if !ok || key == "" || strings.ContainsAny(key, "<>\"\n") {
			return "", nil, nil, "", errors.New("a parameter of " + quote(name) + " has no valid name")
		}
		value, after, ok := strings.Cut(after, paramClose)
		if !ok {
			return "", nil, nil, "", errors.New("the parameter " + quote(key) + " of " + quote(name) + " is not closed")
		}
		keys = append(keys, key)
		values = append(values, value)
		s = after
	}
}

// invokeCalls is the syntax of families that write each call as an invoke
// element (invokeOpen"NAME"> … invokeClose) holding one parameter element
// per argument (paramOpen"KEY">VALUE paramClose), all between open and close.
func invokeCalls(open, close, invokeOpen, invokeClose, paramOpen, paramClose string) CallSyntax {
	litParamClose := lit(paramClose)
	litInvoke, invokeEnd, litInvokeClose := lit(invokeOpen+`"`), seqOf(lit(`">`), opt("\n")), lit(invokeClose)
	return CallSyntax{
		Triggers: []string{open},
		Open:     seqOf(lit(open), opt("\n")),
		Sep:      opt("\n"),
		Close:    seqOf(opt("\n"), lit(close)),
		Call: taggedParams(
			func(b *Builder, i int) string { return seqs(seqOf(litInvoke, b.Name(i)), invokeEnd) },
			func(*Builder, int) string { return litInvokeClose },
			paramTags{KeyOpen: paramOpen + `"`, KeyClose: `">`, After: []string{litParamClose, optNewline}},
			Value{Stop: paramClose}),
	}
}
