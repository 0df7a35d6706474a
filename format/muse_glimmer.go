package format

import (
	"errors"
	"strings"
	"unicode"

	"github.com/dragoman-dev/dragoman/chat"
)

// muse-glimmer: Muse Glimmer, Harmony-like messages addressed to a recipient,
// calls written as ATEM invocations. The prompt ends "<|start|>assistant", so
// the output starts with the first message's header:
//
//	 to=get_weather<|message|><atem:function_calls>
//	<atem:invoke name="get_weather">
//	<atem:parameter name="location">Paris</atem:parameter>
//	</atem:invoke>
//	</atem:function_calls><|eom|><|start|>assistant to=user<|message|>…<|eot|>
//
// Recipient "self" is reasoning, "user" (or none) content; values are raw
// text typed by the tool's schema. A custom parser: messages, not a reasoning
// block followed by content, and the first header has no opener.
func init() {
	register(&Family{
		ID:               "muse-glimmer",
		Calls:            museCallSyntax(),
		Aliases:          []string{"glimmer", "muse"},
		ThinkOpen:        museAssistant + " " + museRecipient + museSelf + museMessage,
		ResponseTemplate: museResponseTemplate,
		New: func(o Options) Parser {
			return &museParser{opts: o, first: !o.ReasoningOpen, reasoning: o.ReasoningOpen}
		},
		Detect: func(t string) bool {
			return strings.Contains(t, museCalls) && strings.Contains(t, "atem:invoke")
		},
	})
}

const (
	museStart      = "<|start|>"
	museMessage    = "<|message|>"
	museEOM        = "<|eom|>"
	museEOT        = "<|eot|>"
	museCalls      = "<atem:function_calls>"
	museCallsClose = "</atem:function_calls>"
	museMaxHeader  = 256
	museAssistant  = museStart + "assistant"
	museRecipient  = "to="
	museSelf       = "self" // the recipient of reasoning
	museUser       = "user" // the recipient of content
	museNS         = "atem" // the namespace of the invoke elements
)

// museResponseTemplate reads the messages by their headers: to=self is
// reasoning, to=user (or no recipient) content, whose header is dropped,
// and a message of ATEM invokes one call per invoke, the header and the
// function_calls markers belonging to the first and last call. Values are
// raw text cast by the tool's schema. End tokens are dropped.
func museResponseTemplate() *ResponseTemplate {
	lead := "(?:" + patternOf(museAssistant) + `)?\s*`
	message, recipient := patternOf(museMessage), patternOf(museRecipient)
	inv, invEnd := "<"+museNS+`:invoke name="(?P<name>[^"<>\n]+)">`, "</"+museNS+":invoke>"
	calls, callsEnd := patternOf(museCalls), patternOf(museCallsClose)
	t := newResponseTemplate(museAssistant)
	t.Fields["content"].ClosePattern = alternatives(museEOM, museEOT)
	t.Fields["reasoning_content"] = &ResponseField{
		OpenPattern:  lead + recipient + museSelf + message,
		ClosePattern: alternatives(museEOM, museEOT) + "|(?=" + alternatives(museStart, museCalls) + ")",
		Content:      "text",
	}
	return t.withDroppedMarkup("message_header", lead+"(?:"+recipient+museUser+")?"+message).withCallsAsWritten(&ResponseField{
		OpenPattern:  "(?:" + lead + recipient + `[^<\s]+` + message + `\s*)?(?:` + calls + `\s*)?` + inv,
		ClosePattern: blockCallClose(invEnd, callsEnd+`\s*(?:`+patternOf(museEOM)+")?", "<"+museNS+":invoke"),
		Content:      "xml-inline",
		ContentArgs: map[string]any{
			"tag_pattern": "<" + museNS + `:parameter name="(?P<key>[^"<>\n]+)">(?P<value>.*?)</` + museNS + ":parameter>",
		},
		Transform: callTransform(),
	})
}

var (
	museBodyMarkers = []string{museEOM, museEOT, museStart, museCalls}
	// A message to the user is content, ATEM markup in it too
	// (docs/DECISIONS.md, "Muse Glimmer: a message to the user holds no calls").
	museUserMarkers = museBodyMarkers[:3]
)

type museParser struct {
	opts   Options
	buf    string
	offset int
	closed bool

	inHeader  bool // a header is expected (after an end token or <|start|>)
	first     bool // the output's first header, whose <|start|>assistant the prompt wrote
	reasoning bool // the current message is to "self"
	toUser    bool // the current message is addressed to "user": no calls
	// reasoning whitespace: leading dropped, trailing held until more follows
	thinkBegun bool
	thinkSpace string

	calls  int
	diags  []Diagnostic
	markup int
	gate   gate // when a chunk is worth parsing
	eventBuf
}

