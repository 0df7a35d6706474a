package format

import (
	"strings"
	"testing"
)

// Cost tests: what streaming costs, counted rather than timed (no test here
// measures wall-clock time).

// plainChunk is ordinary prose: no family's markers start in it.
const plainChunk = "the quick brown fox jumps over the lazy dog."

// plainStart is how a family's output reaches plain answer text, when it does
// not start there.
var plainStart = map[string]struct {
	lead string
	opts Options
}{
	"muse-glimmer": {lead: " to=user<|message|>"},            // content is the message to the user
	"step3":        {opts: Options{ReasoningDisabled: true}}, // otherwise the output starts as reasoning
}

// TestPlainTextAllocs: feeding a chunk of plain text returns its content
// without allocating.
func TestPlainTextAllocs(t *testing.T) {
	for _, f := range Families() {
		t.Run(f.ID, func(t *testing.T) {
			start := plainStart[f.ID]
			p := f.New(start.opts)
			p.Feed(start.lead)
			for range 4 { // past the start of the output (reasoning detection)
				p.Feed(plainChunk)
			}
			events := p.Feed(plainChunk)
			if len(events) == 0 || events[0].Kind != Content {
				t.Fatalf("plain text gave %+v, want content", events)
			}
			if n := testing.AllocsPerRun(200, func() { p.Feed(plainChunk) }); n != 0 {
				t.Errorf("%v allocations per plain-text chunk, want 0", n)
			}
		})
	}
}

// TestStreamingReadsLinear: a 100 KB call fed in 4-byte chunks is re-read a
// bounded number of times, not once per chunk (before the gate, once per
// chunk: about 25 000 × 50 KB). Each family's one-call vector has its "Paris"
// argument replaced by 100 KB of prose, followed by text; the bytes its
// parser is handed (the gate's runs, and the engine's section parser) must
// stay within the gate's bound: wakeCredit times the output for runs at the
// end of markup, at most 4/3 of it for the runs as the text grows, and one
// reading at the end — under (wakeCredit+2) times the output. And the call
// must come out before Close in most families (see lateCall).
func TestStreamingReadsLinear(t *testing.T) {
	body := strings.Repeat("lorem ipsum dolor sit amet ", 100*1024/27)
	for _, f := range Families() {
		v, ok := oneCallVector(t, f.ID)
		if !ok {
			continue
		}
		out := strings.Replace(v.Input, "Paris", body, 1) + " Done: and some text after the call."
		p := f.New(vectorOptions(v))
		ended := false
		for i := 0; i < len(out); i += 4 {
			for _, e := range p.Feed(out[i:min(i+4, len(out))]) {
				ended = ended || e.Kind == CallEnd
			}
		}
		p.Close()
		gateRead, sectionRead := readCounts(p)
		t.Logf("%s: %d bytes; gates read %.2f×, section parser %.2f×; call before Close: %v", f.ID, len(out), float64(gateRead)/float64(len(out)), float64(sectionRead)/float64(len(out)), ended)
		if limit := (wakeCredit + 2) * len(out); gateRead > limit || sectionRead > limit {
			t.Errorf("%s: %d bytes in 4-byte chunks: the parser read %d bytes, its section parser %d: not linear", f.ID, len(out), gateRead, sectionRead)
		}
		if !ended && !lateCall[f.ID] {
			t.Errorf("%s: the call came out only at Close", f.ID)
		}
		// Holding chunks back changes nothing in the result.
		var chunks []string
		for _, n := range []int{1, 4, 7, 4096} {
			chunks = chunks[:0]
			for i := 0; i < len(out); i += n {
				chunks = append(chunks, out[i:min(i+n, len(out))])
			}
			whole, split := Run(f.New(vectorOptions(v)), out), Run(f.New(vectorOptions(v)), chunks...)
			if !equalResults(whole, split) || len(whole.ToolCalls) != 1 {
				t.Errorf("%s: %d-byte chunks give a different result, or no call", f.ID, n)
			}
		}
	}
}

// lateCall lists the families whose closing markup has so many tags (each
// followed by a word) that the gate's credit runs out before the last: their
// long call comes out when the held text has grown fourfold or at Close.
var lateCall = map[string]bool{"kimi-k3": true, "minimax-m3": true}

// oneCallVector is a family's first own vector with one call whose arguments
// say "Paris".
func oneCallVector(t testing.TB, id string) (vector, bool) {
	for _, v := range readVectors(t, "testdata/vectors/"+id+".jsonl") {
		if v.Expected.ToolCalls != nil && len(*v.Expected.ToolCalls) == 1 && strings.Contains(v.Input, "Paris") {
			return v, true
		}
	}
	return vector{}, false
}

// readCounts sums what a parser's gates let through and what its engine's
// section parser was handed.
func readCounts(p Parser) (gateRead, sectionRead int) {
	switch p := p.(type) {
	case *engine:
		return p.gate.read, p.sectionScanned
	case *leadingClose:
		return readCounts(p.inner)
	case *aprielParser:
		return readCounts(p.e)
	case *leadEngine:
		g, s := readCounts(p.engine)
		return g + p.leadGate.read, s
	case *deepSeekParser:
		return readCounts(p.engine)
	case quietParser:
		return readCounts(p.engine)
	case *gemma4Parser:
		return readCounts(p.engine)
	case *harmony:
		return p.gate.read, 0
	case *llamaParser:
		return p.gate.read, 0
	case *mistralParser:
		return p.gate.read, 0
	case *museParser:
		return p.gate.read, 0
	}
	panic("readCounts: unknown parser type")
}

// An open section is not parsed again on every short chunk: byte by byte, a
// hermes call is handed to its section parser only when a byte that can end
// markup arrives (here the call's closing braces and tag), not once per byte.
func TestOpenSectionWaitsForAnEndingByte(t *testing.T) {
	out := `Sure. <tool_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</tool_call> Done.`
	fam := mustFamily(t, "hermes")
	p := fam.New(Options{})
	var chunks []string
	for i := 0; i < len(out); i++ {
		chunks = append(chunks, out[i:i+1])
	}
	r := Run(p, chunks...)
	if len(r.ToolCalls) != 1 || r.Content != "Sure.Done." {
		t.Fatalf("%+v", r)
	}
	_, scanned := readCounts(p)
	section := strings.Index(out, "</tool_call>") + len("</tool_call>") - strings.Index(out, "<tool_call>")
	// Each run hands the section parser the held text (up to smallHeld bytes,
	// then what the gate's growth and credit allow); once per byte would be
	// about section²/2 bytes.
	if scanned > 4*section {
		t.Errorf("the section parser read %d bytes of a %d-byte section", scanned, section)
	}
}
