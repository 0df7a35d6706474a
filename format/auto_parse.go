package format

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
)

// Family returns a family that parses output with the derived markup, on the
// shared engine. Its ID is "auto"; it is not registered and detects nothing.
func (d *Derived) Family() *Family {
	return &Family{
		ID:        "auto",
		ThinkOpen: d.ThinkOpen,
		New: func(o Options) Parser {
			p := &autoParser{d: d, tools: o.Tools}
			e := newEngine(&markup{
				thinkOpen: d.ThinkOpen, thinkClose: d.ThinkClose,
				callOpen: []string{d.trigger()},
				// A call opener inside open reasoning ends it (FORMATS.md,
				// rules common to all formats).
				callEndsThinking: d.ThinkOpen != "",
				section:          p.section,
			}, o)
			if d.LeadingClose {
				return withLeadingClose(e, d.ThinkClose, o)
			}
			return e
		},
	}
}

// trigger is the marker that starts a tool-call section: the first word of
// the section opener, or of the call opener when calls stand alone.
func (d *Derived) trigger() string {
	if w := d.sectionOpenWords(); len(w) > 0 {
		return w[0]
	}
	return markerTokens(d.CallOpen)[0]
}

// sectionOpenWords are the words of the section opener; for a JSON list the
// array's "[" is left to the JSON reader.
func (d *Derived) sectionOpenWords() []string {
	w := markerTokens(d.SectionOpen)
	if d.List && len(w) > 0 {
		last := strings.TrimSuffix(w[len(w)-1], "[")
		if last == "" {
			w = w[:len(w)-1]
		} else {
			w[len(w)-1] = last
		}
	}
	return w
}

type autoParser struct {
	d     *Derived
	tools []chat.Tool
}

// section parses one tool-call section at the start of buf.
func (p *autoParser) section(buf string, final bool) (int, []call, bool, error) {
	n, calls, err := p.parse(&rawScan{s: buf, final: final})
	return sectionResult(n, calls, err)
}

func (p *autoParser) parse(c *rawScan) (int, []call, error) {
	d := p.d
	if err := words(c, d.sectionOpenWords()); err != nil {
		return 0, nil, err
	}
	if d.List {
		return p.list(c)
	}
	var calls []call
	callOpen := markerTokens(d.CallOpen)
	if err := words(c, callOpen); err != nil {
		return 0, nil, err
	}
	for {
		cl, err := p.call(c)
		if err != nil {
			return 0, nil, err
		}
		calls = append(calls, cl)
		if ended, err := closer(c, markerTokens(d.CallClose)); err != nil || ended {
			return len(c.s), calls, err // the output ended without the close marker
		}
		if strings.TrimSpace(d.SectionOpen) == "" {
			return c.i, calls, nil // each call is a section of its own
		}
		end := c.i
		closed, err := optionalClose(c, markerTokens(d.SectionClose))
		switch {
		case err != nil:
			return 0, nil, err
		case closed:
			return c.i, calls, nil
		}
		c.space()
		if c.atEnd() && c.final {
			return len(c.s), calls, nil // the section close was consumed
		}
		if sep := markerTokens(d.CallSep); len(sep) > 0 {
			if err := words(c, sep); err != nil {
				return 0, nil, err
			}
			if err := words(c, callOpen); err != nil {
				return 0, nil, err
			}
			continue
		}
		if len(callOpen) == 0 {
			continue // the next call starts with its body
		}
		next, err := optional(c, callOpen)
		switch {
		case err != nil:
			return 0, nil, err
		case !next && len(markerTokens(d.SectionClose)) == 0:
			return end, calls, nil // a section without a close marker ends after its last call
		case !next:
			return 0, nil, errors.New("expected another call or the section close " + strings.TrimSpace(d.SectionClose) + c.found())
		}
	}
}

