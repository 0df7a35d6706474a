package llamacpp

// The models' lifecycle: loaded on first use, unloaded when idle or to make
// room.
//
// New reads each model's header and its vocabulary (llama.cpp's vocab_only
// load: the metadata and the tokens, no tensors), so that a file that is not
// a model fails at start, and so that everything the gateway asks before a
// request — the chat template, BOS and EOS, the context a load will make —
// and the tokenizing of prompts need no weights. The weights and the context
// are loaded by the model's scheduler when it admits a request and finds
// them absent (start, sched.go): requests that arrive meanwhile wait in the
// scheduler's queue, so concurrent first requests load once.
//
// A loaded model holds memory: its weights (the file's size, mapped), its
// KV cache (the context's cells × the bytes a token, size.go) and its
// context's compute and output buffers (buffers.go). The engine's
// pool counts what the loaded models hold against Options.MemoryBudget.
// Loading, or making an idle-released KV cache again, reserves its bytes
// first; when they do not fit, the least recently used idle model is
// unloaded, and while every other loaded model is busy the load waits for
// one of them to become idle (as Ollama's scheduler waits). A model alone is
// loaded whatever its size: the budget bounds models together, it does not
// refuse the only one.
//
// Unloading another model runs on the loader's goroutine, with the other's
// scheduler held: its hold channel is offered only while it sleeps with no
// request running (admit), so a model decoding a request is never unloaded,
// and nothing else touches its context while it is. After its keep-alive
// without a request, a model's own scheduler unloads it: Options.KeepAlive,
// or the keep-alive of the last request admitted when it sets one (as
// Ollama's keep_alive: 0 unloads once the model is idle, a negative value
// never); Engine.Unload unloads it as soon as it is idle.

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// LoadEventKind says what a LoadEvent reports.
type LoadEventKind int

const (
	// LoadStart: the weights are about to be read (Size is the estimate).
	LoadStart LoadEventKind = iota
	// LoadProgress: llama.cpp's progress callback, Progress from 0 to 1.
	LoadProgress
	// Loaded: the model is ready (Took, Size).
	Loaded
	// LoadFailed: Err says why.
	LoadFailed
	// Unloaded: the weights and the context were freed (Why).
	Unloaded
	// SlotsSaved: the slots were written to Options.SlotSaveDir before
	// the context was freed (Why says how many, how many tokens).
	SlotsSaved
	// SlotsRestored: saved slots were read back into a context just made
	// (Why).
	SlotsRestored
	// SlotStateIgnored: a warning; a slot's state was not saved, or a
	// saved one not read back (Err says which file and why).
	SlotStateIgnored
)

// LoadEvent is one step of a model's lifecycle, for Options.OnLoad.
type LoadEvent struct {
	Kind     LoadEventKind
	Model    string
	Path     string
	Progress float64
	Size     int64 // bytes: the weights, the KV cache and the context's buffers
	Took     time.Duration
	Why      string
	Err      error
}

// pool is the engine's account of the memory its loaded models hold.
// Everything under mu; changed is closed (and made again) whenever a model
// becomes idle or gives memory back, waking the loads that wait.
type pool struct {
	budget  int64 // 0: no bound
	mu      sync.Mutex
	used    int64
	clock   uint64
	changed chan struct{}
	// waiting, set by tests, is sent the waiting model each time a load
	// waits because every other loaded model runs requests.
	waiting atomic.Pointer[chan *model]
}

// life is a model's part of the pool's account (under pool.mu).
type life struct {
	held     int64     // bytes counted in pool.used
	running  int       // requests admitted and not ended
	loading  bool      // the weights are being read
	loaded   bool      // the weights are in memory
	lastUse  uint64    // pool.clock when a request last came: the LRU order
	lastDone time.Time // when the last request ended (or the load did)
	// keepFor is how long the model stays loaded idle, from the last
	// request admitted (its keep-alive, else Options.KeepAlive); negative:
	// for ever. keepWhy says where it came from, for the unload's reason.
	keepFor time.Duration
	keepWhy string
	// unloadIdle: Engine.Unload asked for the model to go once idle.
	unloadIdle bool
}

