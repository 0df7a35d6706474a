package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// result is one client request as the client saw it.
type result struct {
	sc      *scenario
	dialect string // "openai" or "anthropic"
	id      string
	// outcome is one of the out* constants or "status NNN" when the answer
	// was well-formed; bad says what was wrong when it was not.
	outcome string
	bad     string
	status  int
	msg     string // the error's message, when there was one
	start   time.Time
	dur     time.Duration
	leftAt  time.Time     // when the client left (leave scenarios)
	hungWhy string        // which limit it outlived, when hung
	text    int           // answer text received (content, reasoning, call arguments)
	silence time.Duration // the longest wait for bytes once the headers came
	// The gateway's trace of a slow request: when its handler began (after
	// the client sent it) and how long it ran, by the gateway's clock.
	gwID          string
	gwLag, gwTook time.Duration
	gwStatus      int
	gwFound       bool
	noRetry       bool // a 502 or 503 without Retry-After
	events        int
	bytes         int64
}

func (r *result) malformed(format string, a ...any) {
	if r.bad == "" {
		r.bad = fmt.Sprintf(format, a...)
	}
}

var errLeft = errors.New("the client left, as the scenario says")

const (
	system   = "You are a helpful assistant. Use the tools when they help."
	question = "What is the weather in Paris right now?"
	// maxEventLine bounds one line of the gateway's stream as the client
	// reads it: longer is not what a gateway should send.
	maxEventLine = 32 << 20
)

var toolSchema = map[string]any{"type": "object", "properties": map[string]any{
	"city": map[string]any{"type": "string", "description": "The city, e.g. Paris"}}, "required": []string{"city"}}

// tag is what tells the fake the scenario; none for the warm-up (id "").
func tag(sc *scenario, id string) string {
	if id == "" {
		return ""
	}
	return fmt.Sprintf(" [fault=%s id=%s]", sc.name, id)
}

func openAIBody(sc *scenario, id string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "tiny-toolcall", "stream": true,
		"messages": []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": question + tag(sc, id)}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather",
			"description": "Get the current weather in a city.", "parameters": toolSchema}}}})
	return b
}

func anthropicBody(sc *scenario, id string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "tiny-toolcall", "stream": true, "max_tokens": 1024, "system": system,
		"messages": []any{map[string]any{"role": "user", "content": question + tag(sc, id)}},
		"tools":    []any{map[string]any{"name": "get_weather", "description": "Get the current weather in a city.", "input_schema": toolSchema}}})
	return b
}

// loadClient sends one request after another, each a drawn scenario.
type loadClient struct {
	http    *http.Client
	small   *http.Client // for the scenarios whose client pauses: a small receive buffer
	gw      string       // the gateway's address
	dialect string
	// A request is hung when it has no headers headerLimit after it was
	// sent, receives nothing for idleLimit once they came, or is still
	// going after hardCap: the client then leaves it.
	headerLimit, idleLimit, hardCap time.Duration
	maxAnswer                       int    // limits.max_answer_bytes: no more answer text may arrive
	upstream                        string // the fake's host:port, which no error may name
	port                            string
	// upstreamProgress tells when the fake last wrote for an id: a client
	// that hears nothing while the runtime keeps sending (a call held whole
	// until it ends) is waiting on the gateway's byte limit, not hung.
	upstreamProgress func(id string) (last time.Time, running bool)
}

// hungErr is the watchdog's cause: which limit the request outlived.
type hungErr struct{ why string }

func (e *hungErr) Error() string { return "hung: " + e.why }

// watch is what the watchdog sees of a request.
type watch struct {
	headers atomic.Bool
	last    atomic.Int64 // when the last bytes arrived, in Unix nanoseconds
	done    atomic.Bool
	silence time.Duration // the longest wait for bytes once the headers came (the reader's)
}

func (w *watch) progress() {
	now := time.Now().UnixNano()
	if w.headers.Load() {
		w.silence = max(w.silence, time.Duration(now-w.last.Load()))
	}
	w.last.Store(now)
}

