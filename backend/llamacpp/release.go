package llamacpp

// Releasing an idle model's KV cache (Options.IdleRelease). The context is
// what grows with the context size (a Qwen3-8B's 40,960 tokens take 5.6 GiB
// in f16), and an agent's model may sit unused for hours; the weights are
// mapped from the file, pages the kernel can take back. So after the idle
// time the scheduler frees the context and its batch, forgetting every
// slot's tokens (written to Options.SlotSaveDir first when it is set, and
// read back with the context: slotsave.go), and makes them again, with the
// same parameters, for the next request before it takes a slot. Both run on the scheduler's
// goroutine, the context's only user; requests' goroutines use only the
// vocabulary, which belongs to the model and stays.

import (
	"context"
	"fmt"
)

// releaseKV frees the context and the batch; only when nothing runs.
func (m *model) releaseKV() {
	if m.released.Load() || len(m.active) > 0 || m.lctx == 0 {
		return
	}
	m.saveSlots()
	if m.batch.token != nil {
		batchFree(m.batch)
		m.batch = batch{}
	}
	if m.lctx != 0 {
		llamaFree(m.lctx)
		m.lctx = 0
	}
	for _, sl := range m.slots {
		sl.cached, sl.used = sl.cached[:0], 0
	}
	m.released.Store(true)
	m.releases.Add(1)
	m.pool.give(m, m.contextHeld()) // the weights stay counted
}

// restoreKV makes the context and the batch again, its memory reserved
// first (lifecycle.go) for the request being admitted.
func (m *model) restoreKV(ctx context.Context) error {
	if err := m.pool.reserve(ctx, m, m.contextHeld(), m.id+"'s context"); err != nil {
		return err
	}
	fail := func(err error) error {
		m.pool.give(m, m.contextHeld())
		return err
	}
	takeProblems()
	counted := m.buffersHeld()
	m.lctx = m.makeContext()
	m.pool.settle(m, m.buffersHeld()-counted, m.id)
	if m.lctx == 0 {
		return fail(fmt.Errorf("model %s: llama.cpp could not make its context again after the idle release: %s", m.path, orUnknown(takeProblems())))
	}
	m.batch = llamaBatchInit(int32(m.nBatch), 0, 1)
	if m.batch.token == nil || m.batch.seqID == nil {
		llamaFree(m.lctx)
		m.lctx = 0
		return fail(fmt.Errorf("model %s: llama_batch_init of %d tokens failed", m.path, m.nBatch))
	}
	m.restoreSlots()
	m.released.Store(false)
	return nil
}

// Resident reports whether model id holds its context now: loaded and not
// idle-released; false for a model not served.
func (e *Engine) Resident(id string) bool {
	m, ok := e.byID[id]
	if !ok {
		return false
	}
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return m.life.loaded && !m.released.Load()
}
