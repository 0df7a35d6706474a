package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkFastSSE compares the fast reader's chunk for line with
// json.Unmarshal's. It reports whether the fast reader took the line.
func checkFastSSE(t testing.TB, f *sseFast, line []byte) bool {
	t.Helper()
	got := f.line(line)
	if got == nil {
		return false
	}
	var want sseChunk
	if err := json.Unmarshal(line, &want); err != nil {
		t.Errorf("fast reader took %q, which Unmarshal refuses: %v", line, err)
		return true
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("line %q:\n fast      %s\n Unmarshal %s", line, dumpSSE(got), dumpSSE(&want))
	}
	return true
}

func checkFastOllama(t testing.TB, f *ollamaFast, line []byte) bool {
	t.Helper()
	got := f.line(line)
	if got == nil {
		return false
	}
	var want ollamaChunk
	if err := json.Unmarshal(line, &want); err != nil {
		t.Errorf("fast reader took %q, which Unmarshal refuses: %v", line, err)
		return true
	}
	if !reflect.DeepEqual(*got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("line %q:\n fast      %s %+v\n Unmarshal %s %+v", line, g, got.Message, w, want.Message)
	}
	return true
}

func dumpSSE(c *sseChunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v", *c)
	for _, ch := range c.Choices {
		fmt.Fprintf(&b, " choice %+v", ch)
		if d := ch.Delta; d != nil {
			for _, p := range []*string{d.Content, d.ReasoningContent, d.Reasoning, d.Thinking} {
				if p == nil {
					b.WriteString(" nil")
				} else {
					fmt.Fprintf(&b, " %q", *p)
				}
			}
		}
	}
	return b.String()
}

// recordedLines are the chunks of every recording (shared/recordings when
// DRAGOMAN_SHARED is set, and the copies in testdata) and of the dialect
// files, each compact as the runtime sent it and as pretty-printed in the
// recording.
func recordedLines(t testing.TB) [][]byte {
	var files []string
	for _, pat := range []string{"testdata/recordings/*/*.json"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if dir := os.Getenv("DRAGOMAN_SHARED"); dir != "" {
		for _, pat := range []string{"recordings/*.json", "recordings/*/*.json"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			files = append(files, m...)
		}
	}
	var lines [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Response json.RawMessage `json:"response"`
		}
		if json.Unmarshal(b, &rec) != nil || len(rec.Response) == 0 {
			continue
		}
		var chunks []json.RawMessage
		if json.Unmarshal(rec.Response, &chunks) != nil {
			chunks = []json.RawMessage{rec.Response}
		}
		for _, c := range chunks {
			lines = append(lines, compact(c), bytes.Clone(c))
		}
	}
	dialects, _ := filepath.Glob("testdata/dialects/*.sse")
	for _, file := range dialects {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(l, "data:"); ok {
				lines = append(lines, []byte(strings.TrimSpace(p)))
			}
		}
	}
	if len(lines) < 100 {
		t.Fatalf("only %d recorded lines found", len(lines))
	}
	return lines
}

// trickyStrings are JSON string bodies (between the quotes) that test the
// unescaping, valid or not.
var trickyStrings = []string{
	``, `tok`, ` Ré`, `圄`, `强力`, `𝒗`, "\u00a0", `\"`, `\\`, `\/`, `/`, `\b`, `\f`, `\n`, `\r`, `\t`,
	`a\"b\\c\/d\be\ff\ng\rh\ti`, `\u0000`, `\u001f`, `\u0041`, `\u00e9`, `\u00E9`, `\u20ac`, `\uFFFD`, `\uffff`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\uDBFF\uDFFF`, `\uD800\uDC00`, `\uD83D`, `\uDE00`, `\uD83Dx`, `\uD83D\u0041`,
	`\uD83D\uD83D\uDE00`, `\uDE00\uD83D`, `\uD83D\n`, `\uD83D\`, `\uD83D\u`, `\uD83D\uDE0`, `\uD83D\uZZZZ`,
	"\xff", "a\xffb", "\xc3", "\xc3(", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xef\xbf\xbd", "\x7f",
	"\x01", "\x1f", "a\tb", "a\nb", `\x`, `\u12`, `\uZZZZ`, `\U0041`, `\`, `\'`, `a"b`, `<tool_call>`, `&amp;`,
	`\u003c\u003e\u0026`, `\u2028\u2029`, "\u2028", strings.Repeat(`é\n`, 100), strings.Repeat("w", 5000),
}

