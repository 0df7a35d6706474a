package llamacpp

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// The scheduler: continuous batching of a model's requests.
//
// Each model has one goroutine, run, that owns its llama.cpp context: it
// makes every call on the context, the memory, the batch and the samplers,
// so the C state needs no lock and a request never waits for another's
// turn. (Calls on the vocabulary alone, tokenizing a prompt, are made by the
// requests' goroutines: llama.cpp's vocabulary is read-only once loaded.)
//
// A request is a seq. Complete sends it on model.submit; the scheduler takes
// it when fewer sequences run than there are slots (else the sender waits,
// honouring its context: the channel is the queue), builds its sampler,
// gives it a slot (cache.go) and adds it to the running ones. Then, step
// after step, it decodes one batch holding every running sequence: one
// token of each that is generating, and a share of the prompt tokens of
// those still prompting (step.go); after the decode each sequence whose
// logits came out samples its next token and sends its text on its own
// channel (seq.out), which the request's stream reads. A sequence that
// finishes, fails, is cancelled or closed leaves at once: its sampler is
// freed, its slot (with what it decoded) goes back to the cache, and a
// waiting request takes its place at the next step.
//
// A stream whose reader falls behind (streamBuffer-1 chunks unread) is left
// out of the batches until it reads: the others go on. When nothing can be
// decoded the scheduler sleeps until a request comes, a stream is read or
// closed, or a request's context ends (model.poke wakes it).

// streamBuffer is how many chunks a stream may hold unread before its
// sequence waits for the reader.
const streamBuffer = 16

// seq is one request inside the scheduler: its prompt, sampler and slot and
// the answer so far. Only the scheduler touches it, except out (read by the
// stream) and closed (set by it).
type seq struct {
	ctx      context.Context
	req      backend.CompleteRequest
	gbnf     string
	patterns []string // a lazy grammar's triggers (checkGrammar)
	prompt   []llamaToken
	started  chan error // buffered: nil once the prompt is decoded, else why the request failed
	out      chan event // the answer's chunks; closed when the sequence leaves
	closed   atomic.Bool

	stopWake func() bool // stops the context.AfterFunc that pokes the scheduler
	smpl     *sampling
	slot     *slot
	cached   int // prompt tokens the slot held already (cache.go)
	fed      int // prompt tokens in the slot: cached, then decoded
	admitted time.Time

	promptTime, genTime time.Duration
	promptStep          int64 // the model's decodes when the prompt was in (tests: fairness)
	maxTokens           int
	stops               []string
	next                llamaToken // sampled, not yet decoded, when hasNext
	hasNext             bool
	tokens              int    // completion tokens sampled
	text                []byte // the completion so far
	sent                int    // bytes of text already sent
	stopAt              int    // where a stop string starts in text; -1 for none
}

// event is one message on a stream: a chunk, the last one (with a finish
// reason) or an error. The last event carries the grammar's counts.
type event struct {
	chunk            backend.Chunk
	err              error
	checked, refused int
	promptStep       int64
}

// prompting is true until the whole prompt is in the slot.
func (s *seq) prompting() bool { return s.fed < len(s.prompt) }

// room is true when the stream has room for a step's chunk and one more
// place after it: a step sends at most one event, and the spare place lets
// any running sequence be ended with an error without waiting (decodePlan).
func (s *seq) room() bool { return len(s.out) < cap(s.out)-1 }

