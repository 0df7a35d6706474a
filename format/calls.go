package format

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// The call syntax of each family (CallSyntax), as its templates render
// assistant calls; TestCallSyntaxMatchesTemplates checks every one against
// the corpus templates of its family.

// lit is a GBNF literal; opt an optional one.
func lit(s string) string { return grammar.Literal(s) }
func opt(s string) string {
	switch s { // the optional newline and space are in most calls' every parameter
	case "\n":
		return optNewline
	case " ":
		return optSpace
	}
	return grammar.Literal(s) + "?"
}

// litOf is lit of the parts joined (a parameter's tag around its name), in one allocation.
func litOf(parts ...string) string { return grammar.LiteralOf(parts...) }

// seqs joins sequences (seqOf's) into one, as seqOf would have written
// their parts side by side.
func seqs(sequences ...string) string { return grammar.Seq(sequences...) }

// The quotes of Python's string literals, as GBNF literals.
var litSingleQuote, litDoubleQuote = lit("'"), lit(`"`)

var (
	optNewline, optSpace = grammar.Literal("\n") + "?", grammar.Literal(" ") + "?"
	litCloseParameter    = grammar.Literal("</parameter>")
)

// gap is the layout between two blocks: up to two spaces or newlines.
var gap = grammar.Repeat(grammar.Class(false, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\n', Hi: '\n'}), 0, 2)

// jsonName is a name as a JSON string literal, unquoted text for Tag.
func jsonName(name string) string {
	if plainName(name) {
		return `"` + name + `"`
	}
	j, _ := json.Marshal(name)
	return string(j)
}

// plainName reports whether a name is written in JSON as it is, between
// quotes: letters, digits, '_', '-', '.', ':' and '/' (what function names
// hold), nothing encoding/json would escape.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':' || c == '/') {
			return false
		}
	}
	return true
}

// blocks is the syntax of families that wrap each call in open/close
// markers of its own, with optional newlines inside the block.
func blocks(open, close string, call func(b *Builder, i int) (string, error)) CallSyntax {
	return CallSyntax{
		Triggers: []string{open},
		Open:     seqOf(lit(open), opt("\n")),
		Sep:      seqOf(opt("\n"), lit(close), gap, lit(open), opt("\n")),
		Close:    seqOf(opt("\n"), lit(close)),
		Call:     call,
	}
}

// jsonArray is the syntax of families that write all calls as one JSON
// array after open and before close.
func jsonArray(trigger, open, close string, call func(b *Builder, i int) (string, error)) CallSyntax {
	ws := wsPlaceholder
	return CallSyntax{
		Triggers: []string{trigger},
		Open:     seqOf(open, lit("["), ws),
		Sep:      seqOf(ws, lit(","), ws),
		Close:    seqOf(ws, lit("]"), close),
		Call:     call,
	}
}

func nameArguments(b *Builder, i int) (string, error) {
	return b.JSONCall(i, "name", "arguments", "")
}

func nameParameters(b *Builder, i int) (string, error) {
	return b.JSONCall(i, "name", "parameters", "")
}

// nameArgumentsID also takes the "id" member the Mistral and Apriel
// templates write after the arguments.
func nameArgumentsID(b *Builder, i int) (string, error) {
	if b.idMember == "" {
		ws := b.WS()
		b.idMember = seqOf("(", litComma, ws, litIDKey, ws, litColon, ws, b.JSONString(), ws, ")?")
	}
	return b.JSONCall(i, "name", "arguments", b.idMember)
}

// Literals the calls and values of several families share.
var (
	litComma, litIDKey, litColon = lit(","), lit(`"id"`), lit(":")
	litBrace, litBraceClose      = lit("{"), lit("}")
	litBracket, litBracketClose  = lit("["), lit("]")
	pyItemSep                    = seqOf(litComma, optSpace) // between a Python list's items or a dict's members
)

// taggedParams writes one call as head, the parameters and tail, each
// parameter in the markup tags describe.
func taggedParams(head, tail func(b *Builder, i int) string, tags paramTags, v Value) func(b *Builder, i int) (string, error) {
	return func(b *Builder, i int) (string, error) {
		return b.paramsBetween(i, seqOf(head(b, i)), seqOf(tail(b, i)), v, paramOf{write: tags.write})
	}
}

// paramTags is a tagged parameter's markup: its name between KeyOpen and
// KeyClose (one literal, where an attribute of the member may follow the
// name: Attr, then AttrValue(m)), then the GBNF parts Before, its value,
// After.
type paramTags struct {
	KeyOpen, KeyClose string
	Before, After     []string
	Attr              string
	AttrValue         func(m grammar.Member) string
}

// write appends seqOf(litOf(KeyOpen, name, [Attr, AttrValue(m)], KeyClose), Before…, value, After…).
func (t paramTags) write(dst []byte, m grammar.Member, value string) []byte {
	start := len(dst)
	if t.AttrValue != nil {
		dst = grammar.AppendLiteralOf(dst, t.KeyOpen, m.Name, t.Attr, t.AttrValue(m), t.KeyClose)
	} else {
		dst = grammar.AppendLiteralOf(dst, t.KeyOpen, m.Name, t.KeyClose)
	}
	if bytes.IndexByte(dst[start:], '|') >= 0 { // seqPart's parentheses
		dst = wrapFrom(dst, start, "(", ")")
	}
	for _, p := range t.Before {
		dst = appendSeqPart(dst, start, p)
	}
	dst = appendSeqPart(dst, start, value)
	for _, p := range t.After {
		dst = appendSeqPart(dst, start, p)
	}
	return dst
}

