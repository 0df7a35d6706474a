package format

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// gpt-oss-harmony: OpenAI gpt-oss. The output is a sequence of messages,
// each a header, <|message|> and a body ended by <|end|>, <|call|> or
// <|return|>; the prompt ends with <|start|>assistant, so the first header
// has no <|start|>:
//
//	<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Paris"}<|call|>
//
// Channel analysis is reasoning, final (or commentary without recipient) is
// content, and a header with a recipient (to=functions.NAME, before or after
// the channel) makes the body the JSON arguments of a call to NAME. Text
// outside any message is content.
func init() {
	register(&Family{
		ID:               "gpt-oss-harmony",
		Calls:            harmonyCalls(),
		Aliases:          []string{"harmony", "gpt-oss", "openai"},
		ThinkOpen:        harmonyThinkOpen,
		ResponseTemplate: harmonyResponseTemplate,
		New:              func(o Options) Parser { return &harmony{opts: o, open: o.ReasoningOpen} },
		// The template renders calls with the recipient in the header.
		Detect: func(t string) bool {
			return strings.Contains(t, "<|channel|>") && strings.Contains(t, "<|message|>") && strings.Contains(t, " to=")
		},
	})
}

const (
	hmStart     = "<|start|>"
	hmChannel   = "<|channel|>"
	hmMessage   = "<|message|>"
	hmConstrain = "<|constrain|>"
	hmEnd       = endToken
	hmCall      = "<|call|>"
	hmReturn    = "<|return|>"
	// harmonyThinkOpen ends a prompt that leaves the analysis message open.
	harmonyThinkOpen = hmChannel + hmAnalysis + hmMessage
	// hmAnalysis is the reasoning channel; hmFinal and hmCommentary carry
	// content (commentary also calls).
	hmAnalysis, hmFinal, hmCommentary = "analysis", "final", "commentary"
	// harmonyLeadRecipient starts an output whose header names the recipient
	// before the channel, as the template writes history calls.
	harmonyLeadRecipient = "to=functions."
)

var (
	// harmonyHeaderStarts open a message header outside a message.
	harmonyHeaderStarts = []string{hmStart, hmChannel, hmMessage}
	// harmonyOutside is what is looked for outside a message: header starts,
	// and end tokens or <|constrain|> out of place, which are dropped.
	harmonyOutside = []string{hmStart, hmChannel, hmMessage, hmEnd, hmCall, hmReturn, hmConstrain}
	// harmonyHeaderEnds end a header: <|message|>, or a token that shows
	// the header will get no message.
	harmonyHeaderEnds = []string{hmMessage, hmEnd, hmCall, hmReturn, hmStart}
	// harmonyBodyEnds end a message body; <|start|> and <|channel|> also do,
	// without being consumed, when the model skipped the end token.
	harmonyBodyEnds = []string{hmEnd, hmCall, hmReturn, hmStart, hmChannel}
)

// harmonyAssistant starts an assistant message.
const harmonyAssistant = hmStart + "assistant"

// harmonyResponseTemplate reads the messages by their headers: analysis is
// reasoning, a recipient functions.NAME makes the body a call's JSON
// arguments, and the header of any other message (final, commentary, none) is dropped so
// that its body is content, like text outside any message. A body ends at
// its end token, or before the next header. Not expressed: recipients
// without the functions. prefix, and the diagnostics of headers without a
// message.
func harmonyResponseTemplate() *ResponseTemplate {
	start, channel, message := patternOf(hmStart), patternOf(hmChannel), patternOf(hmMessage)
	ends := patternOf(hmEnd) + "|" + patternOf(hmCall) + "|" + patternOf(hmReturn)
	bodyEnd := ends + "|(?=" + start + "|" + channel + ")"
	lead := "(?:" + start + "[^<]*?)?" // <|start|>assistant, where the model writes it
	t := newResponseTemplate(harmonyAssistant)
	t.Fields["content"].ClosePattern = ends + "|" + patternOf(hmConstrain) // stray end tokens are dropped
	t.Fields["reasoning_content"] = &ResponseField{
		OpenPattern: lead + channel + hmAnalysis + "[^<=]*" + message, ClosePattern: bodyEnd, Content: "text",
	}
	return t.withDroppedMarkup("message_header", lead+"(?:"+channel+"(?:"+hmFinal+"|"+hmCommentary+")[^<=]*)?"+message).
		withCallsAsWritten(&ResponseField{
			OpenPattern: "(?:" + start + "[^<]*?(?:" + channel + "[^<]*?)?|" + channel + "[^<]*?|^\\s*)" +
				patternOf(harmonyLeadRecipient) + `(?P<name>[^\s<]+)[^<]*?(?:` + channel + "[^<]*?)?(?:" + patternOf(hmConstrain) + "[^<]*?)?" + message,
			ClosePattern: bodyEnd,
			Content:      "json",
			Transform:    callTransform(),
		})
}

type harmonyState uint8

const (
	hmOutside harmonyState = iota
	hmHeader
	hmBody
)

type harmonyBody uint8

const (
	hmContent harmonyBody = iota
	hmReasoning
	hmArgs
)

