package llamacpp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// libDir is the libraries' directory from $DRAGOMAN_LLAMA_LIB. Without it the
// test skips, or fails under CI=true, where .ci/run sets it.
func libDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv(EnvLib)
	if d == "" {
		msg := EnvLib + " is unset: the embedded engine needs llama.cpp's libraries; run .ci/llamalib.sh (npm pack " + NPMPackage + ") and set " + EnvLib + " to the directory it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return d
}

func modelPath(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(fixtures.Require(t), "models", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("tiny model missing: %v", err)
	}
	return p
}

var (
	engineOnce sync.Once
	engine     *Engine
	engineErr  error
)

// tiny is one engine with both tiny models, shared by the tests.
func tiny(t testing.TB) *Engine {
	t.Helper()
	dir := libDir(t)
	toolcall, random := modelPath(t, "tiny-qwen3-toolcall.gguf"), modelPath(t, "tiny-qwen3-random.gguf")
	engineOnce.Do(func() {
		// One thread unless $DRAGOMAN_LLAMA_THREADS says otherwise (for the
		// benchmarks): on a shared two-core machine more are slower.
		threads, _ := strconv.Atoi(os.Getenv("DRAGOMAN_LLAMA_THREADS"))
		engine, engineErr = New(Options{LibDir: dir, Models: []string{toolcall, random}, ContextSize: 2048, Threads: max(threads, 1)})
	})
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engine
}

const weatherPrompt = "<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"

const weatherCall = "<tool_call>\n\n\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>"

// collect reads a stream to its end.
func collect(t testing.TB, s backend.Stream) (string, backend.Chunk) {
	t.Helper()
	defer s.Close()
	var b strings.Builder
	var last backend.Chunk
	for {
		c, err := s.Next()
		if err == io.EOF {
			return b.String(), last
		}
		if err != nil {
			t.Fatalf("after %q: %v", b.String(), err)
		}
		b.WriteString(c.Text)
		if c.FinishReason != "" {
			last = c
		}
	}
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func TestModels(t *testing.T) {
	e := tiny(t)
	ms, err := e.Models(context.Background())
	if err != nil || len(ms) != 2 || ms[0].ID != "tiny-qwen3-toolcall" || ms[1].ID != "tiny-qwen3-random" || ms[0].ContextLength != 2048 {
		t.Fatalf("models %+v, %v", ms, err)
	}
	info, err := e.ModelInfo(context.Background(), "tiny-qwen3-toolcall")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info.Template, "<tool_call>") || info.BOSToken != "<|endoftext|>" || info.EOSToken != "<|im_end|>" || info.ContextLength != 2048 {
		t.Errorf("info: bos %q eos %q ctx %d template %d bytes", info.BOSToken, info.EOSToken, info.ContextLength, len(info.Template))
	}
	if _, err := e.ModelInfo(context.Background(), "nope"); err == nil {
		t.Error("unknown model: no error")
	}
	if _, err := e.Chat(context.Background(), &chat.Request{}); !errors.Is(err, ErrNoChat) {
		t.Errorf("Chat: %v", err)
	}
}

// The scripted model answers a generation prompt with its get_weather call
// and then <|im_end|>, at any temperature.
func TestToolCallModel(t *testing.T) {
	e := tiny(t)
	for _, temp := range []*float64{nil, f64(0), f64(1.5)} {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Temperature: temp})
		if err != nil {
			t.Fatal(err)
		}
		text, last := collect(t, s)
		if text != weatherCall {
			t.Errorf("temperature %v: got %q", temp, text)
		}
		if last.FinishReason != chat.FinishStop || last.Usage == nil || last.Usage.PromptTokens != 15 || last.Usage.CompletionTokens < 10 {
			t.Errorf("last chunk %+v usage %+v", last, last.Usage)
		}
	}
}

// An eager grammar makes even the random model write a well-formed call.
func TestGrammar(t *testing.T) {
	e := tiny(t)
	gbnf := `root ::= "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"" [a-z]{1,8} "\"}}\n</tool_call>"`
	g, err := grammar.Parse(gbnf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 200, Temperature: f64(1), Seed: i64(int64(i)), Grammar: gbnf})
		if err != nil {
			t.Fatal(err)
		}
		text, last := collect(t, s)
		if !g.Match(text) || last.FinishReason != chat.FinishStop {
			t.Errorf("sample %d: %q (finish %q) does not match the grammar", i, text, last.FinishReason)
		}
	}
}

