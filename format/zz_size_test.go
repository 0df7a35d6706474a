package format

import "testing"

func TestZZGrammarSizes(t *testing.T) {
	tools := bfclChatTools(t, 20)
	for _, id := range []string{"hermes", "qwen3-coder-xml", "olmo3", "pythonic", "gemma4", "functiongemma", "minimax-m3", "deepseek-v3.2-dsml", "kimi-k3", "muse-glimmer", "minicpm5", "mistral-legacy-array", "deepseek-v3.1", "firefunction-v2"} {
		f, _ := Lookup(id)
		c, _ := f.Constrain(tools, ToolChoice{Mode: "auto"}, false)
		t.Logf("%-22s %6d bytes", id, len(c.Grammar))
	}
}
