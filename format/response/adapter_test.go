package response

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/format"
)

// sameResult compares a streamed parse with the whole message's, call ids
// aside (each side makes its own where the markup carries none).
func sameResult(a, b format.Result) bool {
	strip := func(r format.Result) format.Result {
		calls := append(r.ToolCalls[:0:0], r.ToolCalls...)
		for i := range calls {
			calls[i].ID = ""
		}
		r.ToolCalls = calls
		var codes []format.Diagnostic
		for _, d := range r.Diagnostics {
			codes = append(codes, format.Diagnostic{Code: d.Code})
		}
		r.Diagnostics = codes
		return r
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// splits are the ways an output is fed: whole, byte by byte, and random
// chunks.
func splits(text string, rng *rand.Rand) [][]string {
	out := [][]string{{text}}
	var bytes []string
	for i := range len(text) {
		bytes = append(bytes, text[i:i+1])
	}
	out = append(out, bytes)
	for range 5 {
		var chunks []string
		for rest := text; rest != ""; {
			n := min(1+rng.IntN(9), len(rest))
			chunks, rest = append(chunks, rest[:n]), rest[n:]
		}
		out = append(out, chunks)
	}
	return out
}

// The adapter's result is Run's on every transformers vector (in Dragoman's
// mode, where Run does not fail), however the output is chunked: the same
// content and reasoning, calls and diagnostic codes.
func TestFormatParserEqualsRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	checked := 0
	for _, v := range loadVectors(t) {
		tpl, err := Load(v.templateSource(t))
		if err != nil {
			continue // a load error: the gateway falls back to the family parser
		}
		opts := Options{Prefix: v.Prefix, Tools: v.Tools}
		want, err := Run(tpl, opts, v.generation())
		if err != nil {
			continue
		}
		checked++
		for _, chunks := range splits(v.generation(), rng) {
			p, err := tpl.NewFormatParser(opts, nil)
			if err != nil {
				t.Fatalf("%s: %v", v.ID, err)
			}
			if got := format.Run(p, chunks...); !sameResult(got, want) {
				t.Errorf("%s in %d chunks:\n got %+v\nwant %+v", v.ID, len(chunks), got, want)
				break
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d vectors checked", checked)
	}
}

// Content and reasoning stream as they arrive, not at the end: on Qwen3's
// template, the reasoning is out once </think> is read, content before the
// call closes, and the call at its closer.
func TestFormatParserStreams(t *testing.T) {
	tpl := loadShared(t, "trl_qwen3")
	p, err := tpl.NewFormatParser(Options{Prefix: "<|im_start|>assistant\n"}, func() string { return "id1" })
	if err != nil {
		t.Fatal(err)
	}
	feed := func(chunk string) (text string, kinds []format.EventKind) {
		for _, e := range p.Feed(chunk) {
			text += e.Text
			kinds = append(kinds, e.Kind)
		}
		return
	}
	if text, kinds := feed("<think>\nweighing it"); text != "weighing it" || kinds[0] != format.Reasoning {
		t.Errorf("reasoning streamed as %q %v", text, kinds)
	}
	if text, _ := feed("  \n</think>\n\nLet me check "); text != "Let me check" {
		t.Errorf("content so far %q, want the stripped text, its trailing space held", text)
	}
	if text, _ := feed("the weather.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"); text != " the weather." {
		t.Errorf("content %q: the held space comes out with the text after it", text)
	}
	// The closer is "</tool_call>\\s*": it ends where the whitespace does.
	if _, kinds := feed("\n</tool_call>\n"); len(kinds) != 0 {
		t.Errorf("before the closer's whitespace ends: %v", kinds)
	}
	if _, kinds := feed("<|im_end|>"); !reflect.DeepEqual(kinds, []format.EventKind{format.CallStart, format.CallArgs, format.CallEnd}) {
		t.Errorf("after the closer: %v", kinds)
	}
	if rest := p.Close(); len(rest) != 0 {
		t.Errorf("Close gave %+v, want nothing left", rest)
	}
}

// The shared templates whose outputs the vectors do not cover, each in many
// splits: the adapter agrees with Run, repeated and malformed regions
// included (their kept text comes at Close).
func TestFormatParserSharedTemplates(t *testing.T) {
	cases := []struct{ tpl, prefix, text string }{
		{"trl_qwen3", "", "<think>\nhmm\n</think>\n\nSure.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}\n</tool_call>\nMore text.<|im_end|>\n"},
		{"trl_qwen3", "", "A<tool_call>\n{\"name\": broken}\n</tool_call>\nB<|im_end|>"},
		{"trl_qwen3", "", "<think>one</think>x<think>two</think>y"},
		{"trl_nemotron_3", "<|im_start|>assistant\n<think>\n", "plan it</think>\nok<|im_end|>"},
		{"thirdparty_mistral_bracket", "", "[THINK]x[/THINK]Hi[TOOL_CALLS]get_weather[ARGS]{\"a\": 1}[TOOL_CALLS]f[ARGS]{}</s>"},
		{"trl_gemma4", "<|turn>model\n", "<|channel>thought\nt<channel|>A<|tool_call>call:f{x:<|\"|>a, b<|\"|>,n:2}<tool_call|>"},
		{"trl_glm4moe", "", "<think>r</think>x<tool_call>get\n<arg_key>k</arg_key>\n<arg_value>42</arg_value></tool_call>"},
		{"trl_lfm2_2_5", "", "<|tool_call_start|>[f(a='x, y', b=3), g(c=[1, 2])]<|tool_call_end|>done<|im_end|>"},
		{"synthetic_deepseek_v31", "", "<think>r</think>ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"名\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"},
		{"synthetic_kimi_k2", "", "a<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"},
		{"hf_muse_glimmer", "", "<|channel|>to=self<|message|>why<|eom|><atem:invoke name=\"f\"><atem:parameter name=\"x\">7</atem:parameter></atem:invoke>"},
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range cases {
		tpl := loadShared(t, c.tpl)
		opts := Options{Prefix: c.prefix}
		want, err := Run(tpl, opts, c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.tpl, err)
		}
		for _, chunks := range splits(c.text, rng) {
			p, _ := tpl.NewFormatParser(opts, nil)
			if got := format.Run(p, chunks...); !sameResult(got, want) {
				t.Errorf("%s %q in %d chunks:\n got %+v\nwant %+v", c.tpl, c.text, len(chunks), got, want)
				break
			}
		}
	}
}

// Every shared template loads into an adapter (none fails at its start).
func TestFormatParserLoadsEveryTemplate(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(templatesDir(t), "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		tpl, err := Load(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := tpl.NewFormatParser(Options{}, nil); err != nil {
			t.Errorf("%s: %v", strings.TrimSuffix(filepath.Base(f), ".json"), err)
		}
	}
}
