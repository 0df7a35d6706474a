package gateway

import (
	"net/http"

	"github.com/dragoman-dev/dragoman/backend"
)

// burstWriter holds back the flushes of an answer's events while the
// runtime's next chunk has already arrived, and flushes once the stream is
// about to wait for the runtime (backend.WaitNotifier): the chunks of a
// burst reach the client in one write, and no event waits longer than the
// time it takes to write the ones read with it. A runtime sending one token
// at a time gets each flushed as before; a runtime that sends several at
// once (a fast one, or a gateway that fell behind under load) costs one
// write instead of one per event.
type burstWriter struct {
	http.ResponseWriter
	holding bool // a stream that says when it waits is being pumped
	pending bool // a flush was asked for while holding
}

// Flush flushes, or notes that it is due while holding.
func (b *burstWriter) Flush() {
	if b.holding {
		b.pending = true
		return
	}
	b.flush()
}

func (b *burstWriter) flush() {
	if f, ok := b.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer below.
func (b *burstWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// release flushes what is due: the stream is about to wait.
func (b *burstWriter) release() {
	if b.pending {
		b.pending = false
		b.flush()
	}
}

// hold starts holding flushes for stream, when it says when it waits; the
// returned function stops, flushing what is due. Safe on a nil writer (an
// answer with no burst writer: flushes as written).
func (b *burstWriter) hold(stream backend.Stream) (stop func()) {
	ws, ok := stream.(backend.WaitNotifier)
	if b == nil || !ok {
		return func() {}
	}
	b.holding = true
	ws.OnWait(b.release)
	return func() {
		ws.OnWait(nil)
		b.holding = false
		b.release()
	}
}
