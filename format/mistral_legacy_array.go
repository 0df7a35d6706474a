package format

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// mistral-legacy-array: Mistral-Nemo and other pre-v11 Mistral models. The
// calls are one JSON array after [TOOL_CALLS]; each object may carry the
// call's "id":
//
//	[TOOL_CALLS][{"name": "get_weather", "arguments": {"location": "Paris"}, "id": "a1b2c3d4e"}]
//
// The whitespace around a call is its layout, not content.
// There is no reasoning. The parser (shared with mistral-v11-args, whose
// [TOOL_CALLS]name[ARGS]{…} form it also reads) is mistralParser below.
func init() {
	register(&Family{
		ID:    "mistral-legacy-array",
		Calls: mistralLegacyCalls(),
		// The list has no end marker: it runs to </s> or the end of the
		// output, so text after it makes it malformed. Ids are generated.
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(mistralAssistant...).withCallListField(&ResponseField{
				OpenPattern: `\s*` + patternOf(mistralCalls), ClosePattern: "(?=" + patternOf(mistralEOS) + ")",
			}, "name", "arguments", "")
		},
		New: func(o Options) Parser {
			return &mistralParser{opts: o}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, mistralCalls) && !strings.Contains(t, mistralArgs)
		},
	})
}

const (
	mistralCalls      = "[TOOL_CALLS]"
	mistralArgs       = "[ARGS]"
	mistralCallID     = "[CALL_ID]"
	mistralThinkOpen  = "[THINK]"
	mistralThinkClose = "[/THINK]"
	mistralEOS        = "</s>"
)

// mistralParser parses both Mistral families: content in which [TOOL_CALLS]
// sections appear, each either a JSON array (or object) of calls or
// name[CALL_ID]id[ARGS]{…}; with think set, [THINK]…[/THINK] blocks anywhere
// in the content are reasoning (whitespace before [THINK] and after [/THINK]
// is dropped, and so is the whitespace around a call: docs/DECISIONS.md,
// 2026-12-04).
type mistralParser struct {
	scanBuffer // the unconsumed output, its offset, markup count and diagnostics
	eventBuf   // its events without an allocation per chunk
	opts       Options
	think      bool // [THINK] blocks are reasoning (mistral-v11-args)

	closed bool

	inThink    bool
	started    bool   // some output has been consumed (an open marker at offset 0 is removed)
	thinkBegun bool   // the current reasoning block has emitted text
	thinkSpace string // trailing whitespace of the reasoning, held
	space      string // trailing whitespace of the content, held until we know whether a marker follows
	spaceLong  bool   // the content's whitespace run is longer than maxSpaceRun: content, whatever follows
	afterClose bool   // a reasoning block or a call just ended: leading whitespace of the content is dropped
	calls      int
}

func (p *mistralParser) Feed(chunk string) []Event {
	if !p.started && p.opts.ReasoningOpen && p.think {
		p.inThink = true
	}
	p.started = true
	if !p.gate.feed(&p.buf, chunk) {
		return nil
	}
	return p.run()
}

func (p *mistralParser) Close() []Event {
	if !p.started && p.opts.ReasoningOpen && p.think {
		p.inThink = true
	}
	p.started = true
	p.closed = true
	p.closing()
	events := p.run()
	if p.space != "" {
		events = append(events, Event{Kind: Content, Text: p.space})
		p.space = ""
	}
	if p.thinkSpace != "" {
		p.markupBytes += len(p.thinkSpace)
		p.thinkSpace = ""
	}
	return events
}

func (p *mistralParser) run() []Event {
	p.gate.sectionOpen = false
	out := p.events()
	for {
		var events []Event
		var progressed bool
		if p.inThink {
			events, progressed = p.stepThink()
		} else {
			events, progressed = p.stepContent()
		}
		out = append(out, events...)
		if !progressed {
			return out
		}
	}
}

// content emits text as content, holding back its trailing whitespace (a
// run longer than maxSpaceRun is content at once, as in the engine).
func (p *mistralParser) content(text string) []Event {
	if p.spaceLong {
		if strings.TrimLeftFunc(text, unicode.IsSpace) == "" {
			return p.single(Content, text) // the long run goes on
		}
		p.spaceLong = false
	}
	text = p.space + text
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	p.space = text[len(body):]
	if len(p.space) > maxSpaceRun {
		body, p.space, p.spaceLong = text, "", true
	}
	if body == "" {
		return nil
	}
	return p.single(Content, body)
}

// releaseSpace emits the held whitespace (a marker follows that keeps it).
func (p *mistralParser) releaseSpace() []Event {
	if p.space == "" {
		return nil
	}
	s := p.space
	p.space = ""
	return p.single(Content, s)
}

