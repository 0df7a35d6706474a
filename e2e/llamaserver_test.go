package e2e

// The gateway against a real llama-server, when one is available.
//
// llama-server is in no package registry these machines reach, so these tests
// take the binary's path from $DRAGOMAN_LLAMA_SERVER and skip without it —
// under CI=true too, since building it (../shared/runtimes/README.md,
// "llama-server": cmake from a llama.cpp source tree, 10-17 minutes on two
// cores) does not fit CI's time budget. One llama-server serves all the
// subtests of TestLlamaServer: the scripted tiny-qwen3-toolcall.gguf, which
// answers every generation prompt with one get_weather call.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// envLlamaServer names the environment variable holding llama-server's path.
const envLlamaServer = "DRAGOMAN_LLAMA_SERVER"

// Bounds on llama-server's start and stop; the tiny model loads in about a
// second, these are for a loaded two-core machine.
const (
	llamaReadyTimeout = 60 * time.Second
	llamaStopTimeout  = 10 * time.Second
)

// llamaServer is a running llama-server with the scripted tiny model.
type llamaServer struct {
	URL     string // http://127.0.0.1:PORT
	Model   string // the model's id in /v1/models
	LogPath string

	// From GET /props.
	Template, BOS, EOS, BuildInfo string

	cmd    *exec.Cmd
	exited chan struct{}
}

// startLlamaServer starts `llama-server -m tiny-qwen3-toolcall.gguf --jinja
// -c 2048 -t 2` on a free loopback port, waits for /health, and stops it
// when t ends. It skips t when $DRAGOMAN_LLAMA_SERVER is unset.
func startLlamaServer(t *testing.T) *llamaServer {
	t.Helper()
	return startLlamaServerWith(t, "tiny-qwen3-toolcall.gguf")
}

// startLlamaServerWith is startLlamaServer with another of the tiny models.
func startLlamaServerWith(t *testing.T, modelFile string) *llamaServer {
	t.Helper()
	bin := os.Getenv(envLlamaServer)
	if bin == "" {
		t.Skipf("%s is unset: llama-server is in no package registry here; build it from a llama.cpp source tree "+
			"as ../shared/runtimes/README.md (\"llama-server\") says and set %s to the binary. "+
			"Skipped under CI=true as well: the build (10-17 minutes on two cores) does not fit CI's time budget",
			envLlamaServer, envLlamaServer)
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file (err %v)", envLlamaServer, bin, err)
	}
	model := filepath.Join(fixtures.Dir(), "models", modelFile)
	if _, err := os.Stat(model); err != nil {
		t.Fatalf("tiny model missing (set DRAGOMAN_SHARED): %v", err)
	}
	dir := t.TempDir()
	var last error
	// The free port is found by listening and closing, so another process
	// may take it first: retry on a fresh port when the bind fails.
	for attempt := 0; attempt < 3; attempt++ {
		s, err := launchLlamaServer(bin, model, dir, attempt)
		if err == nil {
			t.Cleanup(s.stop)
			s.readProps(t)
			return s
		}
		last = err
		if !errors.Is(err, errBind) {
			break
		}
	}
	t.Fatalf("llama-server: %v", last)
	return nil
}

var errBind = errors.New("could not bind its port")

func launchLlamaServer(bin, model, dir string, attempt int) (*llamaServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	logPath := filepath.Join(dir, fmt.Sprintf("llama-server-%d.log", attempt))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(bin, "-m", model, "--jinja", "-c", "2048", "-t", "2",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = llamaEnviron(dir)
	cmd.SysProcAttr = llamaSysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	s := &llamaServer{URL: "http://127.0.0.1:" + strconv.Itoa(port), LogPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(); err != nil {
		s.stop()
		tail := s.logTail(4096)
		if strings.Contains(tail, "bind") || strings.Contains(tail, "address already in use") {
			err = fmt.Errorf("%w: %v", errBind, err)
		}
		return nil, fmt.Errorf("%w\n--- %s (tail) ---\n%s", err, logPath, tail)
	}
	return s, nil
}

// llamaEnviron is the test's environment without llama.cpp's LLAMA_ARG_*
// settings (which would override the flags) and with HOME in dir, so that
// nothing is cached or written outside the test.
func llamaEnviron(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LLAMA_ARG_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "LLAMA_CACHE=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+dir)
}

// waitReady polls GET /health until it answers 200 (503 while the model
// loads), the process exits, or llamaReadyTimeout passes.
func (s *llamaServer) waitReady() error {
	deadline := time.Now().Add(llamaReadyTimeout)
	hc := &http.Client{Timeout: 2 * time.Second}
	last := "no answer"
	for {
		resp, err := hc.Get(s.URL + "/health")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(b))
		} else {
			last = err.Error()
		}
		select {
		case <-s.exited:
			return fmt.Errorf("llama-server exited before GET /health answered 200 (%s)", s.cmd.ProcessState)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("GET %s/health did not answer 200 within %s; last: %s", s.URL, llamaReadyTimeout, last)
		}
	}
}

