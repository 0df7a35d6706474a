package llamacpp

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/grammar"
	"github.com/dragoman-dev/dragoman/template"
)

// model is one loaded GGUF with its one context, the context's slots
// (cache.go) and the scheduler that decodes its requests together
// (sched.go).
type model struct {
	id, path string
	meta     *template.GGUF

	// vm is the vocabulary-only model (open), which stays for the
	// engine's life: prompts are tokenized, and pieces and grammars made,
	// with its vocabulary. m is the whole model, not 0 while its weights
	// are loaded (lifecycle.go), and lctx its context.
	vm     llamaModel
	m      llamaModel
	lctx   llamaContext
	vocab  llamaVocab
	nCtx   int
	train  int // the context the model was trained for; 0 when unknown
	nBatch int
	nVocab int32
	bos    string
	eos    string

	// nUbatch is llama.cpp's compute batch: the most prompt tokens one
	// step takes (step.go).
	nUbatch int

	// sched is the scheduler (sched.go), whose goroutine alone touches
	// slots, clock and batch: the context's sequences and the tokens each
	// holds (cache.go), the count of requests that took one, and the
	// llama_batch every decode fills (n_batch tokens, C memory).
	sched
	slots []*slot
	clock uint64
	batch batch
	// canCopy is true when a prefix can be copied from one slot to
	// another: a KV cache, not recurrent or hybrid memory.
	canCopy bool
	// noReuse makes every request start from an empty cache
	// (Options.NoPromptReuse).
	noReuse bool
	// seed is the seed of requests that set none (Options.Seed); nil: a
	// random one.
	seed *int64
	// saveDir is where the slots are saved (Options.SlotSaveDir; "":
	// nowhere), and kvBudget Options.KVBudget, a bound on a saved state
	// when a token's KV bytes are unknown (slotsave.go).
	saveDir  string
	kvBudget int64
	// key is what the loaded weights' slot states are saved under and read
	// back with (slotsave.go): taken when the weights are read.
	key slotStateKey
	// cp are the parameters the context was made with, made again with
	// after a release (release.go); idleRelease, released and releases
	// are release.go's.
	cp          contextParams
	idleRelease time.Duration
	released    atomic.Bool
	releases    atomic.Int64
	// sizing is how the context is made (Engine.Sizings).
	sizing Sizing
	// The lifecycle (lifecycle.go): the engine's pool and the models
	// sharing it (peers, this one among them), this model's account in it
	// (life, under pool.mu), the file's size, KeepAlive, the OnLoad hook,
	// the progress callback's number for it, and the loads and unloads
	// counted (tests).
	pool       *pool
	peers      []*model
	life       life
	fileSize   int64
	keepAlive  time.Duration
	onLoad     func(LoadEvent)
	progressID uintptr
	loads      atomic.Int64
	unloads    atomic.Int64
	// buffers is what llama.cpp logged its context's compute and output
	// buffers as, once it made one (buffers.go); 0 before.
	buffers atomic.Int64
	// tokens is the cache of the prompts tokenized last (tokcache.go).
	tokens tokenCache
	// queued, set by tests, is sent a value by each request about to
	// queue for the scheduler (the tests' way to know that requests wait
	// behind a load without timing it).
	queued   atomic.Pointer[chan struct{}]
	freeOnce sync.Once
}

