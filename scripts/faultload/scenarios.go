package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// A scenario is what one request meets: what the fake upstream does, whether
// the client leaves, and what the client should then get.
type scenario struct {
	name   string
	weight int // per mille (of the sum of all weights)
	what   string
	// leave, when set, is how long after sending its request the client
	// gives up and closes the connection.
	leave time.Duration
	// pause, when set, is how long the client stops reading once pauseAfter
	// bytes of the stream have come (on a connection whose receive buffer is
	// small, so that the gateway's writes to it block).
	pause      time.Duration
	pauseAfter int64
	// want is the outcome a correct gateway gives (outcome* constants).
	want string
	// reason is a word the error message should hold (the cause named).
	reason string
	// cancel: the fake's handler only ends when the gateway closes the
	// request; it must see the cancel.
	cancel bool
	act    func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error
}

// Outcomes of a request, as the client sees it.
const (
	outComplete = "complete"    // 200, the whole answer and its call, the stream's end
	outEvent    = "error event" // 200, the stream ended by a well-formed error event
	outLeft     = "left"        // the client left as the scenario says
	outHung     = "hung"        // not ended within the limits and the margin
	// and "status NNN": a well-formed error answer of that status
)

// slowEvery is the pause between the lines of a slow answer: well under the
// idle timeout, so that only the client can end it early.
const slowEvery = 100 * time.Millisecond

// some is how many lines of the answer go out before a fault: 1 to 10.
func some() int { return 1 + rand.IntN(10) }

// trickle sends a line every slowEvery until the gateway cancels.
func trickle(f *fakeUpstream, s *sender, chat bool) error {
	for {
		if err := s.sleep(slowEvery); err != nil {
			return err
		}
		if err := s.write(f.textLine(chat, " more"), true); err != nil {
			return err
		}
	}
}