// stop sends SIGTERM, then SIGKILL if the server has not exited in time.
func (s *llamaServer) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(llamaStopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func (s *llamaServer) logTail(n int64) string {
	f, err := os.Open(s.LogPath)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		_, _ = f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// readProps reads the model's id (/v1/models) and its template and special
// tokens (/props).
func (s *llamaServer) readProps(t *testing.T) {
	t.Helper()
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	decodeGet(t, s.URL+"/v1/models", &models)
	if len(models.Data) != 1 || models.Data[0].ID == "" {
		t.Fatalf("llama-server /v1/models: %+v", models)
	}
	s.Model = models.Data[0].ID
	var props struct {
		ChatTemplate string `json:"chat_template"`
		BOSToken     string `json:"bos_token"`
		EOSToken     string `json:"eos_token"`
		BuildInfo    string `json:"build_info"`
	}
	decodeGet(t, s.URL+"/props", &props)
	if props.ChatTemplate == "" {
		t.Fatal("llama-server /props has no chat_template")
	}
	s.Template, s.BOS, s.EOS, s.BuildInfo = props.ChatTemplate, props.BOSToken, props.EOSToken, props.BuildInfo
	t.Logf("llama-server %s at %s serving %s", s.BuildInfo, s.URL, s.Model)
}

// applyTemplate is llama-server's own rendering of a chat request body.
func (s *llamaServer) applyTemplate(t *testing.T, body []byte) string {
	t.Helper()
	status, b := postJSON(t, s.URL+"/apply-template", body)
	if status != http.StatusOK {
		t.Fatalf("llama-server /apply-template: %d %s", status, b)
	}
	var r struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("/apply-template: %v: %s", err, b)
	}
	return r.Prompt
}

func decodeGet(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, b)
	}
}