func (p *museParser) Feed(chunk string) []Event {
	if !p.gate.feed(&p.buf, chunk) {
		return nil
	}
	return p.run()
}

func (p *museParser) Close() []Event {
	p.closed = true
	p.closing()
	return p.run()
}

func (p *museParser) Diagnostics() []Diagnostic { return p.diags }
func (p *museParser) markupLen() int            { return p.markup }

func (p *museParser) consume(n int) {
	p.buf = p.buf[n:]
	p.offset += n
	p.markup += n
}

func (p *museParser) take(n int) string {
	s := p.buf[:n]
	p.buf = p.buf[n:]
	p.offset += n
	return s
}

func (p *museParser) run() []Event {
	p.gate.sectionOpen = false
	out := p.events()
	for {
		var events []Event
		var progressed bool
		if p.first || p.inHeader {
			events, progressed = p.stepHeader()
		} else {
			events, progressed = p.stepBody()
		}
		out = append(out, events...)
		if !progressed {
			if p.closed {
				out = append(out, p.endMessage()...)
			}
			return out
		}
	}
}

// stepHeader reads "[<|start|>assistant][ to=RECIPIENT]<|message|>". Text that
// is not a header is content of a message without one.
func (p *museParser) stepHeader() ([]Event, bool) {
	if p.buf == "" {
		return nil, false
	}
	s, skip := p.buf, 0
	if strings.HasPrefix(museStart, s) && !p.closed {
		return nil, false
	}
	if strings.HasPrefix(s, museStart) {
		skip = len(museStart)
		s = s[skip:]
		if !strings.HasPrefix(s, "assistant") {
			if strings.HasPrefix("assistant", s) && !p.closed {
				return nil, false
			}
			p.diag("stray-markup", "<|start|> does not open an assistant message")
			return p.plain(), true
		}
		skip += len("assistant")
		s = s[len("assistant"):]
	} else if !p.first {
		return p.plain(), true
	}
	end := strings.Index(s, museMessage)
	if end < 0 {
		k := safePrefix(s, []string{museMessage})
		if !p.closed && k < museMaxHeader && !hasLTOrNewline(s[:k]) {
			return nil, false
		}
		if skip > 0 {
			p.diag("stray-markup", "an assistant message header is not ended by <|message|>")
		}
		return p.plain(), true
	}
	if end >= museMaxHeader || hasLTOrNewline(s[:end]) {
		if skip > 0 {
			p.diag("stray-markup", "an assistant message header is not ended by <|message|>")
		}
		return p.plain(), true
	}
	head := strings.TrimSpace(s[:end])
	recipient, ok := strings.CutPrefix(head, "to=")
	if head != "" && (!ok || recipient == "" || strings.ContainsAny(recipient, " \t\n<>")) {
		if skip > 0 {
			p.diag("stray-markup", "an assistant message header is not understood")
		}
		return p.plain(), true
	}
	p.consume(skip + end + len(museMessage))
	p.first, p.inHeader = false, false
	p.reasoning = recipient == museSelf
	p.toUser = recipient == museUser
	p.thinkBegun, p.thinkSpace = false, ""
	return nil, true
}

// plain starts a message without a header: content. A <|start|> that opens
// no header is text.
func (p *museParser) plain() []Event {
	p.first, p.inHeader, p.reasoning, p.toUser = false, false, false, false
	if strings.HasPrefix(p.buf, museStart) {
		return p.single(Content, p.take(len(museStart)))
	}
	return nil
}

func (p *museParser) stepBody() ([]Event, bool) {
	if p.buf == "" {
		return nil, false
	}
	markers := museBodyMarkers
	if p.toUser {
		markers = museUserMarkers
	}
	pos, marker := indexAny(p.buf, markers)
	if pos < 0 {
		n := len(p.buf)
		if !p.closed {
			n = safePrefix(p.buf, markers)
		}
		if n == 0 {
			return nil, false
		}
		return p.text(p.take(n)), true
	}
	if pos > 0 {
		return p.text(p.take(pos)), true
	}
	switch marker {
	case museEOM, museEOT:
		events := p.endMessage()
		p.consume(len(marker))
		p.inHeader = true
		return events, true
	case museStart:
		events := p.endMessage()
		p.inHeader = true
		return events, true
	}
	n, calls, needMore, err := museBlock(p.opts.Tools, p.buf, p.closed)
	switch {
	case err != nil:
		p.diag("malformed-call", err.Error())
		return p.text(p.take(len(museCalls))), true
	case needMore:
		p.gate.sectionOpen = true // see gate
		return nil, false
	}
	offset := p.offset
	p.consume(n)
	events := make([]Event, 0, 3*len(calls))
	for _, c := range calls {
		if _, ok := toolSchema(p.opts.Tools, c.name); !ok && len(p.opts.Tools) > 0 {
			p.diags = append(p.diags, Diagnostic{Code: "unknown-tool", Message: "the model called " + quote(c.name) + ", which the request did not offer", Offset: offset})
		}
		var id string
		if p.opts.NewID != nil {
			id = p.opts.NewID()
		} else {
			id = chat.NewCallID()
		}
		events = appendCallEvents(events, p.calls, id, c.name, c.args)
		p.calls++
	}
	return events, true
}

