package tokenize

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func splitAll(p preTokenizer, s string) []string {
	var out []string
	p.split(s, func(w string) { out = append(out, w) })
	return out
}

func TestSplitters(t *testing.T) {
	cases := []struct {
		pre  preTokenizer
		in   string
		want []string
	}{
		{llama3Split{3}, "12345 abc", []string{"123", "45", " abc"}},
		{llama3Split{1}, "123", []string{"1", "2", "3"}},
		{llama3Split{1}, "   hello", []string{"  ", " hello"}},
		{llama3Split{1}, "a \n  b", []string{"a", " \n", " ", " b"}},
		{llama3Split{1}, "x  ", []string{"x", "  "}},
		{llama3Split{1}, "I'M ok", []string{"I", "'M", " ok"}},
		{llama3Split{1}, "!!\n\nx", []string{"!!\n\n", "x"}},
		{llama3Split{1}, "\t\tx", []string{"\t", "\tx"}},
		{llama3Split{1}, "a\u3000\u3000b", []string{"a", "\u3000", "\u3000b"}},
		{gpt2Split{}, "I'M ok", []string{"I", "'", "M", " ok"}},
		{gpt2Split{}, "it's  12 ab!?", []string{"it", "'s", " ", " 12", " ab", "!?"}},
		{gpt2Split{}, "\t\tx", []string{"\t", "\t", "x"}},
		{llamaCppDefault, "a+=1234567", []string{"a", "+=", "123", "456", "7"}},
		{llamaCppDefault, "x1234y", []string{"x", "123", "4", "y"}},
	}
	for _, c := range cases {
		if got := splitAll(c.pre, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%T %q: got %q, want %q", c.pre, c.in, got, c.want)
		}
	}
}

// TestSplitOracleNode compares the hand-written splitters with the real
// regexes run by JavaScript's engine (look-ahead, \p{L}, \p{N}; (?i:…) spelt
// out as llama.cpp does). It skips without node. JavaScript's \s also
// matches U+FEFF, which White_Space does not hold, so texts with it are left
// out.
func TestSplitOracleNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	patterns := map[string]preTokenizer{
		`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:      llama3Split{1},
		`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`: llama3Split{3},
		`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`:                                                                       gpt2Split{},
		patternTekken: casedSplit{maxDigits: 1},
		strings.ReplaceAll(patternO200k, `(?i:'s|'t|'re|'ve|'m|'ll|'d)`, `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`): casedSplit{maxDigits: 3, contractions: true},
	}
	var texts []string
	for _, s := range append(append([]string{}, handStrings...), randomStrings(21, 3000)...) {
		if !strings.ContainsAny(s, "\ufeff\u0085") {
			texts = append(texts, s)
		}
	}
	for _, s := range goldenPrompts(t) {
		if !strings.ContainsAny(s, "\ufeff\u0085") {
			texts = append(texts, s)
		}
	}
	for pat, pre := range patterns {
		in, _ := json.Marshal(map[string]any{"pattern": pat, "texts": texts})
		script := `let d='';process.stdin.setEncoding('utf8');process.stdin.on('data',c=>d+=c).on('end',()=>{const j=JSON.parse(d);const re=new RegExp(j.pattern,'gu');` +
			`process.stdout.write(JSON.stringify(j.texts.map(s=>Array.from(s.matchAll(re),m=>m[0]))))})`
		cmd := exec.Command(node, "-e", script)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		var want [][]string
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, s := range texts {
			if got := splitAll(pre, s); !slices.Equal(got, want[i]) {
				if bad++; bad <= 5 {
					t.Errorf("%T %q:\n got  %q\n want %q", pre, s, got, want[i])
				}
			}
		}
		t.Logf("%#v: %d texts compared with JavaScript's regex, %d differ", pre, len(texts), bad)
	}
}