// shapes are the per-token lines the fast reader is for, with %s for a
// string body, and whether they are Ollama's.
var shapes = []struct {
	line   string
	ollama bool
}{
	{`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}`, false},
	{`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"%s"}}],"created":1795994778,"id":"chatcmpl-x","model":"tiny.gguf","system_fingerprint":"b9928-81ff7ab","object":"chat.completion.chunk"}`, false},
	{`{"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"%s"}}],"created":1,"id":"c","model":"m","object":"chat.completion.chunk"}`, false},
	{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"%s"},"logprobs":null,"finish_reason":null}]}`, false},
	{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"thinking":"%s","content":null},"logprobs":null,"finish_reason":null,"stop_reason":null}]}`, false},
	{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null,"matched_stop":null}],"usage":null}`, false},
	{`{"id":"c","object":"text_completion","created":1,"model":"m","choices":[{"text":"%s","index":0,"logprobs":null,"finish_reason":null}]}`, false},
	{`{"index":0,"content":"%s","tokens":[],"stop":false,"id_slot":-1,"tokens_predicted":3,"tokens_evaluated":15}`, false},
	{`{"content":"%s","stop":false}`, false},
	{`{"model":"m","created_at":"2026-11-29T23:26:57.049166258Z","message":{"role":"assistant","content":"%s"},"done":false}`, true},
	{`{"model":"m","created_at":"2026-11-29T23:26:57Z","message":{"role":"assistant","content":"","thinking":"%s"},"done":false}`, true},
	{`{"model":"m","created_at":"2026-11-29T23:26:57Z","response":"%s","done":false}`, true},
	{`{"model":"m","created_at":"2026-11-29T23:26:57Z","response":"","thinking":"%s","done":false}`, true},
}

// TestFastLinesMatchUnmarshal: on every recorded line, every per-token shape
// with every tricky string, and random lines near those shapes, the fast
// readers either decline or give exactly Unmarshal's struct; and they take
// the per-token shapes with valid strings.
func TestFastLinesMatchUnmarshal(t *testing.T) {
	var sf sseFast // one of each for all lines: nothing may leak from one to the next
	var of ollamaFast
	var taken, total int
	check := func(line []byte) {
		total++
		a := checkFastSSE(t, &sf, line)
		b := checkFastOllama(t, &of, line)
		if a || b {
			taken++
		}
	}
	recorded := 0
	for _, line := range recordedLines(t) {
		check(line)
	}
	recorded = taken
	if recorded < 30 {
		t.Errorf("the fast readers took only %d recorded lines", recorded)
	}
	for _, sh := range shapes {
		for _, s := range trickyStrings {
			line := []byte(strings.Replace(sh.line, "%s", s, 1))
			valid := json.Valid(line)
			var took bool
			if sh.ollama {
				took = checkFastOllama(t, &of, line)
			} else {
				took = checkFastSSE(t, &sf, line)
			}
			if valid && !took {
				t.Errorf("the fast reader declined the per-token line %q", line)
			}
			check(line)
		}
	}
	r := rand.New(rand.NewSource(21))
	for range 60000 {
		check(randomLine(r))
	}
	t.Logf("%d lines, %d taken (%d recorded)", total, taken, recorded)
	if taken < total/20 {
		t.Errorf("only %d of %d lines taken: the generator drifted away from the shapes", taken, total)
	}
}

// randomLine makes a line near the per-token shapes: known and unknown keys
// (some differing only in case, some escaped), in any order, sometimes twice,
// values of the right and the wrong types, tricky strings and numbers, any
// whitespace, now and then a byte cut or changed.
func randomLine(r *rand.Rand) []byte {
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	ws := func() string {
		if r.Intn(3) > 0 {
			return ""
		}
		if r.Intn(60) == 0 {
			return pick("\f", "\v", "\u00a0", "\x00") // not JSON's
		}
		return pick(" ", "\t", "\n", "\r", "  ", "\r\n ")
	}
	str := func() string {
		if r.Intn(4) == 0 {
			return `"` + trickyStrings[r.Intn(len(trickyStrings))] + trickyStrings[r.Intn(len(trickyStrings))] + `"`
		}
		return `"` + pick("tok", "", " the", "é", `\n`, `\"`) + `"`
	}
	num := func() string {
		return pick("0", "1", "-1", "1795994778", "01", "1.5", "1e3", "1E+2", "-0", "1.", ".5", "-", "123456789012345678", "1234567890123456789", "99999999999999999999", "0.0", "2e-1")
	}
	var value func(kind string, depth int) string
	obj := func(members []string) string {
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		if r.Intn(20) == 0 && len(members) > 0 {
			members = append(members, members[r.Intn(len(members))]) // a repeated key
		}
		return "{" + ws() + strings.Join(members, ws()+","+ws()) + ws() + "}"
	}
	member := func(key, kind string, depth int) string {
		if r.Intn(40) == 0 {
			key = pick(strings.ToUpper(key[:1])+key[1:], strings.ToUpper(key), `\u0063ontent`, key+"_x", "x"+key)
		}
		return `"` + key + `"` + ws() + ":" + ws() + value(kind, depth)
	}
	value = func(kind string, depth int) string {
		if r.Intn(60) == 0 { // the wrong type
			kind = pick("string", "number", "null", "false", "true", "object", "array")
		}
		switch kind {
		case "string":
			return str()
		case "number":
			return num()
		case "null":
			return "null"
		case "false":
			return "false"
		case "true":
			return "true"
		case "stringOrNull":
			if r.Intn(5) == 0 {
				return "null"
			}
			return str()
		case "tokens":
			return pick("[]", "[1,2]", "[ 3 ]", "[1,]", "[1.5]", `["a"]`)
		case "delta":
			var ms []string
			for _, k := range []string{"role", "content", "reasoning_content", "reasoning", "thinking", "tool_calls", "refusal"} {
				if r.Intn(3) == 0 {
					switch k {
					case "tool_calls":
						if r.Intn(3) == 0 {
							ms = append(ms, `"tool_calls":`+pick(`[]`, `null`, `[{"index":0,"function":{"arguments":"{}"}}]`))
						}
					case "refusal":
						if r.Intn(4) == 0 {
							ms = append(ms, member(k, "null", depth))
						}
					default:
						ms = append(ms, member(k, "stringOrNull", depth))
					}
				}
			}
			return obj(ms)
		case "choice":
			var ms []string
			for _, k := range []string{"index", "delta", "text", "finish_reason", "logprobs", "stop_reason", "matched_stop", "message"} {
				if r.Intn(2) == 0 {
					switch k {
					case "index":
						ms = append(ms, member(k, "number", depth))
					case "delta":
						ms = append(ms, member(k, "delta", depth))
					case "text":
						ms = append(ms, member(k, "stringOrNull", depth))
					case "finish_reason":
						ms = append(ms, `"finish_reason":`+pick("null", "null", `"stop"`, `""`, `"length"`))
					case "message":
						if r.Intn(5) == 0 {
							ms = append(ms, member(k, "delta", depth))
						}
					default:
						ms = append(ms, member(k, "null", depth))
					}
				}
			}
			return obj(ms)
		case "choices":
			n := pick("1", "1", "1", "0", "2")
			var cs []string
			for range int(n[0] - '0') {
				cs = append(cs, value("choice", depth+1))
			}
			return "[" + ws() + strings.Join(cs, ","+ws()) + ws() + "]"
		case "message":
			var ms []string
			for _, k := range []string{"role", "content", "thinking", "tool_calls", "images"} {
				if r.Intn(2) == 0 {
					switch k {
					case "tool_calls":
						if r.Intn(4) == 0 {
							ms = append(ms, `"tool_calls":[{"function":{"name":"f","arguments":{}}}]`)
						}
					case "images":
						if r.Intn(6) == 0 {
							ms = append(ms, `"images":null`)
						}
					default:
						ms = append(ms, member(k, "stringOrNull", depth))
					}
				}
			}
			return obj(ms)
		case "object":
			return pick(`{}`, `{"a":1}`, `{"prompt_tokens":1,"completion_tokens":2}`, `{"message":"boom"}`)
		case "array":
			return pick(`[]`, `[1]`, `[{}]`)
		}
		return "null"
	}
	var ms []string
	if r.Intn(2) == 0 { // OpenAI-compatible
		for _, k := range []string{"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "error", "timings", "content", "stop", "index", "id_slot", "tokens", "tokens_predicted", "tokens_evaluated", "stop_type"} {
			p := 2
			if k == "choices" {
				p = 8
			}
			if r.Intn(10) >= p {
				continue
			}
			switch k {
			case "id", "object", "model", "system_fingerprint", "stop_type":
				ms = append(ms, member(k, "string", 0))
			case "created", "index", "id_slot", "tokens_predicted", "tokens_evaluated":
				ms = append(ms, member(k, "number", 0))
			case "choices":
				ms = append(ms, member(k, "choices", 0))
			case "usage", "timings":
				ms = append(ms, member(k, pick("null", "null", "object"), 0))
			case "error":
				if r.Intn(3) == 0 {
					ms = append(ms, member(k, pick("null", "object", "string"), 0))
				}
			case "content":
				ms = append(ms, member(k, "stringOrNull", 0))
			case "stop":
				ms = append(ms, member(k, pick("false", "false", "true"), 0))
			case "tokens":
				ms = append(ms, member(k, "tokens", 0))
			}
		}
	} else { // Ollama
		for _, k := range []string{"model", "created_at", "message", "response", "thinking", "done", "done_reason", "eval_count", "error"} {
			if r.Intn(10) >= 6 {
				continue
			}
			switch k {
			case "model", "created_at":
				ms = append(ms, member(k, "string", 0))
			case "message":
				ms = append(ms, member(k, "message", 0))
			case "response", "thinking":
				ms = append(ms, member(k, "stringOrNull", 0))
			case "done":
				ms = append(ms, member(k, pick("false", "false", "true"), 0))
			case "done_reason", "error":
				if r.Intn(4) == 0 {
					ms = append(ms, member(k, "string", 0))
				}
			case "eval_count":
				if r.Intn(4) == 0 {
					ms = append(ms, member(k, "number", 0))
				}
			}
		}
	}
	line := []byte(ws() + obj(ms) + ws())
	if r.Intn(30) == 0 && len(line) > 0 { // cut, or one byte changed
		i := r.Intn(len(line))
		if r.Intn(2) == 0 {
			line = line[:i]
		} else {
			line[i] = pick(`"`, `\`, `}`, `,`, `:`, "\x00", "x", "]")[0]
		}
	}
	return line
}