// list parses calls written as the elements of one JSON array.
func (p *autoParser) list(c *rawScan) (int, []call, error) {
	c.space()
	r := c.rest()
	if r == "" && !c.final {
		return 0, nil, errNeedMore
	}
	if !strings.HasPrefix(r, "[") {
		return 0, nil, errors.New("expected a JSON array of calls" + c.found())
	}
	n, complete := jsonValueEnd(r)
	if !complete {
		if !c.final {
			return 0, nil, errNeedMore
		}
		return 0, nil, errors.New("the JSON array of calls is incomplete")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(r[:n]), &elems); err != nil {
		return 0, nil, errors.New("the calls are not valid JSON: " + err.Error())
	}
	var calls []call
	for _, e := range elems {
		cl, err := p.jsonCall(string(e))
		if err != nil {
			return 0, nil, err
		}
		calls = append(calls, cl)
	}
	c.i += n
	close := markerTokens(p.d.SectionClose)
	if len(close) > 0 {
		close[0] = strings.TrimPrefix(close[0], "]")
		if close[0] == "" {
			close = close[1:]
		}
	}
	if done, err := closer(c, close); err != nil || done {
		return len(c.s), calls, err
	}
	return c.i, calls, nil
}

// call parses one call's name and arguments.
func (p *autoParser) call(c *rawScan) (call, error) {
	d := p.d
	if d.Encoding == JSONCall {
		c.space()
		n, complete := jsonValueEnd(c.rest())
		if !complete {
			if !c.final {
				return call{}, errNeedMore
			}
			return call{}, errors.New("the JSON call is incomplete")
		}
		cl, err := p.jsonCall(c.rest()[:n])
		c.i += n
		return cl, err
	}
	c.space()
	nameEnd := markerTokens(d.NameEnd)
	var stops []string
	if len(nameEnd) > 0 {
		stops = nameEnd[:1]
	} else {
		stops = append(firstWord(d.KeyOpen), firstWord(d.CallClose)...)
		stops = append(stops, firstWord(d.SectionClose)...)
		if d.Encoding == NameJSON {
			stops = append(stops, "{")
		}
	}
	name, err := readName(c, stops, len(nameEnd) == 0)
	if err != nil {
		return call{}, err
	}
	if err := words(c, nameEnd); err != nil {
		return call{}, err
	}
	if d.Encoding == NameJSON {
		c.space()
		n, complete := jsonValueEnd(c.rest())
		if !complete {
			if !c.final {
				return call{}, errNeedMore
			}
			return call{}, errors.New("the JSON arguments of " + name + " are incomplete")
		}
		args, err := jsonObject(c.rest()[:n])
		if err != nil {
			return call{}, err
		}
		c.i += n
		return call{name: name, args: args}, nil
	}
	var keys, values []string
	keyEnd, valueEnd := markerTokens(d.KeyEnd), markerTokens(d.ValueEnd)
	layoutOpen := d.KeyEnd[len(strings.TrimRight(d.KeyEnd, " \t\r\n")):]
	layoutClose := d.ValueEnd[:len(d.ValueEnd)-len(strings.TrimLeft(d.ValueEnd, " \t\r\n"))]
	for {
		open, err := optional(c, markerTokens(d.KeyOpen))
		if err != nil {
			return call{}, err
		}
		if !open {
			break
		}
		key, err := c.until(keyEnd[0], "an argument name")
		if err != nil {
			return call{}, err
		}
		if err := words(c, keyEnd[1:]); err != nil {
			return call{}, err
		}
		value, err := c.until(valueEnd[0], "the value of "+strings.TrimSpace(key))
		if err != nil {
			return call{}, err
		}
		if err := words(c, valueEnd[1:]); err != nil {
			return call{}, err
		}
		value = strings.TrimPrefix(value, layoutOpen)
		value = strings.TrimSuffix(value, layoutClose)
		keys, values = append(keys, strings.TrimSpace(key)), append(values, value)
	}
	args, err := typedArgs(p.tools, name, keys, values)
	if err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// jsonCall decodes a call written as one JSON object.
func (p *autoParser) jsonCall(text string) (call, error) {
	d := p.d
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &obj); err != nil {
		return call{}, errors.New("the call is not a valid JSON object: " + err.Error())
	}
	if d.NameIsKey {
		if len(obj) != 1 {
			return call{}, errors.New("the call object must have exactly one key, the tool name")
		}
		for name, v := range obj {
			args, err := jsonObject(string(v))
			return call{name: name, args: args}, err
		}
	}
	var name string
	if json.Unmarshal(obj[d.NameKey], &name) != nil || name == "" {
		return call{}, errors.New("the call has no " + quote(d.NameKey))
	}
	args, err := argumentsText(obj[d.ArgsKey])
	if err != nil {
		return call{}, err
	}
	var id string
	if d.IDKey != "" {
		json.Unmarshal(obj[d.IDKey], &id)
	}
	return call{id: id, name: name, args: args}, nil
}

