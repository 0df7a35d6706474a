// Package ollamatest runs a real Ollama server, loaded with the tiny test
// models from the shared fixtures, for end-to-end tests of the gateway.
//
// The server binary comes from $DRAGOMAN_OLLAMA (build it with .ci/ollama.sh,
// which prints its path). When that is unset the helpers skip the test, or
// fail it when CI=true. The model files come from $DRAGOMAN_SHARED/models, or
// from ../shared/models beside the repository.
//
// Starting a server and creating its models takes a few seconds, so a test
// package normally shares one server per test binary:
//
//	func TestMain(m *testing.M) { ollamatest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		srv := ollamatest.Shared(t)
//		// talk to srv.URL, e.g. POST srv.URL+"/api/chat" with srv.ToolCall
//	}
//
// Main stops the shared server (and its runner processes) when the tests end;
// on SIGINT or SIGTERM it stops every server and exits. On Linux each server
// also gets SIGTERM from the kernel when the test binary dies (a panic, a
// -timeout, SIGKILL), and the next Shared call removes the directories such
// binaries left behind. Start gives a test its own server, stopped by
// t.Cleanup.
//
// Tests must not delete or overwrite the shared models. Every model's output
// is meaningless (random weights); use them to test plumbing only:
//
//   - [ToolCallModel] ("tiny-toolcall"): tiny-qwen3-toolcall.gguf with the
//     Ollama Go TEMPLATE from models/ollama-qwen-tools.tmpl, PARAMETER stop
//     <|im_end|> and num_ctx 2048. After a generation prompt it always answers
//     with one call, <tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>,
//     so /api/chat with a get_weather tool returns a parsed tool_calls entry.
//     For Ollama's native tool calling (Ollama renders the prompt and parses
//     the call).
//   - [RandomModel] ("tiny-random"): tiny-qwen3-random.gguf with the same
//     template and parameters. Free text is random tokens; with a format (JSON
//     Schema) it produces valid constrained output. It never emits EOS, so
//     always set num_predict.
//   - [NoTemplateModel] ("tiny-notemplate"): tiny-qwen3-toolcall.gguf with no
//     TEMPLATE. Ollama does not translate the GGUF's Jinja chat template, so
//     /api/chat with tools answers HTTP 400 "... does not support tools". This
//     is the case where the gateway renders the Jinja template itself and calls
//     /api/generate with raw: true (which works on this model).
package ollamatest