// harmony is the parser of the Harmony format.
type harmony struct {
	scanBuffer // the unconsumed output, its offset, markup count and diagnostics
	eventBuf   // its events without an allocation per chunk
	opts       Options
	open       bool // the prompt left the analysis message open
	state      harmonyState
	closed     bool

	// The current message.
	kind         harmonyBody
	header       string // the raw header and <|message|> of a call, kept in case the call is malformed
	headerOffset int
	name         string
	thinkBegun   bool   // reasoning text of this message has been emitted
	thinkSpace   string // trailing whitespace of the reasoning, held

	calls int
	trio  [3]Event // a call's events, until the run loop copies them out
}

func (p *harmony) Feed(chunk string) []Event {
	if !p.gate.feed(&p.buf, chunk) {
		return nil
	}
	return p.run()
}

func (p *harmony) Close() []Event {
	p.closed = true
	p.closing()
	return p.run()
}

func (p *harmony) run() []Event {
	if p.open {
		// The prompt ended inside an analysis message.
		p.open = false
		p.state, p.kind = hmBody, hmReasoning
	}
	out := p.events()
	for {
		var events []Event
		var progressed bool
		switch p.state {
		case hmOutside:
			events, progressed = p.stepOutside()
		case hmHeader:
			events, progressed = p.stepHeader()
		default:
			events, progressed = p.stepBody()
		}
		out = append(out, events...)
		if !progressed {
			return out
		}
	}
}

// stepOutside emits text outside any message as content, up to a header.
func (p *harmony) stepOutside() ([]Event, bool) {
	if p.buf == "" {
		return nil, false
	}
	if p.offset == 0 {
		// An output may open with the recipient: " to=functions.NAME<|channel|>…".
		trimmed := strings.TrimLeftFunc(p.buf, unicode.IsSpace)
		switch {
		case strings.HasPrefix(trimmed, harmonyLeadRecipient):
			p.state = hmHeader
			return nil, true
		case strings.HasPrefix(harmonyLeadRecipient, trimmed) && !p.closed:
			return nil, false
		}
	}
	pos, marker := indexAny(p.buf, harmonyOutside)
	if pos < 0 {
		n := len(p.buf)
		if !p.closed {
			n = safePrefix(p.buf, harmonyOutside)
		}
		if n == 0 {
			return nil, false
		}
		return p.single(Content, p.take(n)), true
	}
	if pos > 0 {
		return p.single(Content, p.take(pos)), true
	}
	for _, m := range harmonyHeaderStarts {
		if marker == m {
			p.state = hmHeader
			return nil, true
		}
	}
	p.consume(len(marker)) // an end token or <|constrain|> with no message
	return nil, true
}

// stepHeader reads a whole header (they are short) and starts its message.
func (p *harmony) stepHeader() ([]Event, bool) {
	// A header may begin with <|start|>: look for its end after it.
	from := 0
	if strings.HasPrefix(p.buf, hmStart) {
		from = len(hmStart)
	}
	pos, marker := indexAny(p.buf[from:], harmonyHeaderEnds)
	if pos < 0 && !p.closed {
		return nil, false
	}
	if marker != hmMessage {
		// No message follows: the header is kept as text.
		n := len(p.buf)
		if pos >= 0 {
			n = from + pos
		}
		p.diag("stray-markup", "a message header without a message body: kept as text", p.offset)
		p.state = hmOutside
		return p.single(Content, p.take(n)), true
	}
	n := from + pos + len(hmMessage)
	channel, recipient := harmonyHeader(p.buf[:from+pos])
	p.state = hmBody
	p.thinkBegun, p.thinkSpace = false, ""
	switch {
	case recipient != "":
		p.kind = hmArgs
		p.name = strings.TrimPrefix(recipient, "functions.")
		p.headerOffset = p.offset
		p.header = p.take(n) // accounted as markup once the call is parsed
	case channel == hmAnalysis:
		p.kind = hmReasoning
		p.consume(n)
	default:
		p.kind = hmContent
		p.consume(n)
	}
	return nil, true
}

// harmonyHeader returns the channel and the recipient a header names; the
// recipient is empty when the message is not a call.
func harmonyHeader(h string) (channel, recipient string) {
	var space [16]string
	fields, ok := harmonyFields(h, space[:0])
	if !ok {
		fields = strings.Fields(strings.ReplaceAll(strings.ReplaceAll(h, "<|", " <|"), "|>", "|> "))
	}
	for i, f := range fields {
		switch {
		case f == hmChannel && i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "<|"):
			channel = fields[i+1]
		case strings.HasPrefix(f, "to=") && len(f) > len("to="):
			recipient = f[len("to="):]
		}
	}
	switch recipient {
	case "assistant", "user", "system", "developer", "all":
		recipient = "" // a message to a role, not a call
	}
	return channel, recipient
}