func newPool(budget int64) *pool { return &pool{budget: budget, changed: make(chan struct{})} }

// broadcast wakes the loads waiting for memory; the caller holds mu.
func (p *pool) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// weightBytes and kvHeld are what the model holds loaded: the file's size
// (the weights are mapped from it) and its KV cache.
func (m *model) weightBytes() int64 { return m.fileSize }
func (m *model) kvHeld() int64      { return int64(m.nCtx) * m.sizing.KVPerToken }

// reserve counts need more bytes as held by m, unloading the least recently
// used idle models while they do not fit, and waiting while the others are
// busy. It runs on m's scheduler goroutine (m is not idle: it is admitting
// a request), and gives up when ctx ends or the engine closes.
func (p *pool) reserve(ctx context.Context, m *model, need int64, forWhat string) error {
	for {
		p.mu.Lock()
		othersHeld := p.used - m.life.held
		if p.budget == 0 || p.used+need <= p.budget || othersHeld == 0 {
			p.used += need
			m.life.held += need
			p.mu.Unlock()
			return nil
		}
		victim := p.lruIdle(m)
		changed := p.changed
		p.mu.Unlock()
		if victim == nil {
			// Every other loaded model is running requests: wait until
			// one ends them, or unloads.
			if c := p.waiting.Load(); c != nil {
				select {
				case *c <- m:
				default:
				}
			}
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return ctx.Err()
			case <-m.quit:
				return errClosed
			}
		}
		select {
		case victim.hold <- struct{}{}:
			// victim's scheduler sleeps with nothing running and waits to
			// be let go: its context is ours until then.
			victim.unload(fmt.Sprintf("to make room for %s under the memory budget of %s", forWhat, humanBytes(p.budget)))
			victim.release()
		case <-changed:
		case <-victim.done:
		case <-ctx.Done():
			return ctx.Err()
		case <-m.quit:
			return errClosed
		}
	}
}

// lruIdle is the loaded model other than m that ran a request least
// recently and runs none now; nil when there is none. The caller holds mu.
func (p *pool) lruIdle(m *model) *model {
	var best *model
	for _, o := range m.peers {
		if o == m || !o.life.loaded || o.life.running > 0 || o.life.held == 0 {
			continue
		}
		if best == nil || o.life.lastUse < best.life.lastUse {
			best = o
		}
	}
	return best
}

// settle corrects m's account by diff bytes once what it holds is measured
// (a context's buffers, counted by an estimate until it was made): a
// negative diff is given back; a positive one is counted at once, and the
// least recently used idle models are unloaded while the account is over
// the budget. It does not wait for busy models (the context is made
// already): the next reservation does.
func (p *pool) settle(m *model, diff int64, forWhat string) {
	if diff <= 0 {
		p.give(m, -diff)
		return
	}
	p.mu.Lock()
	p.used += diff
	m.life.held += diff
	p.mu.Unlock()
	for {
		p.mu.Lock()
		over := p.budget > 0 && p.used > p.budget
		victim := p.lruIdle(m)
		p.mu.Unlock()
		if !over || victim == nil {
			return
		}
		select {
		case victim.hold <- struct{}{}:
			victim.unload(fmt.Sprintf("to make room for %s's buffers under the memory budget of %s", forWhat, humanBytes(p.budget)))
			victim.release()
		default:
			return // its scheduler is not idle: not waited for
		}
	}
}

// give takes bytes back from m's account.
func (p *pool) give(m *model, bytes int64) {
	p.mu.Lock()
	bytes = min(bytes, m.life.held)
	m.life.held -= bytes
	p.used -= bytes
	p.broadcast()
	p.mu.Unlock()
}