func (c *loadClient) do(sc *scenario, id string) *result {
	res := &result{sc: sc, dialect: c.dialect, id: id}
	url, body := "http://"+c.gw+"/v1/chat/completions", openAIBody(sc, id)
	if c.dialect == "anthropic" {
		url, body = "http://"+c.gw+"/v1/messages", anthropicBody(sc, id)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	res.start = time.Now()
	wt := &watch{}
	wt.progress()
	var timer *time.Timer
	check := func() {
		if wt.done.Load() {
			return
		}
		now := time.Now()
		switch {
		case !wt.headers.Load() && now.Sub(res.start) > c.headerLimit:
			cancel(&hungErr{fmt.Sprintf("no headers %s after sending", c.headerLimit)})
		case wt.headers.Load() && now.Sub(time.Unix(0, wt.last.Load())) > c.idleLimit && !c.upstreamBusy(id, now):
			cancel(&hungErr{fmt.Sprintf("nothing received for %s, nor sent by the runtime", c.idleLimit)})
		case now.Sub(res.start) > c.hardCap:
			cancel(&hungErr{fmt.Sprintf("still receiving %s after sending", c.hardCap)})
		default:
			timer.Reset(250 * time.Millisecond)
		}
	}
	timer = time.AfterFunc(time.Hour, check)
	timer.Reset(250 * time.Millisecond) // after timer is set, for check to see it
	defer func() { wt.done.Store(true); timer.Stop() }()
	if sc.leave > 0 {
		t := time.AfterFunc(sc.leave, func() { cancel(errLeft) })
		defer t.Stop()
	}
	defer func() {
		var h *hungErr
		switch cause := context.Cause(ctx); {
		case cause == errLeft:
			res.leftAt = res.start.Add(sc.leave)
		case errors.As(cause, &h):
			res.hungWhy = h.why
		}
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.dialect == "anthropic" {
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	defer func() {
		res.dur = time.Since(res.start)
		if res.gwID != "" && (res.outcome == outHung || res.silence > c.idleLimit/2 || res.dur > c.idleLimit) {
			c.gatewayTrace(res)
		}
	}()
	hc := c.http
	if sc.pause > 0 && c.small != nil {
		hc = c.small
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.interrupted(ctx, res, "no answer: %v", err)
		return res
	}
	defer resp.Body.Close()
	res.gwID = resp.Header.Get("X-Dragoman-Request-Id")
	wt.headers.Store(true)
	wt.progress()
	res.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		c.errorBody(ctx, res, resp)
		return res
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		res.malformed("200 with Content-Type %q, not an event stream", ct)
		return res
	}
	r := &sseReader{r: bufio.NewReaderSize(resp.Body, 16<<10), w: wt, pauseAt: sc.pauseAfter, pause: sc.pause}
	if c.dialect == "anthropic" {
		c.anthropicStream(ctx, res, r)
	} else {
		c.openAIStream(ctx, res, r)
	}
	res.bytes = r.n
	wt.progress() // the wait for the end
	res.silence = wt.silence
	if res.text > c.maxAnswer {
		res.malformed("%d bytes of answer text delivered, past limits.max_answer_bytes (%d)", res.text, c.maxAnswer)
	}
	return res
}

// gatewayTrace reads the gateway's trace of a slow request, if it still
// keeps it.
func (c *loadClient) gatewayTrace(res *result) {
	tc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := tc.Get("http://" + c.gw + "/v1/dragoman/requests/" + res.gwID)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var rec struct {
		Start   time.Time `json:"start"`
		Status  int       `json:"status"`
		Timings struct {
			TotalMS float64 `json:"total_ms"`
		} `json:"timings"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&rec) != nil {
		return
	}
	res.gwFound = true
	res.gwLag = rec.Start.Sub(res.start)
	res.gwTook = time.Duration(rec.Timings.TotalMS * float64(time.Millisecond))
	res.gwStatus = rec.Status
}

// upstreamBusy reports whether the fake is still sending for id, lately.
func (c *loadClient) upstreamBusy(id string, now time.Time) bool {
	if c.upstreamProgress == nil || id == "" {
		return false
	}
	last, running := c.upstreamProgress(id)
	return running && now.Sub(last) < c.idleLimit
}

// interrupted classifies a request that ended in a transport error: the
// client's own leaving or its watchdog, or a gateway that broke the
// connection (malformed: a client is owed an answer or an error event).
func (c *loadClient) interrupted(ctx context.Context, res *result, format string, a ...any) {
	var h *hungErr
	switch cause := context.Cause(ctx); {
	case cause == errLeft:
		res.outcome = outLeft
	case errors.As(cause, &h):
		res.outcome = outHung
	default:
		res.malformed(format, a...)
	}
}

// checkMessage checks an error's message: there is one, and it names no
// address of the runtime.
func (c *loadClient) checkMessage(res *result, msg string) {
	res.msg = msg
	switch {
	case strings.TrimSpace(msg) == "":
		res.malformed("an error with an empty message")
	case strings.Contains(msg, c.upstream) || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, ":"+c.port):
		res.malformed("the error names the runtime's address: %s", clip(msg, 200))
	case !utf8.ValidString(msg):
		res.malformed("the error's message is not UTF-8")
	}
}

// errorBody checks a non-200 answer: JSON in the client's dialect.
func (c *loadClient) errorBody(ctx context.Context, res *result, resp *http.Response) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		c.interrupted(ctx, res, "status %d, its body cut: %v", resp.StatusCode, err)
		return
	}
	res.outcome = "status " + strconv.Itoa(resp.StatusCode)
	if s := resp.StatusCode; s == http.StatusBadGateway || s == http.StatusServiceUnavailable {
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n < 1 {
			res.noRetry = true
		}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		res.malformed("status %d with Content-Type %q: %s", resp.StatusCode, ct, clip(string(b), 120))
		return
	}
	var e struct {
		Type  *string `json:"type"`
		Error *struct {
			Message *string `json:"message"`
			Type    *string `json:"type"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		res.malformed("status %d, the body not JSON (%v): %s", resp.StatusCode, err, clip(string(b), 120))
		return
	}
	switch {
	case e.Error == nil || e.Error.Message == nil || e.Error.Type == nil || *e.Error.Type == "":
		res.malformed("status %d, no error.message and error.type: %s", resp.StatusCode, clip(string(b), 200))
		return
	case c.dialect == "anthropic" && (e.Type == nil || *e.Type != "error"):
		res.malformed("status %d, an Anthropic error without \"type\": \"error\": %s", resp.StatusCode, clip(string(b), 200))
		return
	}
	c.checkMessage(res, *e.Error.Message)
}

// sseReader reads an event stream's events: the event name, if any, and
// the data.
type sseReader struct {
	r       *bufio.Reader
	n       int64
	w       *watch
	pauseAt int64 // stop reading once n passes it (0: never)
	pause   time.Duration
}

// next returns the next event. io.EOF is a clean end between events.
func (s *sseReader) next() (name string, data []byte, err error) {
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && (name != "" || data != nil) {
				return "", nil, fmt.Errorf("the stream ended inside an event")
			}
			return "", nil, err
		}
		switch {
		case len(line) == 0:
			if name != "" || data != nil {
				return name, data, nil
			}
		case bytes.HasPrefix(line, []byte("event: ")):
			name = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, line[len("data: "):]...)
		case line[0] == ':':
		default:
			return "", nil, fmt.Errorf("a line that is not SSE: %q", clip(string(line), 80))
		}
	}
}

