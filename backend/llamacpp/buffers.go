package llamacpp

// The compute and output buffers a context holds, counted in the memory
// budget beside the weights and the KV cache.
//
// llama_init_from_model allocates, besides the KV cache, the scheduler's
// compute buffer (the graph's intermediate tensors, the logits of a whole
// micro-batch among them) and the output buffer (one row of logits a
// sequence). On a model with a large vocabulary they outweigh everything
// else: the tiny Qwen3 test model, with its 151,936 tokens, makes a
// 297 MiB compute buffer for a 20 MiB file and a 1 MiB KV cache. llama.cpp
// v0.5.0 has no function that reports their size, but it logs each one at
// INFO level while it makes the context ("CPU compute buffer size =
// 297.00 MiB", "CPU output buffer size = 2.32 MiB"). So contexts are made
// one at a time (makeMu), the log lines of the one being made are summed,
// and the sum is what the model's buffers are counted as from then on.
// Before a model's first context, the budget counts an estimate made of the
// same terms: four bytes of logits a vocabulary entry, for a micro-batch
// and for each sequence.

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

var (
	// makeMu makes the contexts one at a time, so that the buffer lines
	// logged meanwhile are the context's being made.
	makeMu sync.Mutex
	// bufferSink, while a context is made, is where countBufferLine adds
	// the buffers the log reports (llama.cpp may log from its own threads).
	bufferSink atomic.Pointer[atomic.Int64]
)

// makeContext makes m's context with the parameters open settled and
// records the buffers llama.cpp logged for it (m.buffers), keeping the
// estimate when the log named none. It returns 0 when llama.cpp could not.
func (m *model) makeContext() llamaContext {
	makeMu.Lock()
	defer makeMu.Unlock()
	var sum atomic.Int64
	bufferSink.Store(&sum)
	lctx := initFromModel(m.m, m.cp)
	bufferSink.Store(nil)
	if lctx != 0 && sum.Load() > 0 {
		m.buffers.Store(sum.Load())
	}
	return lctx
}

// countBufferLine adds the size of a compute or output buffer that one
// line of llama.cpp's INFO log reports to the context being made.
func countBufferLine(text string) {
	sink := bufferSink.Load()
	if sink == nil {
		return
	}
	if n, ok := bufferLineBytes(text); ok {
		sink.Add(n)
	}
}

// bufferLineBytes reads "... compute buffer size = 297.00 MiB" or "...
// output buffer size = 2.32 MiB"; other lines (the KV cache's among them,
// counted by size.go) are not buffers of this kind.
func bufferLineBytes(text string) (int64, bool) {
	var rest string
	for _, kind := range []string{"compute buffer size =", "output buffer size ="} {
		if i := strings.Index(text, kind); i >= 0 {
			rest = text[i+len(kind):]
			break
		}
	}
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return 0, false
	}
	var unit float64
	switch fields[1] {
	case "B":
		unit = 1
	case "KiB":
		unit = 1 << 10
	case "MiB":
		unit = 1 << 20
	case "GiB":
		unit = 1 << 30
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || unit == 0 || v < 0 {
		return 0, false
	}
	return int64(v * unit), true
}

// bufferEstimate is what m's buffers are counted as before its first
// context: the logits of a micro-batch (the compute buffer's bulk) and of
// one row a sequence (the output buffer), four bytes each.
func (m *model) bufferEstimate() int64 {
	return 4 * int64(m.nVocab) * int64(m.nUbatch+len(m.slots))
}

// buffersHeld is what m's buffers are counted as: measured once a context
// was made, estimated before.
func (m *model) buffersHeld() int64 {
	if n := m.buffers.Load(); n > 0 {
		return n
	}
	return m.bufferEstimate()
}

// contextHeld is what m's context holds: its KV cache and its buffers.
func (m *model) contextHeld() int64 { return m.kvHeld() + m.buffersHeld() }
