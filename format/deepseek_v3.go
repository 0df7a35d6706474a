package format

import (
	"errors"
	"strings"
)

// deepseek-v3: DeepSeek V3, R1, R1-0528, R1-Distill; Cogito. The call type
// precedes <｜tool▁sep｜>, the name runs to the newline, and the JSON
// arguments sit in a ```json fence:
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//	```json
//	{"location": "Paris"}
//	```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//
// Reasoning is <think>…</think> (forced open by the R1-Distill templates).
func init() {
	register(&Family{
		ID:        "deepseek-v3",
		Calls:     dsv3Calls(),
		Aliases:   []string{"cogito", "deepseek_v3", "deepseekv3"},
		ThinkOpen: thinkTag,
		// TYPE<｜tool▁sep｜>NAME\n```json\n{JSON}\n```
		ResponseTemplate: func() *ResponseTemplate {
			return deepSeekResponseTemplate(`[^\n]*?`+patternOf(dsSep)+`(?P<name>[^\n]+?)[ \t]*\n\s*(?:`+patternOf(dsFence)+`(?:json)?)?`,
				`(?:\s*`+patternOf(dsFence)+`)?\s*`)
		},
		New: func(o Options) Parser {
			return newDeepSeekParser(o, ds3Call)
		},
		// The V3 and R1 templates fence the arguments in ```json.
		Detect: func(t string) bool {
			return strings.Contains(t, dsCallsBegin) && strings.Contains(t, dsSep) && strings.Contains(t, "```json")
		},
	})
}

// dsFence fences the arguments.
const dsFence = "```"

// ds3Call parses TYPE<｜tool▁sep｜>NAME\n```json\n{JSON}\n```<｜tool▁call▁end｜>
// after the call opener. The fence is optional.
func ds3Call(c *secScan) (call, error) {
	if _, err := c.until(dsSep, "the call type"); err != nil {
		return call{}, err
	}
	name, err := c.until("\n", "the call name")
	if err != nil {
		return call{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return call{}, errors.New("the call has no name after " + dsSep)
	}
	c.space()
	fenced := false
	switch c.lit(dsFence + "json") {
	case litMatched:
		fenced = true
	case litPartial:
		if !c.final {
			return call{}, errNeedMore
		}
		return call{}, errors.New("the output ends before the call's arguments")
	default:
		fenced = c.lit(dsFence) == litMatched
	}
	args, err := c.jsonObject()
	if err != nil {
		return call{}, err
	}
	closers := []string{dsCallEnd}
	if fenced {
		closers = []string{dsFence, dsCallEnd}
	}
	if err := c.closing(closers...); err != nil {
		return call{}, err
	}
	return call{name: name, args: args}, nil
}

// dsv3Calls: each call's JSON arguments fenced after its name.
func dsv3Calls() *CallSyntax {
	begin, litJSON, end := lit(dsCallBegin+"function"+dsSep), lit("\n"+dsFence+"json\n"), lit("\n"+dsFence+dsCallEnd)
	cs := namedCall(CallSyntax{
		Triggers: []string{dsCallsBegin},
		Open:     lit(dsCallsBegin),
		Sep:      opt("\n"),
		Close:    opt(dsCallsEnd),
	}, func(b *Builder, i int, args string) string {
		return seqOf(begin, b.Name(i), litJSON, args, end)
	})
	cs.Tag = jsonTag(func(n string) string {
		return dsCallsBegin + dsCallBegin + "function" + dsSep + n + "\n" + dsFence + "json\n"
	}, "\n"+dsFence+dsCallEnd+dsCallsEnd)
	return withThinking(cs, thinkTag, thinkEndTag)
}
