package format

import (
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// kvTags: calls written as a name and <key>K</key><value>V</value> tag
// pairs (GLM 4.5-4.7, Laguna, LongCat, HY3): the parser, the response-template
// field and the grammar.

// kvTags describes GLM-style calls: a name, then <key>K</key><value>V</value>
// pairs, each call in callOpen…callClose, optionally all in
// wrapOpen…wrapClose. Keys and values pair by order; values are raw text typed
// by schema (Decision 7).
type kvTags struct {
	wrapOpen, wrapClose string
	callOpen, callClose string
	sep                 string // ends the name when present; else a newline or keyOpen does
	keyOpen, keyClose   string
	valOpen, valClose   string
}

// responseField reads the calls as a response template does, one call per
// callOpen…callClose: the wrapper's markers belong to the first and last
// call, whitespace and literal \n escapes between the elements are layout,
// and the values are raw text cast by the tool's schema.
func (t *kvTags) responseField() *ResponseField {
	layout := `(?:\s|\\n)*`
	open, name := patternOf(t.callOpen), `[ \t]*(?P<name>[^\s<{\\]+)`+layout
	if t.sep != "" {
		name = `\s*(?P<name>[^<\n]+?)\s*` + patternOf(t.sep) + layout
	}
	closes := layout + patternOf(t.callClose)
	closePattern := closes + `\s*(?=` + open + ")|" + closes
	if t.wrapOpen != "" {
		open = "(?:" + patternOf(t.wrapOpen) + `\s*)?` + open
		closePattern = closes + `\s*` + patternOf(t.wrapClose) + "|" + closePattern
	}
	return &ResponseField{
		OpenPattern:  open + name,
		ClosePattern: closePattern,
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": patternOf(t.keyOpen) + `\s*(?P<key>.*?)\s*` + patternOf(t.keyClose) + layout +
				patternOf(t.valOpen) + "(?P<value>.*?)" + patternOf(t.valClose),
		},
		Transform: callTransform(),
	}
}

// wrapped parses wrapOpen, one or more calls, wrapClose. A missing wrapClose
// is accepted after at least one call (a stop token, or text after the
// calls).
func (t *kvTags) wrapped(tools []chat.Tool, buf string, final bool) (int, []call, bool, error) {
	i := len(t.wrapOpen)
	var calls []call
	for {
		rest := buf[i:]
		trimmed := trimLayout(rest)
		i += len(rest) - len(trimmed)
		switch {
		case strings.HasPrefix(trimmed, t.wrapClose):
			if len(calls) == 0 {
				return 0, nil, false, errors.New(t.wrapOpen + " holds no call")
			}
			return i + len(t.wrapClose), calls, false, nil
		case strings.HasPrefix(trimmed, t.callOpen):
			n, c, needMore, err := t.block(tools, trimmed, final)
			if needMore || err != nil {
				return 0, nil, needMore, err
			}
			calls = append(calls, c)
			i += n
			continue
		case !final && (strings.HasPrefix(t.wrapClose, trimmed) || strings.HasPrefix(t.callOpen, trimmed)):
			return 0, nil, true, nil
		case len(calls) > 0:
			return i, calls, false, nil
		}
		return 0, nil, false, errors.New(t.wrapOpen + " is not followed by " + t.callOpen)
	}
}

// block parses one callOpen … callClose call at the start of buf. At the end of
// the output a missing callClose is accepted when the body ends with a
// complete pair (or the name alone).
func (t *kvTags) block(tools []chat.Tool, buf string, final bool) (int, call, bool, error) {
	body := buf[len(t.callOpen):]
	end := strings.Index(body, t.callClose)
	n := len(t.callOpen) + end + len(t.callClose)
	unterminated := end < 0
	if unterminated {
		if !final {
			return 0, call{}, true, nil
		}
		end, n = len(body), len(buf)
	}
	name, keys, values, err := t.parseBody(body[:end], unterminated)
	if err != nil {
		return 0, call{}, false, err
	}
	args, err := typedArgs(tools, name, keys, values)
	if err != nil {
		return 0, call{}, false, err
	}
	return n, call{name: name, args: args}, false, nil
}

// parseBody splits a call body into its name and key/value pairs.
// unterminated says the call's end marker is missing (end of output).
func (t *kvTags) parseBody(body string, unterminated bool) (string, []string, []string, error) {
	var name string
	if t.sep != "" && strings.Contains(body, t.sep) {
		name, body, _ = strings.Cut(body, t.sep)
	} else {
		cut := len(body)
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			cut = i
		}
		if i := strings.Index(body, t.keyOpen); i >= 0 && i < cut {
			cut = i
		}
		name, body = body[:cut], body[cut:]
	}
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "<>") {
		return "", nil, nil, errors.New("the " + t.callOpen + " call has no valid function name")
	}
	var keys, values []string
	for {
		body = trimLayout(body)
		if body == "" {
			return name, keys, values, nil
		}
		if !strings.HasPrefix(body, t.keyOpen) {
			if strings.HasPrefix(body, t.valOpen) {
				return "", nil, nil, errors.New("unbalanced key/value pairs in the call to " + quote(name))
			}
			if unterminated {
				return "", nil, nil, errors.New("the call to " + quote(name) + " is not closed and its body is incomplete")
			}
			return "", nil, nil, errors.New("unexpected text in the call to " + quote(name))
		}
		k, rest, ok := strings.Cut(body[len(t.keyOpen):], t.keyClose)
		if !ok {
			return "", nil, nil, errors.New("the call to " + quote(name) + " has an unterminated key")
		}
		rest = trimLayout(rest)
		if !strings.HasPrefix(rest, t.valOpen) {
			return "", nil, nil, errors.New("unbalanced key/value pairs in the call to " + quote(name))
		}
		v, after, ok := strings.Cut(rest[len(t.valOpen):], t.valClose)
		if !ok {
			return "", nil, nil, errors.New("the call to " + quote(name) + " has an unterminated value")
		}
		keys = append(keys, strings.TrimSpace(k))
		values = append(values, v)
		body = after
	}
}

// blockCalls is the syntax of GLM-style calls (kvTags without a wrapper or
// a name separator): each call in callOpen…callClose, the name, then
// key/value element pairs.
func (t *kvTags) blockCalls() CallSyntax {
	litValueOpen, litValueClose := lit(t.valOpen), lit(t.valClose)
	cs := blocks(t.callOpen, t.callClose, taggedParams(
		func(b *Builder, i int) string { return seqOf(b.Name(i), optNewline) },
		func(*Builder, int) string { return "" },
		paramTags{KeyOpen: t.keyOpen, KeyClose: t.keyClose, Before: []string{optNewline, litValueOpen}, After: []string{litValueClose, optNewline}},
		Value{Stop: t.valClose}))
	cs.Open, cs.Sep, cs.Close = lit(t.callOpen), seqOf(lit(t.callClose), gap, lit(t.callOpen)), lit(t.callClose)
	return cs
}
