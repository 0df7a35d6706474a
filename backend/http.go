package backend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
)

// maxErrorBody bounds how much of a failed response is read for its message:
// a runtime that answers an error with a huge page must not stall us.
const maxErrorBody = 64 << 10

// conn is one runtime's address and the client to reach it with.
type conn struct {
	kind   Kind
	base   string // scheme://host:port, no trailing slash
	apiKey string
	client *http.Client
}

func newConn(kind Kind, baseURL, apiKey string, client *http.Client) conn {
	if client == nil {
		client = http.DefaultClient
	}
	return conn{kind: kind, base: trimBase(baseURL), apiKey: apiKey, client: client}
}

// trimBase accepts an address as users paste it, with or without a trailing
// slash or /v1, and keeps scheme://host:port: every request below adds its
// full path, so a kept /v1 would give /v1/v1/models.
func trimBase(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	u = strings.TrimSuffix(u, "/v1")
	if !strings.Contains(u, "://") && u != "" {
		u = "http://" + u
	}
	return u
}

// do sends a request with body (JSON-encoded when not nil) and returns the
// response when its status is 2xx; otherwise an *Error with the runtime's own
// message. The caller closes the body.
//
// A request sent on a kept-alive connection that the runtime closed at that
// moment (its idle timeout met our reuse: the request fails with EOF or a
// reset before any answer) is sent once more on a new connection. Nothing
// was answered, so nothing is lost or repeated to the client; llama-server
// shows it as one 502 in a hundred requests otherwise.
func (c conn) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("%s: encoding request: %w", c.kind, err)
		}
	}
	reused := false
	tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }})
	for attempt := 0; ; attempt++ {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(tctx, method, c.base+path, rd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.kind, err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		// An empty key sends no header at all: some servers reject "Bearer " as
		// a malformed credential rather than treating it as none.
		if c.apiKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
		reused = false
		resp, err := c.client.Do(req)
		if err != nil && attempt == 0 && reused && ctx.Err() == nil && closedUnderUs(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", c.kind, c.base, err)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			defer resp.Body.Close()
			return nil, responseError(c.kind, resp)
		}
		return resp, nil
	}
}

// closedUnderUs reports whether err is a connection the other side closed
// before answering.
func closedUnderUs(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		strings.Contains(err.Error(), "server closed idle connection")
}

// getJSON GETs path and decodes its JSON body into out.
func (c conn) getJSON(ctx context.Context, path string, out any) error {
	return c.postJSON(ctx, http.MethodGet, path, nil, out)
}

// postJSON sends body and decodes the JSON answer into out.
func (c conn) postJSON(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: invalid JSON answer: %w", c.kind, path, err)
	}
	return nil
}

// responseError reads a failed response into an *Error. Runtimes word their
// errors differently: Ollama {"error": "..."}, OpenAI-style {"error":
// {"message": ...}}, FastAPI {"detail": ...}, or plain text.
func responseError(kind Kind, resp *http.Response) *Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := excerpt(errorMessage(b), maxErrorMessage)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &Error{Kind: kind, Status: resp.StatusCode, Message: msg}
}

// maxErrorMessage bounds the runtime's words passed on to a client: a proxy's
// HTML error page or a stack trace is cut to its beginning.
const maxErrorMessage = 1000

// excerpt is s, or its first n bytes (whole characters) and how long it was.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

// errorMessage finds the message in an error body, or returns the body as
// text when it is not JSON.
func errorMessage(b []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &v) != nil {
		return strings.TrimSpace(string(b))
	}
	if m := rawErrorText(v.Error); m != "" {
		return m
	}
	if v.Message != "" {
		return v.Message
	}
	if m := rawErrorText(v.Detail); m != "" {
		return m
	}
	return strings.TrimSpace(string(b))
}

// rawErrorText reads an error field that is a string or an object with a
// message.
func rawErrorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// lineReader reads a streamed body line by line and reports a cancelled
// context as such, not as whatever the transport makes of it.
type lineReader struct {
	ctx  context.Context
	body io.ReadCloser
	r    *bufio.Reader
	// partial is set when the last line returned had no end of line: the
	// body ended there, so a line that does not parse was cut, not garbled.
	partial bool
	// read counts the stream's bytes, against MaxStreamBytes.
	read int
	// onWait, when set, is called before a read that would wait for the
	// runtime (WaitNotifier).
	onWait func()
	// buf holds the last line returned, its room reused for the next.
	buf []byte
}

