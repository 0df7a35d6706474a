package format

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// autoDerivable are the corpus families whose markup a derived parser must
// express: JSON in a wrapper and tagged arguments (and the name-then-JSON
// shapes that share the machinery). Every corpus template of these families
// must derive, and the derived parser must pass the family's vectors, but for
// autoSkip and the vectors whose reasoning markup the template does not
// render.
var autoDerivable = map[string]bool{
	// JSON in a wrapper
	"hermes": true, "apriel": true, "nemotron-toolcall-json": true, "mistral-legacy-array": true,
	"minimax-m1": true, "apertus": true, "gigachat3": true,
	// tagged arguments
	"qwen3-coder-xml": true, "glm-4.5-4.7": true, "laguna": true, "seed-oss": true, "minimax-m2": true,
	"minicpm5": true, "hunyuan-hy3": true,
	// name, then JSON arguments
	"deepseek-v3.1": true,
}

// autoNotDerivable are the families whose templates Derive must refuse, with
// what is missing; a template of any other family is reported, not held to
// either.
var autoNotDerivable = map[string]string{
	"none":             "renders no assistant calls",
	"lfm2":             "pythonic calls, or no assistant calls",
	"gemma4":           "key:value arguments with special quotes",
	"kimi-k2":          "a per-call counter in the markup (or the template raises)",
	"functionary-v3.2": "no opening marker",
	"gpt-oss-harmony":  "a header, not a markup token, opens the call",
	"muse-glimmer":     "the name is repeated in the header",
	"solar-open":       "a call id in the markup",
	"minimax-m3":       "arguments are elements named after the key",
	"kimi-k3":          "a per-call index in the markup",
}

