package tokenize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// handStrings are texts chosen for the pre-tokenizer's and the special-token
// matcher's corners.
var handStrings = []string{
	"Hello world",
	"hello  world   again    ",
	" leading space and trailing space ",
	"\n\n\nthree newlines then text\n",
	"tabs\tand\t\tdouble tabs\t\t\tx",
	"windows\r\nline\r\n\r\nendings\r\n",
	"mixed \n \n  \n   spaces around newlines  \n",
	"I'm sure they'll say it's what we've done, I'D SAY SHE'LL'VE 'S 'T",
	"1234567890 12 3 45678 9999999999999999999999 3.14159 -42 1e10 0x1F",
	"٣٤٥ ١٢٣ ①②③ ½ Ⅻ ２０２４年",
	"中文分词测试：我们今天去公园玩。日本語のテキストです。한국어 텍스트입니다.",
	"emoji 😀😃😄 👨‍👩‍👧‍👦 🇫🇷🇩🇪 👍🏽 ❤️ ✨🔥",
	"combining: e\u0301 a\u0300 n\u0303 — Ångström café naïve",
	"nbsp\u00a0here\u3000ideographic\u2028line\u2029para\u0085nel\u2003em",
	"control\x01\x02\x1b[31mred\x1b[0m\x7f del",
	"punctuation!!! ??? ... --- === +++ *** ### @@@ $$$ %%% ^^^ &&& ||| ~~~ ``` <<< >>>",
	"func main() {\n\tfmt.Println(\"hi\")\n\tfor i := 0; i < 10; i++ {\n\t\tx[i] = i * 2\n\t}\n}\n",
	"def f(x):\n    return {'a': [1, 2, 3], \"b\": None}  # comment\n\n\nclass A:\n    pass\n",
	`{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}}}`,
	"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
	"<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>",
	"<tool_response>\n{\"temp\": 21}\n</tool_response>",
	"partial specials: <|im_start <|im_end| <tool_call <think </think <|endoftext|",
	"<|im_start|><|im_start|><|im_end|><|im_end|>",
	"x<|endoftext|>y<|fim_prefix|>z<|fim_middle|>w<|fim_suffix|>",
	"<|im_start|>user\n<|im_start|>nested<|im_end|>",
	"[PAD151669] is not matched as a token",
	"url https://example.com/path?a=1&b=two#frag and email a.b@c.de",
	"ALLCAPS words MixedCase camelCase snake_case kebab-case PascalCase",
	"  ",
	" ",
	"\n",
	"a",
	"'",
	"''''",
	"'s",
	"x's",
	"don't won't can't shouldn't",
	"          ten spaces before\n          and ten after          ",
	strings.Repeat("ab", 300),
	strings.Repeat(" ", 100) + "x",
	strings.Repeat("\n", 50),
	strings.Repeat("9", 200),
	strings.Repeat("=", 120),
	strings.Repeat("🙂", 40),
	strings.Repeat("漢", 80),
	"Ελληνικά κείμενο, русский текст, עברית, العربية, हिन्दी, ไทย",
	"math: ∑_{i=1}^{n} i² = n(n+1)/2, ∀x∈ℝ, √2 ≈ 1.414, ∞",
	"quotes “curly” ‘single’ «guillemets» „low“ 「括弧」",
	"zero\u200bwidth\u200cjoiner\u200dchars\ufeffbom",
	"surrogate-free astral: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 𐍈",
}

// randomStrings returns n pseudo-random strings built from a mix of
// character groups that exercise every pre-tokenizer branch.
func randomStrings(seed uint64, n int) []string {
	groups := [][]rune{
		[]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
		[]rune("0123456789"),
		[]rune(" "),
		[]rune("  \t\n\r"),
		[]rune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
		[]rune("中文日本語한국어漢字"),
		[]rune("😀👍🏽❤️✨🔥👨‍👩‍👧"),
		[]rune("éèàüößçñÅ\u0301\u0308"),
		[]rune("\u00a0\u3000\u2028\u0085\u2003"),
		[]rune("\x01\x02\x1b\x7f"),
		[]rune("٣①½Ⅻ２"),
		[]rune("αβγδεжзиклм"),
	}
	specials := []string{"<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>", "<|endoftext|>", "<|im_start", "'s", "'LL"}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]string, 0, n)
	for range n {
		var sb strings.Builder
		length := 1 + r.IntN(80)
		for sb.Len() < length {
			if r.IntN(20) == 0 {
				sb.WriteString(specials[r.IntN(len(specials))])
				continue
			}
			g := groups[r.IntN(len(groups))]
			run := 1 + r.IntN(6)
			for range run {
				sb.WriteRune(g[r.IntN(len(g))])
			}
		}
		out = append(out, sb.String())
	}
	return out
}

// goldenPrompts returns the rendered prompts of the shared template corpus
// (every template × scenario), sorted by file name.
func goldenPrompts(t testing.TB) map[string]string {
	dir := filepath.Join(sharedDir(), "corpus", "golden")
	names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	out := make(map[string]string, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = string(b)
	}
	return out
}