// waits reports whether reading the next line would wait for the runtime:
// the buffer holds no end of line.
func (l *lineReader) waits() bool {
	n := l.r.Buffered()
	if n == 0 {
		return true
	}
	b, _ := l.r.Peek(n) // never blocks: n bytes are buffered
	return bytes.IndexByte(b, '\n') < 0
}

func newLineReader(ctx context.Context, body io.ReadCloser) *lineReader {
	// A line longer than the buffer is gathered piece by piece (next);
	// most are short.
	return &lineReader{ctx: ctx, body: body, r: bufio.NewReaderSize(body, 4<<10)}
}

// MaxLineBytes bounds one line of a runtime's stream (an SSE event or an
// NDJSON object): a runtime that sends an endless line is an error once the
// line passes it, not memory that grows until the process dies. The longest
// real lines are a whole call's arguments in one chunk.
var MaxLineBytes = 16 << 20

// MaxStreamBytes bounds a whole stream as read, whatever its lines hold: a
// runtime that floods lines with no text (which count towards no answer
// limit, and keep the idle timer from firing) is cut off once it passes it,
// instead of costing a core until the request's end. Four times the
// gateway's default limits.max_answer_bytes, so that only a stream of
// mostly empty lines reaches it.
var MaxStreamBytes = 256 << 20

// next returns the next line without its end of line, valid until the next
// call: the callers decode it and keep nothing of its bytes. io.EOF means the
// body ended cleanly after the last line.
func (l *lineReader) next() ([]byte, error) {
	line := l.buf[:0]
	var err error
	for {
		if l.onWait != nil && l.waits() {
			l.onWait()
		}
		var frag []byte
		frag, err = l.r.ReadSlice('\n')
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		if len(line) > MaxLineBytes {
			return nil, fmt.Errorf("a line of the runtime's stream passed %d bytes with no end of line: the stream is not what a runtime sends", MaxLineBytes)
		}
	}
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		if cerr := l.ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	if l.read += len(line); l.read > MaxStreamBytes {
		return nil, fmt.Errorf("the runtime's stream passed %d bytes (backend.MaxStreamBytes) with no end: the stream is not what a runtime sends", MaxStreamBytes)
	}
	l.partial = err != nil
	if cap(line) <= 64<<10 { // a rare long line's room is not kept
		l.buf = line
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// badLine reports a line that does not parse: truncation when the body ended
// inside it, a garbled chunk otherwise.
func (l *lineReader) badLine(kind Kind, line []byte, err error) error {
	if l.partial {
		return fmt.Errorf("%w (last line cut: %v)", truncated(kind, "the end of its last line"), err)
	}
	return badChunk(kind, line, err)
}

// close releases the body. After a stream's last chunk (finished) the rest of
// the body — the chunked encoding's end — is read first, so that the
// connection goes back to the pool instead of being dropped; a stream closed
// early is not drained, as the runtime may still be generating.
func (l *lineReader) close(finished bool) error {
	if finished && l.ctx.Err() == nil {
		_, _ = io.CopyN(io.Discard, l.r, 4<<10)
	}
	return l.body.Close()
}

// isJSONBody tells a whole JSON answer from a stream: a server that ignores
// stream:true answers application/json, and we read it as one chunk.
func isJSONBody(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
}

// truncated wraps the error of a stream that ended before its last chunk.
func truncated(kind Kind, what string) error {
	return fmt.Errorf("%s stream ended before %s: %w", kind, what, io.ErrUnexpectedEOF)
}

// badChunk reports a line that is not the JSON the dialect promises.
func badChunk(kind Kind, line []byte, err error) error {
	if len(line) > 200 {
		line = append(line[:200:200], "..."...)
	}
	return fmt.Errorf("%s sent a chunk that is not valid JSON (%v): %q", kind, err, line)
}

// compactArguments turns arguments given as a JSON value into the compact
// string form, keeping key order (json.Compact only drops whitespace). A
// missing or null value is the empty object.
func compactArguments(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// toFinish maps a runtime's stop reason to the canonical one: "length" stays,
// anything else (stop, eos, word, end_turn...) is a normal stop.
func toFinish(reason string) chat.FinishReason {
	switch reason {
	case "length", "limit", "max_tokens":
		return chat.FinishLength
	case "tool_calls", "function_call":
		return chat.FinishToolCalls
	}
	return chat.FinishStop
}