// callSyntaxes maps family ids to their call syntax; register attaches
// them. A package variable, so that it is ready before any family's init.
var callSyntaxes = buildCallSyntaxes()

func buildCallSyntaxes() map[string]*CallSyntax {
	callSyntaxes := map[string]*CallSyntax{}
	think := func(cs CallSyntax, open, close string) *CallSyntax {
		cs.ThinkOpen, cs.ThinkClose = open, close
		return &cs
	}
	jsonTag := func(begin func(string) string, end string) func(string) (string, string) {
		return func(name string) (string, string) { return begin(name), end }
	}

	hermes := blocks("<tool_call>", "</tool_call>", nameArguments)
	hermes.Tag = jsonTag(func(n string) string { return "<tool_call>\n{\"name\": " + jsonName(n) + ", \"arguments\": " }, "}\n</tool_call>")
	callSyntaxes["hermes"] = think(hermes, "<think>", "</think>")

	// Literals several families' calls share.
	litFunction, litFunctionEnd, litFunctionClose := lit("<function="), seqOf(lit(">"), opt("\n")), lit("</function>")
	litTagEnd := lit(`">`)
	qwenXML := blocks("<tool_call>", "</tool_call>", taggedParams(
		func(b *Builder, i int) string { return seqs(seqOf(litFunction, b.Name(i)), litFunctionEnd) },
		func(*Builder, int) string { return litFunctionClose },
		paramTags{KeyOpen: "<parameter=", KeyClose: ">", Before: []string{optNewline}, After: []string{optNewline, litCloseParameter, optNewline}},
		Value{Stop: "</parameter>", Python: true}))
	callSyntaxes["qwen3-coder-xml"] = think(qwenXML, "<think>", "</think>")

	seed := blocks("<seed:tool_call>", "</seed:tool_call>", taggedParams(
		func(b *Builder, i int) string { return seqs(seqOf(litFunction, b.Name(i)), litFunctionEnd) },
		func(*Builder, int) string { return litFunctionClose },
		paramTags{KeyOpen: "<parameter=", KeyClose: ">", After: []string{litCloseParameter, optNewline}},
		Value{Stop: "</parameter>", Python: true, PythonContainers: true}))
	callSyntaxes["seed-oss"] = think(seed, "<seed:think>", "</seed:think>")

	glmLike := func(open, close, keyOpen, keyClose, valueOpen, valueClose string) CallSyntax {
		litValueOpen, litValueClose := lit(valueOpen), lit(valueClose)
		cs := blocks(open, close, taggedParams(
			func(b *Builder, i int) string { return seqOf(b.Name(i), optNewline) },
			func(*Builder, int) string { return "" },
			paramTags{KeyOpen: keyOpen, KeyClose: keyClose, Before: []string{optNewline, litValueOpen}, After: []string{litValueClose, optNewline}},
			Value{Stop: valueClose}))
		cs.Open, cs.Sep, cs.Close = lit(open), seqOf(lit(close), gap, lit(open)), lit(close)
		return cs
	}
	glm := glmLike("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")
	callSyntaxes["glm-4.5-4.7"] = think(glm, "<think>", "</think>")
	callSyntaxes["laguna"] = think(glm, "<think>", "</think>")
	longcat := glmLike("<longcat_tool_call>", "</longcat_tool_call>", "<longcat_arg_key>", "</longcat_arg_key>", "<longcat_arg_value>", "</longcat_arg_value>")
	callSyntaxes["longcat"] = think(longcat, "<longcat_think>", "</longcat_think>")

	hy3Call, hy3Sep, hy3CallClose := lit("<tool_call:opensource>"), seqOf(lit("<tool_sep:opensource>"), opt("\n")), lit("</tool_call:opensource>")
	hy3 := CallSyntax{
		Triggers: []string{"<tool_calls:opensource>"},
		Open:     seqOf(lit("<tool_calls:opensource>"), opt("\n")),
		Sep:      opt("\n"),
		Close:    seqOf(opt("\n"), lit("</tool_calls:opensource>")),
		Call: taggedParams(
			func(b *Builder, i int) string { return seqs(seqOf(hy3Call, b.Name(i)), hy3Sep) },
			func(*Builder, int) string { return hy3CallClose },
			paramTags{KeyOpen: "<arg_key:opensource>", KeyClose: "</arg_key:opensource>", Before: []string{opt("\n"), lit("<arg_value:opensource>")}, After: []string{lit("</arg_value:opensource>"), opt("\n")}},
			Value{Stop: "</arg_value:opensource>"}),
	}
	callSyntaxes["hunyuan-hy3"] = think(hy3, "<think:opensource>", "</think:opensource>")

	invoke := func(open, close, invokeOpen, invokeClose, paramOpen, paramClose string) CallSyntax {
		litParamClose := lit(paramClose)
		litInvoke, invokeEnd, litInvokeClose := lit(invokeOpen+`"`), seqOf(lit(`">`), opt("\n")), lit(invokeClose)
		return CallSyntax{
			Triggers: []string{open},
			Open:     seqOf(lit(open), opt("\n")),
			Sep:      opt("\n"),
			Close:    seqOf(opt("\n"), lit(close)),
			Call: taggedParams(
				func(b *Builder, i int) string { return seqs(seqOf(litInvoke, b.Name(i)), invokeEnd) },
				func(*Builder, int) string { return litInvokeClose },
				paramTags{KeyOpen: paramOpen + `"`, KeyClose: `">`, After: []string{litParamClose, optNewline}},
				Value{Stop: paramClose}),
		}
	}
	callSyntaxes["minimax-m2"] = think(invoke("<minimax:tool_call>", "</minimax:tool_call>", "<invoke name=", "</invoke>", "<parameter name=", "</parameter>"), "<think>", "</think>")

	// DeepSeek V3.2 and V4: the outer element is function_calls or
	// tool_calls; parameter elements say whether their value is a string.
	litDSMLInvoke, litDSMLInvokeClose := lit(`<｜DSML｜invoke name="`), lit("</｜DSML｜invoke>")
	dsmlParam := paramTags{KeyOpen: `<｜DSML｜parameter name="`, KeyClose: `">`, Attr: `" string="`,
		AttrValue: func(m grammar.Member) string {
			if m.Type == "string" || m.Type == "" || len(m.Enum) > 0 {
				return "true"
			}
			return "false"
		},
		After: []string{lit("</｜DSML｜parameter>"), opt("\n")}}
	dsml := func(outer string) CallSyntax {
		cs := invoke("<｜DSML｜"+outer+">", "</｜DSML｜"+outer+">", "<｜DSML｜invoke name=", "</｜DSML｜invoke>", "", "")
		cs.Call = func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqOf(litDSMLInvoke, b.Name(i), litTagEnd, opt("\n")), litDSMLInvokeClose,
				Value{Stop: "</｜DSML｜parameter>"}, paramOf{write: dsmlParam.write})
		}
		return cs
	}
	v32, v4 := dsml("function_calls"), dsml("tool_calls")
	dsmlBoth := v32
	dsmlBoth.Triggers = append(v32.Triggers, v4.Triggers...)
	dsmlBoth.Open, dsmlBoth.Close = "", ""
	dsmlBoth.Wrap = func(body string) string {
		return "(" + seqOf(v32.Open, body, v32.Close) + ") | (" + seqOf(v4.Open, body, v4.Close) + ")"
	}
	callSyntaxes["deepseek-v3.2-dsml"] = think(dsmlBoth, "<think>", "</think>")

	step3Invoke, step3InvokeClose := lit(`<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="`), lit("</steptml:invoke><｜tool_call_end｜>")
	step3 := CallSyntax{
		Triggers: []string{"<｜tool_calls_begin｜>"},
		Open:     lit("<｜tool_calls_begin｜>"),
		Sep:      opt("\n"),
		Close:    lit("<｜tool_calls_end｜>"),
		Call: taggedParams(
			func(b *Builder, i int) string { return seqOf(step3Invoke, b.Name(i), litTagEnd) },
			func(*Builder, int) string { return step3InvokeClose },
			paramTags{KeyOpen: `<steptml:parameter name="`, KeyClose: `">`, After: []string{lit("</steptml:parameter>")}},
			Value{Stop: "</steptml:parameter>"}),
	}
	callSyntaxes["step3"] = think(step3, "", "</think>")

	// MiniCPM5: strings holding <, & or a newline are wrapped in CDATA.
	minicpmParam := paramTags{KeyOpen: `<param name="`, KeyClose: `">`, After: []string{lit("</param>")}}
	litFunctionName := lit(`<function name="`)
	minicpm := CallSyntax{
		Triggers: []string{`<function name="`},
		Sep:      opt("\n"),
		Call: func(b *Builder, i int) (string, error) {
			str := b.Rule("cdata-string", func() string { // one rule for every call's strings
				plain := grammar.Repeat(grammar.Class(true, grammar.Range{Lo: '<', Hi: '<'}, grammar.Range{Lo: '&', Hi: '&'}, grammar.Range{Lo: '\n', Hi: '\n'}), 0, -1)
				return plain + " | " + seqOf(lit("<![CDATA["), b.G.TextWithout("]]>"), lit("]]>"))
			})
			return b.paramsBetween(i, seqOf(litFunctionName, b.Name(i), litTagEnd), litFunctionClose,
				Value{Stop: "</param>", Python: true, PythonContainers: true, String: str}, paramOf{write: minicpmParam.write})
		},
	}
	callSyntaxes["minicpm5"] = think(minicpm, "<think>", "</think>")

	// JSON in a wrapper.
	llama3 := CallSyntax{
		Triggers: []string{"<|python_tag|>", `{"`},
		Open:     opt("<|python_tag|>"),
		Call:     nameParameters,
		Single:   true, // the Llama 3.x templates raise on a second call
		Tag:      jsonTag(func(n string) string { return `{"name": ` + jsonName(n) + `, "parameters": ` }, "}"),
	}
	callSyntaxes["llama3-json"] = &llama3

	legacy := jsonArray("[TOOL_CALLS]", seqOf(lit("[TOOL_CALLS]"), opt(" ")), "", nameArgumentsID)
	legacy.Tag = jsonTag(func(n string) string { return `[TOOL_CALLS][{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	callSyntaxes["mistral-legacy-array"] = &legacy

	granite := jsonArray("<|tool_call|>", seqOf(lit("<|tool_call|>"), opt(" ")), "", nameArguments)
	granite.Tag = jsonTag(func(n string) string { return `<|tool_call|>[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	callSyntaxes["granite"] = think(granite, "<think>", "</think>")

	fire := jsonArray("functools[", lit("functools"), "", nameArguments)
	fire.Tag = jsonTag(func(n string) string { return `functools[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]")
	callSyntaxes["firefunction-v2"] = &fire

	xlam := jsonArray(`[{"`, "", "", nameArguments)
	callSyntaxes["xlam"] = &xlam

	nemotron := jsonArray("<TOOLCALL>", lit("<TOOLCALL>"), lit("</TOOLCALL>"), nameArguments)
	nemotron.Tag = jsonTag(func(n string) string { return `<TOOLCALL>[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]</TOOLCALL>")
	callSyntaxes["nemotron-toolcall-json"] = think(nemotron, "<think>", "</think>")

	apriel := jsonArray("<tool_calls>", lit("<tool_calls>"), lit("</tool_calls>"), nameArgumentsID)
	apriel.Tag = jsonTag(func(n string) string { return `<tool_calls>[{"name": ` + jsonName(n) + `, "arguments": ` }, "}]</tool_calls>")
	callSyntaxes["apriel"] = think(apriel, "", "[BEGIN FINAL RESPONSE]")

	m1 := CallSyntax{
		Triggers: []string{"<tool_calls>"},
		Open:     seqOf(lit("<tool_calls>"), opt("\n")),
		Sep:      lit("\n"),
		Close:    seqOf(opt("\n"), lit("</tool_calls>")),
		Call:     nameArguments,
		Tag:      jsonTag(func(n string) string { return "<tool_calls>\n{\"name\": " + jsonName(n) + ", \"arguments\": " }, "}\n</tool_calls>"),
	}
	callSyntaxes["minimax-m1"] = &m1

	giga := CallSyntax{
		Triggers: []string{"<|function_call|>", "function call<|role_sep|>"},
		Open:     "(" + lit("<|function_call|>") + " | " + seqOf("(", lit("<|message_sep|>"), lit("\n\n"), ")?", lit("function call<|role_sep|>"), opt("\n")) + ")",
		Call:     nameArguments,
		Single:   true,
	}
	callSyntaxes["gigachat3"] = &giga

	intern := CallSyntax{
		Triggers: []string{"<|action_start|><|plugin|>"},
		Open:     seqOf(lit("<|action_start|><|plugin|>"), opt("\n")),
		Close:    lit("<|action_end|>"),
		Call:     nameParameters,
		Single:   true,
		Tag: jsonTag(func(n string) string {
			return "<|action_start|><|plugin|>\n{\"name\": " + jsonName(n) + ", \"parameters\": "
		}, "}<|action_end|>"),
	}
	callSyntaxes["internlm2"] = think(intern, "<think>", "</think>")

	cohereID := seqOf(lit(`"`), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 4), lit(`"`))
	litToolCallID, litToolName, litParameters := lit(`"tool_call_id"`), lit(`"tool_name"`), lit(`"parameters"`)
	cohere := jsonArray("<|START_ACTION|>", lit("<|START_ACTION|>"), lit("<|END_ACTION|>"), func(b *Builder, i int) (string, error) {
		ws := b.WS()
		args, err := b.Args(i)
		if err != nil {
			return "", err
		}
		return seqOf(`"{"`, ws, litToolCallID, ws, `":"`, ws, cohereID, ws, `","`, ws,
			litToolName, ws, `":"`, ws, b.JSONName(i), ws, `","`, ws,
			litParameters, ws, `":"`, ws, args, ws, `"}"`), nil
	})
	cohere.Tag = jsonTag(func(n string) string {
		return `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": ` + jsonName(n) + `, "parameters": `
	}, "}]<|END_ACTION|>")
	cohere.PrettyJSON = true // the action list spans lines
	callSyntaxes["cohere-command"] = think(cohere, "<|START_THINKING|>", "<|END_THINKING|>")

	rplus := jsonArray("Action:", seqOf(lit("Action:"), gap, lit("```json"), opt("\n")), seqOf(opt("\n"), lit("```")), func(b *Builder, i int) (string, error) {
		return b.JSONCall(i, "tool_name", "parameters", "")
	})
	rplus.PrettyJSON = true // tojson(indent=4)
	callSyntaxes["command-r-plus-markdown"] = &rplus

	apertus := jsonArray("<|tools_prefix|>", lit("<|tools_prefix|>"), lit("<|tools_suffix|>"), func(b *Builder, i int) (string, error) {
		ws := b.WS()
		args, err := b.Args(i)
		if err != nil {
			return "", err
		}
		return seqOf(litBrace, ws, b.JSONName(i), ws, litColon, ws, args, ws, litBraceClose), nil
	})
	apertus.Tag = jsonTag(func(n string) string { return `<|tools_prefix|>[{` + jsonName(n) + `: ` }, "}]<|tools_suffix|>")
	callSyntaxes["apertus"] = think(apertus, "<|inner_prefix|>", "<|inner_suffix|>")

	// The name outside the JSON arguments.
	named := func(cs CallSyntax, call func(b *Builder, i int, args string) string) CallSyntax {
		cs.Call = func(b *Builder, i int) (string, error) {
			args, err := b.Args(i)
			if err != nil {
				return "", err
			}
			return call(b, i, args), nil
		}
		return cs
	}
	mistralID := "(" + seqOf(lit("[CALL_ID]"), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}), 9, 9)) + ")?"
	litToolCalls, litArgs := lit("[TOOL_CALLS]"), lit("[ARGS]")
	mistral := named(CallSyntax{Triggers: []string{"[TOOL_CALLS]"}}, func(b *Builder, i int, args string) string {
		return seqOf(litToolCalls, b.Name(i), mistralID, litArgs, args)
	})
	mistral.Tag = jsonTag(func(n string) string { return "[TOOL_CALLS]" + n + "[ARGS]" }, "")
	callSyntaxes["mistral-v11-args"] = think(mistral, "[THINK]", "[/THINK]")

	dsv3Begin, dsv3JSON, dsv3End := lit("<｜tool▁call▁begin｜>function<｜tool▁sep｜>"), lit("\n```json\n"), lit("\n```<｜tool▁call▁end｜>")
	dsv3 := named(CallSyntax{
		Triggers: []string{"<｜tool▁calls▁begin｜>"},
		Open:     lit("<｜tool▁calls▁begin｜>"),
		Sep:      opt("\n"),
		Close:    opt("<｜tool▁calls▁end｜>"),
	}, func(b *Builder, i int, args string) string {
		return seqOf(dsv3Begin, b.Name(i), dsv3JSON, args, dsv3End)
	})
	dsv3.Tag = jsonTag(func(n string) string {
		return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>" + n + "\n```json\n"
	}, "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
	callSyntaxes["deepseek-v3"] = think(dsv3, "<think>", "</think>")

	dsv31Begin, dsv31Sep, dsv31End := lit("<｜tool▁call▁begin｜>"), lit("<｜tool▁sep｜>"), lit("<｜tool▁call▁end｜>")
	dsv31 := named(CallSyntax{
		Triggers: []string{"<｜tool▁calls▁begin｜>"},
		Open:     lit("<｜tool▁calls▁begin｜>"),
		Close:    lit("<｜tool▁calls▁end｜>"),
	}, func(b *Builder, i int, args string) string {
		return seqOf(dsv31Begin, b.Name(i), dsv31Sep, args, dsv31End)
	})
	dsv31.Tag = jsonTag(func(n string) string {
		return "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>" + n + "<｜tool▁sep｜>"
	}, "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
	callSyntaxes["deepseek-v3.1"] = think(dsv31, "<think>", "</think>")

	kimi2Index := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 6)
	kimiBegin, kimiArgs, kimiEnd := lit("<|tool_call_begin|>functions."), lit("<|tool_call_argument_begin|>"), lit("<|tool_call_end|>")
	kimi := named(CallSyntax{
		Triggers: []string{"<|tool_calls_section_begin|>"},
		Open:     lit("<|tool_calls_section_begin|>"),
		Close:    lit("<|tool_calls_section_end|>"),
	}, func(b *Builder, i int, args string) string {
		return seqOf(kimiBegin, b.Name(i), litColon, kimi2Index, kimiArgs, args, kimiEnd)
	})
	kimi.Tag = jsonTag(func(n string) string {
		return "<|tool_calls_section_begin|><|tool_call_begin|>functions." + n + ":0<|tool_call_argument_begin|>"
	}, "<|tool_call_end|><|tool_calls_section_end|>")
	callSyntaxes["kimi-k2"] = think(kimi, "<think>", "</think>")

	fv31Open, fv31Gt, fv31Close := lit("<function="), lit(">"), lit("</function>")
	fv31 := named(CallSyntax{Triggers: []string{"<function="}}, func(b *Builder, i int, args string) string {
		return seqOf(fv31Open, b.Name(i), fv31Gt, args, fv31Close)
	})
	fv31.Tag = jsonTag(func(n string) string { return "<function=" + n + ">" }, "</function>")
	callSyntaxes["functionary-v3.1"] = &fv31

	// Functionary v3.2: the prompt ends with ">>>", so the first recipient
	// comes without it.
	litNewline := lit("\n")
	fv32 := named(CallSyntax{Triggers: []string{">>>"}, Open: opt(">>>"), Sep: lit(">>>")}, func(b *Builder, i int, args string) string {
		return seqOf(b.Name(i), litNewline, args)
	})
	callSyntaxes["functionary-v3.2"] = &fv32

	// gpt-oss: the model writes the channel first; the template writes
	// history calls with the recipient first. Generation stops at <|call|>.
	harmonyConstrain := seqOf(opt(" "), opt("<|constrain|>"), opt("json"))
	litChannelTo, litTo, litChannel := lit("<|channel|>commentary to=functions."), lit(" to=functions."), lit("<|channel|>commentary")
	litMessage, litCall := lit("<|message|>"), lit("<|call|>")
	harmony := named(CallSyntax{
		Triggers: []string{"<|channel|>commentary to=functions.", "<|start|>assistant to=functions."},
		Open:     opt("<|start|>assistant"),
		Single:   true,
	}, func(b *Builder, i int, args string) string {
		name := b.Name(i)
		channelFirst := seqOf(litChannelTo, name, harmonyConstrain)
		recipientFirst := seqOf(litTo, name, litChannel, harmonyConstrain)
		return seqOf("("+channelFirst+" | "+recipientFirst+")", litMessage, args, litCall)
	})
	harmony.Tag = jsonTag(func(n string) string {
		return "<|channel|>commentary to=functions." + n + " <|constrain|>json<|message|>"
	}, "<|call|>")
	callSyntaxes["gpt-oss-harmony"] = think(harmony, "<|channel|>analysis<|message|>", "<|end|>")

	solarID := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: '0', Hi: '9'}), 9, 10) // ten in the template's examples; nine-character ids from clients (Mistral's) pass through
	solarBegin, solarName, solarArgs, solarEnd := lit("<|tool_call:begin|>"), lit("<|tool_call:name|>"), lit("<|tool_call:args|>"), lit("<|tool_call:end|>")
	solar := named(CallSyntax{
		Triggers: []string{"<|tool_calls|>"},
		Open:     seqOf(opt("<|begin|>assistant"), lit("<|tool_calls|>")),
		Close:    lit("<|calls|>"),
	}, func(b *Builder, i int, args string) string {
		return seqOf(solarBegin, solarID, solarName, b.Name(i), solarArgs, args, solarEnd)
	})
	callSyntaxes["solar-open"] = think(solar, "<|think|>", "<|end|>")

	// Gemma 4 and FunctionGemma: call:NAME{key:value,...}, strings between
	// special quotes, keys bare; Gemma 4's templates sort the keys.
	gemma := func(open, close, quote string, sorted bool) CallSyntax {
		litCall, litBrace, closeSeq := lit(open+"call:"), lit("{"), seqOf(lit("}"+close))
		return CallSyntax{
			Triggers: []string{open},
			Call: func(b *Builder, i int) (string, error) {
				v := Value{Sep: litComma, Sorted: sorted, Nested: true}
				v.Encode = func(m grammar.Member) string { return gemmaValue(b, m, quote, v) }
				return b.paramsBetween(i, seqOf(litCall, b.Name(i), litBrace), closeSeq, v,
					keyValue(":"))
			},
		}
	}
	callSyntaxes["gemma4"] = think(gemma("<|tool_call>", "<tool_call|>", `<|"|>`, true), "<|channel>thought\n", "<channel|>")
	fg := gemma("<start_function_call>", "<end_function_call>", "<escape>", false)
	callSyntaxes["functiongemma"] = &fg

	// Python call syntax: NAME(key=value, ...), values Python literals.
	litParen, litParenClose, litCommaSpace := lit("("), lit(")"), lit(", ")
	// unescapedQuotes: the family's template leaves quotes in strings
	// unescaped (Value.UnescapedQuotes).
	pyCall := func(unescapedQuotes bool) func(b *Builder, i int) (string, error) {
		return func(b *Builder, i int) (string, error) {
			v := Value{Sep: litCommaSpace, Nested: true, UnescapedQuotes: unescapedQuotes}
			v.Encode = func(m grammar.Member) string { return pythonValue(b, m, v) }
			return b.paramsBetween(i, seqOf(b.Name(i), litParen), litParenClose, v, keyValue("="))
		}
	}
	pyTriggers := func(tools []chat.Tool) []string {
		var out []string
		for _, t := range tools {
			out = append(out, "["+t.Function.Name+"(")
		}
		return out
	}
	callSyntaxes["pythonic"] = &CallSyntax{
		Triggers: []string{"<|python_start|>"}, TriggersFor: pyTriggers,
		Open: seqOf(opt("<|python_start|>"), lit("[")), Sep: lit(", "), Close: seqOf(lit("]"), opt("<|python_end|>")),
		Call: pyCall(false),
	}
	callSyntaxes["lfm2"] = &CallSyntax{
		Triggers: []string{"<|tool_call_start|>"},
		Open:     lit("<|tool_call_start|>["), Sep: lit(", "), Close: lit("]<|tool_call_end|>"),
		Call:      pyCall(true), // LFM2.5 writes 'it's'
		ThinkOpen: "<think>", ThinkClose: "</think>",
	}
	callSyntaxes["olmo3"] = &CallSyntax{
		Triggers: []string{"<function_calls>"},
		Open:     lit("<function_calls>"), Sep: lit("\n"), Close: lit("</function_calls>"),
		Call:      pyCall(false),
		ThinkOpen: "<think>", ThinkClose: "</think>",
	}

	// Kimi K3: typed argument elements; strings raw, other values JSON.
	kimiCall, kimiCallClose := lit(`<|open|>call tool="`), seqOf(lit("<|close|>call<|sep|>"))
	kimiIndex := seqOf(lit(`" index="`), grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 4), lit(`"<|sep|>`))
	kimiParam := paramTags{KeyOpen: `<|open|>argument key="`, Attr: `" type="`, AttrValue: kimiType, KeyClose: `"<|sep|>`,
		After: []string{lit("<|close|>argument<|sep|>")}}
	callSyntaxes["kimi-k3"] = &CallSyntax{
		Triggers: []string{"<|open|>tools<|sep|>"},
		Open:     seqOf(opt("<|open|>response<|sep|><|close|>response<|sep|>"), lit("<|open|>tools<|sep|>")),
		Close:    lit("<|close|>tools<|sep|>"),
		Call: func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqs(seqOf(kimiCall, b.Name(i)), kimiIndex), kimiCallClose, Value{Stop: "<|close|>"}, paramOf{write: kimiParam.write})
		},
		ThinkOpen: "<|open|>think<|sep|>", ThinkClose: "<|close|>think<|sep|>",
	}

	// MiniMax M3: every tag behind the namespace token; one element per
	// argument, named after it; arrays as <item> elements, objects as
	// nested elements (their names are not checked against the schema).
	const ns = "]<]minimax[>["
	minimaxInvoke, minimaxInvokeEnd := lit(ns+`<invoke name="`), lit(ns+"</invoke>")
	callSyntaxes["minimax-m3"] = &CallSyntax{
		Triggers: []string{ns + "<tool_call>"},
		Open:     seqOf(lit(ns+"<tool_call>"), opt("\n")),
		Sep:      opt("\n"),
		Close:    seqOf(opt("\n"), lit(ns+"</tool_call>")),
		Call: func(b *Builder, i int) (string, error) {
			v := Value{Nested: true}
			v.Encode = func(m grammar.Member) string { return minimaxValue(b, m, ns, v) }
			ps, err := b.Params(i, v, func(m grammar.Member, value string) string { return minimaxElement(ns, m.Name, value) })
			if err != nil {
				return "", err
			}
			return seqOf(minimaxInvoke, b.Name(i), litTagEnd, ps, minimaxInvokeEnd), nil
		},
		ThinkOpen: "<mm:think>", ThinkClose: "</mm:think>",
	}
	glimmerTo, glimmerInvoke := lit(" to="), seqOf(lit("<|message|><atem:function_calls>"), opt("\n"), lit(`<atem:invoke name="`))
	glimmerInvokeEnd, glimmerClose := seqOf(lit(`">`), opt("\n")), seqOf(lit("</atem:invoke>"), opt("\n"), lit("</atem:function_calls>"))
	glimmerParam := paramTags{KeyOpen: `<atem:parameter name="`, KeyClose: `">`, After: []string{lit("</atem:parameter>"), opt("\n")}}
	// Muse Glimmer: each call is a message to the function (the prompt ends
	// "<|start|>assistant"), its body an ATEM invocation; "to=self" is
	// reasoning.
	callSyntaxes["muse-glimmer"] = &CallSyntax{
		TriggersFor: func(tools []chat.Tool) []string {
			var out []string
			for _, t := range tools {
				out = append(out, " to="+t.Function.Name+"<|message|>")
			}
			return out
		},
		Open: opt("<|start|>assistant"),
		Sep:  lit("<|eom|><|start|>assistant"),
		Call: func(b *Builder, i int) (string, error) {
			return b.paramsBetween(i, seqs(seqOf(glimmerTo, b.Name(i)), glimmerInvoke, seqOf(b.Name(i)), glimmerInvokeEnd), glimmerClose,
				Value{Stop: "</atem:parameter>"}, paramOf{write: glimmerParam.write})
		},
		ThinkOpen: " to=self<|message|>", ThinkClose: "<|eom|>",
	}
	return callSyntaxes
}

// gemmaValue is one argument in Gemma's key:value syntax: strings between
// quote markers, numbers and booleans bare, objects ({key:value,...}, keys
// bare, sorted where the arguments are) and arrays ([a,b]) in the same
// syntax, typed by the schema where it declares their properties or items
// (v says how the arguments are written), any such value otherwise.
func gemmaValue(b *Builder, m grammar.Member, quote string, v Value) string {
	str := b.Rule("gemma-string", func() string { return seqOf(lit(quote), b.G.TextWithout(quote), lit(quote)) })
	if len(m.Enum) > 0 {
		q := seqOf(lit(quote))                                  // parenthesised when it holds a '|'
		return q + " " + grammar.Alternatives(m.Enum) + " " + q // seqOf's, in one piece
	}
	switch m.Type {
	case "string", "":
		return str
	case "integer", "number":
		return m.Value
	case "boolean":
		return `("true" | "false")`
	case "null":
		return `"null"`
	case "object":
		if len(m.Properties) > 0 {
			body := b.arguments("", "", func() string { return "gemma-rest" }, m.Properties, v, keyValue(":"))
			return seqOf(litBrace, body, litBraceClose)
		}
	case "array":
		if m.Items != nil {
			item := gemmaValue(b, *m.Items, quote, v)
			return seqOf(litBracket, "("+seqOf(item, "("+seqOf(litComma, item)+")*")+")?", litBracketClose)
		}
	}
	return b.Rule("gemma-value", func() string {
		key := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}, grammar.Range{Lo: '_', Hi: '_'}), 1, 64)
		num := plainNumber()
		self := "gemma-value"
		if name, ok := b.rules["gemma-value"]; ok {
			self = name
		}
		member := seqOf(key, lit(":"), self)
		return strings.Join([]string{str, "(" + num + ")", `"true"`, `"false"`, `"null"`,
			seqOf(lit("{"), "("+seqOf(member, "("+seqOf(lit(","), member)+")*")+")?", lit("}")),
			seqOf(lit("["), "("+seqOf(self, "("+seqOf(lit(","), self)+")*")+")?", lit("]"))}, " | ")
	})
}

// pythonValue is one argument as a Python literal: strings single- or
// double-quoted, True/False/None (and JSON's spellings, which the LFM2.5
// and OLMo 3 templates write inside dicts), lists and dicts of literals,
// typed where the schema declares a dict's properties (keys quoted either
// way, in the schema's order) or a list's items (v says how the arguments
// are written).
func pythonValue(b *Builder, m grammar.Member, v Value) string {
	key := "py-string"
	if v.UnescapedQuotes {
		key = "py-string-unescaped"
	}
	str := b.Rule(key, func() string {
		// Raw newlines are allowed inside the quotes: templates write the
		// text as it is (LFM2.5), though Python would not.
		quoteInside := ""
		if v.UnescapedQuotes {
			// A quote followed, after spaces, by anything but a delimiter,
			// a space, a quote or a backslash: the parser reads it as text.
			space := grammar.Class(false, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\t', Hi: '\t'})
			notDelimiter := grammar.Class(true, grammar.Range{Lo: ',', Hi: ','}, grammar.Range{Lo: ')', Hi: ')'}, grammar.Range{Lo: ']', Hi: ']'},
				grammar.Range{Lo: '}', Hi: '}'}, grammar.Range{Lo: ':', Hi: ':'}, grammar.Range{Lo: ' ', Hi: ' '}, grammar.Range{Lo: '\t', Hi: '\t'},
				grammar.Range{Lo: '\'', Hi: '\''}, grammar.Range{Lo: '\\', Hi: '\\'})
			quoteInside = " | " + seqOf(lit("'"), grammar.Repeat(space, 0, -1), notDelimiter)
		}
		single := seqOf(lit("'"), "("+grammar.Class(true, grammar.Range{Lo: '\'', Hi: '\''}, grammar.Range{Lo: '\\', Hi: '\\'})+" | "+seqOf(lit("\\"), ".")+quoteInside+")*", lit("'"))
		double := seqOf(lit(`"`), "("+grammar.Class(true, grammar.Range{Lo: '"', Hi: '"'}, grammar.Range{Lo: '\\', Hi: '\\'})+" | "+seqOf(lit("\\"), ".")+")*", lit(`"`))
		return single + " | " + double
	})
	if len(m.Enum) > 0 {
		// seqOf(lit("'"), values, lit("'")) | the same in double quotes, in one piece.
		values := grammar.Alternatives(m.Enum)
		return "(" + litSingleQuote + " " + values + " " + litSingleQuote + " | " + litDoubleQuote + " " + values + " " + litDoubleQuote + ")"
	}
	switch m.Type {
	case "string", "":
		return str
	case "integer", "number":
		return m.Value
	case "boolean":
		return `("True" | "False" | "true" | "false")`
	case "null":
		return `("None" | "null")`
	case "object":
		if len(m.Properties) > 0 {
			body := b.Arguments(func() string { return "py-rest" }, m.Properties, Value{Sep: pyItemSep, Encode: v.Encode},
				func(p grammar.Member, value string) string {
					key := "(" + seqOf(lit("'"+p.Name+"'")) + " | " + lit(`"`+p.Name+`"`) + ")"
					return seqOf(key, litColon, optSpace, value)
				})
			return seqOf(litBrace, body, litBraceClose)
		}
	case "array":
		if m.Items != nil {
			item := pythonValue(b, *m.Items, v)
			return seqOf(litBracket, "("+seqOf(item, "("+seqOf(pyItemSep, item)+")*")+")?", litBracketClose)
		}
	}
	return b.Rule("py-value", func() string {
		self := b.rules["py-value"]
		num := plainNumber()
		item := seqOf(str, lit(":"), opt(" "), self)
		return strings.Join([]string{str, "(" + num + ")", `"True"`, `"False"`, `"None"`, `"true"`, `"false"`, `"null"`,
			seqOf(lit("["), "("+seqOf(self, "("+seqOf(lit(","), opt(" "), self)+")*")+")?", lit("]")),
			seqOf(lit("{"), "("+seqOf(item, "("+seqOf(lit(","), opt(" "), item)+")*")+")?", lit("}"))}, " | ")
	})
}

// minimaxValue is one argument of MiniMax M3: scalars as raw text, arrays as
// <item> elements, objects as nested elements (in the schema's order, typed
// where the schema declares their properties or items; v says how the
// arguments are written).
func minimaxValue(b *Builder, m grammar.Member, ns string, v Value) string {
	text := b.G.TextWithout(ns)
	if len(m.Enum) > 0 {
		return grammar.Alternatives(m.Enum)
	}
	switch m.Type {
	case "string", "", "integer", "number":
		if m.Type == "integer" || m.Type == "number" {
			return m.Value
		}
		return text
	case "boolean":
		return `("true" | "false")`
	case "null":
		return `""`
	case "object":
		if len(m.Properties) > 0 {
			return "(" + b.Arguments(func() string { return "minimax-rest" }, m.Properties, v,
				func(p grammar.Member, value string) string { return minimaxElement(ns, p.Name, value) }) + ")"
		}
	case "array":
		if m.Items != nil {
			return "(" + minimaxElement(ns, "item", minimaxValue(b, *m.Items, ns, v)) + ")*"
		}
	}
	return b.Rule("minimax-elements", func() string {
		self := b.rules["minimax-elements"]
		name := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: 'a', Hi: 'z'}, grammar.Range{Lo: 'A', Hi: 'Z'}, grammar.Range{Lo: '0', Hi: '9'}, grammar.Range{Lo: '_', Hi: '_'}), 1, 64)
		element := seqOf(lit(ns+"<"), name, lit(">"), self, lit(ns+"</"), name, lit(">"))
		return "(" + text + " | (" + element + ")+)"
	})
}

// minimaxElement is one MiniMax M3 element: ns<name>value ns</name>.
func minimaxElement(ns, name, value string) string {
	return seqOf(litOf(ns, "<", name, ">"), value, litOf(ns, "</", name, ">"))
}

// kimiType is the type attribute Kimi K3's template writes for a value.
func kimiType(m grammar.Member) string {
	switch m.Type {
	case "integer", "number":
		return "number"
	case "boolean", "null", "object", "array":
		return m.Type
	}
	return "string"
}

// plainNumber is a number written bare in a value syntax of a family's own:
// a sign, up to 20 digits, an optional fraction.
func plainNumber() string {
	digits := grammar.Repeat(grammar.Class(false, grammar.Range{Lo: '0', Hi: '9'}), 1, 20)
	return seqOf(opt("-"), digits, "("+seqOf(lit("."), digits)+")?")
}
