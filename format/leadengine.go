package format

// leadEngine, the shared engine for families whose output may open with a
// section that has no marker (Functionary v3.2, xLAM).

// leadEngine runs an engine whose output may begin with a section that has no
// opener of its own (functionary-v3.2's first recipient, whose ">>>" the prompt
// supplied; xLAM's bare array). lead decides on the start of the output: it
// returns the length and calls of such a section, 0 when the output does not
// start with one (it is then left to the engine), needMore while it cannot
// tell, or an error for a malformed leading section (kept as content).
type leadEngine struct {
	*engine
	lead     sectionFunc
	pending  string
	leadGate gate // when a chunk is worth trying the lead section again
	decided  bool
}

func (l *leadEngine) Feed(chunk string) []Event {
	if l.decided {
		return l.engine.Feed(chunk)
	}
	if !l.leadGate.feed(&l.pending, chunk) {
		return nil
	}
	return l.decide(false)
}

func (l *leadEngine) Close() []Event {
	var out []Event
	if !l.decided {
		out = l.decide(true)
	}
	return append(out, l.engine.Close()...)
}

func (l *leadEngine) decide(final bool) []Event {
	n, calls, needMore, err := l.lead(l.pending, final)
	if needMore && !final {
		return nil
	}
	l.decided = true
	if err != nil {
		l.engine.diag("malformed-call", err.Error(), 0)
		n, calls = 0, nil
	}
	var out []Event
	if n > 0 {
		l.engine.offset += n
		l.engine.markupBytes += n
		out = l.engine.emitCalls(nil, calls, 0)
	}
	rest := l.pending[n:]
	l.pending = ""
	return append(out, l.engine.Feed(rest)...)
}
