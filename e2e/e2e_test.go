// Package e2e drives the real dragoman binary with the official OpenAI Go SDK
// as the client, against a real Ollama serving the tiny models of
// ../shared/models (internal/ollamatest). Without an Ollama binary
// ($DRAGOMAN_OLLAMA, built by .ci/ollama.sh) the tests skip, or fail under
// CI=true. The llama-server tests (llamaserver_test.go) run against a real
// llama-server at $DRAGOMAN_LLAMA_SERVER and skip without it, CI included.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

func TestMain(m *testing.M) { ollamatest.Main(m) }

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// dragomanBinary builds cmd/dragoman once per test run.
func dragomanBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dragoman-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "dragoman")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/dragoman")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// startDragoman runs `dragoman serve` in front of the Ollama at srv with the
// given mode and returns its base URL. The process stops with the test.
func startDragoman(t *testing.T, srv *ollamatest.Server, mode string) string {
	t.Helper()
	return startGateway(t, "ollama="+srv.URL, mode, "OLLAMA_MODELS="+filepath.Join(srv.Dir, "models"))
}

// startGateway runs `dragoman serve -upstream upstream` (KIND=URL) with the
// given mode ("" for the default) and extra environment, and returns its
// base URL. The process stops with the test.
func startGateway(t *testing.T, upstream, mode string, env ...string) string {
	t.Helper()
	args := []string{"serve", "-listen", "127.0.0.1:0", "-no-discover", "-upstream", upstream}
	if mode != "" {
		args = append(args, "-mode", mode)
	}
	return startServe(t, args, env, 30*time.Second)
}

// startServe runs the dragoman binary with args and extra environment,
// waits until it says where it listens (at most wait), and returns that base
// URL; its stderr goes to the test log. The process stops with the test.
func startServe(t *testing.T, args, env []string, wait time.Duration) string {
	t.Helper()
	lines := launchServe(t, args, env)
	timeout := time.After(wait)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("dragoman %s exited before it listened", strings.Join(args, " "))
			}
			if _, rest, ok := strings.Cut(line, "on http://"); ok {
				go func() { // keep reading, so that the process never blocks on its stderr
					for range lines {
					}
				}()
				return "http://" + strings.Fields(rest)[0]
			}
		case <-timeout:
			t.Fatalf("dragoman %s did not start listening", strings.Join(args, " "))
		}
	}
}

// launchServe starts the binary with args (and env added) and returns its
// stderr's lines as they come, each also in the test log. The process stops
// with the test, and with the test binary should that die first.
func launchServe(t *testing.T, args, env []string) <-chan string {
	t.Helper()
	cmd := exec.Command(dragomanBinary(t), args...)
	// A trace store of the test's own: serve keeps every trace in a file
	// under $XDG_STATE_HOME, and a test reads the traces of its requests.
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+t.TempDir()), env...)
	cmd.SysProcAttr = llamaSysProcAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("dragoman:", sc.Text())
			lines <- sc.Text()
		}
	}()
	return lines
}

func client(base string) openai.Client {
	return openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

var weatherTool = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("Get the current weather for a city"),
	Parameters: shared.FunctionParameters{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required":   []string{"city"},
	},
})

func weatherParams(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:     model,
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in Paris?")},
		Tools:     []openai.ChatCompletionToolUnionParam{weatherTool},
		MaxTokens: openai.Int(64),
	}
}

// checkWeatherCall asserts the answer is the scripted model's one call.
func checkWeatherCall(t *testing.T, msg openai.ChatCompletionMessage, finish string) {
	t.Helper()
	if len(msg.ToolCalls) != 1 {
		t.Fatalf("want one tool call, got %d; content %q", len(msg.ToolCalls), msg.Content)
	}
	c := msg.ToolCalls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
		t.Fatalf("arguments %q are not JSON: %v", c.Function.Arguments, err)
	}
	if c.Function.Name != "get_weather" || args["city"] != "Paris" || c.ID == "" {
		t.Errorf("call %+v", c)
	}
	if strings.Contains(msg.Content, "<tool_call>") {
		t.Errorf("markup left in content: %q", msg.Content)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason %q", finish)
	}
}