// A JSON Schema is converted to GBNF.
func TestJSONSchema(t *testing.T) {
	e := tiny(t)
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"]}`)
	g, _, err := grammar.FromJSONSchema(schema, grammar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: weatherPrompt, MaxTokens: 200, Seed: i64(int64(i)), JSONSchema: schema})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := collect(t, s)
		if !g.Match(text) {
			t.Errorf("sample %d: %q does not match the schema's grammar", i, text)
		}
	}
}

// A lazy grammar leaves the text free until a trigger appears, then holds.
// The scripted model writes <tool_call> first: the grammar then forces the
// call's JSON body to name "lookup" instead of get_weather.
func TestLazyGrammar(t *testing.T) {
	e := tiny(t)
	gbnf := `root ::= "<tool_call>" [\n]+ "{\"name\":\"lookup\"}" [\n] "</tool_call>"`
	for _, trig := range []backend.GrammarTrigger{{Type: "word", Value: "<tool_call>"}, {Type: "pattern", Value: `<tool_call>`}} {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Temperature: f64(0),
			Grammar: gbnf, GrammarLazy: true, GrammarTriggers: []backend.GrammarTrigger{trig}})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := collect(t, s)
		if !strings.HasPrefix(text, "<tool_call>\n") || !strings.Contains(text, `{"name":"lookup"}`) {
			t.Errorf("trigger %+v: %q", trig, text)
		}
	}
	// Not triggered: the random model's free text is not constrained.
	s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hello", MaxTokens: 8, Seed: i64(1),
		Grammar: gbnf, GrammarLazy: true, GrammarTriggers: []backend.GrammarTrigger{{Type: "word", Value: "<tool_call>"}}})
	if err != nil {
		t.Fatal(err)
	}
	if text, last := collect(t, s); text == "" || last.FinishReason != chat.FinishLength || last.Usage.CompletionTokens != 8 {
		t.Errorf("untriggered: %q %+v", text, last)
	}
}

