package format

import (
	"errors"
	"strings"
)

// secScan, a cursor over a call section that families with hand-written
// section parsers share (DeepSeek V3 and V3.1, DSML, Kimi K2, Kimi K3):
// literals, spaces, text up to a marker, a JSON object, attributes.

// secScan walks a tool-call section. Its methods return errNeedMore only when
// the output has not ended; at the end of the output (final) they decide.
type secScan struct {
	s     string
	i     int
	final bool
	// stopped: the output ended where a call's end marker was due, or in a
	// partial one; the call is accepted (its body is complete) and the
	// section ends at i.
	stopped bool
}

type litResult uint8

const (
	litAbsent  litResult = iota
	litMatched           // consumed
	litPartial           // what is left is a proper prefix of the literal (maybe empty)
)

func (c *secScan) rest() string { return c.s[c.i:] }

// lit consumes l if the rest starts with it.
func (c *secScan) lit(l string) litResult {
	r := c.rest()
	switch {
	case strings.HasPrefix(r, l):
		c.i += len(l)
		return litMatched
	case strings.HasPrefix(l, r):
		return litPartial
	}
	return litAbsent
}

// space skips ASCII whitespace.
func (c *secScan) space() {
	for c.i < len(c.s) && isJSONSpace(c.s[c.i]) {
		c.i++
	}
}

// until returns the text up to marker and consumes both. The text may not
// span a line break or another special token; what names it is for the
// error.
func (c *secScan) until(marker, what string) (string, error) {
	r := c.rest()
	j := strings.Index(r, marker)
	head := r
	if j >= 0 {
		head = r[:j]
	}
	if strings.ContainsAny(head, "\n") || strings.Contains(head, "｜>") || strings.Contains(head, "|>") {
		return "", errors.New(what + " is not followed by " + marker)
	}
	if j < 0 {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New("the output ends in " + what)
	}
	c.i += j + len(marker)
	return head, nil
}

// jsonObject consumes a JSON object (after whitespace) and returns it as
// written.
func (c *secScan) jsonObject() (string, error) {
	c.space()
	r := c.rest()
	if r == "" {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New("the output ends before the call's arguments")
	}
	if r[0] != '{' {
		return "", errors.New("the arguments are not a JSON object")
	}
	n, complete := jsonValueEnd(r)
	if !complete {
		if !c.final {
			return "", errNeedMore
		}
		return "", errors.New("the output ends inside the call's arguments")
	}
	obj, err := jsonObject(r[:n])
	if err != nil {
		return "", err
	}
	c.i += n
	return obj, nil
}

// closing consumes the markers that end a call, each after optional
// whitespace. At the end of the output a missing or partial marker is
// accepted (the runtime may have consumed it as a stop token): the call is
// complete and the section stops before the partial marker, which stays text.
func (c *secScan) closing(markers ...string) error {
	for _, m := range markers {
		save := c.i
		c.space()
		switch c.lit(m) {
		case litMatched:
			continue
		case litPartial:
			if !c.final {
				return errNeedMore
			}
			c.i = save
			c.stopped = true
			if strings.TrimLeft(c.rest(), " \t\r\n") == "" {
				c.i = len(c.s) // trailing layout
			}
			return nil
		}
		return errors.New("the call is not closed by " + m)
	}
	return nil
}

// attributes reads the attributes of a tag up to its end (">" in DSML,
// "<|sep|>" in Kimi K3): name="value" pairs separated by whitespace. A value
// may not span lines. what names the tag for errors.
func (c *secScan) attributes(what, end string) (map[string]string, error) {
	attrs := map[string]string{}
	if r := c.rest(); r != "" && !isJSONSpace(r[0]) && !strings.HasPrefix(r, end) && !strings.HasPrefix(end, r) {
		return nil, errors.New("malformed " + what + " tag")
	}
	for {
		c.space()
		switch c.lit(end) {
		case litMatched:
			return attrs, nil
		case litPartial:
			if c.final {
				return nil, errors.New("the output ends inside the " + what + " tag")
			}
			return nil, errNeedMore
		}
		r := c.rest()
		eq := strings.IndexByte(r, '=')
		if eq < 0 {
			if !c.final && !strings.ContainsAny(r, "<> \t\r\n\"") {
				return nil, errNeedMore
			}
			return nil, errors.New("malformed " + what + " tag")
		}
		key := r[:eq]
		if key == "" || strings.ContainsAny(key, "<> \t\r\n\"") {
			return nil, errors.New("malformed " + what + " tag")
		}
		r = r[eq+1:]
		if r == "" {
			if !c.final {
				return nil, errNeedMore
			}
			return nil, errors.New("the output ends inside the " + what + " tag")
		}
		if r[0] != '"' {
			return nil, errors.New("malformed " + what + " tag")
		}
		// Checked before the value's end is seen, so that the chunking
		// cannot change the outcome.
		q := strings.IndexAny(r[1:], "\"\n")
		if q < 0 {
			if !c.final {
				return nil, errNeedMore
			}
			return nil, errors.New("the output ends inside the " + what + " tag")
		}
		if r[1+q] != '"' {
			return nil, errors.New("malformed " + what + " tag")
		}
		attrs[key] = r[1 : 1+q]
		c.i += eq + 1 + q + 2
	}
}
