package chat

import "strings"

// Response is one complete answer in the canonical model, collected from its
// deltas by Add: what a client API that does not stream encodes.
type Response struct {
	ID      string
	Model   string
	Created int64
	// Finish is set by the answer's DeltaFinish; an answer that broke off
	// has none.
	Finish *Finish

	output []Output
	runs   []*strings.Builder // the text of output[i] while it grows; nil for a call
	live   map[int]int        // a streamed call's index → its place in output
	args   map[int]*strings.Builder
}

// Output is one piece of an answer, in the order produced: a run of text or
// of reasoning, or a call.
type Output struct {
	Kind DeltaKind // DeltaContent, DeltaReasoning or DeltaCall
	Text string
	Call ToolCall
}

// Add takes the answer's next delta. Text of the kind of the piece before it
// joins that piece; a streamed call becomes a piece at its start and takes
// its assembled form at its end; a withdrawn one is removed.
func (r *Response) Add(d Delta) {
	switch d.Kind {
	case DeltaContent, DeltaReasoning:
		if d.Text == "" {
			return
		}
		if n := len(r.output); n == 0 || r.output[n-1].Kind != d.Kind {
			r.output = append(r.output, Output{Kind: d.Kind})
			r.runs = append(r.runs, &strings.Builder{})
		}
		r.runs[len(r.runs)-1].WriteString(d.Text)
	case DeltaCall:
		r.addCall(*d.Call)
	case DeltaCallStart:
		if r.live == nil {
			r.live, r.args = map[int]int{}, map[int]*strings.Builder{}
		}
		r.live[d.Index] = len(r.output)
		r.args[d.Index] = &strings.Builder{}
		r.addCall(ToolCall{ID: d.ID, Type: "function", Function: FunctionCall{Name: d.Name}})
	case DeltaCallArgs:
		if b := r.args[d.Index]; b != nil {
			b.WriteString(d.Text)
		}
	case DeltaCallEnd:
		i, ok := r.live[d.Index]
		if !ok {
			return
		}
		if d.Call != nil {
			r.output[i].Call = *d.Call
		} else {
			r.output[i].Call.Function.Arguments = r.args[d.Index].String()
		}
		delete(r.live, d.Index)
		delete(r.args, d.Index)
	case DeltaCallWithdrawn:
		i, ok := r.live[d.Index]
		if !ok {
			return
		}
		r.output = append(r.output[:i], r.output[i+1:]...)
		r.runs = append(r.runs[:i], r.runs[i+1:]...)
		delete(r.live, d.Index)
		delete(r.args, d.Index)
		for k, j := range r.live {
			if j > i {
				r.live[k] = j - 1
			}
		}
	case DeltaFinish:
		f := *d.Finish
		r.Finish = &f
	}
}

func (r *Response) addCall(c ToolCall) {
	r.output = append(r.output, Output{Kind: DeltaCall, Call: c})
	r.runs = append(r.runs, nil)
}

// Output returns the answer's pieces in the order produced.
func (r *Response) Output() []Output {
	for i, b := range r.runs {
		if b != nil {
			r.output[i].Text = b.String()
		}
	}
	return r.output
}

// Message returns the answer as the assistant's turn: its text, its
// reasoning and its calls, each joined in order.
func (r *Response) Message() Message {
	m := Message{Role: RoleAssistant}
	var text, thinking strings.Builder
	for _, o := range r.Output() {
		switch o.Kind {
		case DeltaContent:
			text.WriteString(o.Text)
		case DeltaReasoning:
			thinking.WriteString(o.Text)
		case DeltaCall:
			m.ToolCalls = append(m.ToolCalls, o.Call)
		}
	}
	m.Content, m.Reasoning = text.String(), thinking.String()
	return m
}
