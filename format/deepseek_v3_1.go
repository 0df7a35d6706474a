package format

import (
	"errors"
	"sort"
	"strings"
)

// deepseek-v3.1: DeepSeek V3.1. The JSON arguments follow the name directly:
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// Reasoning is <think>…</think>, forced open when thinking is on. Tool-output
// markers the model writes are removed, their text kept, with a diagnostic.
func init() {
	register(&Family{
		ID:        "deepseek-v3.1",
		Calls:     dsv31Calls(),
		Aliases:   []string{"deepseek3", "deepseek_v31", "deepseekv31"},
		ThinkOpen: thinkTag,
		// NAME<｜tool▁sep｜>{JSON}
		ResponseTemplate: func() *ResponseTemplate {
			return deepSeekResponseTemplate(`\s*(?P<name>[^\n]+?)\s*`+patternOf(dsSep), "")
		},
		New: func(o Options) Parser {
			return newDeepSeekParser(o, ds31Call)
		},
		// The V3.1 template writes the name and the JSON arguments around
		// <｜tool▁sep｜>, without the ```json fence of V3.
		Detect: func(t string) bool {
			return strings.Contains(t, dsCallsBegin) && strings.Contains(t, dsSep) && !strings.Contains(t, "```json")
		},
	})
}

const (
	dsCallsBegin   = "<｜tool▁calls▁begin｜>"
	dsCallsEnd     = "<｜tool▁calls▁end｜>"
	dsCallBegin    = "<｜tool▁call▁begin｜>"
	dsCallEnd      = "<｜tool▁call▁end｜>"
	dsSep          = "<｜tool▁sep｜>"
	dsOutputsBegin = "<｜tool▁outputs▁begin｜>"
	dsOutputsEnd   = "<｜tool▁outputs▁end｜>"
	dsOutputBegin  = "<｜tool▁output▁begin｜>"
	dsOutputEnd    = "<｜tool▁output▁end｜>"
)

// deepSeekAssistant starts an assistant turn in DeepSeek's prompts.
const deepSeekAssistant = "<｜Assistant｜>"

// deepSeekResponseTemplate reads one call per <｜tool▁call▁begin｜>…<｜tool▁call▁end｜>
// (V3 and V3.1): head is the pattern between the call opener and the JSON
// arguments (it names the call), tail the one between them and the call's
// end. The section's markers belong to its first and last call. The
// tool-output markers the model may write are removed as the parser removes
// them, by a field that opens at one and closes at once, so it is never in
// the message; their text stays content (not in reasoning: regions do not
// nest).
func deepSeekResponseTemplate(head, tail string) *ResponseTemplate {
	callEnd := tail + patternOf(dsCallEnd)
	return newResponseTemplate(deepSeekAssistant).withReasoning(thinkTag, thinkEndTag, dsCallsBegin).
		withDroppedMarkup("tool_output_marker", alternatives(dsToolOutputMarkers...)).withCallsAsWritten(&ResponseField{
		OpenPattern:  "(?:" + patternOf(dsCallsBegin) + `\s*)?` + patternOf(dsCallBegin) + head,
		ClosePattern: blockCallClose(callEnd, patternOf(dsCallsEnd), patternOf(dsCallBegin)),
		Content:      "json",
		Transform:    callTransform(),
	})
}

// dsToolOutputMarkers are prompt-side markup: when the model writes them they
// are removed (their text stays), with a diagnostic.
var dsToolOutputMarkers = []string{dsOutputsBegin, dsOutputsEnd, dsOutputBegin, dsOutputEnd}

// newDeepSeekParser is the parser of the DeepSeek V3 and V3.1 families,
// which differ only in how one call is written (parseCall).
func newDeepSeekParser(o Options, parseCall func(*secScan) (call, error)) Parser {
	c := new(secScan) // reused by every section parse (the call parser keeps no pointer to it)
	return &deepSeekParser{engine: newEngine(&markup{
		thinkOpen: thinkTag, thinkClose: thinkEndTag,
		callOpen:         []string{dsCallsBegin},
		callEndsThinking: true,
		// Ollama's deepseek3 tests keep the whitespace around a call.
		callSpaceKept: true,
		section: func(buf string, final bool) (int, []call, bool, error) {
			*c = secScan{s: buf, i: len(dsCallsBegin), final: final}
			return sectionResult(dsSection(c, parseCall))
		},
	}, o)}
}

// deepSeekParser removes the tool-output markers from the output before the
// engine sees it, wherever they stand (content or reasoning), and reports
// each with a diagnostic at its offset in the output.
type deepSeekParser struct {
	*engine
	pending string    // output not yet passed on: it may start a marker
	arena   textArena // backs pending
	in      int       // output offset of pending[0]
	passed  int       // bytes passed on to the engine
	removed []dsRemoval
	dropped int // bytes of markers removed
	strays  []Diagnostic
}