// dropSpace drops the held whitespace (a marker follows that removes it).
func (p *mistralParser) dropSpace() {
	p.markupBytes += len(p.space)
	p.space, p.spaceLong = "", false
}

func (p *mistralParser) markers() []string {
	if p.think {
		return []string{mistralCalls, mistralThinkOpen}
	}
	return []string{mistralCalls}
}

func (p *mistralParser) stepContent() ([]Event, bool) {
	if p.afterClose {
		trimmed := strings.TrimLeftFunc(p.buf, unicode.IsSpace)
		p.consume(len(p.buf) - len(trimmed))
		// Wait for the rest of a character split by the chunking: it may be
		// a space (U+00A0) that must be dropped too.
		if (p.buf == "" || !utf8.FullRuneInString(p.buf)) && !p.closed {
			return nil, false
		}
		p.afterClose = false
	}
	if p.buf == "" {
		return nil, false
	}
	markers := p.markers()
	pos, marker := indexAny(p.buf, markers)
	if pos < 0 {
		n := len(p.buf)
		if !p.closed {
			n = safePrefix(p.buf, markers)
		}
		if n == 0 {
			return nil, false
		}
		return p.content(p.take(n)), true
	}
	if pos > 0 {
		return p.content(p.take(pos)), true
	}
	if marker == mistralThinkOpen {
		p.dropSpace()
		p.consume(len(marker))
		p.inThink, p.thinkBegun, p.thinkSpace = true, false, ""
		return nil, true
	}
	n, calls, needMore, err := mistralSection(p.buf, p.closed)
	switch {
	case err != nil:
		p.diag("malformed-call", err.Error(), p.offset)
		events := p.releaseSpace()
		p.spaceLong = false
		return append(events, Event{Kind: Content, Text: p.take(len(marker))}), true
	case needMore:
		p.gate.sectionOpen = true // see gate
		return nil, false
	}
	events := make([]Event, 0, 3*len(calls))
	p.dropSpace() // the whitespace around a call is its layout
	sectionOffset := p.offset
	p.consume(n)
	p.afterClose = true
	for _, c := range calls {
		if _, ok := toolSchema(p.opts.Tools, c.name); !ok && len(p.opts.Tools) > 0 {
			p.diag("unknown-tool", "the model called "+quote(c.name)+", which the request did not offer", sectionOffset)
		}
		if c.id == "" {
			if p.opts.NewID != nil {
				c.id = p.opts.NewID()
			} else {
				c.id = chat.NewCallID()
			}
		}
		events = appendCallEvents(events, p.calls, c.id, c.name, c.args)
		p.calls++
	}
	return events, true
}

// stepThink emits reasoning up to [/THINK] (or [TOOL_CALLS], which ends it).
func (p *mistralParser) stepThink() ([]Event, bool) {
	if p.offset == 0 && !p.thinkBegun {
		// Forced open, and the model wrote the open marker anyway.
		if strings.HasPrefix(p.buf, mistralThinkOpen) {
			p.consume(len(mistralThinkOpen))
		} else if strings.HasPrefix(mistralThinkOpen, p.buf) && !p.closed {
			return nil, false
		}
	}
	markers := []string{mistralThinkClose, mistralCalls}
	pos, marker := indexAny(p.buf, markers)
	if pos < 0 {
		n := len(p.buf)
		if !p.closed {
			n = safePrefix(p.buf, markers)
		}
		events := p.thinkText(p.take(n), p.closed)
		return events, n > 0
	}
	events := p.thinkText(p.take(pos), true)
	p.inThink = false
	if marker == mistralThinkClose {
		p.consume(len(marker))
		p.afterClose = true
	}
	return events, true
}

// thinkText emits reasoning, dropping the whitespace at the block's edges.
func (p *mistralParser) thinkText(text string, ending bool) []Event {
	if !p.thinkBegun {
		trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
		p.markupBytes += len(text) - len(trimmed)
		text = trimmed
		if text == "" {
			return nil
		}
		p.thinkBegun = true
	}
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	space := text[len(body):]
	if body == "" {
		p.thinkSpace += space
		if ending {
			p.markupBytes += len(p.thinkSpace)
			p.thinkSpace = ""
		}
		return nil
	}
	out := p.thinkSpace + body
	p.thinkSpace = space
	if ending {
		p.markupBytes += len(space)
		p.thinkSpace = ""
	}
	return p.single(Reasoning, out)
}