// autoSkip lists the individual vectors a derived parser does not pass, with
// the family-specific rule the hand-written parser implements and the
// template's render cannot show.
// A key is a vector id, or "template:vector id" for one template only.
var autoSkip = map[string]string{
	"sglang-05400c2a-217":                              "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"vllm-0eb73d6-032":                                 "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"vllm-0eb73d6-045":                                 "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"vllm-0eb73d6-658":                                 "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"dragoman-deepseek-v3.1-03":                        keptCallSpace,
	"ollama17-032":                                     keptCallSpace,
	"dragoman-apriel-02":                               `the template renders no call id; the family reads an "id" member`,
	"sglang-052":                                       "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"dragoman-glm-4.5-4.7-08":                          "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"dragoman-glm-4.5-4.7-16":                          "Decision 5: literal \\n escapes between the elements (a repair rule of the family)",
	"GLM-4.6.jinja:dragoman-glm-4.5-4.7-05":            "a bare </think> before the answer: only GLM-4.7's template writes one",
	"glm_4_5.jinja:dragoman-glm-4.5-4.7-05":            "a bare </think> before the answer: only GLM-4.7's template writes one",
	"ollama-038":                                       "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama-042":                                       "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama-047":                                       "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama-063":                                       "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"dragoman-deepseek-v3.1-09":                        "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"dragoman-deepseek-v3.1-15":                        "tool-output markers in the reasoning are removed (a rule of the family, not in the template's call markup)",
	"ollama17-020":                                     "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama17-022":                                     "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama17-027":                                     "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama17-034":                                     "tool-output markers in the output are removed (a rule of the family, not in the template's call markup)",
	"ollama17-292":                                     "names with spaces (function=get current temperature), which the family reads; the derived name pattern stops at whitespace",
	"ollama17-293":                                     "quoted names with spaces, which the family reads; the derived name pattern stops at whitespace",
	"sglang-016":                                       "text before [TOOL_CALLS] loses its trailing whitespace (a rule of the family)",
	"dragoman-mistral-legacy-array-04":                 "text before [TOOL_CALLS] loses its trailing whitespace (a rule of the family)",
	"dragoman-mistral-legacy-array-07":                 "text before [TOOL_CALLS] loses its trailing whitespace (a rule of the family)",
	"dragoman-minicpm5-07":                             "CDATA sections are unwrapped (a rule of the family; the probe's plain values render without CDATA)",
	"dragoman-laguna-04":                               "</assistant> ends the content (a rule of the family: the turn end is XML-like)",
	"dragoman-laguna-05":                               "a JSON body inside <tool_call> (a leniency of the family's parser, not the template's markup)",
	"mlxlm-d78bf58e-010":                               "a JSON body inside <tool_call> (a leniency of the family's parser, not the template's markup)",
	"llamacpp-de3ff81-115":                             "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"llamacpp-de3ff81-116":                             "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"llamacpp-de3ff81-117":                             "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"dragoman-qwen3-coder-xml-15":                      "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"dragoman-qwen3-coder-xml-16":                      "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"dragoman-qwen3-coder-xml-20":                      "a <function=NAME> call without its <tool_call> wrapper (a leniency of the family's parser, not the template's markup)",
	"llamacpp-de3ff81-269":                             "an unfinished call left open: the family announces it at its name (liveCall), a derived parser when its block ends",
	"llamacpp-de3ff81-352":                             "an unfinished call left open: the family announces it at its name (liveCall), a derived parser when its block ends",
	"llamacpp-de3ff81-424":                             "CDATA sections are unwrapped (a rule of the family; the probe's plain values render without CDATA)",
	"GigaChat3-10B-A1.8B.jinja:llamacpp-de3ff81-417":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:llamacpp-de3ff81-418":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3.1-10B-A1.8B.jinja:llamacpp-de3ff81-413": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:llamacpp-de3ff81-414": "GigaChat 3 markup (function call<|role_sep|>)",
	"sglang-05400c2a-043":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-046":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-054":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-056":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-057":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-174":                              "Decision 5: a literal \\n after the name and escaped JSON values (a repair rule of the family)",
	"sglang-05400c2a-372":                              "no <tool_sep:opensource> after the name (a leniency of the family's parser; the template writes the separator)",
	"sglang-05400c2a-373":                              "no <tool_sep:opensource> after the name (a leniency of the family's parser; the template writes the separator)",
	"sglang-05400c2a-425":                              keptCallSpace,
	"sglang-05400c2a-426":                              keptCallSpace,
	"sglang-05400c2a-427":                              keptCallSpace,
	"sglang-05400c2a-431":                              keptCallSpace,
	"sglang-05400c2a-207":                              "CDATA sections are unwrapped (a rule of the family; the probe's plain values render without CDATA)",
	"sglang-05400c2a-333":                              "CDATA sections are unwrapped (a rule of the family; the probe's plain values render without CDATA)",
	// GigaChat 3 and 3.1 write different markup; each template's parser reads its own.
	"GigaChat3-10B-A1.8B.jinja:dragoman-gigachat3-03":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:dragoman-gigachat3-05":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:dragoman-gigachat3-06":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:dragoman-gigachat3-07":   "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:dragoman-gigachat3-04":   "a trailing <|message_sep|> after the call is dropped (a rule of the family)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-073":            "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-075":            "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-082":            "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:dragoman-gigachat3-02": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:dragoman-gigachat3-04": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:dragoman-gigachat3-08": "GigaChat 3 markup (function call<|role_sep|>)",
	// vLLM's tool-parser tests (testdata/vectors/peer-vllm-0eb73d6.jsonl).
	"vllm-0eb73d6-595":                                "CDATA sections are unwrapped (a rule of the family; the probe's plain values render without CDATA)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-397":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-398":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-399":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-400":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-401":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-402":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-403":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-404":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-405":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-406":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-408":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-410":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-412":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-413":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3-10B-A1.8B.jinja:vllm-0eb73d6-414":      "GigaChat 3.1 markup (<|function_call|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-387":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-388":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-389":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-390":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-391":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-392":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-393":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-394":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-395":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-396":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-407":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-409":    "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:vllm-0eb73d6-411":    "GigaChat 3 markup (function call<|role_sep|>)",
	"vllm-0eb73d6-497":                                "a single JSON object in <TOOLCALL> instead of a list (a leniency of the family's parser, not the template's markup)",
	"vllm-0eb73d6-581":                                "a <tool_call> block holding only whitespace and <x: the family parser keeps it as content, the derived parser does not (a gap of the derived parser)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-075": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-076": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-083": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-084": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-085": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-087": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-088": "GigaChat 3 markup (function call<|role_sep|>)",
	"GigaChat3.1-10B-A1.8B.jinja:sglang-05400c2a-089": "GigaChat 3 markup (function call<|role_sep|>)",
}

// withoutRegistry runs f with every hand-written family switched off.
func withoutRegistry(f func()) {
	saved := registry
	registry = map[string]*Family{}
	defer func() { registry = saved }()
	f()
}

type autoRow struct {
	template, family, derived string
	pass, skip, total         int
}

// keptCallSpace: the family keeps the whitespace next to a call as content
// (markup.callSpaceKept, as its peers' tests do); a derived parser treats it
// as the call's layout, the default.
const keptCallSpace = "whitespace next to a call is content for the family (its peers' tests pin it), layout for a derived parser"