// began and ended count m's running requests: a model with one is never
// unloaded. began also moves m to the front of the LRU order and takes the
// request's keep-alive (nil: the model's default).
func (p *pool) began(m *model, keepAlive *time.Duration) {
	p.mu.Lock()
	p.clock++
	m.life.lastUse = p.clock
	m.life.running++
	m.life.keepFor, m.life.keepWhy = m.keepAliveOf(keepAlive)
	p.mu.Unlock()
}

// keepAliveOf is how long m stays loaded idle after a request with the
// given keep-alive, and why, for the unload's reason.
func (m *model) keepAliveOf(keepAlive *time.Duration) (time.Duration, string) {
	switch {
	case keepAlive != nil && *keepAlive == 0:
		return 0, "the last request's keep_alive 0"
	case keepAlive != nil:
		return *keepAlive, fmt.Sprintf("%s without a request (the last request's keep_alive)", *keepAlive)
	case m.keepAlive > 0:
		return m.keepAlive, fmt.Sprintf("%s without a request (-keep-alive)", m.keepAlive)
	default:
		return -1, ""
	}
}

func (p *pool) ended(m *model) {
	p.mu.Lock()
	m.life.running--
	if m.life.running == 0 {
		m.life.lastDone = time.Now()
		p.broadcast()
	}
	p.mu.Unlock()
}

// ensureLoaded loads the weights and makes the context if they are absent
// (on the scheduler's goroutine, for the request being admitted).
func (m *model) ensureLoaded(ctx context.Context) error {
	if m.m != 0 {
		return nil
	}
	if err := m.pool.reserve(ctx, m, m.weightBytes()+m.contextHeld(), m.id); err != nil {
		return err
	}
	m.pool.mu.Lock()
	m.life.loading = true
	m.pool.mu.Unlock()
	err := m.loadWeights()
	m.pool.mu.Lock()
	m.life.loading = false
	m.life.loaded = err == nil
	m.life.lastDone = time.Now()
	m.pool.mu.Unlock()
	if err != nil {
		m.pool.give(m, math.MaxInt64)
		return &backend.Error{Kind: backend.Embedded, Status: 500, Message: err.Error()}
	}
	return nil
}

// loadWeights reads the weights and makes the context and the batch with
// the parameters open settled, reporting the progress to OnLoad.
func (m *model) loadWeights() error {
	m.event(LoadEvent{Kind: LoadStart, Size: m.weightBytes() + m.contextHeld()})
	start := time.Now()
	fail := func(err error) error {
		m.freeContext()
		if m.m != 0 {
			llamaModelFree(m.m)
			m.m = 0
		}
		m.event(LoadEvent{Kind: LoadFailed, Err: err, Took: time.Since(start)})
		return err
	}
	takeProblems()
	mp := llamaModelDefaultParams()
	mp.nGPULayers = 0 // the npm package's libraries are CPU-only
	mp.progressCallback, mp.progressUserData = progressCallback(), m.progressID
	m.m = modelLoadFromFile(m.path, mp)
	if m.m == 0 {
		return fail(fmt.Errorf("model %s: llama.cpp could not load its weights: %s", m.path, orUnknown(takeProblems())))
	}
	if t := int(llamaModelNCtxTrain(m.m)); t != m.train && t > 0 {
		return fail(fmt.Errorf("model %s: llama.cpp reads a trained context of %d tokens, its header says %d", m.path, t, m.train))
	}
	m.canCopy = !llamaModelIsRecurrent(m.m) && !llamaModelIsHybrid(m.m)
	m.key, _ = m.stateKey()
	takeProblems() // the load's warnings are not the context's reasons
	estimated := m.buffersHeld()
	m.lctx = m.makeContext()
	m.pool.settle(m, m.buffersHeld()-estimated, m.id)
	if m.lctx == 0 {
		return fail(fmt.Errorf("model %s: llama.cpp could not make a context of %d tokens with %d slots: %s", m.path, m.nCtx, len(m.slots), orUnknown(takeProblems())))
	}
	// What llama.cpp made of the parameters must be what open promised the
	// gateway (the context is what requests are checked against): each
	// sequence may use the whole context only if the KV cache is unified,
	// and the slots are sequences 0 to slots-1.
	n, seq, nSeq := int(llamaNCtx(m.lctx)), int(llamaNCtxSeq(m.lctx)), int(llamaNSeqMax(m.lctx))
	if n != m.nCtx || seq != n || nSeq != len(m.slots) {
		return fail(fmt.Errorf("model %s: llama.cpp made a context of %d tokens, %d sequences of %d each, asked for %d sharing %d: "+
			"its llama_context_params do not match the binding's (is this llama.cpp %s?)", m.path, n, nSeq, seq, len(m.slots), m.nCtx, LlamaVersion))
	}
	if b, u := int(llamaNBatch(m.lctx)), int(llamaNUbatch(m.lctx)); b != m.nBatch || min(u, b) != m.nUbatch {
		return fail(fmt.Errorf("model %s: llama.cpp made n_batch %d and n_ubatch %d, expected %d and %d (is this llama.cpp %s?)", m.path, b, u, m.nBatch, m.nUbatch, LlamaVersion))
	}
	m.batch = llamaBatchInit(int32(m.nBatch), 0, 1)
	if m.batch.token == nil || m.batch.seqID == nil {
		m.batch = batch{}
		return fail(fmt.Errorf("model %s: llama_batch_init of %d tokens failed", m.path, m.nBatch))
	}
	for _, sl := range m.slots {
		sl.cached, sl.used = sl.cached[:0], 0
	}
	m.restoreSlots()
	m.released.Store(false)
	m.loads.Add(1)
	m.event(LoadEvent{Kind: Loaded, Size: m.weightBytes() + m.contextHeld(), Took: time.Since(start)})
	return nil
}