func postJSON(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const propsOrigin = "llama-server /props chat_template"

func TestLlamaServer(t *testing.T) {
	ls := startLlamaServer(t)
	upstream := "llama-server=" + ls.URL
	gw := map[string]string{
		"own":   startGateway(t, upstream, "own"),
		"relay": startGateway(t, upstream, "relay"),
	}

	// Both modes hand back the scripted call parsed, streamed or not. Own
	// mode takes the template from /props, renders, and calls /completion;
	// relay mode calls /v1/chat/completions.
	for _, mode := range []string{"own", "relay"} {
		t.Run("ToolCall/"+mode, func(t *testing.T) {
			base := gw[mode]
			cl := client(base)
			ctx := context.Background()
			resp, err := cl.Chat.Completions.New(ctx, weatherParams(ls.Model))
			if err != nil {
				t.Fatal(apiError(err))
			}
			checkWeatherCall(t, resp.Choices[0].Message, resp.Choices[0].FinishReason)
			checkLlamaTrace(t, base, resp.ID, mode)

			stream := cl.Chat.Completions.NewStreaming(ctx, weatherParams(ls.Model))
			var acc openai.ChatCompletionAccumulator
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				t.Fatal(apiError(err))
			}
			checkWeatherCall(t, acc.Choices[0].Message, acc.Choices[0].FinishReason)
			checkLlamaTrace(t, base, acc.ID, mode)
		})
	}

	// tool_choice "none", or no tools at all: the model is offered no tool,
	// so nothing may come back as a call, streamed or not (the scripted model
	// still writes its markup; relay mode hands it back as text, as
	// llama-server does, recording 24).
	for _, mode := range []string{"own", "relay"} {
		for _, c := range []struct {
			name  string
			tools bool
		}{{"ToolChoiceNone", true}, {"NoTools", false}} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				base := gw[mode]
				cl := client(base)
				p := weatherParams(ls.Model)
				if c.tools {
					p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
				} else {
					p.Tools = nil
				}
				resp, err := cl.Chat.Completions.New(context.Background(), p)
				if err != nil {
					t.Fatal(apiError(err))
				}
				if calls, f := resp.Choices[0].Message.ToolCalls, resp.Choices[0].FinishReason; len(calls) != 0 || f == "tool_calls" {
					t.Errorf("no tool offered, yet %d call(s) came back (finish_reason %q): %s", len(calls), f, resp.Choices[0].Message.RawJSON())
				}
				stream := cl.Chat.Completions.NewStreaming(context.Background(), p)
				var acc openai.ChatCompletionAccumulator
				for stream.Next() {
					acc.AddChunk(stream.Current())
				}
				if err := stream.Err(); err != nil {
					t.Fatal(apiError(err))
				}
				if calls, f := acc.Choices[0].Message.ToolCalls, acc.Choices[0].FinishReason; len(calls) != 0 || f == "tool_calls" {
					t.Errorf("streamed: no tool offered, yet %d call(s) came back (finish_reason %q)", len(calls), f)
				}
				trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
				if trace["mode"] != mode {
					t.Errorf("trace mode %v, want %s", trace["mode"], mode)
				}
				if c.tools && !strings.Contains(fmt.Sprint(trace["decisions"]), `tool_choice "none"`) {
					t.Errorf("trace decisions do not mention tool_choice none: %v", trace["decisions"])
				}
				if prompt := fmt.Sprint(trace["prompt"]); mode == "own" && (strings.Contains(prompt, "get_weather") || strings.Contains(prompt, "<tools>")) {
					t.Errorf("the prompt offers the tool:\n%s", prompt)
				}
				if t.Failed() {
					t.Logf("trace: format %v, decisions %v, completion %q, calls %v", trace["format"], trace["decisions"], trace["completion"], trace["calls"])
				}
			})
		}
	}

	// The prompt Dragoman renders in own mode is the one llama-server's own
	// /apply-template renders for the same request body.
	t.Run("PromptMatchesApplyTemplate", func(t *testing.T) {
		base := gw["own"]
		for _, c := range promptCases(ls.Model) {
			t.Run(c.name, func(t *testing.T) {
				if !json.Valid([]byte(c.body)) {
					t.Fatalf("case body is not JSON: %s", c.body)
				}
				status, b := postJSON(t, base+"/v1/chat/completions", []byte(c.body))
				if status != http.StatusOK {
					t.Fatalf("dragoman: %d %s", status, b)
				}
				var resp struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(b, &resp); err != nil || resp.ID == "" {
					t.Fatalf("dragoman answer %s (%v)", b, err)
				}
				trace := getJSON(t, base+"/v1/dragoman/requests/"+resp.ID)
				if trace["mode"] != "own" {
					t.Fatalf("trace mode %v", trace["mode"])
				}
				got, _ := trace["prompt"].(string)

				ref := c.body
				if c.ref != "" {
					ref = c.ref
				}
				want := ls.applyTemplate(t, []byte(ref))
				if got != want {
					t.Errorf("dragoman's prompt differs from llama-server /apply-template: %s\n%s",
						firstDifference("dragoman", got, "llama-server", want), oracleVerdict(t, ls, ref, got, want))
				}
			})
		}
	})
}

// checkLlamaTrace checks a request's trace: the mode, the runtime, the
// template's origin (/props, in both modes: relay mode still uses it to parse
// calls left in the content), and the rendered prompt and raw completion in
// own mode.
func checkLlamaTrace(t *testing.T, base, id, mode string) {
	t.Helper()
	trace := getJSON(t, base+"/v1/dragoman/requests/"+id)
	if trace["mode"] != mode || trace["runtime"] != "llama-server" {
		t.Errorf("trace mode %v runtime %v, want %s on llama-server", trace["mode"], trace["runtime"], mode)
	}
	if trace["template_origin"] != propsOrigin {
		t.Errorf("trace template_origin %q, want %q", trace["template_origin"], propsOrigin)
	}
	if !strings.Contains(fmt.Sprint(trace["calls"]), "get_weather") {
		t.Errorf("trace calls %v", trace["calls"])
	}
	prompt, _ := trace["prompt"].(string)
	switch mode {
	case "own":
		if !strings.HasSuffix(prompt, "<|im_start|>assistant\n") || !strings.Contains(prompt, `"name": "get_weather"`) {
			t.Errorf("own mode: trace prompt %q", prompt)
		}
		if !strings.Contains(fmt.Sprint(trace["completion"]), "<tool_call>") {
			t.Errorf("own mode: trace completion %q", trace["completion"])
		}
	case "relay":
		if prompt != "" {
			t.Errorf("relay mode rendered a prompt: %q", prompt)
		}
	}
}