// The scripted model answers every prompt with a get_weather call. Both modes
// must hand it back parsed, streamed or not. The model without an Ollama
// TEMPLATE works only in own mode: Ollama itself refuses tools for it.
func TestToolCall(t *testing.T) {
	srv := ollamatest.Shared(t)
	for _, c := range []struct {
		mode, model string
	}{
		{"own", srv.ToolCall},
		{"own", srv.NoTemplate},
		{"relay", srv.ToolCall},
	} {
		t.Run(c.mode+"/"+c.model, func(t *testing.T) {
			base := startDragoman(t, srv, c.mode)
			cl := client(base)
			ctx := context.Background()
			resp, err := cl.Chat.Completions.New(ctx, weatherParams(c.model))
			if err != nil {
				t.Fatal(err)
			}
			checkWeatherCall(t, resp.Choices[0].Message, resp.Choices[0].FinishReason)

			stream := cl.Chat.Completions.NewStreaming(ctx, weatherParams(c.model))
			var acc openai.ChatCompletionAccumulator
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			checkWeatherCall(t, acc.Choices[0].Message, acc.Choices[0].FinishReason)

			// The trace shows what was sent and received.
			trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
			if trace["mode"] != c.mode || !strings.Contains(fmt.Sprint(trace["calls"]), "get_weather") {
				t.Errorf("trace mode %v, calls %v", trace["mode"], trace["calls"])
			}
			if c.mode == "own" && !strings.Contains(fmt.Sprint(trace["completion"]), "<tool_call>") {
				t.Errorf("own mode: trace completion %q", trace["completion"])
			}
			if c.mode == "own" && !strings.Contains(fmt.Sprint(trace["prompt"]), "<|im_start|>assistant") {
				t.Errorf("own mode: trace prompt %q", trace["prompt"])
			}
		})
	}
}

// Relay mode on a model Ollama cannot give tools: the client gets Ollama's
// refusal as a well-formed OpenAI error, with its status.
func TestRelayRefusalIsAnError(t *testing.T) {
	srv := ollamatest.Shared(t)
	base := startDragoman(t, srv, "relay")
	cl := client(base)
	_, err := cl.Chat.Completions.New(context.Background(), weatherParams(srv.NoTemplate))
	var apiErr *openai.Error
	if err == nil || !errorAs(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "does not support tools") {
		t.Fatalf("err = %v", err)
	}
}

// tool_choice "none" and a tool-result round trip, in own mode.
func TestToolChoiceNoneAndToolResult(t *testing.T) {
	srv := ollamatest.Shared(t)
	base := startDragoman(t, srv, "own")
	cl := client(base)
	ctx := context.Background()

	p := weatherParams(srv.Random)
	p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
	p.MaxTokens = openai.Int(8)
	resp, err := cl.Chat.Completions.New(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices[0].Message.ToolCalls) != 0 {
		t.Errorf("tool_choice none: got calls %v", resp.Choices[0].Message.ToolCalls)
	}
	trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
	if strings.Contains(fmt.Sprint(trace["prompt"]), "get_weather") {
		t.Error("tool_choice none: the prompt offers the tool")
	}

	p = weatherParams(srv.ToolCall)
	first, err := cl.Chat.Completions.New(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	call := first.Choices[0].Message
	p.Messages = append(p.Messages, call.ToParam(), openai.ToolMessage(`{"temperature": 21}`, call.ToolCalls[0].ID))
	second, err := cl.Chat.Completions.New(ctx, p)
	if err != nil {
		var apiErr *openai.Error
		if errorAs(err, &apiErr) {
			t.Fatalf("%v: %s", err, apiErr.RawJSON())
		}
		t.Fatal(err)
	}
	trace = getJSON(t, base+"/v1/dragoman/requests/"+second.ID)
	prompt := fmt.Sprint(trace["prompt"])
	if !strings.Contains(prompt, `{"temperature": 21}`) || !strings.Contains(prompt, `"city": "Paris"`) {
		t.Errorf("round trip prompt lacks the call or its result:\n%s", prompt)
	}
}

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v: %s", url, err, b)
	}
	return v
}

func errorAs(err error, target **openai.Error) bool {
	e, ok := err.(*openai.Error)
	if ok {
		*target = e
	}
	return ok
}

// sampleCount is how many samples a sampling test draws: its full count
// with DRAGOMAN_SAMPLES=full (the sampling tier of scripts/test.sh, which CI
// runs with a budget of its own), a number given there, else a handful, so
// that the default tier checks the same thing quickly.
func sampleCount(t *testing.T, full int) int {
	t.Helper()
	n := min(full, 5)
	switch v := os.Getenv("DRAGOMAN_SAMPLES"); v {
	case "":
	case "full":
		n = full
	default:
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			t.Fatalf("DRAGOMAN_SAMPLES=%q: want full or a positive number", v)
		}
		n = k
	}
	t.Logf("%d samples (the full count is %d: DRAGOMAN_SAMPLES=full)", n, full)
	return n
}
