package format

import (
	"errors"
	"strings"
)

// lfm2: Liquid LFM2 / LFM2.5. Calls are a Python call list, or a JSON array
// or object of {"name", "arguments"} (Decision 4), between markers:
//
//	<|tool_call_start|>[get_weather(location='Paris'), get_time(zone='Europe/Paris')]<|tool_call_end|>
//	<|tool_call_start|>[{"name": "get_weather", "arguments": {"location": "Paris"}}]<|tool_call_end|>
//
// Reasoning is <think>…</think> (thinking variants, not forced open by the
// corpus templates).
func init() {
	register(&Family{
		ID:                 "lfm2",
		Calls:              lfm2Calls(),
		NoResponseTemplate: "calls are a Python call list (or JSON) between the markers: no content parser reads Python calls, and the per-call delimiters a tag pattern needs (TRL's ', NAME(' opener) also fire in the answer's text",
		Aliases:            []string{"lfm2-thinking"},
		ThinkOpen:          "<think>",
		New: func(o Options) Parser {
			return newEngine(&markup{
				thinkOpen: "<think>", thinkClose: "</think>",
				callOpen:         []string{lfm2Open},
				callEndsThinking: true,
				answerTrimmed:    true, // FORMATS.md: "Leading whitespace before a direct answer is dropped"
				section:          pyBlockSection(lfm2Open, lfm2Close, pyBlock{json: true, unescapedQuotes: true}),
			}, o)
		},
		Detect: func(t string) bool {
			return strings.Contains(t, lfm2Open) || strings.Contains(t, "<|tool_list_start|>") ||
				strings.Contains(t, "List of tools: [")
		},
	})
}

const (
	lfm2Open  = "<|tool_call_start|>"
	lfm2Close = "<|tool_call_end|>"
)

// pyBlock says what a family's block of Python-style calls may hold beyond
// Python.
type pyBlock struct {
	// json: a JSON array or object of {"name", "arguments"} instead (LFM2,
	// FORMATS.md Decision 4).
	json bool
	// unescapedQuotes: the template writes strings between quotes it does
	// not escape ('what's on'), so a model writes them so too. When the
	// block is not valid Python, it is read again with a quote ending its
	// string only where a delimiter (, ) ] } :) or the end follows it.
	unescapedQuotes bool
}

// pyBlockSection parses a block of Python-style calls between open and close
// (bracketed or bare, one per line), and what opts allow beyond that. The
// close marker may be missing at the end of the output (a stop token the
// runtime consumed): then complete calls at the start of the rest are
// accepted, and what follows them stays content.
func pyBlockSection(open, close string, opts pyBlock) sectionFunc {
	return func(buf string, final bool) (int, []call, bool, error) {
		body := buf[len(open):]
		end := strings.Index(body, close)
		if end < 0 && !final {
			return 0, nil, true, nil
		}
		text := body
		if end >= 0 {
			text = body[:end]
		}
		calls, n, err := pyBlockCalls(text, opts)
		if err != nil {
			if end < 0 {
				return 0, nil, false, errors.New("the " + open + " block is not closed and its calls are incomplete: " + err.Error())
			}
			return 0, nil, false, err
		}
		if end < 0 {
			return len(open) + n, calls, false, nil
		}
		if rest := strings.TrimSpace(text[n:]); rest != "" {
			return 0, nil, false, errors.New("unexpected text after the calls in the " + open + " block: " + quote(clip(rest, 20)))
		}
		return len(open) + end + len(close), calls, false, nil
	}
}

// pyBlockCalls parses the calls at the start of text; n is the length they
// take.
func pyBlockCalls(text string, opts pyBlock) ([]call, int, error) {
	trimmed := strings.TrimLeft(text, " \t\r\n")
	lead := len(text) - len(trimmed)
	if opts.json && (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(trimmed, "["), " \t\r\n"), "{")) {
		n, complete := jsonValueEnd(trimmed)
		if !complete {
			return nil, 0, errors.New("the JSON calls are incomplete")
		}
		calls, err := mistralJSONCalls(trimmed[:n])
		if err != nil {
			return nil, 0, err
		}
		return calls, lead + n, nil
	}
	pcs, n, err := parsePyCalls(text, false)
	if err != nil && err != errPyIncomplete && opts.unescapedQuotes {
		if lpcs, ln, lerr := parsePyCalls(text, true); lerr == nil || lerr == errPyIncomplete && lpcs != nil {
			pcs, n, err = lpcs, ln, lerr
		}
	}
	if err == errPyIncomplete && pcs != nil {
		err = nil
	}
	if err != nil {
		if err == errPyIncomplete {
			return nil, 0, errors.New("the call list is incomplete")
		}
		return nil, 0, errors.New("the calls are not valid Python: " + err.Error())
	}
	calls := make([]call, len(pcs))
	for i, pc := range pcs {
		calls[i] = call{name: pc.Name, args: pc.Args}
	}
	return calls, n, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lfm2Calls: a Python list of calls between LFM2's markers.
func lfm2Calls() *CallSyntax {
	return &CallSyntax{
		Triggers: []string{lfm2Open},
		Open:     lit(lfm2Open + "["), Sep: lit(", "), Close: lit("]" + lfm2Close),
		Call:      pythonCall(true), // LFM2.5 writes 'it's'
		ThinkOpen: thinkTag, ThinkClose: thinkEndTag,
	}
}
