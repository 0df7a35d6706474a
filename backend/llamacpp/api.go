package llamacpp

// llama.cpp's C API as the engine uses it: include/llama.h of release v0.5.0
// (the one the npm package ships). The functions are bound at run time by
// bind; the structs are the C layouts on a 64-bit platform.

type (
	llamaModel   uintptr
	llamaContext uintptr
	llamaVocab   uintptr
	llamaSampler uintptr
	llamaMemory  uintptr
	llamaToken   = int32
)

// modelParams is struct llama_model_params (80 bytes).
type modelParams struct {
	devices             uintptr
	tensorBuftOverrides uintptr
	nGPULayers          int32
	splitMode           int32
	loadMode            int32
	lazyMode            int32
	mainGPU             int32
	_                   int32
	tensorSplit         uintptr
	progressCallback    uintptr
	progressUserData    uintptr
	kvOverrides         uintptr
	vocabOnly           bool
	checkTensors        bool
	useExtraBufts       bool
	noHost              bool
	noAlloc             bool
	loadMTP             bool
	_                   [2]byte
}

// contextParams is struct llama_context_params (160 bytes).
type contextParams struct {
	nCtx              uint32
	nBatch            uint32
	nUbatch           uint32
	nSeqMax           uint32
	nRsSeq            uint32
	nOutputsMax       uint32
	nOutputsMaxPerSeq uint32
	nThreads          int32
	nThreadsBatch     int32
	ctxType           int32
	ropeScalingType   int32
	poolingType       int32
	attentionType     int32
	flashAttnType     int32
	ropeFreqBase      float32
	ropeFreqScale     float32
	yarnExtFactor     float32
	yarnAttnFactor    float32
	yarnBetaFast      float32
	yarnBetaSlow      float32
	yarnOrigCtx       uint32
	defragThold       float32
	cbEval            uintptr
	cbEvalUserData    uintptr
	typeK             int32
	typeV             int32
	abortCallback     uintptr
	abortCallbackData uintptr
	embeddings        bool
	offloadKQV        bool
	noPerf            bool
	opOffload         bool
	swaFull           bool
	kvUnified         bool
	_                 [2]byte
	samplers          uintptr
	nSamplers         uintptr
	ctxOther          uintptr
}

// batch is struct llama_batch (56 bytes). The engine's batches are made by
// llama_batch_init, so their arrays are C memory: token, pos, n_seq_id and
// logits hold one entry per token, seq_id one array of sequence ids per
// token.
type batch struct {
	nTokens int32
	_       int32
	token   *llamaToken
	embd    *float32
	pos     *int32
	nSeqID  *int32
	seqID   **int32
	logits  *int8
}

// tokenData is struct llama_token_data (12 bytes): one candidate.
type tokenData struct {
	id    llamaToken
	logit float32
	p     float32
}

// tokenDataArray is struct llama_token_data_array (32 bytes): the
// candidates a sampler works on, and the index it selected (-1 for none).
type tokenDataArray struct {
	data     *tokenData
	size     uintptr
	selected int64
	sorted   bool
	_        [7]byte
}

