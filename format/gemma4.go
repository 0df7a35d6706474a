package format

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// gemma4: Google Gemma 4. A call is written in Gemma's key:value syntax, with
// strings between <|"|> quotes:
//
//	<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>
//
// After its last call the model writes <|tool_response>, which ends the tool
// round: it is markup, not content. Reasoning is <|channel>thought\n…<channel|>;
// the channel name "thought" is markup too.
func init() {
	register(&Family{
		ID:               "gemma4",
		Calls:            gemma4Calls(),
		Aliases:          []string{"gemma4-no-thinking"},
		ThinkOpen:        gemma4ThinkOpen,
		ResponseTemplate: gemma4ResponseTemplate,
		New: func(o Options) Parser {
			return &gemma4Parser{engine: newEngine(&markup{
				thinkOpen: gemma4ThinkOpen, thinkClose: gemma4ThinkClose,
				callOpen:         []string{gemma4CallOpen},
				callEndsThinking: true,
				section: func(buf string, final bool) (int, []call, bool, error) {
					return keyValueSection(buf, final, gemma4CallOpen, gemma4CallClose, gemma4Quote, gemma4ToolResponse, true)
				},
			}, o), deciding: true}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, gemma4CallOpen) && strings.Contains(t, gemma4Quote)
		},
	})
}

const (
	gemma4ThinkOpen    = "<|channel>"
	gemma4ThinkClose   = "<channel|>"
	gemma4Channel      = "thought"
	gemma4CallOpen     = "<|tool_call>"
	gemma4CallClose    = "<tool_call|>"
	gemma4Quote        = `<|"|>`
	gemma4ToolResponse = "<|tool_response>"
)

// gemma4Assistant starts a model turn in Gemma 4's prompts.
const gemma4Assistant = "<|turn>model\n"

// gemma4ResponseTemplate reads the reasoning channel without its name, and
// one call per <|tool_call>…<tool_call|>, its body JSON with bare keys and
// <|"|> string quotes; <|tool_response> after a call is dropped.
func gemma4ResponseTemplate() *ResponseTemplate {
	t := newResponseTemplate(gemma4Assistant).withReasoning(gemma4ThinkOpen, gemma4ThinkClose, gemma4CallOpen)
	t.Fields["reasoning_content"].OpenPattern += "(?:" + gemma4Channel + `\s+)?`
	return t.withCalls(keyValueCallField(gemma4CallOpen, gemma4CallClose, gemma4Quote)).
		withDroppedMarkup("tool_response", `\s*`+patternOf(gemma4ToolResponse))
}

// gemma4Parser is the engine with the reasoning channel's name removed: the
// reasoning text starts "thought" and a newline, which the model writes as the
// channel header.
type gemma4Parser struct {
	*engine
	deciding bool   // the start of the reasoning may still be the channel name
	pending  string // reasoning held while deciding
	stripped int    // bytes of channel name (and the whitespace after it) removed
}

func (p *gemma4Parser) Feed(chunk string) []Event { return p.filter(p.engine.Feed(chunk), false) }
func (p *gemma4Parser) Close() []Event            { return p.filter(p.engine.Close(), true) }

func (p *gemma4Parser) markupLen() int { return p.engine.markupLen() + p.stripped }

// filter removes the channel name from the start of the reasoning. Reasoning
// only comes first, so any other event ends the decision.
func (p *gemma4Parser) filter(events []Event, closing bool) []Event {
	if !p.deciding {
		return events
	}
	var out []Event
	for i, ev := range events {
		if !p.deciding {
			return append(out, events[i:]...)
		}
		if ev.Kind == Reasoning {
			p.pending += ev.Text
			out = p.decide(out, false)
			continue
		}
		out = p.decide(out, true)
		out = append(out, ev)
	}
	if closing && p.deciding {
		out = p.decide(out, true)
	}
	return out
}

// decide looks at the held reasoning: the channel name followed by
// whitespace (or by the end of the reasoning) is removed with that whitespace.
func (p *gemma4Parser) decide(out []Event, end bool) []Event {
	s := p.pending
	rest := s
	switch {
	case len(s) <= len(gemma4Channel) && strings.HasPrefix(gemma4Channel, s):
		if !end {
			return out
		}
		if s == gemma4Channel {
			rest = ""
		}
	case strings.HasPrefix(s, gemma4Channel):
		r, _ := utf8.DecodeRuneInString(s[len(gemma4Channel):])
		if unicode.IsSpace(r) {
			rest = strings.TrimLeftFunc(s[len(gemma4Channel):], unicode.IsSpace)
			if rest == "" && !end {
				return out
			}
		}
	}
	p.stripped += len(s) - len(rest)
	p.pending, p.deciding = "", false
	if rest != "" {
		out = append(out, Event{Kind: Reasoning, Text: rest})
	}
	return out
}

// gemma4Calls: key:value calls, the keys sorted.
func gemma4Calls() *CallSyntax {
	return withThinking(keyValueCalls(gemma4CallOpen, gemma4CallClose, gemma4Quote, true), gemma4ThinkOpen+gemma4Channel+"\n", gemma4ThinkClose)
}