func TestBadGrammar(t *testing.T) {
	e := tiny(t)
	_, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hi", Grammar: `root ::= "unclosed`})
	var be *backend.Error
	if !errors.As(err, &be) || be.Status != 400 || !strings.Contains(be.Message, "grammar") {
		t.Fatalf("err %v", err)
	}
	// The model is free again.
	s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hi", MaxTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, s)
}

// Stop strings end the answer before them, even split across tokens.
func TestStop(t *testing.T) {
	e := tiny(t)
	for _, c := range []struct {
		stop      []string
		want, seq string // seq: the stop string the last chunk names
	}{
		{[]string{"get_weather"}, "<tool_call>\n\n\n{\"name\":\"", "get_weather"},
		{[]string{"\"Par", "nothing"}, "<tool_call>\n\n\n{\"name\":\"get_weather\",\"arguments\":{\"city\":", "\"Par"},
		{[]string{"<tool"}, "", "<tool"},
		{[]string{"zzz"}, weatherCall, ""},
	} {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64, Stop: c.stop})
		if err != nil {
			t.Fatal(err)
		}
		text, last := collect(t, s)
		if text != c.want || last.FinishReason != chat.FinishStop {
			t.Errorf("stop %q: got %q (%s), want %q", c.stop, text, last.FinishReason, c.want)
		}
		if last.StopSequence != c.seq || !last.StopReported {
			t.Errorf("stop %q: stop sequence %q (reported %v), want %q", c.stop, last.StopSequence, last.StopReported, c.seq)
		}
	}
}

// max_tokens ends with "length"; every chunk is whole UTF-8.
func TestLengthAndUTF8(t *testing.T) {
	e := tiny(t)
	for seed := range 5 {
		s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Bonjour, ça va ? 你好", MaxTokens: 40, Seed: i64(int64(seed))})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			c, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.FinishReason == "" && !utf8Valid(c.Text) {
				t.Errorf("chunk %q is not valid UTF-8", c.Text)
			}
			if c.FinishReason != "" {
				if c.FinishReason != chat.FinishLength || c.Usage.CompletionTokens != 40 {
					t.Errorf("last chunk %+v %+v", c, c.Usage)
				}
			}
			n++
		}
		s.Close()
		if n < 2 {
			t.Errorf("%d chunks", n)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestPromptTooLong(t *testing.T) {
	e := tiny(t)
	_, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: strings.Repeat("hello world ", 2100)})
	var be *backend.Error
	if !errors.As(err, &be) || be.Status != 400 || !strings.Contains(be.Message, "context holds 2048") || !strings.Contains(be.Message, "the prompt is 420") {
		t.Fatalf("err %v", err)
	}
}

// Cancelling the request ends the stream between tokens and frees the
// model for the next request; a request waiting for the model (every slot
// runs a request) gives up when its context ends.
func TestCancel(t *testing.T) {
	e := tiny(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := e.Complete(ctx, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hi", MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	// The other slots taken by requests nobody reads (they wait for their
	// reader once their stream's buffer is full, holding their slot).
	for range e.Slots() - 1 {
		o, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hello", MaxTokens: 1000})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
	}
	// While they hold the model, another request waits, until its deadline.
	wctx, wcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer wcancel()
	if _, err := e.Complete(wctx, backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hi", MaxTokens: 1}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting request: %v", err)
	}
	cancel()
	for {
		_, err := s.Next()
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	}
	if _, err := s.Next(); err != io.EOF {
		t.Errorf("after the error: %v", err)
	}
	s.Close()
	// The cancelled request's slot is free while the others still run.
	s2, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-random", Prompt: "Hi", MaxTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, last := collect(t, s2); last.Usage.CompletionTokens != 3 {
		t.Errorf("after cancel: %+v", last.Usage)
	}
}

// Concurrent requests, more than the slots: each gets the whole answer.
func TestConcurrent(t *testing.T) {
	e := tiny(t)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.Complete(context.Background(), backend.CompleteRequest{Model: "tiny-qwen3-toolcall", Prompt: weatherPrompt, MaxTokens: 64})
			if err != nil {
				errs <- err.Error()
				return
			}
			if text, _ := collect(t, s); text != weatherCall {
				errs <- text
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestMissingLibrary(t *testing.T) {
	dir := t.TempDir()
	_, err := FindLib(dir)
	if !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), "npm pack "+NPMPackage) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v", err)
	}
	t.Setenv(EnvLib, dir)
	_, err = New(Options{Models: []string{modelPath(t, "tiny-qwen3-random.gguf")}})
	if !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), "$"+EnvLib) {
		t.Fatalf("New: %v", err)
	}
}

// A file that is not a GGUF, and one whose header is a GGUF's but whose
// tensors are missing, are refused with the file's name.
func TestUnloadableModel(t *testing.T) {
	dir := libDir(t)
	garbage := filepath.Join(t.TempDir(), "garbage.gguf")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a model ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{LibDir: dir, Models: []string{garbage}}); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Fatalf("garbage: %v", err)
	}
	// The real model's header without its tensors.
	data, err := os.ReadFile(modelPath(t, "tiny-qwen3-random.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.gguf")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{LibDir: dir, Models: []string{cut}})
	if err == nil || !strings.Contains(err.Error(), cut) || !strings.Contains(err.Error(), "llama.cpp could not read it") {
		t.Fatalf("truncated: %v", err)
	}
	t.Log(err)
}

// A context above what the model was trained for is refused, with both
// numbers; without a size the default is capped at the model's.
func TestContextAboveTheModels(t *testing.T) {
	dir := libDir(t)
	toolcall := modelPath(t, "tiny-qwen3-toolcall.gguf")
	_, err := New(Options{LibDir: dir, Models: []string{toolcall}, ContextSize: 8192, Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "trained for a context of 2048 tokens") || !strings.Contains(err.Error(), "-ctx 2048 or less") {
		t.Errorf("8192 on a 2048-token model: %v", err)
	}
	e, err := New(Options{LibDir: dir, Models: []string{toolcall}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ms, _ := e.Models(context.Background())
	if len(ms) != 1 || ms[0].ContextLength != 2048 {
		t.Errorf("default context: %+v, want the model's 2048", ms)
	}
}
