package format

// One fuzz target per family (go test -fuzz FuzzHermes ./format), each seeded
// with its family's vectors; FuzzFamilies runs them all at once.
// TestFuzzTargetPerFamily checks that every family has one.

import "testing"

func FuzzApertus(f *testing.F)              { fuzzFamily(f, "apertus") }
func FuzzApriel(f *testing.F)               { fuzzFamily(f, "apriel") }
func FuzzCohereCommand(f *testing.F)        { fuzzFamily(f, "cohere-command") }
func FuzzCommandRPlusMarkdown(f *testing.F) { fuzzFamily(f, "command-r-plus-markdown") }
func FuzzDeepseekV3(f *testing.F)           { fuzzFamily(f, "deepseek-v3") }
func FuzzDeepseekV31(f *testing.F)          { fuzzFamily(f, "deepseek-v3.1") }
func FuzzDeepseekV32Dsml(f *testing.F)      { fuzzFamily(f, "deepseek-v3.2-dsml") }
func FuzzFirefunctionV2(f *testing.F)       { fuzzFamily(f, "firefunction-v2") }
func FuzzFunctionaryV31(f *testing.F)       { fuzzFamily(f, "functionary-v3.1") }
func FuzzFunctionaryV32(f *testing.F)       { fuzzFamily(f, "functionary-v3.2") }
func FuzzFunctiongemma(f *testing.F)        { fuzzFamily(f, "functiongemma") }
func FuzzGemma4(f *testing.F)               { fuzzFamily(f, "gemma4") }
func FuzzGigachat3(f *testing.F)            { fuzzFamily(f, "gigachat3") }
func FuzzGlm4547(f *testing.F)              { fuzzFamily(f, "glm-4.5-4.7") }
func FuzzGptOssHarmony(f *testing.F)        { fuzzFamily(f, "gpt-oss-harmony") }
func FuzzGranite(f *testing.F)              { fuzzFamily(f, "granite") }
func FuzzHermes(f *testing.F)               { fuzzFamily(f, "hermes") }
func FuzzHunyuanHy3(f *testing.F)           { fuzzFamily(f, "hunyuan-hy3") }
func FuzzInternlm2(f *testing.F)            { fuzzFamily(f, "internlm2") }
func FuzzKimiK2(f *testing.F)               { fuzzFamily(f, "kimi-k2") }
func FuzzKimiK3(f *testing.F)               { fuzzFamily(f, "kimi-k3") }
func FuzzLaguna(f *testing.F)               { fuzzFamily(f, "laguna") }
func FuzzLmstudio(f *testing.F)             { fuzzFamily(f, "lmstudio") }
func FuzzLfm2(f *testing.F)                 { fuzzFamily(f, "lfm2") }
func FuzzLlama3Json(f *testing.F)           { fuzzFamily(f, "llama3-json") }
func FuzzLongcat(f *testing.F)              { fuzzFamily(f, "longcat") }
func FuzzMinicpm5(f *testing.F)             { fuzzFamily(f, "minicpm5") }
func FuzzMinimaxM1(f *testing.F)            { fuzzFamily(f, "minimax-m1") }
func FuzzMinimaxM2(f *testing.F)            { fuzzFamily(f, "minimax-m2") }
func FuzzMinimaxM3(f *testing.F)            { fuzzFamily(f, "minimax-m3") }
func FuzzMistralLegacyArray(f *testing.F)   { fuzzFamily(f, "mistral-legacy-array") }
func FuzzMistralV11Args(f *testing.F)       { fuzzFamily(f, "mistral-v11-args") }
func FuzzMuseGlimmer(f *testing.F)          { fuzzFamily(f, "muse-glimmer") }
func FuzzNemotronToolcallJson(f *testing.F) { fuzzFamily(f, "nemotron-toolcall-json") }
func FuzzOlmo3(f *testing.F)                { fuzzFamily(f, "olmo3") }
func FuzzPythonic(f *testing.F)             { fuzzFamily(f, "pythonic") }
func FuzzQwen3CoderXml(f *testing.F)        { fuzzFamily(f, "qwen3-coder-xml") }
func FuzzSeedOss(f *testing.F)              { fuzzFamily(f, "seed-oss") }
func FuzzSolarOpen(f *testing.F)            { fuzzFamily(f, "solar-open") }
func FuzzStep3(f *testing.F)                { fuzzFamily(f, "step3") }
func FuzzXlam(f *testing.F)                 { fuzzFamily(f, "xlam") }