// The bound functions.
var (
	ggmlBackendLoadAllFromPath func(dir string)

	llamaBackendInit         func()
	llamaLogSet              func(cb, userData uintptr)
	llamaModelDefaultParams  func() modelParams
	llamaContextDefaultParam func() contextParams
	llamaModelFree           func(m llamaModel)
	llamaFree                func(c llamaContext)
	llamaModelGetVocab       func(m llamaModel) llamaVocab
	llamaModelNCtxTrain      func(m llamaModel) int32
	llamaNCtx                func(c llamaContext) uint32
	llamaNBatch              func(c llamaContext) uint32
	llamaNUbatch             func(c llamaContext) uint32
	llamaNCtxSeq             func(c llamaContext) uint32 // the context one sequence may use: n_ctx with a unified KV cache
	llamaNSeqMax             func(c llamaContext) uint32
	llamaModelIsRecurrent    func(m llamaModel) bool
	llamaModelIsHybrid       func(m llamaModel) bool
	llamaBatchInit           func(nTokens, embd, nSeqMax int32) batch // freed by batchFree
	llamaGetMemory           func(c llamaContext) llamaMemory
	llamaMemoryClear         func(m llamaMemory, data bool)
	llamaMemorySeqRm         func(m llamaMemory, seq, p0, p1 int32) bool // [p0, p1) of sequence seq; p1 < 0: to the end; false if it cannot
	llamaMemorySeqCp         func(m llamaMemory, src, dst, p0, p1 int32) // [p0, p1) of src also in dst (shared cells in a unified KV cache)
	llamaMemorySeqPosMin     func(m llamaMemory, seq int32) int32        // -1 for an empty sequence
	llamaMemorySeqPosMax     func(m llamaMemory, seq int32) int32        // -1 for an empty sequence
	llamaVocabNTokens        func(v llamaVocab) int32
	// The sequence states (slotsave.go): get_size is the exact size of
	// sequence seq's state (its cells), get_data copies it into dst of size
	// bytes, set_data reads one (as get_data wrote it) from src of size
	// bytes into sequence seq, never past src's end. get_data and set_data
	// return the bytes copied or read, 0 on failure (llama.cpp logs why);
	// a failed set_data leaves the sequence empty.
	llamaStateSeqGetSize func(c llamaContext, seq int32) uintptr
	llamaStateSeqGetData func(c llamaContext, dst *byte, size uintptr, seq int32) uintptr
	llamaStateSeqSetData func(c llamaContext, src *byte, size uintptr, seq int32) uintptr
	llamaVocabIsEOG      func(v llamaVocab, t llamaToken) bool
	llamaVocabType       func(v llamaVocab) int32               // enum llama_vocab_type
	llamaVocabGetAttr    func(v llamaVocab, t llamaToken) int32 // enum llama_token_attr, a bit set
	llamaVocabGetAddBOS  func(v llamaVocab) bool
	llamaVocabGetAddEOS  func(v llamaVocab) bool
	llamaVocabBOS        func(v llamaVocab) llamaToken
	llamaVocabEOS        func(v llamaVocab) llamaToken
	llamaTokenize        func(v llamaVocab, text *byte, textLen int32, tokens *llamaToken, nMax int32, addSpecial, parseSpecial bool) int32
	llamaTokenToPiece    func(v llamaVocab, t llamaToken, buf *byte, length int32, lstrip int32, special bool) int32

	llamaSamplerChainInit   func(params uintptr) llamaSampler // struct llama_sampler_chain_params {bool no_perf} in a register
	llamaSamplerChainAdd    func(chain, s llamaSampler)
	llamaSamplerInitGreedy  func() llamaSampler
	llamaSamplerInitDist    func(seed uint32) llamaSampler
	llamaSamplerInitTemp    func(t float32) llamaSampler
	llamaSamplerInitTopK    func(k int32) llamaSampler
	llamaSamplerInitTopP    func(p float32, minKeep uintptr) llamaSampler
	llamaSamplerInitMinP    func(p float32, minKeep uintptr) llamaSampler
	llamaSamplerInitPenalty func(nVocab, lastN int32, repeat, freq, present float32) llamaSampler
	llamaSamplerInitGrammar func(v llamaVocab, grammar, root string) llamaSampler
	llamaSamplerInitLazy    func(v llamaVocab, grammar, root string, patterns **byte, nPatterns uintptr, tokens *llamaToken, nTokens uintptr) llamaSampler
	llamaSamplerSample      func(s llamaSampler, c llamaContext, idx int32) llamaToken
	llamaSamplerApply       func(s llamaSampler, cur *tokenDataArray)
	llamaSamplerAccept      func(s llamaSampler, t llamaToken)
	llamaGetLogitsIth       func(c llamaContext, i int32) *float32
	llamaSamplerFree        func(s llamaSampler)
)