// sched is a model's scheduler state. Only run's goroutine touches active
// and quitting; the atomics are the tests' and benchmarks' hooks.
type sched struct {
	submit chan *seq     // Complete → run; unbuffered: waiting senders are the queue
	poke   chan struct{} // buffered 1: something a sleeping scheduler must look at
	hold   chan struct{} // tests: acquire
	unhold chan struct{} // tests: release
	quit   chan struct{} // closed by free
	done   chan struct{} // closed when run returns

	active   []*seq // the running sequences, in admission order
	quitting bool
	// limit, when above 0, bounds the running sequences below the slots;
	// 1 makes requests take turns, as before the scheduler (the
	// benchmarks' "before").
	limit atomic.Int32

	// gather, set by tests, makes the scheduler wait until that many
	// requests run before it decodes (once), so that a test knows they
	// share batches without timing anything.
	gather atomic.Int32
	// idleNow, sent to by tests, releases the KV cache of an idle model
	// at once, as idleRelease would (release.go), and closes the channel
	// sent when it has.
	idleNow chan chan struct{}
	// unloadNow, sent to by tests, unloads an idle model at once, as
	// KeepAlive would (lifecycle.go); loadNow, sent to by preload, loads
	// it. Each closes (sends on) the channel sent when it has.
	unloadNow chan chan struct{}
	loadNow   chan chan error
	// asleep, set by tests, is sent a value (when it has room) each time
	// the scheduler goes to sleep with nothing to decode.
	asleep atomic.Pointer[chan struct{}]
	stats  batchStats
	// due is the step's draws (step.go), kept between steps for its
	// array; serialDraws, set by tests and benchmarks, makes sampleAll
	// draw them one after the other.
	due         []draw
	serialDraws atomic.Bool
}

// batchStats count the decodes (tests and benchmarks read them).
type batchStats struct {
	decodes atomic.Int64 // llama_decode calls that succeeded
	maxSeqs atomic.Int32 // the most sequences in one of them
	seqs    atomic.Int64 // sequences summed over the decodes
	spread  atomic.Int64 // steps whose draws ran on several goroutines
	full    atomic.Int64 // llama_decode calls refused for want of cells (then retried)
}

// errClosed is what a request gets when the engine closes before it ran.
var errClosed = errors.New("the embedded engine is closing")

// startScheduler makes the channels and starts run.
func (m *model) startScheduler() {
	m.submit = make(chan *seq)
	m.poke = make(chan struct{}, 1)
	m.hold, m.unhold = make(chan struct{}), make(chan struct{})
	m.idleNow = make(chan chan struct{})
	m.unloadNow, m.loadNow = make(chan chan struct{}), make(chan chan error)
	m.quit, m.done = make(chan struct{}), make(chan struct{})
	go m.run()
}

// wake pokes the scheduler; it never blocks (one poke pending is enough).
func (m *model) wake() {
	select {
	case m.poke <- struct{}{}:
	default:
	}
}

// run is the scheduler's loop: drop what left, take what waits, decode one
// batch. It returns once the model is closing and nothing runs.
func (m *model) run() {
	defer close(m.done)
	for {
		m.reap()
		if !m.admit() {
			return
		}
		if plan := m.plan(); len(plan) > 0 {
			m.step(plan)
		}
	}
}

// capacity is how many sequences may run at once: one per slot (a running
// sequence owns its slot), or limit; never more than a batch holds (a small
// context's n_batch may be below the slots), so that every generating
// sequence has its token in every step.
func (m *model) capacity() int {
	n := min(len(m.slots), m.nBatch)
	if l := int(m.limit.Load()); l > 0 {
		n = min(n, l)
	}
	return n
}

// runnable is true when a batch can be made now: a prompt to decode, or a
// generated token whose reader has room for what comes next.
func (m *model) runnable() bool {
	for _, s := range m.active {
		if s.prompting() || s.hasNext && s.room() {
			return true
		}
	}
	return false
}

