package tokenize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchPrompt is a rendered Qwen3 chat prompt of the kind agents send: a
// system prompt, 30 tool schemas in <tools>, a few turns with a tool call and
// a JSON tool result, code and some non-English text.
func benchPrompt() string {
	var sb strings.Builder
	sb.WriteString("<|im_start|>system\nYou are a coding agent working in a repository. Follow the user's instructions carefully, prefer small diffs, run the tests.\n\n")
	sb.WriteString("# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n")
	for i := range 30 {
		tool := map[string]any{
			"type": "function",
			"function": map[string]any{
				"name":        fmt.Sprintf("tool_%02d_%s", i, []string{"read_file", "write_file", "search", "run_command", "list_dir"}[i%5]),
				"description": "Performs the operation on the workspace. Paths are relative to the repository root; at most 2000 lines are returned, with line numbers.",
				"parameters": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"path":    map[string]any{"type": "string", "description": "The file path, e.g. src/main.go"},
						"offset":  map[string]any{"type": "integer", "description": "First line (1-based)", "minimum": 1},
						"limit":   map[string]any{"type": "integer", "description": "Number of lines", "maximum": 2000},
						"pattern": map[string]any{"type": "string", "description": "A regular expression such as ^func\\s+\\w+"},
						"mode":    map[string]any{"type": "string", "enum": []string{"overwrite", "append", "create"}},
					},
					"required": []string{"path"},
				},
			},
		}
		b, _ := json.Marshal(tool)
		sb.Write(b)
		sb.WriteByte('\n')
	}
	sb.WriteString("</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n")
	sb.WriteString("<|im_start|>user\nThe build fails on CI with `undefined: parseConfig` — can you find out why? 日志在下面。\n```\n$ go build ./...\n./main.go:42:13: undefined: parseConfig\n```<|im_end|>\n")
	sb.WriteString("<|im_start|>assistant\n<think>\nI should search for parseConfig.\n</think>\n\n<tool_call>\n{\"name\": \"tool_02_search\", \"arguments\": {\"path\": \".\", \"pattern\": \"parseConfig\"}}\n</tool_call><|im_end|>\n")
	sb.WriteString("<|im_start|>user\n<tool_response>\n")
	for i := range 40 {
		fmt.Fprintf(&sb, "config/load.go:%d:\tcfg, err := parseConfigFile(path) // returns (*Config, error), 2024-05-%02d\n", 100+i*7, i%28+1)
	}
	sb.WriteString("</tool_response><|im_end|>\n<|im_start|>assistant\n")
	return sb.String()
}

func BenchmarkCount(b *testing.B) {
	tk := qwen3(b)
	p := benchPrompt()
	tk.Count(p) // warm the word cache, as a long-running gateway has it
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Count(p)
	}
	b.ReportMetric(float64(tk.Count(p)), "tokens/op")
}

// BenchmarkCountCold empties the word cache before every run: the cost of a
// prompt whose words were never seen.
func BenchmarkCountCold(b *testing.B) {
	tk := qwen3(b)
	p := benchPrompt()
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		tk.cache = wordCache{}
		tk.Count(p)
	}
}

func BenchmarkEncode(b *testing.B) {
	tk := qwen3(b)
	p := benchPrompt()
	tk.Count(p)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		tk.Encode(p)
	}
}

func BenchmarkFromGGUF(b *testing.B) {
	tk := qwen3(b) // skips without the model
	_ = tk
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromGGUF(sharedDir() + "/models/tiny-qwen3-random.gguf"); err != nil {
			b.Fatal(err)
		}
	}
}