func firstWord(s string) []string {
	if w := markerTokens(s); len(w) > 0 {
		return w[:1]
	}
	return nil
}

// words consumes the words of a marker, each after optional whitespace.
func words(c *rawScan, ws []string) error {
	for _, w := range ws {
		c.space()
		if err := c.expect(w, "the marker"); err != nil {
			return err
		}
	}
	return nil
}

// optional consumes a marker if the text continues with it; a marker that
// starts to match must match whole.
func optional(c *rawScan, ws []string) (bool, error) {
	if len(ws) == 0 {
		return false, nil
	}
	save := c.i
	c.space()
	ok, err := c.peek(ws[0])
	if err != nil || !ok {
		c.i = save
		return false, err
	}
	return true, words(c, ws[1:])
}

// optionalClose consumes a closing marker if the text continues with its
// first token (its later tokens as far as they follow).
func optionalClose(c *rawScan, ws []string) (bool, error) {
	if len(ws) == 0 {
		return false, nil
	}
	save := c.i
	c.space()
	ok, err := c.peek(ws[0])
	if err != nil || !ok {
		c.i = save
		return false, err
	}
	c.i = save
	_, err = closer(c, ws)
	return true, err
}

// closer consumes a closing marker. ended: the output ended where the marker
// should be (a runtime consumed it as a stop token), which closes the
// section. Once its first token matched, the marker's later tokens (a turn
// end the template writes after the calls) are taken as far as they follow.
func closer(c *rawScan, ws []string) (ended bool, err error) {
	if len(ws) == 0 {
		return false, nil
	}
	c.space()
	if c.atEnd() && c.final {
		return true, nil
	}
	ok, err := c.peek(ws[0])
	if err != nil {
		return false, err
	}
	if !ok {
		return false, errors.New("expected the close marker " + ws[0] + c.found())
	}
	for _, w := range ws[1:] {
		save := c.i
		c.space()
		ok, err := c.peek(w)
		if err != nil {
			return false, err
		}
		if !ok {
			c.i = save
			break
		}
	}
	return false, nil
}

// readName reads a call name up to the earliest of stops (not consumed)
// or, with spaceEnds, whitespace. A name has no whitespace inside.
func readName(c *rawScan, stops []string, spaceEnds bool) (string, error) {
	r := c.rest()
	j, _ := indexAny(r, stops)
	if spaceEnds {
		lead := len(r) - len(strings.TrimLeft(r, " \t\r\n"))
		if k := strings.IndexAny(r[lead:], " \t\r\n"); k >= 0 && (j < 0 || lead+k < j) {
			j = lead + k
		}
	}
	if j < 0 {
		if strings.ContainsAny(strings.TrimSpace(r), " \t\r\n") || len(r) > maxRawName {
			return "", errors.New("the text after the call opener is not a call name")
		}
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New("the call name does not end" + c.found())
	}
	name := strings.TrimSpace(r[:j])
	if name == "" || strings.ContainsAny(name, " \t\r\n") || len(name) > maxRawName {
		return "", errors.New("the text after the call opener is not a call name")
	}
	c.i += j
	return name, nil
}

// markerTokens splits a marker into the tokens the parser matches, each
// after optional whitespace: its words, split again between a closing and an
// opening character ("</a><b>" is two tokens).
func markerTokens(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		start := 0
		for i := 1; i < len(w); i++ {
			if isCloser(w[i-1]) && isOpener(w[i]) {
				out = append(out, w[start:i])
				start = i
			}
		}
		out = append(out, w[start:])
	}
	return out
}

// autoChatTools are the probe tools as the parser sees them.
func autoChatTools() []chat.Tool {
	data, _ := json.Marshal(autoTools())
	var tools []chat.Tool
	json.Unmarshal(data, &tools)
	return tools
}
