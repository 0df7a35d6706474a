package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// sample is one request's timings, measured by the client from just before
// the request is sent: headers received, first token, end of the body.
type sample struct {
	ttfb, ttft, total time.Duration
	events            int    // lines or events in the answer
	id                string // the gateway's request id, when there is one
}

// target is one way of asking for the same answer.
type target struct {
	name   string
	url    string
	body   []byte
	kind   string // "ndjson-generate", "ndjson-chat" or "sse"
	client *http.Client
}

func newClient(conns int) *http.Client {
	tr := &http.Transport{
		MaxIdleConns: conns + 16, MaxIdleConnsPerHost: conns + 16, IdleConnTimeout: 90 * time.Second,
		DisableCompression: true, ForceAttemptHTTP2: false,
	}
	return &http.Client{Transport: tr}
}

// errKind is an error already classified for the load table.
type errKind struct{ kind, detail string }

func (e *errKind) Error() string { return e.kind + ": " + e.detail }

func fail(kind, format string, a ...any) error { return &errKind{kind, fmt.Sprintf(format, a...)} }

// do sends one request and reads the whole streamed answer, checking it.
func (t *target) do() (sample, error) {
	var s sample
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(t.body))
	if err != nil {
		return s, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := t.client.Do(req)
	if err != nil {
		return s, fail("transport", "%v", err)
	}
	defer resp.Body.Close()
	s.ttfb = time.Since(start)
	s.id = resp.Header.Get("X-Dragoman-Request-Id")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return s, fail(fmt.Sprintf("status %d", resp.StatusCode), "%s", bytes.TrimSpace(b))
	}
	r := bufio.NewReaderSize(resp.Body, 16<<10)
	first := func() {
		if s.ttft == 0 {
			s.ttft = time.Since(start)
		}
	}
	switch t.kind {
	case "sse":
		s.events, err = readSSE(r, first)
	default:
		s.events, err = readNDJSON(r, t.kind == "ndjson-chat", first)
	}
	if err != nil {
		return s, err
	}
	// To the end of the body, so that the connection is reused.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return s, fail("transport", "%v", err)
	}
	s.total = time.Since(start)
	return s, nil
}

// readNDJSON reads Ollama's stream: each line decoded; the text must be the
// fake's whole answer (generate) or hold the call (chat), ending done:true.
func readNDJSON(r *bufio.Reader, chat bool, first func()) (int, error) {
	var text strings.Builder
	calls, events := 0, 0
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			events++
			var c struct {
				Response string `json:"response"`
				Thinking string `json:"thinking"`
				Message  *struct {
					Content   string            `json:"content"`
					Thinking  string            `json:"thinking"`
					ToolCalls []json.RawMessage `json:"tool_calls"`
				} `json:"message"`
				Done  bool   `json:"done"`
				Error string `json:"error"`
			}
			if jerr := json.Unmarshal(line, &c); jerr != nil {
				return events, fail("bad chunk", "%v", jerr)
			}
			if c.Error != "" {
				return events, fail("error event", "%s", c.Error)
			}
			got := c.Response + c.Thinking
			if c.Message != nil {
				got += c.Message.Content + c.Message.Thinking
				calls += len(c.Message.ToolCalls)
				if len(c.Message.ToolCalls) > 0 {
					first()
				}
			}
			if got != "" {
				first()
				text.WriteString(got)
			}
			if c.Done {
				if !chat && text.String() != answer {
					return events, fail("wrong answer", "%q", text.String())
				}
				if chat && calls != 1 {
					return events, fail("no tool call", "%d calls", calls)
				}
				return events, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return events, fail("no end", "the stream ended without done:true")
			}
			return events, fail("transport", "%v", err)
		}
	}
}

// readSSE reads the gateway's Chat Completions stream: the reasoning, the
// content and exactly one get_weather({"city":"Paris"}) call (whole, or
// announced and its arguments streamed), finish reason tool_calls, then
// [DONE].
func readSSE(r *bufio.Reader, first func()) (int, error) {
	events := 0
	var content, reasoning strings.Builder
	type call struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var calls []call
	finish := ""
	for {
		line, err := r.ReadBytes('\n')
		if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data: ")); ok {
			events++
			if string(data) == "[DONE]" {
				switch {
				case len(calls) != 1:
					return events, fail("tool call not parsed", "%d calls; content %q", len(calls), content.String())
				case calls[0].Function.Name != "get_weather" || !parisArgs(calls[0].Function.Arguments) || calls[0].ID == "":
					return events, fail("tool call not parsed", "%+v", calls[0])
				case finish != "tool_calls":
					return events, fail("wrong finish", "finish_reason %q", finish)
				case !strings.Contains(content.String(), "weather in Paris") || !strings.Contains(reasoning.String(), "get_weather tool"):
					return events, fail("wrong answer", "content %q, reasoning %q", content.String(), reasoning.String())
				}
				return events, nil
			}
			var c struct {
				Choices []struct {
					Delta struct {
						Content   *string `json:"content"`
						Reasoning *string `json:"reasoning_content"`
						ToolCalls []call  `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if jerr := json.Unmarshal(data, &c); jerr != nil {
				return events, fail("bad chunk", "%v", jerr)
			}
			if c.Error != nil {
				return events, fail("error event", "%s", c.Error.Message)
			}
			for _, ch := range c.Choices {
				d := ch.Delta
				if d.Content != nil && *d.Content != "" {
					first()
					content.WriteString(*d.Content)
				}
				if d.Reasoning != nil && *d.Reasoning != "" {
					first()
					reasoning.WriteString(*d.Reasoning)
				}
				// A call streams as OpenAI's do: its first delta has the
				// id and name, the next ones (same index) fragments of
				// its arguments, which the client joins.
				for _, tc := range d.ToolCalls {
					first()
					if n := len(calls); n > 0 && calls[n-1].Index == tc.Index && tc.ID == "" {
						calls[n-1].Function.Arguments += tc.Function.Arguments
						continue
					}
					calls = append(calls, tc)
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return events, fail("no [DONE]", "the stream ended without [DONE]")
			}
			return events, fail("transport", "%v", err)
		}
	}
}

// parisArgs reports whether arguments is the JSON object {"city": "Paris"}.
func parisArgs(arguments string) bool {
	var a map[string]any
	return json.Unmarshal([]byte(arguments), &a) == nil && len(a) == 1 && a["city"] == "Paris"
}