func (p *museParser) diag(code, msg string) {
	p.diags = append(p.diags, Diagnostic{Code: code, Message: msg, Offset: p.offset})
}

// text emits message text: content, or reasoning without the whitespace at
// its edges.
func (p *museParser) text(s string) []Event {
	if !p.reasoning {
		return p.single(Content, s)
	}
	if !p.thinkBegun {
		trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
		p.markup += len(s) - len(trimmed)
		s = trimmed
		if s == "" {
			return nil
		}
		p.thinkBegun = true
	}
	body := strings.TrimRightFunc(s, unicode.IsSpace)
	space := s[len(body):]
	if body == "" {
		p.thinkSpace += space
		return nil
	}
	out := p.thinkSpace + body
	p.thinkSpace = space
	return p.single(Reasoning, out)
}

// endMessage drops the reasoning's trailing whitespace.
func (p *museParser) endMessage() []Event {
	p.markup += len(p.thinkSpace)
	p.thinkSpace = ""
	return nil
}

// museBlock parses <atem:function_calls> invocations </atem:function_calls>.
// The block also ends at an end token or the end of the output (the close tag
// consumed as a stop token) when its invocations are complete.
func museBlock(tools []chat.Tool, buf string, final bool) (int, []call, bool, error) {
	body := buf[len(museCalls):]
	end, marker := indexAny(body, []string{museCallsClose, museEOM, museEOT, museStart})
	n := len(museCalls) + end
	if marker == museCallsClose {
		n += len(museCallsClose)
	}
	if end < 0 {
		if !final {
			return 0, nil, true, nil
		}
		end, n = len(body), len(buf)
	}
	s := body[:end]
	var calls []call
	for {
		s = trimLayout(s)
		if s == "" {
			break
		}
		name, keys, values, rest, err := parseInvoke(s, museNS)
		if err != nil {
			return 0, nil, false, err
		}
		args, err := typedArgs(tools, name, keys, values)
		if err != nil {
			return 0, nil, false, err
		}
		calls = append(calls, call{name: name, args: args})
		s = rest
	}
	if len(calls) == 0 {
		return 0, nil, false, errors.New(museCalls + " holds no invocation")
	}
	return n, calls, false, nil
}

// hasLTOrNewline reports whether s holds a '<' or a line break.
func hasLTOrNewline(s string) bool {
	return strings.IndexByte(s, '<') >= 0 || strings.IndexByte(s, '\n') >= 0
}

// museCallSyntax: each call is a message to the function (the prompt ends
// "<|start|>assistant"), its body an ATEM invocation; "to=self" is
// reasoning.
func museCallSyntax() *CallSyntax {
	to, invoke := lit(" "+museRecipient), seqOf(lit(museMessage+museCalls), opt("\n"), lit("<"+museNS+`:invoke name="`))
	invokeEnd, callsClose := seqOf(lit(`">`), opt("\n")), seqOf(lit("</"+museNS+":invoke>"), opt("\n"), lit(museCallsClose))
	param := paramTags{KeyOpen: "<" + museNS + `:parameter name="`, KeyClose: `">`, After: []string{lit("</" + museNS + ":parameter>"), opt("\n")}}
	return &CallSyntax{
		TriggersFor: func(tools []chat.Tool) []string {
			var out []string
			for _, t := range tools {
				out = append(out, " "+museRecipient+t.Function.Name+museMessage)
			}
			return out
		},
		Open: opt(museAssistant),
		Sep:  lit(museEOM + museAssistant),
		Call: func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqs(seqOf(to, b.Name(i)), invoke, seqOf(b.Name(i)), invokeEnd), callsClose,
				Value{Stop: "</" + museNS + ":parameter>"}, paramOf{write: param.write})
		},
		ThinkOpen: " " + museRecipient + museSelf + museMessage, ThinkClose: museEOM,
	}
}