// freeContext frees the batch and the context, if any.
func (m *model) freeContext() {
	if m.batch.token != nil {
		batchFree(m.batch)
		m.batch = batch{}
	}
	if m.lctx != 0 {
		llamaFree(m.lctx)
		m.lctx = 0
	}
}

// unload frees the weights, the context and the batch, forgetting every
// slot; only while nothing runs (on the scheduler's goroutine, or on a
// loader's holding it).
func (m *model) unload(why string) {
	if m.m == 0 || len(m.active) > 0 {
		return
	}
	m.saveSlots()
	m.freeContext()
	llamaModelFree(m.m)
	m.m = 0
	for _, sl := range m.slots {
		sl.cached, sl.used = sl.cached[:0], 0
	}
	m.released.Store(false)
	m.pool.mu.Lock()
	m.life.loaded, m.life.unloadIdle = false, false
	m.life.keepFor, m.life.keepWhy = m.keepAliveOf(nil)
	m.pool.mu.Unlock()
	m.pool.give(m, math.MaxInt64)
	m.unloads.Add(1)
	m.event(LoadEvent{Kind: Unloaded, Why: why})
}

// event reports e to OnLoad, naming the model.
func (m *model) event(e LoadEvent) {
	if m.onLoad != nil {
		e.Model, e.Path = m.id, m.path
		m.onLoad(e)
	}
}

// The progress callback: one C function for every model (purego's callbacks
// are never freed), its user data the model's number in progressModels.
var (
	progressMu     sync.Mutex
	progressModels = map[uintptr]*model{}
	progressNext   atomic.Uintptr
)

// registerProgress gives m its number for the progress callback.
func registerProgress(m *model) {
	m.progressID = progressNext.Add(1)
	progressMu.Lock()
	progressModels[m.progressID] = m
	progressMu.Unlock()
}

func unregisterProgress(m *model) {
	progressMu.Lock()
	delete(progressModels, m.progressID)
	progressMu.Unlock()
}

// onProgress is the callback's Go side: true lets the load go on.
func onProgress(progress float32, id uintptr) bool {
	progressMu.Lock()
	m := progressModels[id]
	progressMu.Unlock()
	if m != nil {
		m.event(LoadEvent{Kind: LoadProgress, Progress: float64(progress)})
	}
	return true
}