func (s *sseReader) line() ([]byte, error) {
	var line []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		s.n += int64(len(frag))
		if len(frag) > 0 {
			s.w.progress()
		}
		if s.pauseAt > 0 && s.n >= s.pauseAt {
			s.pauseAt = 0
			time.Sleep(s.pause)
			s.w.last.Store(time.Now().UnixNano()) // the client's own pause is no silence
		}
		line = append(line, frag...)
		if len(line) > maxEventLine {
			return nil, fmt.Errorf("a line of the stream passed %d bytes", maxEventLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return nil, fmt.Errorf("the stream ended inside a line")
			}
			return nil, err
		}
		if !utf8.Valid(line) {
			return nil, fmt.Errorf("a line that is not UTF-8: %q", clip(string(line), 80))
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// streamErr classifies an error reading the stream.
func (c *loadClient) streamErr(ctx context.Context, res *result, err error, where string) {
	if ctx.Err() != nil {
		c.interrupted(ctx, res, "")
		return
	}
	if errors.Is(err, io.EOF) {
		res.malformed("the stream ended %s", where)
		return
	}
	res.malformed("the stream broke %s: %v", where, err)
}

// openAIStream reads Chat Completions chunks to [DONE]: an error event
// ({"error": {...}}) then [DONE], or the answer (the reasoning, the content,
// one whole get_weather({"city": "Paris"}) call, finish_reason tool_calls).
func (c *loadClient) openAIStream(ctx context.Context, res *result, r *sseReader) {
	var content strings.Builder
	var calls []openAICall
	finish := ""
	failed := false
	for {
		name, data, err := r.next()
		if err != nil {
			c.streamErr(ctx, res, err, "before [DONE]")
			return
		}
		res.events++
		if name != "" {
			res.malformed("a named event %q in a Chat Completions stream", name)
			return
		}
		if string(data) == "[DONE]" {
			break
		}
		if failed {
			res.malformed("a chunk after the error event: %s", clip(string(data), 120))
			return
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   *string      `json:"content"`
					Reasoning *string      `json:"reasoning_content"`
					ToolCalls []openAICall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Error *struct {
				Message *string `json:"message"`
				Type    *string `json:"type"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &ch); err != nil {
			res.malformed("a chunk that is not JSON (%v): %s", err, clip(string(data), 120))
			return
		}
		if ch.Error != nil {
			if ch.Error.Message == nil || ch.Error.Type == nil {
				res.malformed("an error event without message and type: %s", clip(string(data), 200))
				return
			}
			failed = true
			c.checkMessage(res, *ch.Error.Message)
			continue
		}
		for _, x := range ch.Choices {
			if x.Delta.Content != nil {
				content.WriteString(*x.Delta.Content)
				res.text += len(*x.Delta.Content)
			}
			if x.Delta.Reasoning != nil {
				res.text += len(*x.Delta.Reasoning)
			}
			for _, tc := range x.Delta.ToolCalls {
				res.text += len(tc.Function.Arguments)
			}
			calls = append(calls, x.Delta.ToolCalls...)
			if x.FinishReason != nil {
				finish = *x.FinishReason
			}
		}
	}
	// Nothing may follow [DONE] but the end of the body.
	if _, data, err := r.next(); err == nil {
		res.malformed("an event after [DONE]: %s", clip(string(data), 120))
		return
	} else if !errors.Is(err, io.EOF) {
		c.streamErr(ctx, res, err, "after [DONE]")
		return
	}
	if failed {
		res.outcome = outEvent
		return
	}
	switch {
	case len(calls) != 1 || calls[0].Function.Name != "get_weather" || !parisArgs(calls[0].Function.Arguments) || calls[0].ID == "":
		res.malformed("the answer's call not as sent: %+v (content %q)", calls, clip(content.String(), 80))
	case finish != "tool_calls":
		res.malformed("finish_reason %q, not tool_calls", finish)
	case !strings.Contains(content.String(), "weather in Paris"):
		res.malformed("the answer's content not as sent: %q", clip(content.String(), 120))
	default:
		res.outcome = outComplete
	}
}

type openAICall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// anthropicStream reads Messages events to message_stop (the answer: a
// text block, one get_weather tool_use with {"city": "Paris"}, stop_reason
// tool_use) or to an error event; nothing may follow either.
func (c *loadClient) anthropicStream(ctx context.Context, res *result, r *sseReader) {
	var text, input strings.Builder
	tools, stop := 0, ""
	toolName := ""
	ended := ""
	for {
		name, data, err := r.next()
		if errors.Is(err, io.EOF) && ended != "" {
			break
		}
		if err != nil {
			c.streamErr(ctx, res, err, "before message_stop or an error event")
			return
		}
		res.events++
		if ended != "" {
			res.malformed("an event after %s: %s %s", ended, name, clip(string(data), 120))
			return
		}
		var ev struct {
			Type         string `json:"type"`
			ContentBlock struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Error *struct {
				Type    *string `json:"type"`
				Message *string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			res.malformed("an event that is not JSON (%v): %s", err, clip(string(data), 120))
			return
		}
		if ev.Type != name {
			res.malformed("event %q with data of type %q", name, ev.Type)
			return
		}
		switch name {
		case "error":
			if ev.Error == nil || ev.Error.Type == nil || ev.Error.Message == nil {
				res.malformed("an error event without error.type and error.message: %s", clip(string(data), 200))
				return
			}
			c.checkMessage(res, *ev.Error.Message)
			ended = name
		case "message_stop":
			ended = name
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				tools++
				toolName = ev.ContentBlock.Name
			}
		case "content_block_delta":
			text.WriteString(ev.Delta.Text)
			input.WriteString(ev.Delta.PartialJSON)
			res.text += len(ev.Delta.Text) + len(ev.Delta.Thinking) + len(ev.Delta.PartialJSON)
		case "message_delta":
			stop = ev.Delta.StopReason
		case "message_start", "ping", "content_block_stop":
		default:
			res.malformed("an unknown event %q", name)
			return
		}
	}
	if ended == "error" {
		res.outcome = outEvent
		return
	}
	switch {
	case tools != 1 || toolName != "get_weather" || !parisArgs(input.String()):
		res.malformed("the answer's tool_use not as sent: %d blocks, %q %q", tools, toolName, input.String())
	case stop != "tool_use":
		res.malformed("stop_reason %q, not tool_use", stop)
	case !strings.Contains(text.String(), "weather in Paris"):
		res.malformed("the answer's text not as sent: %q", clip(text.String(), 120))
	default:
		res.outcome = outComplete
	}
}

// parisArgs reports whether arguments is the JSON object {"city": "Paris"}.
func parisArgs(arguments string) bool {
	var a map[string]any
	return json.Unmarshal([]byte(arguments), &a) == nil && len(a) == 1 && a["city"] == "Paris"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