type promptCase struct {
	name string
	body string // JSON, keys in the order OpenAI clients send them
	// ref, when set, is the like-for-like body for /apply-template:
	// llama-server renders tools even for tool_choice "none" (that only
	// drops its grammar), while Dragoman leaves them out of the prompt.
	ref string
}

// promptCases are chat request bodies sent unchanged to Dragoman and to
// llama-server's /apply-template.
func promptCases(model string) []promptCase {
	const (
		tools = `"tools": [` +
			`{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},` +
			`{"type": "function", "function": {"name": "add", "description": "Add two integers", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}]`
		user   = `{"role": "user", "content": "What's the weather in Paris?"}`
		system = `{"role": "system", "content": "You are terse."}`
		call   = `{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"celsius\"}"}}]}`
		result = `{"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 21}"}`
	)
	m, _ := json.Marshal(model)
	body := func(msgs string, extra ...string) string {
		b := `{"model": ` + string(m) + `, "messages": [` + msgs + `], "max_tokens": 64, "stream": false`
		for _, e := range extra {
			b += ", " + e
		}
		return b + "}"
	}
	return []promptCase{
		{"tools", body(user, tools), ""},
		{"no-tools", body(system + ", " + user), ""},
		{"multi-turn", body(system+`, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello! How can I help?"}, `+user, tools), ""},
		{"tool-result", body(user+", "+call+", "+result, tools), ""},
		{"tool-choice-none", body(user, tools, `"tool_choice": "none"`), body(user)},
		{"no-thinking", body(user, tools, `"chat_template_kwargs": {"enable_thinking": false}`), ""},
	}
}

// firstDifference locates the first byte where a and b differ, with some
// context of each.
func firstDifference(aName, a, bName, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-60)
	clip := func(s string) string { return s[min(from, len(s)):min(i+80, len(s))] }
	return fmt.Sprintf("first difference at byte %d (%s %d bytes, %s %d bytes)\n  %-13s %q\n  %-13s %q",
		i, aName, len(a), bName, len(b), aName+":", clip(a), bName+":", clip(b))
}

// oracleVerdict renders the same request with the shared reference renderer
// (transformers' apply_chat_template), to say which side deviates.
func oracleVerdict(t *testing.T, ls *llamaServer, bodyJSON string, got, want string) string {
	t.Helper()
	script := filepath.Join(fixtures.Dir(), "tools", "oracle", "render.py")
	if _, err := os.Stat(script); err != nil {
		return "(no oracle: " + err.Error() + ")"
	}
	// transformers takes arguments as an object, the shape both sides pass.
	// Tools stay as the request had them (raw JSON keeps their key order).
	var body struct {
		Messages []any           `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
		Kwargs   json.RawMessage `json:"chat_template_kwargs"`
	}
	if err := json.Unmarshal([]byte(bodyJSON), &body); err != nil {
		return "(oracle: " + err.Error() + ")"
	}
	msgs := body.Messages
	for _, m := range msgs {
		mm := m.(map[string]any)
		calls, _ := mm["tool_calls"].([]any)
		for _, c := range calls {
			fn := c.(map[string]any)["function"].(map[string]any)
			if s, ok := fn["arguments"].(string); ok {
				var obj map[string]any
				if json.Unmarshal([]byte(s), &obj) == nil {
					fn["arguments"] = obj
				}
			}
		}
		if calls != nil && mm["content"] == nil {
			mm["content"] = ""
		}
	}
	req := map[string]any{
		"template": ls.Template, "messages": msgs, "tools": body.Tools,
		"add_generation_prompt": true, "bos_token": ls.BOS, "eos_token": ls.EOS,
	}
	if len(body.Tools) == 0 {
		req["tools"] = nil
	}
	if len(body.Kwargs) > 0 {
		req["kwargs"] = body.Kwargs
	}
	in, _ := json.Marshal(req)
	cmd := exec.Command("python3", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("(oracle failed: %v: %s)", err, out)
	}
	oracle := string(out)
	switch {
	case oracle == got && oracle == want:
		return "oracle (transformers) agrees with both?!"
	case oracle == got:
		return "the oracle (transformers' rendering) agrees with dragoman: llama-server deviates"
	case oracle == want:
		return "the oracle (transformers' rendering) agrees with llama-server: dragoman deviates"
	}
	return "the oracle (transformers' rendering) agrees with neither; " + firstDifference("dragoman", got, "oracle", oracle)
}

// apiError adds the raw error body of an OpenAI API error.
func apiError(err error) error {
	var apiErr *openai.Error
	if errorAs(err, &apiErr) {
		return fmt.Errorf("%v: %s", err, apiErr.RawJSON())
	}
	return err
}