var scenarios = []*scenario{
	{name: "normal", weight: 488, want: outComplete,
		what: "the whole answer at once (33 lines, each flushed)",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			return s.lines(lines)
		}},
	{name: "slow", weight: 60, want: outComplete,
		what: "the whole answer, a line every 100 ms (3.3 s)",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			for _, l := range lines {
				if err := s.write(l, true); err != nil {
					return err
				}
				if err := s.sleep(slowEvery); err != nil {
					return err
				}
			}
			return nil
		}},
	{name: "slow-client-leaves", weight: 60, want: outLeft, leave: 700 * time.Millisecond, cancel: true,
		what: "a line every 100 ms without end; the client leaves after 0.7 s",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:3]); err != nil {
				return err
			}
			return trickle(f, s, chat)
		}},
	{name: "client-pauses-reading", weight: 5, want: outComplete, pause: 5 * time.Second, pauseAfter: 64 << 10,
		what: "3 lines, 3.5 MiB of text in 256-byte lines as fast as it can, then the rest of the answer; the client (a 64 KiB receive buffer) stops reading for 5 s after 64 KiB",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:3]); err != nil {
				return err
			}
			for i := range (7 << 20) / 2 / 256 {
				off := (i * 256) % (len(filler) - 256)
				if err := s.write(f.textLine(chat, string(filler[off:off+256])), true); err != nil {
					return err
				}
			}
			return s.lines(lines[3:])
		}},
	{name: "stall-before-headers", weight: 40, want: "status 504", reason: "response_header_timeout", cancel: true,
		what: "reads the request, then sends nothing, not even headers",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			return s.wait()
		}},
	{name: "stall-before-headers-client-leaves", weight: 30, want: outLeft, leave: time.Second, cancel: true,
		what: "sends nothing; the client leaves after 1 s, before the gateway's header timeout",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			return s.wait()
		}},
	{name: "stall-mid-stream", weight: 50, want: outEvent, reason: "idle_timeout", cancel: true,
		what: "1–10 lines, then nothing (the connection kept open)",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			return s.wait()
		}},
	{name: "cut-mid-stream", weight: 60, want: outEvent, reason: "EOF",
		what: "1–10 lines, then the connection cut (`panic(http.ErrAbortHandler)`)",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			return errAbort{}
		}},
	{name: "flood-text", weight: 5, want: outEvent, reason: "max_answer_bytes", cancel: true,
		what: "3 lines, then 1 KiB text lines without end, as fast as it can write",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:3]); err != nil {
				return err
			}
			for i := 0; ; i++ {
				off := (i * 1024) % (len(filler) - 1024)
				if err := s.write(f.textLine(chat, string(filler[off:off+1024])), true); err != nil {
					return err
				}
			}
		}},
	{name: "flood-in-a-call", weight: 5, want: outEvent, reason: "max_answer_bytes", cancel: true,
		what: "the answer up to the call, then the call's argument without end, 1 KiB a line",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			start := `<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"`
			if err := s.write(f.textLine(chat, start), true); err != nil {
				return err
			}
			for i := 0; ; i++ {
				off := (i * 1024) % (len(filler) - 1024)
				if err := s.write(f.textLine(chat, string(filler[off:off+1024])), true); err != nil {
					return err
				}
			}
		}},
	{name: "flood-empty-chunks", weight: 2, want: outEvent, reason: "idle_timeout", cancel: true,
		what: "3 lines, then lines with no text (`\"response\":\"\"`) without end, as fast as it can",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:3]); err != nil {
				return err
			}
			empty := bytes.Repeat(f.textLine(chat, ""), 64)
			for {
				if err := s.write(empty, true); err != nil {
					return err
				}
			}
		}},
	{name: "garbage-not-json", weight: 40, want: outEvent, reason: "not valid JSON", cancel: true,
		what: "1–10 lines, a line of HTML, then a line every 100 ms without end",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			if err := s.write([]byte("<html><body>upstream hiccup</body></html>\n"), true); err != nil {
				return err
			}
			return trickle(f, s, chat)
		}},
	{name: "garbage-invalid-utf8", weight: 20, want: outEvent, reason: "not valid JSON", cancel: true,
		what: "1–10 lines, a line of bytes that are not UTF-8, then a line every 100 ms without end",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			if err := s.write([]byte("\xff\xfe\x00\x01 \xc3\x28 \xed\xa0\x80 \xf8\x88\x80\x80\x80\n"), true); err != nil {
				return err
			}
			return trickle(f, s, chat)
		}},
	{name: "invalid-utf8-in-json", weight: 30, want: outComplete,
		what: "the whole answer, one line of it holding bytes that are not UTF-8 inside its JSON string",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.write(lines[0], true); err != nil {
				return err
			}
			if err := s.write(f.textLine(chat, " \xff\xfe \xc3\x28 \xed\xa0\x80 "), true); err != nil {
				return err
			}
			return s.lines(lines[1:])
		}},
	{name: "long-line-then-eof", weight: 5, want: outEvent, reason: "ended before",
		what: "1–10 lines, then 6 MiB without a newline, then the end of the body",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			defer f.bigLine()()
			if err := s.write([]byte(`{"model":"`+fakeModel+`","response":"`), false); err != nil {
				return err
			}
			for sent := 0; sent < 6<<20; sent += len(filler) {
				if err := s.write(filler, false); err != nil {
					return err
				}
			}
			return nil
		}},
	{name: "chunk-of-6-mb", weight: 5, want: outEvent, reason: "max_answer_bytes", cancel: true,
		what: "1–10 lines, a valid line whose text is 6 MiB (past max_answer_bytes), then a line every 100 ms without end",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			done := f.bigLine()
			err := s.write(f.bigChunk(chat), true)
			done()
			if err != nil {
				return err
			}
			return trickle(f, s, chat)
		}},
	{name: "endless-line", weight: 5, want: outEvent, reason: "no end of line", cancel: true,
		what: "1–10 lines, then bytes without a newline and without end, as fast as it can",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			defer f.bigLine()()
			for {
				if err := s.write(filler, false); err != nil {
					return err
				}
			}
		}},
	{name: "ollama-error-line", weight: 10, want: outEvent, reason: "model runner",
		what: "1–10 lines, then Ollama's own `{\"error\": …}` line and the end",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "application/x-ndjson")
			if err := s.lines(lines[:some()]); err != nil {
				return err
			}
			return s.write([]byte(`{"error":"model runner has unexpectedly stopped, this may be due to resource limitations"}`+"\n"), true)
		}},
	{name: "http-500-html", weight: 40, want: "status 502", reason: "500",
		what: "500 with an HTML page (3 KB)",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			s.w.Header().Set("Content-Type", "text/html; charset=utf-8")
			s.w.WriteHeader(http.StatusInternalServerError)
			page := "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body>\n<h1>Internal Server Error</h1>\n" +
				strings.Repeat("<p>The server encountered an internal error and was unable to complete your request.</p>\n", 32) + "</body></html>\n"
			return s.write([]byte(page), true)
		}},
	{name: "close-before-headers", weight: 40, want: "status 502", reason: "EOF",
		what: "reads the request, then closes the connection without a word",
		act: func(f *fakeUpstream, s *sender, lines [][]byte, chat bool, r *http.Request) error {
			c, _, err := http.NewResponseController(s.w).Hijack()
			if err != nil {
				return err
			}
			c.Close()
			return errClose{}
		}},
}

var scenarioByFault = func() map[string]*scenario {
	m := map[string]*scenario{}
	for _, s := range scenarios {
		if tagRE.FindString("[fault="+s.name+" id=x]") == "" {
			panic("scenario name not fit for the tag: " + s.name)
		}
		m[s.name] = s
	}
	return m
}()

var totalWeight = sumWeights()

func sumWeights() int {
	n := 0
	for _, s := range scenarios {
		n += s.weight
	}
	return n
}

// only keeps the named scenarios in the draw (for a closer look at some).
func only(names string) error {
	keep := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		if scenarioByFault[n] == nil {
			return fmt.Errorf("no scenario %q", n)
		}
		keep[n] = true
	}
	for _, s := range scenarios {
		if !keep[s.name] {
			s.weight = 0
		}
	}
	totalWeight = sumWeights()
	return nil
}

// pick draws a scenario by weight.
func pick(r *rand.Rand) *scenario {
	n := r.IntN(totalWeight)
	for _, s := range scenarios {
		if n < s.weight {
			return s
		}
		n -= s.weight
	}
	return scenarios[0]
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