// TestFastLinesDecline: lines the fast readers must leave to Unmarshal, even
// where their own reading would come out the same: a repeated key (Unmarshal
// merges a second choices or delta into the first), an unknown key at any
// level, a key escaped or spelt in another case (Unmarshal matches names
// without regard to case), a value of another type, the lines that end an
// answer or carry calls, usage, timings or an error.
func TestFastLinesDecline(t *testing.T) {
	const chat = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]`
	sse := []string{
		chat + `,"choices":[{"index":0,"text":"b"}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
		`{"choices":[{"index":0,"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"a","id":"b","choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"content":"a","content":"b","stop":false}`,
		chat + `,"foo":1}`,
		chat + `,"refusal":null}`,
		`{"choices":[{"index":0,"delta":{"content":"a","refusal":null}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"foo":null}]}`,
		`{"choices":[{"index":0,"delta":{"Content":"a"}}]}`,
		`{"choices":[{"index":0,"delta":{"CONTENT":"a"}}]}`,
		`{"choices":[{"index":0,"delta":{"\u0063ontent":"a"}}]}`,
		`{"Choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"Error":"x"}`,
		`{"choices":[{"index":0,"delta":{"content":1}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a","role":1}}]}`,
		`{"choices":[{"index":0.0,"delta":{"content":"a"}}]}`,
		`{"choices":[{"index":1e0,"delta":{"content":"a"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"created":"1"}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":""}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"stop_reason":"x"}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[]}}]}`,
		`{"choices":[{"index":0,"message":{"content":"a"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"timings":{"prompt_n":1}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"timings":null}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`,
		`{"choices":null}`,
		`{"error":{"message":"boom"}}`,
		`{"content":"a","stop":true,"stop_type":"eos"}`,
		`{"content":"a","stop":false,"timings":{"predicted_n":1}}`,
		`{"content":"a","stop":false,"tokens":[{"id":1}]}`,
		`{"content":"a","tokens_predicted":1.5}`,
		`{"content":"a","tokens_predicted":1234567890123456789}`,
		`["content"]`,
		`{"content":"a"} {}`,
		`{"content":"a"}` + "\f",
		"\v" + `{"content":"a"}`,
	}
	ollama := []string{
		`{"model":"m","message":{"role":"assistant","content":"a"},"message":{"role":"assistant","thinking":"b"},"done":false}`,
		`{"model":"m","message":{"role":"assistant","content":"a","content":"b"},"done":false}`,
		`{"model":"m","response":"a","done":false,"foo":1}`,
		`{"model":"m","message":{"role":"assistant","content":"a","images":null},"done":false}`,
		`{"model":"m","message":{"role":"assistant","Content":"a"},"done":false}`,
		`{"model":"m","Response":"a","done":false}`,
		`{"model":"m","message":{"role":"assistant","content":"a","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}`,
		`{"model":"m","response":"","done":true,"done_reason":"stop","eval_count":3}`,
		`{"model":"m","response":"a","done":0}`,
		`{"error":"boom"}`,
		`{"model":1,"response":"a","done":false}`,
	}
	var sf sseFast
	var of ollamaFast
	for _, l := range sse {
		if c := sf.line([]byte(l)); c != nil {
			t.Errorf("sse reader took %q", l)
		}
		checkFastSSE(t, &sf, []byte(l))
	}
	for _, l := range ollama {
		if c := of.line([]byte(l)); c != nil {
			t.Errorf("ollama reader took %q", l)
		}
	}
	// The merge that makes repeated keys matter.
	var merged sseChunk
	if err := json.Unmarshal([]byte(sse[0]), &merged); err != nil || merged.Choices[0].Delta == nil || merged.Choices[0].Text != "b" {
		t.Errorf("Unmarshal no longer merges a repeated choices: %+v %v", merged, err)
	}
}

