package chat

import "fmt"

// DeltaKind says what a Delta carries.
type DeltaKind uint8

const (
	// DeltaContent is answer text (Text).
	DeltaContent DeltaKind = iota + 1
	// DeltaReasoning is thinking text (Text).
	DeltaReasoning
	// DeltaCallStart announces a call still being written: its Index, ID
	// and Name are known, its arguments follow as DeltaCallArgs.
	DeltaCallStart
	// DeltaCallArgs is a fragment of the arguments (JSON text in Text) of
	// the call at Index.
	DeltaCallArgs
	// DeltaCallEnd ends the call at Index: its arguments are complete. Past
	// the parser, Call holds the call assembled.
	DeltaCallEnd
	// DeltaCallWithdrawn takes back the call at Index, announced while its
	// markup was still open, which turned out not to be that call. What the
	// markup held follows as content (with a diagnostic), or as a call of
	// its own.
	DeltaCallWithdrawn
	// DeltaCall is a whole call (Call), delivered at once: a runtime's own
	// call, or one whose end came with its start.
	DeltaCall
	// DeltaFinish ends the answer: Finish says why, with the usage and
	// everything that was noticed on the way.
	DeltaFinish
)

func (k DeltaKind) String() string {
	switch k {
	case DeltaContent:
		return "content"
	case DeltaReasoning:
		return "reasoning"
	case DeltaCallStart:
		return "call-start"
	case DeltaCallArgs:
		return "call-args"
	case DeltaCallEnd:
		return "call-end"
	case DeltaCallWithdrawn:
		return "call-withdrawn"
	case DeltaCall:
		return "call"
	case DeltaFinish:
		return "finish"
	}
	return fmt.Sprintf("DeltaKind(%d)", k)
}

// Delta is one piece of an answer as it is produced: what a parser makes of
// the model's output, and what the gateway hands each client API to encode.
// Only the fields of its Kind are set.
type Delta struct {
	Kind DeltaKind
	// Text is the content or reasoning text, or a fragment of arguments.
	Text string
	// Index is the call's position among the answer's calls.
	Index int
	// ID and Name are set on DeltaCallStart.
	ID, Name string
	// Call is the whole call, on DeltaCall and (past the parser) on
	// DeltaCallEnd.
	Call *ToolCall
	// Finish is set on DeltaFinish.
	Finish *Finish
}

// Finish is how an answer ended.
type Finish struct {
	Reason FinishReason
	// StopSequence is the request's stop sequence that ended the answer,
	// where the runtime said which one did.
	StopSequence string
	Usage        Usage
	// Diagnostics are everything noticed while the answer was made, in the
	// order found.
	Diagnostics []Diagnostic
}

// Diagnostic reports output that could not be read as intended, or a call
// that needs the user's attention (an undeclared tool). The text involved is
// never dropped: it stays in the content.
type Diagnostic struct {
	// Code is a stable identifier: malformed-call, unterminated-call,
	// unknown-tool, stray-markup, upstream-cut…
	Code string `json:"code"`
	// Message explains it in a sentence.
	Message string `json:"message"`
	// Offset is the byte offset in the model's output where the problem
	// starts; omitted when 0 (the output's start, or a finding about the
	// answer as a whole).
	Offset int `json:"offset,omitempty"`
}