// admit takes the requests that wait while a sequence is free. With
// something to decode it does not wait; with nothing, it sleeps until a
// request comes, a poke, a test's hold or Close. It returns false when the
// model is closing and nothing runs.
func (m *model) admit() bool {
	for {
		var submit chan *seq
		if !m.quitting && len(m.active) < m.capacity() {
			submit = m.submit
		}
		g := int(m.gather.Load())
		if g > 0 && (len(m.active) >= g || submit == nil) {
			m.gather.Store(0) // gathered: decode from now on
			g = 0
		}
		if g == 0 && m.runnable() {
			select {
			case s := <-submit:
				m.start(s)
				continue
			default:
				return true
			}
		}
		if m.quitting && len(m.active) == 0 {
			return false
		}
		var hold chan struct{}
		if len(m.active) == 0 {
			hold = m.hold // a test may hold the context only when nothing runs
		}
		quit := m.quit
		if m.quitting {
			quit = nil
		}
		if c := m.asleep.Load(); c != nil {
			select {
			case *c <- struct{}{}:
			default:
			}
		}
		// Idle with its KV cache held: after idleRelease with nothing to
		// do (or when a test says so), the context is freed (release.go);
		// idle and loaded, after keepAlive since its last request the
		// model is unloaded (lifecycle.go).
		var idle, expire <-chan time.Time
		var idleNow, unloadNow chan chan struct{}
		var timer, expireTimer *time.Timer
		var expireWhy string
		if len(m.active) == 0 && m.m != 0 && !m.released.Load() && m.idleRelease > 0 {
			timer = time.NewTimer(m.idleRelease)
			idle, idleNow = timer.C, m.idleNow
		}
		if len(m.active) == 0 && m.m != 0 {
			unloadNow = m.unloadNow
			var at time.Time
			if at, expireWhy = m.expiry(); !at.IsZero() {
				expireTimer = time.NewTimer(time.Until(at))
				expire = expireTimer.C
			}
		}
		select {
		case s := <-submit:
			m.start(s)
		case <-m.poke:
			m.reap() // a poke may be a request's context ending
		case <-hold:
			<-m.unhold
		case <-quit:
			m.quitting = true
		case <-idle:
			m.releaseKV()
		case done := <-idleNow:
			m.releaseKV()
			close(done)
		case <-expire:
			m.unload(expireWhy)
		case done := <-unloadNow:
			m.unload("asked to")
			close(done)
		case done := <-m.loadNow:
			done <- m.ensureLoaded(context.Background())
		}
		if timer != nil {
			timer.Stop()
		}
		if expireTimer != nil {
			expireTimer.Stop()
		}
	}
}

// start admits s: its sampler is built (a refusal ends the request here),
// it takes a slot, and it joins the running sequences, its prompt to be
// decoded from the first token the slot does not hold.
func (m *model) start(s *seq) {
	// Counted as running from here: while it loads, or waits for memory,
	// no other model's load may unload this one.
	m.pool.began(m, s.req.KeepAlive)
	fail := func(err error) {
		m.pool.ended(m)
		s.started <- err
	}
	if err := m.ensureLoaded(s.ctx); err != nil {
		fail(err)
		return
	}
	takeProblems()
	if m.released.Load() {
		if err := m.restoreKV(s.ctx); err != nil {
			fail(err)
			return
		}
	}
	smpl, err := m.sampler(s.req, s.gbnf, s.patterns)
	if err != nil {
		fail(err)
		return
	}
	s.smpl = smpl
	s.slot, s.cached = m.take(s.prompt)
	s.slot.busy = true
	m.makeRoom(len(s.prompt) - s.cached)
	s.fed = s.cached
	s.admitted = time.Now()
	// A client that leaves while its sequence waits for a reader or a
	// batch must wake a sleeping scheduler, which then drops it.
	s.stopWake = context.AfterFunc(s.ctx, m.wake)
	m.active = append(m.active, s)
}

// reap drops the sequences whose client left: context done or stream
// closed. What they decoded stays in their slot.
func (m *model) reap() {
	for _, s := range slices.Clone(m.active) {
		if s.closed.Load() || s.ctx.Err() != nil {
			if s.prompting() {
				s.started <- s.ctx.Err() // Complete returned already; never blocks
			}
			m.end(s)
		}
	}
}

// end removes s from the running sequences: its sampler is freed, its slot
// is free for others (keeping its tokens), its stream's channel closed.
func (m *model) end(s *seq) {
	if s.smpl != nil {
		s.smpl.free()
		s.smpl = nil
	}
	s.slot.busy = false
	s.stopWake()
	m.active = slices.DeleteFunc(m.active, func(o *seq) bool { return o == s })
	m.pool.ended(m)
	close(s.out)
}

// acquire waits until no request runs and holds the scheduler, so that the
// caller (a test) may call llama.cpp on the model's context itself; release
// lets the scheduler go on.
// The model is loaded first if it is not (the caller wants its context).
func (m *model) acquire(ctx context.Context) error {
	select {
	case m.hold <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := m.ensureLoaded(ctx); err != nil {
		m.release()
		return err
	}
	return nil
}

func (m *model) release() { m.unhold <- struct{}{} }