func TestDerivedParsers(t *testing.T) {
	tmap := templateMap(t)
	var names []string
	for n := range tmap {
		names = append(names, n)
	}
	sort.Strings(names)
	vectors := loadVectors(t)
	var rows []autoRow
	for _, name := range names {
		fam := tmap[name]
		src, err := os.ReadFile(filepath.Join(sharedDir(t), "corpus", "templates", name))
		if err != nil {
			t.Fatal(err)
		}
		var d *Derived
		withoutRegistry(func() { d, err = Derive(string(src)) })
		row := autoRow{template: name, family: fam}
		switch {
		case err != nil:
			row.derived = "no: " + err.Error()
			if autoDerivable[fam] {
				t.Errorf("%s (%s): %v", name, fam, err)
			}
			if len(err.Error()) < 20 {
				t.Errorf("%s: the error does not say what is missing: %v", name, err)
			}
		case autoNotDerivable[fam] != "":
			row.derived = "yes"
			t.Errorf("%s (%s): derived, but a derived parser cannot express %s:\n%s", name, fam, autoNotDerivable[fam], d)
		default:
			row.derived = "yes"
			if !autoDerivable[fam] {
				row.derived = "yes (not required)"
			}
		}
		if d != nil {
			ref, _ := Lookup(fam)
			for _, v := range vectors {
				if v.Family != fam || v.Scope != "full_output" {
					continue
				}
				row.total++
				if reason := autoSkipReason(name, v, d, ref); reason != "" {
					row.skip++
					continue
				}
				var msg string
				withoutRegistry(func() { msg = runDerived(d, v) })
				if msg == "" {
					row.pass++
				} else if autoDerivable[fam] {
					t.Errorf("%s (%s) vector %s: %s\ninput %q", name, fam, v.ID, msg, v.Input)
				}
			}
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-52s %-24s %-9s %s\n", "template", "family", "vectors", "derived")
	for _, r := range rows {
		vec := "-"
		if r.total > 0 {
			vec = fmt.Sprintf("%d/%d", r.pass, r.total)
			if r.skip > 0 {
				vec += fmt.Sprintf(" (%d skipped)", r.skip)
			}
		}
		fmt.Fprintf(&b, "%-52s %-24s %-9s %s\n", r.template, r.family, vec, r.derived)
	}
	t.Log(b.String())
}

// autoSkipReason says why a vector is not held against a derived parser: it
// is listed in autoSkip, it contradicts a documented decision, or it needs
// reasoning markup the template does not render.
func autoSkipReason(template string, v vector, d *Derived, ref *Family) string {
	if r := autoSkip[v.ID]; r != "" {
		return r
	}
	if r := autoSkip[template+":"+v.ID]; r != "" {
		return r
	}
	if r := contradicted[v.ID]; r != "" {
		return "contradicts " + r
	}
	if v.Family == "hunyuan-hy3" && strings.Contains(v.Input, hy3BareTags.wrapOpen) {
		return "HY3's tags without their suffix: a family rule (a tokenizer setting), not the template's markup"
	}
	if ref != nil && ref.ThinkOpen != "" && d.ThinkOpen != ref.ThinkOpen {
		usesReasoning := strings.Contains(v.Input, ref.ThinkOpen) || peerStartsInReasoning[v.Model] ||
			(v.Expected.Thinking != nil && *v.Expected.Thinking != "") || (v.Options.Think != nil && *v.Options.Think) ||
			(v.Options.Prefill != nil && v.Options.Prefill.Thinking != "")
		if closeMarker := strings.Replace(ref.ThinkOpen, "<", "</", 1); strings.Contains(v.Input, closeMarker) {
			usesReasoning = true
		}
		if usesReasoning {
			return "the template renders no reasoning markup"
		}
	}
	return ""
}

// runDerived parses a vector with the derived parser, whole and byte by byte,
// and returns what does not match.
func runDerived(d *Derived, v vector) string {
	f := d.Family()
	o := derivedOptions(v, f)
	r := runVector(f.New(o), v, vectorChunks(v))
	// A derived parser knows the markup of one template only: text another
	// template's markup would make a malformed call is plain content to it,
	// so the vectors' diagnostics are not held against it.
	v.Expected.Diagnostics = nil
	msg := checkVector(v, r)
	var bytes []string
	for i := 0; i < len(v.Input); i++ {
		bytes = append(bytes, v.Input[i:i+1])
	}
	if msg == "" && !reflect.DeepEqual(Run(f.New(o), bytes...), Run(f.New(o), v.Input)) {
		msg = "the result depends on the chunking"
	}
	return msg
}

// derivedOptions are vectorOptions, with a named template's forced-open
// prompt judged by the derived reasoning marker.
func derivedOptions(v vector, f *Family) Options {
	tpl := v.Options.Template
	v.Options.Template = ""
	o := vectorOptions(v)
	if tpl != "" {
		src, err := os.ReadFile(filepath.Join(fixtures.Dir(), "corpus", "templates", tpl))
		kwargs := ""
		if v.Options.EnableThinking != nil {
			b, _ := json.Marshal(map[string]bool{"enable_thinking": *v.Options.EnableThinking})
			kwargs = string(b)
		}
		o.ReasoningOpen = err == nil && GenerationOpensReasoning(string(src), f, kwargs)
		if p := v.Options.Prefill; p != nil {
			o.ReasoningOpen = p.Thinking != "" && p.Content == ""
		}
	}
	return o
}

// TestDeriveRefuses: templates whose markup a derived parser cannot express
// get an error that says what is missing.
func TestDeriveRefuses(t *testing.T) {
	call := `{%- for m in messages %}{%- if m.tool_calls %}{%- for c in m.tool_calls %}%s{%- endfor %}{%- else %}{{ m.content }}{%- endif %}{%- endfor %}`
	for _, tc := range []struct{ name, body, want string }{
		{"no calls", `{%- for m in messages %}{{ m.content }}{%- endfor %}`, "does not render assistant tool_calls"},
		{"pythonic", strings.Replace(call, "%s", `[{{ c.function.name }}({% for k, v in c.function.arguments.items() %}{{ k }}='{{ v }}'{% if not loop.last %}, {% endif %}{% endfor %})]`, 1), "cannot"},
		{"bare JSON", strings.Replace(call, "%s", `{{ {"name": c.function.name, "arguments": c.function.arguments} | tojson }}`, 1), "no opening marker"},
		{"does not compile", `{% if %}`, "does not compile"},
	} {
		_, err := Derive(tc.body)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestDeriveSynthetic derives markup from small templates written here, so
// the derivation is checked apart from the corpus.
func TestDeriveSynthetic(t *testing.T) {
	loop := func(body string) string {
		return `{%- for m in messages %}{%- if m.role == "assistant" %}<|assistant|>{%- if m.reasoning_content %}<r>{{ m.reasoning_content }}</r>{% endif %}` +
			`{{ m.content or "" }}{%- if m.tool_calls %}` + body + `{%- endif %}<|end|>{%- else %}<|user|>{{ m.content }}<|end|>{%- endif %}{%- endfor %}`
	}
	for _, tc := range []struct {
		name, tpl, output string
		want              string // name(args) of the calls, joined
	}{
		{"json in a wrapper", loop(`{%- for c in m.tool_calls %}<call>{"fn": {{ c.function.name | tojson }}, "args": {{ c.function.arguments | tojson }}}</call>{%- endfor %}`),
			`<r>plan</r>Sure.<call>{"fn": "a", "args": {"x": 1}}</call><call>{"args": {}, "fn": "b"}</call>`, `a{"x": 1} b{}`},
		{"tagged in a section", loop(`[CALLS]{%- for c in m.tool_calls %}<fn name="{{ c.function.name }}">{%- for k, v in c.function.arguments.items() %}<arg k="{{ k }}">{{ v }}</arg>{%- endfor %}</fn>{%- endfor %}[/CALLS]`),
			`[CALLS]<fn name="a"><arg k="x">1</arg><arg k="y">two words</arg></fn><fn name="b"></fn>[/CALLS]`, `a{"x": "1", "y": "two words"} b{}`},
		{"name then JSON", loop(`{%- for c in m.tool_calls %}<<{{ c.function.name }}>>{{ c.function.arguments | tojson }}{%- endfor %}`),
			`<<a>>{"x": [1, 2]}<<b>>{}`, `a{"x": [1, 2]} b{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d *Derived
			var err error
			withoutRegistry(func() { d, err = Derive(tc.tpl) })
			if err != nil {
				t.Fatal(err)
			}
			r := Run(d.Family().New(Options{}), tc.output)
			var got []string
			for _, c := range r.ToolCalls {
				got = append(got, c.Function.Name+c.Function.Arguments)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("calls %q, want %q\n%s", strings.Join(got, " "), tc.want, d)
			}
			if strings.Contains(tc.output, "<r>") && (r.Reasoning != "plan" || r.Content != "Sure.") {
				t.Errorf("reasoning %q content %q\n%s", r.Reasoning, r.Content, d)
			}
		})
	}
}

// A template that drops past reasoning (DeepSeek-V3.1) shows its markers only
// in the generation prompt: "<think>" with thinking on, "<think></think>"
// with it off.
func TestDeriveReasoningFromPrompt(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(sharedDir(t), "corpus", "templates", "deepseek-ai-DeepSeek-V3.1.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	var d *Derived
	withoutRegistry(func() { d, err = Derive(string(src)) })
	if err != nil {
		t.Fatal(err)
	}
	if d.ThinkOpen != "<think>" || d.ThinkClose != "</think>" {
		t.Errorf("reasoning markers %q and %q, want <think> and </think>", d.ThinkOpen, d.ThinkClose)
	}
}