// open reads the model's vocabulary and hyperparameters (llama.cpp's
// vocab_only load: no tensors) and settles what a load will make: the
// context's size and parameters, the slots, BOS and EOS (lifecycle.go). The
// weights are loaded by the scheduler for the first request, or by preload.
func (m *model) open(opts Options) error {
	slots := opts.Slots
	takeProblems()
	mp := llamaModelDefaultParams()
	mp.nGPULayers = 0 // the npm package's libraries are CPU-only
	mp.vocabOnly = true
	m.vm = modelLoadFromFile(m.path, mp)
	if m.vm == 0 {
		return fmt.Errorf("model %s: llama.cpp could not read it: %s", m.path, orUnknown(takeProblems()))
	}
	fail := func(err error) error {
		llamaModelFree(m.vm)
		m.vm = 0
		return err
	}
	ctxSize, why := opts.ContextSize, "-ctx"
	perToken, perErr := kvBytesPerToken(m.meta, opts.CacheType)
	// The trained context from the header: a vocab_only load leaves the
	// hyperparameters unread (llama_model_n_ctx_train is 0 then);
	// loadWeights checks llama.cpp reads the same.
	train := trainedContext(m.meta)
	m.train = train
	switch {
	case train > 0 && ctxSize > train:
		return fail(fmt.Errorf("model %s was trained for a context of %d tokens: a context of %d is more than it can use (give -ctx %d or less)", m.path, train, ctxSize, train))
	case ctxSize == 0 && train <= 0:
		ctxSize, why = DefaultContext, "the model does not say what it was trained for"
	case ctxSize == 0 && perErr != nil:
		ctxSize, why = min(train, DefaultContext), fmt.Sprintf("the KV cache's size is unknown (%v)", perErr)
	case ctxSize == 0:
		ctxSize, why = autoContext(train, perToken, opts.KVBudget)
	}
	if perErr != nil {
		perToken = 0
	}
	cp := llamaContextDefaultParam()
	cp.nCtx = uint32(ctxSize)
	cp.nThreads, cp.nThreadsBatch = int32(opts.Threads), int32(opts.Threads)
	cp.noPerf = true
	// One sequence per slot, all drawing on one pool of n_ctx cells.
	cp.nSeqMax, cp.kvUnified = uint32(slots), true
	cp.flashAttnType = flashAttnTypes[opts.FlashAttention]
	ct := cacheTypes[opts.CacheType].ggml
	cp.typeK, cp.typeV = ct, ct
	if opts.Batch > 0 {
		cp.nBatch = uint32(opts.Batch)
	}
	if opts.Ubatch > 0 {
		cp.nUbatch = uint32(opts.Ubatch)
	}
	m.cp, m.idleRelease, m.keepAlive, m.onLoad = cp, opts.IdleRelease, opts.KeepAlive, opts.OnLoad
	m.life.keepFor, m.life.keepWhy = m.keepAliveOf(nil)
	// What llama.cpp will make of them (llama_context's constructor): a
	// causal model's n_batch at most the context, n_ubatch at most n_batch;
	// loadWeights checks it did.
	m.nCtx = ctxSize
	m.nBatch = min(int(cp.nBatch), ctxSize)
	m.nUbatch = min(int(cp.nUbatch), m.nBatch)
	m.vocab = llamaModelGetVocab(m.vm)
	fa := opts.FlashAttention
	if fa == "" {
		fa = "auto"
	}
	m.sizing = Sizing{ID: m.id, Context: m.nCtx, KVPerToken: perToken, ContextWhy: why, Batch: m.nBatch, Ubatch: m.nUbatch,
		FlashAttn: fa, CacheType: opts.CacheType}
	m.fileSize = fileSizeOf(m.path)
	m.slots = make([]*slot, slots)
	for i := range m.slots {
		m.slots[i] = &slot{seq: int32(i)}
	}
	m.nVocab = llamaVocabNTokens(m.vocab)
	if t := llamaVocabBOS(m.vocab); t >= 0 {
		m.bos = string(m.piece(t, nil))
	}
	if t := llamaVocabEOS(m.vocab); t >= 0 {
		m.eos = string(m.piece(t, nil))
	}
	registerProgress(m)
	// The prompt cache reads every token's attributes once (about 0.1 s on
	// a 150,000-token vocabulary): meanwhile, not in the first request.
	go m.tokens.prepare(m)
	m.startScheduler()
	return nil
}

// trainedContext is <arch>.context_length from the header; 0 when absent.
func trainedContext(g *template.GGUF) int {
	arch, _ := g.String("general.architecture")
	n, _ := g.Int(arch + ".context_length")
	return int(max(n, 0))
}

func orUnknown(s string) string {
	if s == "" {
		return "llama.cpp logged no reason (set " + EnvLog + "=1 to see its log)"
	}
	return s
}

// free releases the context, the weights and the vocabulary once the
// running requests have ended: the scheduler takes no more and returns
// after the last.
func (m *model) free() {
	m.freeOnce.Do(func() {
		if m.vocab != 0 {
			m.tokens.prepare(m) // open started it: wait, it reads the vocabulary freed below
		}
		if m.done != nil {
			close(m.quit)
			<-m.done
		}
		m.saveSlots()
		m.freeContext()
		if m.m != 0 {
			llamaModelFree(m.m)
			m.m = 0
		}
		if m.vm != 0 {
			llamaModelFree(m.vm)
			m.vm = 0
		}
		unregisterProgress(m)
	})
}

// tokenizeText turns text into tokens: BOS where the model adds one (when
// addSpecial), special tokens in the text parsed as such (the template wrote
// them). model.tokenize does it through the cache (tokcache.go).
func (m *model) tokenizeText(text string, addSpecial bool) ([]llamaToken, error) {
	if text == "" {
		return nil, nil
	}
	c := cString(text)
	buf := make([]llamaToken, len(text)+2)
	for range 2 {
		n := llamaTokenize(m.vocab, &c[0], int32(len(text)), &buf[0], int32(len(buf)), addSpecial, true)
		if n >= 0 {
			return buf[:n], nil
		}
		buf = make([]llamaToken, -n)
	}
	return nil, fmt.Errorf("llama_tokenize failed on a prompt of %d bytes", len(text))
}