// mistralSection parses the [TOOL_CALLS] section at the start of buf: a JSON
// array or object of calls (legacy), or name, optional [CALL_ID]id, [ARGS] and
// a JSON object (v11).
func mistralSection(buf string, final bool) (int, []call, bool, error) {
	i := len(mistralCalls)
	for i < len(buf) && isJSONSpace(buf[i]) {
		i++
	}
	if i == len(buf) {
		if final {
			return 0, nil, false, errors.New("nothing follows [TOOL_CALLS]")
		}
		return 0, nil, true, nil
	}
	if c := buf[i]; c == '[' || c == '{' {
		n, complete := jsonValueEnd(buf[i:])
		if !complete {
			if final {
				return 0, nil, false, errors.New("the JSON after [TOOL_CALLS] is incomplete")
			}
			return 0, nil, true, nil
		}
		calls, err := mistralJSONCalls(buf[i : i+n])
		if err != nil {
			return 0, nil, false, err
		}
		return i + n, calls, false, nil
	}
	// name{…}: [ARGS] dropped, as a detokenizer that skips special tokens
	// writes the call (vLLM's Mistral tokenizer does): read as name[ARGS]{…}.
	if n := mistralNameLen(buf[i:]); n > 0 && i+n < len(buf) && buf[i+n] == '{' {
		return mistralArgsAt(buf, i+n, buf[i:i+n], "", final)
	}
	// name[CALL_ID]id[ARGS]{…}
	name, j, needMore, err := mistralField(buf, i, []string{mistralArgs, mistralCallID}, final)
	if err != nil || needMore {
		return 0, nil, needMore, err
	}
	if name == "" {
		return 0, nil, false, errors.New("the call after [TOOL_CALLS] has no name")
	}
	id := ""
	if strings.HasPrefix(buf[j:], mistralCallID) {
		id, j, needMore, err = mistralField(buf, j+len(mistralCallID), []string{mistralArgs}, final)
		if err != nil || needMore {
			return 0, nil, needMore, err
		}
	}
	return mistralArgsAt(buf, j+len(mistralArgs), name, id, final)
}

// mistralNameLen is the length of the function name at the start of s:
// letters, digits, '_', '-' and '.'.
func mistralNameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return i
		}
	}
	return len(s)
}

// mistralArgsAt reads name's arguments, the JSON object at buf[j:] (after
// JSON space), and ends the section after it.
func mistralArgsAt(buf string, j int, name, id string, final bool) (int, []call, bool, error) {
	k := j
	for k < len(buf) && isJSONSpace(buf[k]) {
		k++
	}
	if k < len(buf) && buf[k] != '{' {
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	n, complete := jsonValueEnd(buf[j:])
	if !complete {
		if final {
			return 0, nil, false, errors.New("the arguments of " + quote(name) + " are incomplete")
		}
		return 0, nil, true, nil
	}
	args, err := jsonObject(buf[j : j+n])
	if err != nil {
		return 0, nil, false, errors.New("the arguments of " + quote(name) + " are not a JSON object")
	}
	return j + n, []call{{id: id, name: name, args: args}}, false, nil
}

// mistralField reads a name or id from buf[i:] up to one of the markers; it
// returns the field, the position of the marker, or needMore.
func mistralField(buf string, i int, markers []string, final bool) (string, int, bool, error) {
	for j := i; j < len(buf); j++ {
		c := buf[j]
		if c == '[' {
			rest := buf[j:]
			for _, m := range markers {
				if strings.HasPrefix(rest, m) {
					return strings.TrimSpace(buf[i:j]), j, false, nil
				}
				if strings.HasPrefix(m, rest) && !final {
					return "", 0, true, nil
				}
			}
			return "", 0, false, errors.New("expected " + markers[0] + " after the function name")
		}
		if c == ' ' || c == '\t' {
			// Only spaces before the marker: a name has none.
			k := j
			for k < len(buf) && (buf[k] == ' ' || buf[k] == '\t') {
				k++
			}
			if k < len(buf) && buf[k] != '[' {
				return "", 0, false, errors.New("expected " + markers[0] + " after the function name")
			}
			j = k - 1
			continue
		}
		if c == '\n' || c == '\r' || c == '{' || c == '}' || c == '"' || c == ']' || c == '<' {
			return "", 0, false, errors.New("expected " + markers[0] + " after the function name")
		}
	}
	if final {
		return "", 0, false, errors.New("the call after [TOOL_CALLS] ends before " + markers[0])
	}
	return "", 0, true, nil
}

// mistralLegacyCalls: a JSON array after [TOOL_CALLS].
func mistralLegacyCalls() *CallSyntax {
	cs := jsonArray(mistralCalls, seqOf(lit(mistralCalls), opt(" ")), "", nameArgumentsID)
	cs.Tag = jsonTag(func(n string) string { return mistralCalls + `[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	return &cs
}