// ModelStatus reports each model's state in memory, in the order given
// (backend.StatusReporter).
func (e *Engine) ModelStatus() []backend.ModelStatus {
	out := make([]backend.ModelStatus, 0, len(e.models))
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	for _, m := range e.models {
		st := backend.ModelStatus{ID: m.id, Loaded: m.life.loaded, Loading: m.life.loading, ContextLength: m.nCtx, Slots: len(m.slots),
			Running: m.life.running, KVResident: m.life.loaded && !m.released.Load()}
		switch {
		case m.life.loaded:
			st.Size = m.life.held
		default:
			st.Size = m.weightBytes() + m.contextHeld()
		}
		if keep := m.life.keepFor; m.life.loaded && keep >= 0 {
			st.ExpiresAt = m.life.lastDone.Add(keep)
			if m.life.running > 0 {
				st.ExpiresAt = time.Now().Add(keep) // counted from the end of what runs
			}
		}
		out = append(out, st)
	}
	return out
}

var _ backend.StatusReporter = (*Engine)(nil)

// expiry is when an idle loaded model unloads itself (its keep-alive after
// its last request, at once when Unload asked), and why, for admit's timer;
// zero when it never does.
func (m *model) expiry() (time.Time, string) {
	if m.m == 0 {
		return time.Time{}, ""
	}
	m.pool.mu.Lock()
	defer m.pool.mu.Unlock()
	switch {
	case m.life.unloadIdle:
		return m.life.lastDone, "asked to (unload)"
	case m.life.keepFor < 0:
		return time.Time{}, ""
	}
	return m.life.lastDone.Add(m.life.keepFor), m.life.keepWhy
}

// Load loads the model now, as a request would, to stay loaded keepAlive
// after (nil: Options.KeepAlive). It returns once the model is loaded, or
// with why it could not be.
func (e *Engine) Load(ctx context.Context, id string, keepAlive *time.Duration) error {
	m, err := e.model(id)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	select {
	case m.loadNow <- done:
	case <-m.done:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := <-done; err != nil {
		return err
	}
	m.pool.mu.Lock()
	m.life.keepFor, m.life.keepWhy = m.keepAliveOf(keepAlive)
	m.life.lastDone = time.Now()
	m.pool.mu.Unlock()
	m.wake() // the scheduler's timer follows the new keep-alive
	return nil
}

// Unload unloads the model once it is idle: at once when no request runs,
// else when the ones running end (a request that comes meanwhile runs
// first). It does not wait for the unload; Options.OnLoad and ModelStatus
// tell when it is done. A model that is not loaded is left as it is.
func (e *Engine) Unload(_ context.Context, id string) error {
	m, err := e.model(id)
	if err != nil {
		return err
	}
	m.pool.mu.Lock()
	m.life.unloadIdle = m.life.loaded || m.life.loading
	m.pool.mu.Unlock()
	m.wake()
	return nil
}

var _ backend.ModelLoader = (*Engine)(nil)

// fileSizeOf is the file's size, 0 when it cannot be read.
func fileSizeOf(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// preload loads every model now, in order, as Options.Preload asks; the
// models given must fit the memory budget together.
func (e *Engine) preload() error {
	var total int64
	for _, m := range e.models {
		total += m.weightBytes() + m.contextHeld()
	}
	if e.pool.budget > 0 && total > e.pool.budget && len(e.models) > 1 {
		names := make([]string, len(e.models))
		for i, m := range e.models {
			names[i] = m.id
		}
		return fmt.Errorf("preloading %s needs about %s, more than the memory budget of %s: raise -memory-budget, or load them on first use (without -preload)",
			strings.Join(names, ", "), humanBytes(total), humanBytes(e.pool.budget))
	}
	for _, m := range e.models {
		done := make(chan error, 1)
		select {
		case m.loadNow <- done:
		case <-m.done:
			return errClosed
		}
		if err := <-done; err != nil {
			return err
		}
	}
	return nil
}