// piece appends token t's text to b, special tokens written out.
func (m *model) piece(t llamaToken, b []byte) []byte {
	var small [64]byte
	buf := small[:]
	for {
		n := llamaTokenToPiece(m.vocab, t, &buf[0], int32(len(buf)), 0, true)
		if n >= 0 {
			return append(b, buf[:n]...)
		}
		buf = make([]byte, -n)
	}
}

// complete checks and tokenizes the request, hands it to the scheduler
// (waiting in its queue while every slot runs a request) and returns the
// stream once the prompt is decoded; an error before that (the sampler
// refused, the prompt's decode failed, the client left) is Complete's.
func (m *model) complete(ctx context.Context, req backend.CompleteRequest) (backend.Stream, error) {
	gbnf, err := requestGrammar(ctx, req)
	if err != nil {
		return nil, err
	}
	patterns, err := checkGrammar(req, gbnf)
	if err != nil {
		return nil, err
	}
	tokens, err := m.tokenize(req.Prompt)
	if err != nil {
		return nil, err
	}
	if len(tokens) == 0 {
		return nil, badRequest("the prompt is empty")
	}
	if err := m.fits(len(tokens)); err != nil {
		return nil, err
	}
	s := &seq{ctx: ctx, req: req, gbnf: gbnf, patterns: patterns, prompt: tokens, started: make(chan error, 1), out: make(chan event, streamBuffer),
		maxTokens: m.answerRoom(len(tokens), req.MaxTokens), stops: nonEmpty(req.Stop), stopAt: -1}
	if c := m.queued.Load(); c != nil {
		*c <- struct{}{} // tests: this request is about to wait for the scheduler
	}
	select {
	case m.submit <- s:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-m.done:
		return nil, errClosed
	}
	select {
	case err := <-s.started:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctx.Err() // the scheduler drops the sequence
	}
	return &stream{m: m, s: s, ctx: ctx, promptTokens: len(tokens)}, nil
}

// fits refuses, with a 400 that says what to set, a prompt of n tokens that
// leaves no room for an answer in the context.
func (m *model) fits(n int) error {
	if n < m.nCtx {
		return nil
	}
	train := max(m.train, m.nCtx)
	var larger string
	switch {
	case m.nCtx >= train:
		larger = fmt.Sprintf("use a model with a larger context (%s was trained for %d)", m.id, train)
	case m.sizing.ContextWhy != "-ctx":
		larger = fmt.Sprintf("start the engine with a larger -ctx or -kv-budget (%s was trained for %d)", m.id, train)
	default:
		larger = fmt.Sprintf("start the engine with a larger -ctx (%s was trained for %d)", m.id, train)
	}
	return badRequest("the prompt is %d tokens and %s's context holds %d (leaving no room for an answer): shorten the conversation or the tools, or %s", n, m.id, m.nCtx, larger)
}

// answerRoom is the output limit of a prompt of n tokens asking for
// maxTokens (0: none): at most what the context leaves after the prompt.
// Agents ask for far more than a local context holds (Claude Code 32,000,
// OpenCode the model's whole output) on every request: refusing them would
// refuse every turn, so the answer is cut where the context ends, as
// llama-server and Ollama cut it, and reported as cut by the limit.
func (m *model) answerRoom(n, maxTokens int) int {
	if room := m.nCtx - n; maxTokens <= 0 || maxTokens > room {
		return room
	}
	return maxTokens
}

// requestGrammar is the GBNF the output must follow: Grammar as given, else
// JSONSchema converted by package grammar under ctx (a client that leaves
// stops a large schema's conversion: its error is ctx's, not a 400); "" for
// none.
func requestGrammar(ctx context.Context, req backend.CompleteRequest) (string, error) {
	if req.Grammar != "" {
		return req.Grammar, nil
	}
	if len(req.JSONSchema) == 0 {
		return "", nil
	}
	g, _, err := grammar.FromJSONSchemaContext(ctx, req.JSONSchema, grammar.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", badRequest("the JSON Schema cannot constrain the output: %v", err)
	}
	return g.String(), nil
}

// Sampling defaults where the request sets nothing: llama.cpp's own
// (common_params_sampling).
const (
	defaultTemperature = 0.8
	defaultTopK        = 40
	defaultTopP        = 0.95
	defaultMinP        = 0.05
	penaltyLastN       = 64
	randomSeed         = 0xFFFFFFFF // LLAMA_DEFAULT_SEED: a random seed
)