// harmonyFields splits an ASCII header into the fields harmonyHeader reads:
// the words between whitespace, with a split before each "<|" and after
// each "|>" (a token's edges). It appends them to dst while they fit its
// capacity; false for a header that is not ASCII or has more fields.
func harmonyFields(h string, dst []string) ([]string, bool) {
	start := -1
	add := func(end int) bool {
		if start >= 0 && start < end {
			if len(dst) == cap(dst) {
				return false
			}
			dst = append(dst, h[start:end])
		}
		start = -1
		return true
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= utf8.RuneSelf:
			return nil, false
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			if !add(i) {
				return nil, false
			}
			continue
		case c == '<' && i+1 < len(h) && h[i+1] == '|':
			if !add(i) {
				return nil, false
			}
		}
		if start < 0 {
			start = i
		}
		if c == '>' && i > 0 && h[i-1] == '|' && !add(i+1) {
			return nil, false
		}
	}
	if !add(len(h)) {
		return nil, false
	}
	return dst, true
}

// stepBody emits the body of the current message up to its end.
func (p *harmony) stepBody() ([]Event, bool) {
	pos, marker := indexAny(p.buf, harmonyBodyEnds)
	if p.kind == hmArgs {
		return p.stepArgs(pos, marker)
	}
	if pos < 0 {
		n := len(p.buf)
		if !p.closed {
			n = safePrefix(p.buf, harmonyBodyEnds)
		}
		text := p.take(n)
		if p.closed {
			events := p.bodyText(text, true)
			p.state = hmOutside
			return events, n > 0 || len(events) > 0
		}
		return p.bodyText(text, false), n > 0
	}
	events := p.bodyText(p.take(pos), true)
	if marker != hmStart && marker != hmChannel {
		p.consume(len(marker))
	}
	p.state = hmOutside
	return events, true
}

// bodyText emits text of a content or reasoning body. Reasoning loses the
// whitespace at its edges; trailing whitespace is held until more reasoning
// follows or the message ends.
func (p *harmony) bodyText(text string, ending bool) []Event {
	if p.kind == hmContent {
		if text == "" {
			return nil
		}
		return p.single(Content, text)
	}
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
	var events []Event
	if body != "" {
		events = p.single(Reasoning, p.thinkSpace+body)
		p.thinkSpace = ""
	}
	p.thinkSpace += space
	if ending {
		p.markupBytes += len(p.thinkSpace)
		p.thinkSpace = ""
	}
	return events
}

// stepArgs collects a call's JSON body up to its end token; at the end of
// the output a complete body is a call (<|call|> is a stop token).
func (p *harmony) stepArgs(pos int, marker string) ([]Event, bool) {
	if pos < 0 && !p.closed {
		return nil, false
	}
	body, end := p.buf, ""
	if pos >= 0 {
		body = p.buf[:pos]
		if marker != hmStart && marker != hmChannel {
			end = marker
		}
	}
	p.state = hmOutside
	args, err := jsonObject(body)
	if err != nil {
		// Malformed: the whole message stays content.
		msg := "the call to " + quote(p.name) + ": " + err.Error()
		if pos < 0 {
			if _, complete := jsonValueEnd(body); !complete {
				msg = "the output ends inside the call to " + quote(p.name) + "'s arguments"
			}
		}
		p.diag("malformed-call", msg, p.headerOffset)
		text := p.header + p.take(len(body)+len(end))
		return p.single(Content, text), true
	}
	p.markupBytes += len(p.header)
	p.consume(len(body) + len(end))
	if _, ok := toolSchema(p.opts.Tools, p.name); !ok && len(p.opts.Tools) > 0 {
		p.diag("unknown-tool", "the model called "+quote(p.name)+", which the request did not offer", p.headerOffset)
	}
	var id string
	if p.opts.NewID != nil {
		id = p.opts.NewID()
	} else {
		id = chat.NewCallID()
	}
	events := appendCallEvents(p.trio[:0], p.calls, id, p.name, args)
	p.calls++
	return events, true
}

// harmonyCalls: the model writes the channel first; the template writes
// history calls with the recipient first. Generation stops at <|call|>.
func harmonyCalls() *CallSyntax {
	constrain := seqOf(opt(" "), opt(hmConstrain), opt("json"))
	channelTo := hmChannel + hmCommentary + " " + harmonyLeadRecipient
	litChannelTo, litTo, litChannel := lit(channelTo), lit(" "+harmonyLeadRecipient), lit(hmChannel+hmCommentary)
	litMessage, litCall := lit(hmMessage), lit(hmCall)
	cs := namedCall(CallSyntax{
		Triggers: []string{channelTo, harmonyAssistant + " " + harmonyLeadRecipient},
		Open:     opt(harmonyAssistant),
		Single:   true,
	}, func(b *Builder, i int, args string) string {
		name := b.Name(i)
		channelFirst := seqOf(litChannelTo, name, constrain)
		recipientFirst := seqOf(litTo, name, litChannel, constrain)
		return seqOf("("+channelFirst+" | "+recipientFirst+")", litMessage, args, litCall)
	})
	cs.Tag = jsonTag(func(n string) string {
		return channelTo + n + " " + hmConstrain + "json" + hmMessage
	}, hmCall)
	return withThinking(cs, harmonyThinkOpen, hmEnd)
}