// FuzzFastLines: any line, and any bytes as the string of a per-token shape:
// the fast readers decline or agree with Unmarshal.
//
//	go test ./backend -run XXX -fuzz FuzzFastLines -fuzztime 60s
func FuzzFastLines(f *testing.F) {
	for i, line := range recordedLines(f) {
		if i%4 == 0 {
			f.Add(line, uint8(i))
		}
	}
	for i, s := range trickyStrings {
		f.Add([]byte(s), uint8(i))
	}
	r := rand.New(rand.NewSource(5))
	for i := range 200 {
		f.Add(randomLine(r), uint8(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, shape uint8) {
		var sf sseFast
		var of ollamaFast
		checkFastSSE(t, &sf, b)
		checkFastOllama(t, &of, b)
		line := []byte(strings.Replace(shapes[int(shape)%len(shapes)].line, "%s", string(b), 1))
		checkFastSSE(t, &sf, line)
		checkFastOllama(t, &of, line)
	})
}

// TestFastLinesSameStream: every recorded and dialect stream, and streams of
// the per-token shapes, give the same chunks and the same end through the
// fast readers as through Unmarshal alone.
func TestFastLinesSameStream(t *testing.T) {
	type stream struct {
		name   string
		body   string
		ollama bool
		mode   streamMode
		want   []string // each chunk's text or reasoning, when known
	}
	var streams []stream
	recs, _ := filepath.Glob("testdata/recordings/*/*.json")
	for _, file := range recs {
		b, _ := os.ReadFile(file)
		var rec recording
		if json.Unmarshal(b, &rec) != nil {
			t.Fatal(file)
		}
		var chunks []json.RawMessage
		if json.Unmarshal(rec.Response, &chunks) != nil {
			continue
		}
		ollama := strings.Contains(rec.URL, "/api/")
		var body strings.Builder
		for _, c := range chunks {
			c = compact(c)
			var done string
			if json.Unmarshal(c, &done) == nil {
				c = json.RawMessage(done)
			}
			if ollama {
				body.Write(c)
				body.WriteString("\n")
			} else {
				fmt.Fprintf(&body, "data: %s\n\n", c)
			}
		}
		mode := modeChat
		if strings.HasSuffix(rec.URL, "/completion") {
			mode = modeLlamaCompletion
		}
		streams = append(streams, stream{file, body.String(), ollama, mode, nil})
	}
	dialects, _ := filepath.Glob("testdata/dialects/*.sse")
	for _, file := range dialects {
		b, _ := os.ReadFile(file)
		streams = append(streams, stream{file, string(b), false, modeChat, nil})
	}
	for i, sh := range shapes {
		var body strings.Builder
		var want []string
		for _, s := range trickyStrings {
			line := strings.Replace(sh.line, "%s", s, 1)
			if !json.Valid([]byte(line)) {
				continue
			}
			var text string
			if json.Unmarshal([]byte(`"`+s+`"`), &text) != nil {
				t.Fatalf("%q", s)
			}
			if text != "" {
				want = append(want, text)
			}
			if sh.ollama {
				body.WriteString(line + "\n")
			} else {
				fmt.Fprintf(&body, "data: %s\n\n", line)
			}
		}
		mode := modeChat
		switch {
		case strings.Contains(sh.line, "text_completion"):
			mode = modeCompletions
		case strings.Contains(sh.line, `"stop":false`):
			mode = modeLlamaCompletion
		}
		if sh.ollama {
			body.WriteString(`{"model":"m","done":true,"done_reason":"stop","eval_count":5}` + "\n")
		} else if mode == modeLlamaCompletion {
			fmt.Fprintf(&body, "data: %s\n\n", `{"content":"","stop":true,"stop_type":"eos","tokens_predicted":5,"tokens_evaluated":2}`)
		} else {
			body.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}
		streams = append(streams, stream{fmt.Sprintf("shape %d", i), body.String(), sh.ollama, mode, want})
	}
	run := func(st stream, unmarshalOnly bool) ([]Chunk, string) {
		lines := newLineReader(context.Background(), io.NopCloser(strings.NewReader(st.body)))
		var s Stream
		if st.ollama {
			s = &ollamaStream{lines: lines, chat: true, unmarshalOnly: unmarshalOnly}
		} else {
			s = &sseStream{kind: LlamaServer, mode: st.mode, lines: lines, unmarshalOnly: unmarshalOnly}
		}
		var out []Chunk
		for range 10000 {
			c, err := s.Next()
			if err != nil {
				return out, err.Error()
			}
			for i := range c.Calls {
				c.Calls[i].ID = "" // made up where the runtime sent none
			}
			out = append(out, c)
		}
		t.Fatalf("%s never ended", st.name)
		return nil, ""
	}
	for _, st := range streams {
		fast, fastEnd := run(st, false)
		slow, slowEnd := run(st, true)
		if !reflect.DeepEqual(fast, slow) || fastEnd != slowEnd {
			t.Errorf("%s:\n fast      %+v %s\n Unmarshal %+v %s", st.name, fast, fastEnd, slow, slowEnd)
		}
		if len(fast) == 0 {
			t.Errorf("%s: %d chunks, the stream was not read", st.name, len(fast))
		}
		if st.want == nil {
			continue
		}
		// Read after the whole stream: nothing a chunk holds may share the
		// line reader's or the scanner's reused room.
		var got []string
		for _, c := range fast {
			if c.Text+c.Reasoning != "" {
				got = append(got, c.Text+c.Reasoning)
			}
		}
		if !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: texts\n %q\nwant\n %q", st.name, got, st.want)
		}
	}
}