// sampler builds the request's sampling: llama.cpp's grammar sampler when
// the output is constrained (gbnf checked and the lazy grammar's patterns
// made by checkGrammar), and the chain: repetition penalty, then greedy for
// temperature 0, else top-k, top-p, min-p, temperature and a seeded draw.
// The grammar stays out of the chain: see sampling.
func (m *model) sampler(req backend.CompleteRequest, gbnf string, patterns []string) (*sampling, error) {
	s := &sampling{grammarFirst: grammarFirst}
	if gbnf != "" {
		g, err := m.initGrammar(gbnf, req.GrammarLazy, patterns)
		if err != nil {
			return nil, err
		}
		s.grammar = g
	}
	s.chain = llamaSamplerChainInit(1) // no_perf
	add := func(x llamaSampler) { llamaSamplerChainAdd(s.chain, x) }
	if p := req.RepeatPenalty; p != nil && *p != 1 {
		if *p <= 0 {
			s.free()
			return nil, badRequest("repeat penalty must be positive, got %g", *p)
		}
		add(llamaSamplerInitPenalty(m.nVocab, penaltyLastN, float32(*p), 0, 0))
	}
	temp := defaultTemperature
	if req.Temperature != nil {
		temp = *req.Temperature
	}
	if temp <= 0 {
		add(llamaSamplerInitGreedy())
		return s, nil
	}
	topK, topP, minP := defaultTopK, defaultTopP, defaultMinP
	if req.TopK != nil {
		topK = *req.TopK
	}
	if req.TopP != nil {
		topP = *req.TopP
	}
	if req.MinP != nil {
		minP = *req.MinP
	}
	add(llamaSamplerInitTopK(int32(topK)))
	add(llamaSamplerInitTopP(float32(topP), 1))
	add(llamaSamplerInitMinP(float32(minP), 1))
	add(llamaSamplerInitTemp(float32(temp)))
	seed := uint32(randomSeed)
	if req.Seed != nil {
		seed = uint32(*req.Seed)
	} else if m.seed != nil {
		seed = uint32(*m.seed)
	}
	add(llamaSamplerInitDist(seed))
	return s, nil
}

// checkGrammar checks gbnf and returns the lazy grammar's trigger
// patterns: "word" triggers become escaped patterns, as llama.cpp's own
// server makes them. It runs on the request's goroutine, before the
// request waits for the scheduler: a bad grammar is a 400 at once, and a
// large one's checking holds no one else's decoding.
func checkGrammar(req backend.CompleteRequest, gbnf string) ([]string, error) {
	if gbnf == "" {
		return nil, nil
	}
	// Checked here first: llama.cpp prints its parse errors to stderr and
	// logs only that it failed.
	g, err := grammar.Parse(gbnf)
	if err == nil {
		err = g.Check()
	}
	if err != nil {
		return nil, badRequest("the grammar is not valid GBNF: %v", err)
	}
	if !req.GrammarLazy {
		return nil, nil
	}
	if len(req.GrammarTriggers) == 0 {
		return nil, badRequest("a lazy grammar needs at least one trigger")
	}
	pats := make([]string, len(req.GrammarTriggers))
	for i, t := range req.GrammarTriggers {
		switch t.Type {
		case "word":
			pats[i] = regexp.QuoteMeta(t.Value)
		case "pattern":
			pats[i] = t.Value
		default:
			return nil, badRequest("grammar trigger type %q: want word or pattern", t.Type)
		}
	}
	return pats, nil
}

// initGrammar makes llama.cpp's grammar sampler for gbnf, lazy with the
// trigger patterns when lazy. A grammar llama.cpp refuses (it returns NULL)
// is a 400 error with what llama.cpp logged.
func (m *model) initGrammar(gbnf string, lazy bool, patterns []string) (llamaSampler, error) {
	takeProblems()
	var s llamaSampler
	if !lazy {
		s = llamaSamplerInitGrammar(m.vocab, gbnf, "root")
	} else {
		if len(patterns) == 0 {
			return 0, badRequest("a lazy grammar needs at least one trigger")
		}
		pats := make([][]byte, len(patterns))
		ptrs := make([]*byte, len(patterns))
		for i, p := range patterns {
			pats[i] = cString(p)
			ptrs[i] = &pats[i][0]
		}
		s = llamaSamplerInitLazy(m.vocab, gbnf, "root", &ptrs[0], uintptr(len(ptrs)), nil, 0)
		runtime.KeepAlive(pats)
		runtime.KeepAlive(ptrs)
	}
	if s == 0 {
		why := takeProblems()
		if why == "" {
			why = "no reason logged"
		}
		return 0, badRequest("llama.cpp refused the grammar: %s (llama.cpp prints the details of a parse error to the process's stderr)", why)
	}
	return s, nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
