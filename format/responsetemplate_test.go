package format_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/format/response"
)

// This file is an external test package so that it can import
// format/response (which imports format) and still use the vectors and
// options the family parsers are tested with (export_test.go).

// Every family either has a response template or says why the spec cannot
// express it; never both, never neither.
func TestEveryFamilyHasResponseTemplateOrReason(t *testing.T) {
	for _, f := range format.Families() {
		has, why := f.ResponseTemplate != nil, f.NoResponseTemplate != ""
		if has == why {
			t.Errorf("%s: has a template %v, a reason %q: want exactly one", f.ID, has, f.NoResponseTemplate)
		}
	}
}

// loadFamilyTemplate marshals a family's template and loads it as a
// checkpoint's would be: it must load without a note.
func loadFamilyTemplate(t *testing.T, f *format.Family) *response.Template {
	t.Helper()
	data, err := f.ResponseTemplate().JSON()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := response.Load(data)
	if err != nil {
		t.Fatalf("%s: the template does not load: %v\n%s", f.ID, err, data)
	}
	if len(tpl.Notes) > 0 {
		t.Errorf("%s: load-time notes %q", f.ID, tpl.Notes)
	}
	return tpl
}

func TestFamilyResponseTemplatesLoad(t *testing.T) {
	n := 0
	for _, f := range format.Families() {
		if f.ResponseTemplate != nil {
			loadFamilyTemplate(t, f)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no family has a response template")
	}
}

// hy3Bare: HY3's tags without their suffix (a tokenizer setting) are read
// by the parser; the response template, like the grammar, has the template's.
const hy3Bare = "tags without :opensource: the response template has the template's tags only"

// mistralNoArgs: a call whose [ARGS] the detokenizer dropped is read by the
// parser; the response template has the template's markup.
const mistralNoArgs = "[ARGS] dropped by the detokenizer: the parser reads name{…}; the response template has the template's markup"

// kimiIDNoName: a Kimi call whose reference names no tool is read by the
// parser as the offered tool its arguments fit; the template reads the name
// from functions.NAME:IDX only.
const kimiIDNoName = "a call reference that names no tool (call_3, 0): the parser finds the tool by its arguments, the template reads functions.NAME only"

// templateDiffers lists the vectors on which a family's template
// legitimately reads differently from the family's parser, with the reason.
// Each is run and must still differ: one that now agrees must leave the list.
var templateDiffers = map[string]string{
	"dragoman-kimi-k2-13":                kimiIDNoName,
	"dragoman-kimi-k2-14":                kimiIDNoName,
	"dragoman-kimi-k2-15":                kimiIDNoName,
	"dragoman-kimi-k2-16":                kimiIDNoName,
	"dragoman-kimi-k2-17":                kimiIDNoName,
	"sglang-05400c2a-316":                museToUser,
	"sglang-05400c2a-324":                museToUser,
	"vllm-0eb73d6-327":                   mistralNoArgs,
	"vllm-0eb73d6-328":                   mistralNoArgs,
	"vllm-0eb73d6-329":                   mistralNoArgs,
	"vllm-0eb73d6-331":                   mistralNoArgs,
	"vllm-0eb73d6-341":                   mistralNoArgs,
	"vllm-0eb73d6-342":                   mistralNoArgs,
	"vllm-0eb73d6-343":                   mistralNoArgs,
	"vllm-0eb73d6-561":                   hy3Bare,
	"vllm-0eb73d6-562":                   hy3Bare,
	"vllm-0eb73d6-563":                   hy3Bare,
	"vllm-0eb73d6-564":                   hy3Bare,
	"vllm-0eb73d6-565":                   hy3Bare,
	"vllm-0eb73d6-566":                   hy3Bare,
	"vllm-0eb73d6-567":                   hy3Bare,
	"vllm-0eb73d6-569":                   hy3Bare,
	"vllm-0eb73d6-570":                   hy3Bare,
	"vllm-0eb73d6-571":                   hy3Bare,
	"vllm-0eb73d6-572":                   hy3Bare,
	"vllm-0eb73d6-573":                   hy3Bare,
	"dragoman-hunyuan-hy3-13":            hy3Bare,
	"dragoman-mistral-v11-args-12":       mistralNoArgs,
	"dragoman-hunyuan-hy3-14":            hy3Bare,
	"dragoman-apriel-02":                 listIDs,
	"dragoman-apriel-06":                 listIDs,
	"dragoman-apriel-08":                 listIDs,
	"dragoman-deepseek-v3-08":            keptAfter,
	"dragoman-deepseek-v3.1-15":          "a tool-output marker in reasoning stays: regions do not nest, so the field that drops it cannot open there",
	"dragoman-firefunction-v2-04":        textAfterJSON,
	"dragoman-firefunction-v2-08":        keptAfter,
	"dragoman-functionary-v3.1-05":       "<|python_tag|> code (a call to the built-in python) is not in the template",
	"dragoman-functionary-v3.1-07":       closeInString,
	"dragoman-functionary-v3.2-07":       closeInString,
	"dragoman-functionary-v3.2-10":       "a message to python (raw code) is not in the template",
	"dragoman-functiongemma-09":          keptAfter,
	"dragoman-gemma4-09":                 keptAfter,
	"dragoman-gemma4-14":                 severalKeyValueCalls,
	"dragoman-gigachat3-06":              textAfterJSON,
	"dragoman-glm-4.5-4.7-08":            escapedValues,
	"dragoman-glm-4.5-4.7-11":            truncatedCall,
	"dragoman-glm-4.5-4.7-12":            unpairedKey,
	"dragoman-granite-04":                textAfterJSON,
	"dragoman-hermes-11":                 keptAfter,
	"dragoman-hunyuan-hy3-10":            truncatedCall,
	"dragoman-hunyuan-hy3-12":            unpairedKey,
	"dragoman-internlm2-03":              "an \"arguments\" member, which the parser takes besides \"parameters\", is not read by the template",
	"dragoman-kimi-k2-10":                keptAfter,
	"dragoman-laguna-05":                 jsonBody,
	"dragoman-laguna-10":                 truncatedCall,
	"dragoman-laguna-11":                 "with reasoning turned off the parser keeps a bare </think> as content; a template cannot see the request's options",
	"dragoman-longcat-04":                jsonBody,
	"dragoman-longcat-09":                truncatedCall,
	"dragoman-minicpm5-08":               pythonLiterals,
	"dragoman-minicpm5-10":               truncatedCall,
	"dragoman-minimax-m2-09":             truncatedCall,
	"dragoman-mistral-legacy-array-02":   listIDs,
	"dragoman-mistral-legacy-array-03":   listIDs,
	"dragoman-mistral-legacy-array-04":   textAfterJSON,
	"dragoman-mistral-legacy-array-08":   keptAfter,
	"dragoman-mistral-v11-args-04":       textAfterJSON,
	"dragoman-mistral-v11-args-09":       keptAfter,
	"dragoman-mistral-v11-args-11":       "the legacy JSON array after [TOOL_CALLS], which the parser also reads, is not in the template",
	"dragoman-muse-glimmer-08":           truncatedCall,
	"dragoman-muse-glimmer-12":           museToUser,
	"dragoman-muse-glimmer-13":           museToUser,
	"dragoman-nemotron-toolcall-json-09": keptAfter,
	"dragoman-qwen3-coder-xml-08":        pythonLiterals,
	"dragoman-qwen3-coder-xml-10":        truncatedCall,
	"dragoman-qwen3-coder-xml-17":        bareFunctionProse,
	"dragoman-qwen3-coder-xml-19":        bareFunctionProse,
	"dragoman-qwen3-coder-xml-21":        bareFunctionProse,
	"dragoman-qwen3-coder-xml-22":        bareFunctionProse,
	"dragoman-seed-oss-05":               pythonLiterals,
	"dragoman-seed-oss-09":               truncatedCall,
	"dragoman-step3-01":                  startsInReasoning,
	"dragoman-step3-05":                  startsInReasoning,
	"dragoman-step3-11":                  truncatedCall,
	"mlx-lm-035":                         pythonLiterals,
	"mlxlm-d78bf58e-003":                 severalKeyValueCalls,
	"mlxlm-d78bf58e-004":                 severalKeyValueCalls,
	"mlxlm-d78bf58e-010":                 jsonBody,
	"mlxlm-d78bf58e-011":                 "a name followed by text that is not <arg_key> pairs (multiply a=1 b=2) makes the call malformed for the parser; the template reads a call from it",
	"mlxlm-d78bf58e-017":                 jsonBody,
	"mlxlm-d78bf58e-025":                 jsonBody,
	"llamacpp-de3ff81-033":               "a call inside the reasoning: the parser ends the reasoning there and reads the call; the template's reasoning region runs to its close marker",
	"llamacpp-de3ff81-050":               truncatedText,
	"llamacpp-de3ff81-061":               truncatedText,
	"llamacpp-de3ff81-064":               "a thought block without its newline (<|channel>thought<channel|>): the parser takes it as an empty block, the template's open marker needs the newline",
	"llamacpp-de3ff81-087":               "a repeated <|channel> before the thought block: the parser opens the reasoning at the first, the template at the whole marker",
	"llamacpp-de3ff81-131":               stringUnion,
	"llamacpp-de3ff81-133":               stringUnion,
	"llamacpp-de3ff81-195":               truncatedText,
	"llamacpp-de3ff81-199":               "a bare <|tool_call_begin|> without <|tool_calls_section_begin|>: the template's call field reads it, the parser needs the section",
	"llamacpp-de3ff81-313":               listIDs,
	"llamacpp-de3ff81-379":               museToUser,
	"llamacpp-de3ff81-380":               "a call inside a message to self: the parser keeps the text after it in the reasoning, the template's reasoning region ends at the call",
	"llamacpp-de3ff81-390":               "a call addressed in the analysis channel (to=functions.N<|channel|>analysis), which the parser reads; the template reads that channel as reasoning",
	"llamacpp-de3ff81-392":               "a final message with a <|constrain|> type, whose header the parser drops; the template's final header has no <|constrain|>",
	"llamacpp-de3ff81-393":               builtinRecipient,
	"llamacpp-de3ff81-394":               builtinRecipient,
	"llamacpp-de3ff81-395":               assistantCommentary,
	"llamacpp-de3ff81-396":               assistantCommentary,
	"llamacpp-de3ff81-424":               "a CDATA section holding </param>: the parser reads the value to the CDATA end, the template's value ends at the first </param>",
	"sglang-052":                         escapedValues,
	"sglang-078":                         "a malformed call is kept with the message separator its opener took, which the parser drops",
	"sglang-05400c2a-022":                "a section cut off after a complete call: the template returns that call and keeps the rest as content; the parser keeps the whole section as content",
	"sglang-05400c2a-043":                escapedValues,
	"sglang-05400c2a-046":                escapedValues,
	"sglang-05400c2a-054":                escapedValues,
	"sglang-05400c2a-056":                escapedValues,
	"sglang-05400c2a-057":                escapedValues,
	"sglang-05400c2a-077":                textAfterJSON,
	"sglang-05400c2a-078":                textAfterJSON,
	"sglang-05400c2a-079":                "a call without a name: the template's transform drops the region; the parser keeps it as content (Decision 9)",
	"sglang-05400c2a-081":                "arguments given as a string that is not JSON: the template passes the string on as the arguments; the parser keeps the call as content (malformed)",
	"sglang-05400c2a-085":                textAfterJSON,
	"sglang-05400c2a-086":                "a malformed call is kept with the message separator its opener took, which the parser drops",
	"sglang-05400c2a-116":                kimiIDName,
	"sglang-05400c2a-125":                kimiIDName,
	"sglang-05400c2a-126":                kimiIDName,
	"sglang-05400c2a-127":                kimiIDName,
	"sglang-05400c2a-128":                kimiIDName,
	"sglang-05400c2a-129":                kimiIDName,
	"sglang-05400c2a-130":                kimiIDName,
	"sglang-05400c2a-131":                kimiIDName,
	"sglang-05400c2a-132":                kimiIDName,
	"sglang-05400c2a-133":                kimiIDName,
	"sglang-05400c2a-134":                kimiIDName,
	"sglang-05400c2a-135":                kimiIDName,
	"sglang-05400c2a-136":                kimiIDName,
	"sglang-05400c2a-137":                kimiIDName,
	"sglang-05400c2a-138":                kimiIDName,
	"sglang-05400c2a-139":                kimiIDName,
	"sglang-05400c2a-140":                kimiIDName,
	"sglang-05400c2a-141":                kimiIDName,
	"sglang-05400c2a-142":                kimiIDName,
	"sglang-05400c2a-143":                kimiIDName,
	"sglang-05400c2a-144":                kimiIDName,
	"sglang-05400c2a-174":                escapedValues,
	"sglang-05400c2a-182":                truncatedCall,
	"sglang-05400c2a-183":                truncatedCall,
	"sglang-05400c2a-184":                truncatedCall,
	"sglang-05400c2a-185":                truncatedCall,
	"sglang-05400c2a-186":                truncatedCall,
	"sglang-05400c2a-199":                "Decision 7: the parser keeps a value for a parameter that may be a string exactly (null stays \"null\"); the spec's casting makes it null",
	"sglang-05400c2a-202":                truncatedCall,
	"sglang-05400c2a-212":                "a <param> without a name: the template's tag pattern skips it and reads a call; the parser keeps the block as content (malformed)",
	"sglang-05400c2a-305":                keptAfter,
	"sglang-05400c2a-315":                "an ATEM block inside a to=self message: the template ends the reasoning at <atem:function_calls> and what follows the block is content; the parser goes back to the reasoning",
	"sglang-05400c2a-317":                "an ATEM block inside a to=self message: the template ends the reasoning at <atem:function_calls> and what follows the block is content; the parser goes back to the reasoning",
	"sglang-05400c2a-318":                truncatedCall,
	"sglang-05400c2a-329":                "two to=self messages: the template joins their reasoning with a blank line, the parser with nothing (a known gap, docs/DECISIONS.md)",
	"sglang-05400c2a-338":                "a <param> without a name: the template's tag pattern skips it and reads a call; the parser keeps the block as content (malformed)",
	"sglang-05400c2a-372":                "no <tool_sep:opensource> after the name: the parser reads the call, the template's call pattern needs the separator",
	"sglang-05400c2a-373":                "no <tool_sep:opensource> after the name: the parser reads the call, the template's call pattern needs the separator",
	"sglang-05400c2a-428":                "a bare <｜tool▁call▁begin｜> without <｜tool▁calls▁begin｜>: the template's call field opens there; the parser needs the section marker (FORMATS.md deepseek-v3.1)",
	"sglang-05400c2a-429":                "a bare <｜tool▁call▁begin｜> without <｜tool▁calls▁begin｜>: the template's call field opens there; the parser needs the section marker (FORMATS.md deepseek-v3.1)",
	"sglang-05400c2a-430":                "a bare <｜tool▁call▁begin｜> without <｜tool▁calls▁begin｜>: the template's call field opens there; the parser needs the section marker (FORMATS.md deepseek-v3.1)",
	"sglang-05400c2a-468":                startsInReasoning,
	"sglang-05400c2a-469":                startsInReasoning,
	"sglang-05400c2a-475":                startsInReasoning,
	"sglang-05400c2a-476":                startsInReasoning,
	"sglang-05400c2a-365":                nonObjectList,
	"sglang-05400c2a-366":                nonObjectList,
	"sglang-05400c2a-367":                nonObjectList,
	"sglang-05400c2a-368":                nonObjectList,
	"sglang-05400c2a-369":                nonObjectList,
	"ollama17-039":                       keptAfter,
	"ollama17-060":                       nameSpace,
	"ollama17-069":                       "a name holding markup (</tool) makes the call malformed for the parser; the template's name pattern takes it",
	"ollama17-116":                       textAfterJSON,
	"ollama17-194":                       keptAfter,
	"ollama17-224":                       nameSpace,
	// vLLM's tool-parser tests (testdata/vectors/peer-vllm-0eb73d6.jsonl).
	"vllm-0eb73d6-659": "a schema type \"float\" (not a JSON Schema type): the parser types the value as a number, the template's casting does not",
	"vllm-0eb73d6-608": "a <param> without a name makes the call malformed for the parser; the template's pattern skips it and reads a call",
	"vllm-0eb73d6-009": "arguments written as a JSON string that holds no object: a malformed call for the parser, a call for the template",
	"vllm-0eb73d6-017": "arguments written as a JSON string that holds no object: a malformed call for the parser, a call for the template",
	"vllm-0eb73d6-024": "arguments written as a JSON string that holds no object: a malformed call for the parser, a call for the template",
	"vllm-0eb73d6-033": "a schema type \"float\" (not a JSON Schema type): the parser types the value as a number, the template's casting does not",
	"vllm-0eb73d6-153": "an id without the functions. prefix (get_weather:0): the parser takes the name before the colon, the template's id pattern needs the prefix",
	"vllm-0eb73d6-155": keptAfter,
	"vllm-0eb73d6-156": "an id without :IDX (functions.invalid.0): the parser takes the name from it, the template's id pattern does not match",
	"vllm-0eb73d6-160": bareCounter,
	"vllm-0eb73d6-162": bareCounter,
	"vllm-0eb73d6-163": bareCounter,
	"vllm-0eb73d6-167": bareCounter,
	"vllm-0eb73d6-168": bareCounter,
	"vllm-0eb73d6-174": keptAfter,
	"vllm-0eb73d6-324": textAfterJSON,
	"vllm-0eb73d6-340": textAfterJSON,
	"vllm-0eb73d6-372": jsonBody,
	"vllm-0eb73d6-373": jsonBody,
	"vllm-0eb73d6-374": jsonBody,
	"vllm-0eb73d6-375": jsonBody,
	"vllm-0eb73d6-376": jsonBody,
	"vllm-0eb73d6-377": jsonBody,
	"vllm-0eb73d6-379": jsonBody,
	"vllm-0eb73d6-380": jsonBody,
	"vllm-0eb73d6-381": jsonBody,
	"vllm-0eb73d6-382": jsonBody,
	"vllm-0eb73d6-383": jsonBody,
	"vllm-0eb73d6-384": jsonBody,
	"vllm-0eb73d6-395": textAfterJSON,
	"vllm-0eb73d6-396": textAfterJSON,
	"vllm-0eb73d6-405": textAfterJSON,
	"vllm-0eb73d6-406": textAfterJSON,
	"vllm-0eb73d6-413": textAfterJSON,
	"vllm-0eb73d6-459": textAfterJSON,
	"vllm-0eb73d6-497": "a single JSON object in <TOOLCALL> instead of a list: the parser reads it, the template's list field does not",
	"vllm-0eb73d6-520": "anyOf [string, null] with the text null: the template's casting reads null, the parser keeps the string (Decision 7)",
	"vllm-0eb73d6-583": "a name with an inner space (get weather): the template's name pattern takes it, the parser's name ends at the whitespace",
}

// Differences the llama.cpp suite's vectors show (the family parser's
// leniencies and the template's).
const (
	truncatedText       = "an unfinished call kept as content loses its trailing whitespace in the template, not in the parser"
	museToUser          = "ATEM markup in a message to the user: the parser keeps it as content, the template's call field does not see the message's recipient"
	bareFunctionProse   = "a <function= without <tool_call> that is not a declared tool's whole element: the template's call field starts at <function= and knows no tools, the parser keeps it as prose"
	stringUnion         = "a value for a parameter typed [string, null] or [string, integer]: the template casts it as JSON, the parser keeps the string the schema allows"
	builtinRecipient    = "a message to a built-in recipient (not functions.*): the parser keeps the whole message as content, the template drops its header"
	assistantCommentary = "a commentary header addressed to=assistant, which the parser drops; the template keeps it as content"
)

// bareCounter: a Kimi K2 call id that is a bare counter (0), no
// functions.NAME: the family parser takes it as the name, the template's id
// pattern does not match it.
const bareCounter = "a bare counter id (0) without functions.NAME: the parser takes it as the name, the template's id pattern does not match"

// kimiIDName: a Kimi-K2 call id without the functions.NAME:IDX form (a
// bare counter, a client-style id). The family parser takes the id text as
// the name (kimi-k2 Ids); the template's id pattern does not match, so the
// section stays content.
const kimiIDName = "an id that is not functions.NAME:IDX is the name for the parser; the template keeps the section as content"

// nonObjectList: a JSON list whose elements are not call objects. The
// template reads no call and drops the block; the family parser keeps it as
// content (Decision 9).
const nonObjectList = "a JSON list of non-objects in the block is dropped by the template, kept as content by the parser"

// nameSpace: whitespace around a call's name, which the family parser trims;
// the template's name pattern keeps it or does not match.
const nameSpace = "whitespace around a call's name is trimmed by the parser, not by the template"

// escapedValues: GLM models write a non-string value escaped as a JSON
// string's body ([{\"id\": 1}]); the family parser unescapes it where the
// schema says it is not a string (FORMATS.md Decision 5), the spec's
// casting does not.
const escapedValues = "a non-string value written with JSON string escapes stays a string"

// unpairedKey: a key without its value makes the family parser keep the
// call as content (malformed); a tag pattern skips what it does not match.
const unpairedKey = "a key without its value is skipped, not a malformed call"

// textAfterJSON: a call without an end marker (Mistral, Granite,
// FireFunction, GigaChat) ends, for the family parser, where its JSON
// closes; a template's region runs to the next delimiter, so text after the
// JSON makes the call malformed.
const textAfterJSON = "text after a call's JSON, with no end marker between, makes the call malformed"

// startsInReasoning: step3's output starts in reasoning unless the request
// turned reasoning off; a template cannot see the request's options, so it
// always starts there.
const startsInReasoning = "with reasoning turned off the output does not start in reasoning; a template cannot see the request's options"

// closeInString: a close marker inside a JSON string of the arguments. The
// family parser reads the JSON to its end; a delimiter stops at the first
// close.
const closeInString = "the close marker inside a JSON string ends the region there"

// listIDs: the elements of a JSON list of calls may carry an "id"; a
// transform naming it would fail on the elements without one, so the
// template generates the ids.
const listIDs = "an id an element of the list carries is not read (ids are generated)"

// jsonBody: GLM-style families also accept a JSON {"name", "arguments"}
// body in a call block; the template reads the tag form only.
const jsonBody = "a JSON body in the call block, which the parser also reads, is not in the template"
const severalKeyValueCalls = "several call:NAME{…} in one Gemma 4 block, which the parser reads as several calls: the template's call field reads one call a block"

// pythonLiterals: the family parser types raw-text values written as Python
// literals ({'a': True}, ['x']) by the tool's schema (FORMATS.md Decision 7);
// the spec's casting reads JSON only, so they stay strings.
const pythonLiterals = "Python-literal argument values stay strings (the spec casts JSON only)"

// truncatedCall: a call the output cut off before its close marker. The
// template's region ends with the stream and still yields a call from what
// it holds; the family parser keeps the incomplete call as content.
const truncatedCall = "a call cut off before its close marker is still a call"

// keptAfter: the engine keeps a region that does not parse (a truncated or
// malformed call) in content after the text it read, joined by a blank line
// (docs/RESPONSE-TEMPLATES.md, malformed-region); the family parser keeps it
// where it was written.
const keptAfter = "a malformed or truncated call's text is kept after the content, not in place"

// TestFamilyResponseTemplatesEqualParsers runs every vector of every family
// that has a response template through the template (Dragoman's mode, in
// the vector's chunks) and through the family's parser with the same
// options, and compares content, reasoning and the calls (name, arguments
// as JSON values, id).
func TestFamilyResponseTemplatesEqualParsers(t *testing.T) {
	templates := map[string]*response.Template{}
	byFamily := map[string]*[2]int{} // equal, listed
	for _, v := range format.FamilyVectors(t) {
		fam, _ := format.Lookup(v.Family)
		if fam.ResponseTemplate == nil {
			continue
		}
		tpl := templates[fam.ID]
		if tpl == nil {
			tpl = loadFamilyTemplate(t, fam)
			templates[fam.ID] = tpl
			byFamily[fam.ID] = new([2]int)
		}
		counts := byFamily[fam.ID]
		t.Run(v.ID, func(t *testing.T) {
			want := format.Run(fam.New(v.Options), v.Chunks...)
			got, err := runTemplate(tpl, fam, v)
			if err == nil {
				// Streamed byte by byte, the template reads the same.
				bytewise := v
				bytewise.Chunks = bytesOf(strings.Join(v.Chunks, ""))
				if b, err := runTemplate(tpl, fam, bytewise); err != nil || compareResults(b, got) != "" {
					t.Errorf("byte by byte: %v %s", err, compareResults(b, got))
				}
			}
			diff := "error " + fmt.Sprint(err)
			if err == nil {
				diff = compareResults(got, want)
			}
			if reason, listed := templateDiffers[v.ID]; listed {
				if diff == "" {
					t.Fatalf("listed as differing (%s) but now equal: remove it from templateDiffers", reason)
				}
				counts[1]++
				t.Skip(reason + ": " + diff)
			}
			if diff != "" {
				t.Errorf("%s\nchunks %q", diff, v.Chunks)
				return
			}
			counts[0]++
		})
	}
	ids := make([]string, 0, len(byFamily))
	for id := range byFamily {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Logf("%-24s %3d equal, %d listed differences", id, byFamily[id][0], byFamily[id][1])
	}
}

// runTemplate parses a vector with the family's template. A prompt that
// left reasoning open is the template's prefix: the turn's header followed
// by the reasoning opener.
func runTemplate(tpl *response.Template, fam *format.Family, v format.FamilyVector) (format.Result, error) {
	opts := response.Options{Tools: v.Options.Tools}
	if v.Options.ReasoningOpen {
		opts.Prefix = fam.ResponseTemplate().StartAnchor[0] + fam.ThinkOpen
	}
	p, _, err := response.NewParser(tpl, opts)
	if err != nil {
		return format.Result{}, err
	}
	for _, c := range v.Chunks {
		if _, err := p.Feed(c); err != nil {
			return format.Result{}, err
		}
	}
	if _, err := p.Finish(); err != nil {
		return format.Result{}, err
	}
	return response.Result(p.Message(), p.Diagnostics(), v.Options.NewID), nil
}

// compareResults says how got differs from want; "" when it does not.
func compareResults(got, want format.Result) string {
	var d []string
	if got.Content != want.Content {
		d = append(d, fmt.Sprintf("content %q, parser %q", got.Content, want.Content))
	}
	if got.Reasoning != want.Reasoning {
		d = append(d, fmt.Sprintf("reasoning %q, parser %q", got.Reasoning, want.Reasoning))
	}
	if len(got.ToolCalls) != len(want.ToolCalls) {
		d = append(d, fmt.Sprintf("%d calls, parser %d", len(got.ToolCalls), len(want.ToolCalls)))
	} else {
		for i, g := range got.ToolCalls {
			w := want.ToolCalls[i]
			if g.Function.Name != w.Function.Name || g.ID != w.ID || !sameJSON(g.Function.Arguments, w.Function.Arguments) {
				d = append(d, fmt.Sprintf("call %d %s(%s) id %q, parser %s(%s) id %q", i,
					g.Function.Name, g.Function.Arguments, g.ID, w.Function.Name, w.Function.Arguments, w.ID))
			}
		}
	}
	return strings.Join(d, "; ")
}

func bytesOf(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// Each template's start anchor is where an assistant turn starts in the
// family's prompts: every corpus template of the family (FORMATS.md's
// Template map) renders one of the anchors in its plain prompt's generation
// prompt, so the anchor cuts the prompt as a checkpoint's template would.
func TestFamilyResponseTemplateAnchors(t *testing.T) {
	shared := format.SharedDir(t)
	checked := 0
	for name, id := range format.TemplateMap(t) {
		fam, ok := format.Lookup(id)
		if !ok || fam.ResponseTemplate == nil {
			continue
		}
		golden, err := os.ReadFile(filepath.Join(shared, "corpus", "golden", strings.TrimSuffix(name, ".jinja")+"__s01_user_plain.txt"))
		if err != nil {
			continue // the template raises for this scenario
		}
		checked++
		anchors := fam.ResponseTemplate().StartAnchor
		found := false
		for _, a := range anchors {
			found = found || strings.Contains(string(golden), a)
		}
		if !found {
			t.Errorf("%s (%s): the prompt holds none of the anchors %q; it ends %q", name, id, anchors, tail(string(golden), 60))
		}
	}
	if checked == 0 {
		t.Fatal("no corpus template of a family with a response template")
	}
	t.Logf("%d corpus templates checked", checked)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
