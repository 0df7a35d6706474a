package format

import (
	"errors"
	"strings"
)

// lmstudio: LM Studio's own call protocol ("default tool use"). For a model
// it has no native parser for, LM Studio puts its own system prompt before
// the conversation, teaching one block per call:
//
//	[TOOL_REQUEST]{"name": "get_weather", "arguments": {"location": "Paris"}}[END_TOOL_REQUEST]
//
// and rewrites earlier calls in the history into that syntax. When it cannot
// parse what the model wrote, it returns the text in the message's content,
// markup and all. No chat template renders this protocol, so the family is
// never detected and never constrained: the gateway uses it in relay mode
// against LM Studio only (WithLMStudioCalls), where it reads such blocks back
// out of the content. Own mode renders the model's own template and never
// needs it.
func init() {
	register(&Family{
		ID:      "lmstudio",
		Aliases: []string{"lmstudio-default", "tool_request"},
		New:     newLMStudioParser,
		// The protocol is the model-independent one of LM Studio's system
		// prompt; the anchor is ChatML's, the most common.
		ResponseTemplate: func() *ResponseTemplate {
			return newResponseTemplate(chatMLAssistant).withCalls(&ResponseField{
				Open: []string{lmstudioOpen}, ClosePattern: spacedClose(lmstudioClose, lmstudioOpen),
				Content: "json", Transform: objectCallTransform(),
			})
		},
	})
}

const (
	lmstudioOpen  = "[TOOL_REQUEST]"
	lmstudioClose = "[END_TOOL_REQUEST]"
)

func newLMStudioParser(o Options) Parser {
	return newEngine(&markup{
		callOpen: []string{lmstudioOpen},
		section:  lmstudioSection,
		liveCall: liveNameArguments(lmstudioOpen),
	}, o)
}

// lmstudioSection parses one [TOOL_REQUEST]…[END_TOOL_REQUEST] block. As with
// hermes, a missing end marker at the end of the output still leaves a call
// when the JSON body is complete (the model may stop right after it).
func lmstudioSection(buf string, final bool) (int, []call, bool, error) {
	body := buf[len(lmstudioOpen):]
	end := strings.Index(body, lmstudioClose)
	n := len(lmstudioOpen) + end + len(lmstudioClose)
	if end < 0 {
		if !final {
			return 0, nil, true, nil
		}
		end, n = len(body), len(buf)
		if _, complete := jsonValueEnd(body); !complete {
			return 0, nil, false, errors.New("the [TOOL_REQUEST] block is not closed and its JSON body is incomplete")
		}
	}
	c, err := nameAndArguments(body[:end])
	if err != nil {
		return 0, nil, false, err
	}
	return n, []call{c}, false, nil
}

// WithLMStudioCalls returns a parser for output relayed from LM Studio: the
// [TOOL_REQUEST] blocks of LM Studio's own protocol are read first, and the
// rest of the text goes on to inner, the model family's parser (nil when the
// family is unknown), for the markup the model was trained on. LM Studio
// prompts with one protocol or the other depending on whether it has a
// native parser for the model, which the gateway cannot see, so it reads
// both. Calls are numbered in the order they complete; inner's diagnostics
// give offsets into the text it was handed (the output less the blocks).
func WithLMStudioCalls(inner Parser, o Options) Parser {
	outer := newLMStudioParser(o)
	if inner == nil {
		return outer
	}
	return &lmstudioChain{outer: outer, inner: inner}
}

// lmstudioChain feeds the content the LM Studio parser lets through to the
// family parser and renumbers both parsers' calls into one sequence.
type lmstudioChain struct {
	outer, inner Parser
	out          []Event
	calls        int         // calls announced so far, from either parser
	outerIndex   map[int]int // the outer parser's call index → ours
	innerIndex   map[int]int // the inner parser's call index → ours
	// Whitespace right after a call is held: layout when another call
	// follows (from either parser, as within one family), content when
	// text follows or the output ends.
	afterCall bool
	held      string
}

func (c *lmstudioChain) Feed(chunk string) []Event {
	c.out = c.out[:0]
	c.pass(c.outer.Feed(chunk))
	return c.out
}

func (c *lmstudioChain) Close() []Event {
	c.out = c.out[:0]
	c.pass(c.outer.Close())
	c.take(c.inner.Close(), &c.innerIndex)
	c.release()
	return append([]Event(nil), c.out...)
}

// pass hands the outer parser's content to the inner parser, keeping the
// order of text and calls, and renumbers the outer parser's calls.
func (c *lmstudioChain) pass(events []Event) {
	for _, e := range events {
		if e.Kind == Content {
			c.take(c.inner.Feed(e.Text), &c.innerIndex)
			continue
		}
		c.take([]Event{e}, &c.outerIndex)
	}
}

// take appends events, their call indexes mapped through index (a call's
// number is given when its CallStart is seen).
func (c *lmstudioChain) take(events []Event, index *map[int]int) {
	for _, e := range events {
		switch e.Kind {
		case Content:
			if c.afterCall && strings.TrimSpace(e.Text) == "" {
				c.held += e.Text
				continue
			}
			c.release()
		case Reasoning:
			c.release()
		case CallStart:
			c.afterCall, c.held = false, "" // layout between two calls
		}
		if e.Kind == CallStart || e.Kind == CallArgs || e.Kind == CallEnd || e.Kind == CallWithdrawn {
			if *index == nil {
				*index = map[int]int{}
			}
			i, ok := (*index)[e.Index]
			if !ok {
				i = c.calls
				c.calls++
				(*index)[e.Index] = i
			}
			e.Index = i
		}
		c.out = append(c.out, e)
		if e.Kind == CallEnd {
			c.afterCall = true
		}
	}
}

// release emits the whitespace held after a call as content.
func (c *lmstudioChain) release() {
	if c.held != "" {
		c.out = append(c.out, Event{Kind: Content, Text: c.held})
	}
	c.afterCall, c.held = false, ""
}

func (c *lmstudioChain) Diagnostics() []Diagnostic {
	return append(append([]Diagnostic(nil), c.outer.Diagnostics()...), c.inner.Diagnostics()...)
}