// dsRemoval records that, from the engine's offset at on, the output offset
// is total bytes further.
type dsRemoval struct{ at, total int }

func (p *deepSeekParser) Feed(chunk string) []Event {
	if p.pending == "" {
		p.pending = chunk
	} else {
		p.arena.extend(&p.pending, chunk)
	}
	return p.engine.Feed(p.filter(false))
}

func (p *deepSeekParser) Close() []Event {
	events := p.engine.Feed(p.filter(true))
	return append(events, p.engine.Close()...)
}

// filter passes on what can be decided, without the markers.
func (p *deepSeekParser) filter(final bool) string {
	var out strings.Builder
	for {
		pos, marker := indexAny(p.pending, dsToolOutputMarkers)
		if pos < 0 {
			break
		}
		out.WriteString(p.pending[:pos])
		p.passed += pos
		p.in += pos
		p.strays = append(p.strays, Diagnostic{Code: "stray-markup", Offset: p.in,
			Message: "the model wrote the tool-output marker " + marker + ", which belongs to the prompt; it was removed and its text kept"})
		p.dropped += len(marker)
		p.removed = append(p.removed, dsRemoval{at: p.passed, total: p.dropped})
		p.in += len(marker)
		p.pending = p.pending[pos+len(marker):]
	}
	n := len(p.pending)
	if !final {
		n = safePrefix(p.pending, dsToolOutputMarkers)
	}
	text := p.pending[:n]
	p.passed += n
	p.in += n
	p.pending = p.pending[n:]
	if out.Len() == 0 {
		return text // nothing removed: no copy
	}
	out.WriteString(text)
	return out.String()
}

// Diagnostics returns the engine's diagnostics, their offsets mapped back
// to the output, merged in output order with the removed markers'.
func (p *deepSeekParser) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, d := range p.engine.Diagnostics() {
		shift := 0
		for _, r := range p.removed {
			if r.at > d.Offset {
				break
			}
			shift = r.total
		}
		d.Offset += shift
		out = append(out, d)
	}
	out = append(out, p.strays...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

func (p *deepSeekParser) markupLen() int { return p.engine.markupLen() + p.dropped }

// dsSection parses <｜tool▁calls▁begin｜> call… [<｜tool▁calls▁end｜>]. The
// V3 and R1-Distill-Llama templates omit the end marker after a single call,
// so the section also ends where something other than a call follows, or at
// the end of the output.
func dsSection(c *secScan, parseCall func(*secScan) (call, error)) (int, []call, error) {
	final := c.final
	var calls []call
	end := 0
	for {
		c.space()
		if c.i == len(c.s) && len(calls) > 0 {
			if !final {
				return 0, nil, errNeedMore
			}
			end = c.i // trailing layout at the end of the output
			break
		}
		if r := c.lit(dsCallsEnd); r == litMatched {
			end = c.i
			break
		} else if r == litPartial && !final {
			return 0, nil, errNeedMore
		}
		switch c.lit(dsCallBegin) {
		case litMatched:
			cl, err := parseCall(c)
			if err != nil {
				return 0, nil, err
			}
			calls = append(calls, cl)
			end = c.i
			if c.stopped {
				return end, calls, nil
			}
			continue
		case litPartial:
			if !final {
				return 0, nil, errNeedMore
			}
		}
		if len(calls) == 0 {
			if c.i == len(c.s) {
				return 0, nil, errors.New("the output ends inside " + dsCallsBegin + " before any call")
			}
			return 0, nil, errors.New(dsCallsBegin + " is not followed by " + dsCallBegin)
		}
		break // text after the last call, without the end marker
	}
	if len(calls) == 0 {
		return 0, nil, errors.New("the tool-call section holds no call")
	}
	return end, calls, nil
}

// ds31Call parses NAME<｜tool▁sep｜>{JSON}<｜tool▁call▁end｜> after the call
// opener.
func ds31Call(c *secScan) (call, error) {
	name, err := c.until(dsSep, "the call name")
	if err != nil {
		return call{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return call{}, errors.New("the call has no name before " + dsSep)
	}
	args, err := c.jsonObject()
	if err != nil {
		return call{}, err
	}
	if err := c.closing(dsCallEnd); err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// dsv31Calls: each call's name, the separator and its JSON arguments.
func dsv31Calls() *CallSyntax {
	begin, sep, end := lit(dsCallBegin), lit(dsSep), lit(dsCallEnd)
	cs := namedCall(CallSyntax{
		Triggers: []string{dsCallsBegin},
		Open:     lit(dsCallsBegin),
		Close:    lit(dsCallsEnd),
	}, func(b *Builder, i int, args string) string {
		return seqOf(begin, b.Name(i), sep, args, end)
	})
	cs.Tag = jsonTag(func(n string) string {
		return dsCallsBegin + dsCallBegin + n + dsSep
	}, dsCallEnd+dsCallsEnd)
	return withThinking(cs, thinkTag, thinkEndTag)
}
