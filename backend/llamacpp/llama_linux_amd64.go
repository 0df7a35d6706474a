//go:build linux && amd64 && !dragoman_noembed

package llamacpp

// The binding: llama.cpp's C API (include/llama.h of release v0.5.0, the one
// the npm package ships) called through purego, without cgo. Only the
// functions the engine uses are bound.
//
// Two calls take a struct by value that is larger than purego can pass (it
// has nine stack slots; llama_model_params needs ten, llama_context_params
// twenty): llama_model_load_from_file and llama_init_from_model; llama_decode
// and llama_batch_free, whose llama_batch would fit, go the same way for
// uniformity. They go through structCall, a 45-byte System V
// trampoline that copies the struct onto its own stack and calls the function
// with one pointer argument before it — what a C compiler does at such a call
// site.

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ebitengine/purego"
)

func init() {
	// The layouts above, checked against llama.h v0.5.0.
	if unsafe.Sizeof(modelParams{}) != 80 || unsafe.Sizeof(contextParams{}) != 160 || unsafe.Sizeof(batch{}) != 56 ||
		unsafe.Sizeof(tokenData{}) != 12 || unsafe.Sizeof(tokenDataArray{}) != 32 {
		panic("llamacpp: struct layouts do not match llama.h")
	}
}

// The by-value calls: function addresses for structCall.
var fnModelLoadFromFile, fnInitFromModel, fnDecode, fnBatchFree uintptr

// structCall calls fn(a0, *s) where s, of size bytes, is passed by value.
var structCall func(fn uintptr, a0 uintptr, s unsafe.Pointer, size uintptr) uintptr

// trampoline is structCall's machine code (System V amd64). On entry rdi=fn,
// rsi=a0, rdx=&struct, rcx=size rounded up to 16.
var trampoline = []byte{
	0x55,             // push rbp
	0x48, 0x89, 0xe5, // mov rbp, rsp
	0x53,       // push rbx
	0x41, 0x54, // push r12          (rsp is 16-byte aligned again)
	0x48, 0x89, 0xfb, // mov rbx, rdi      fn
	0x49, 0x89, 0xf4, // mov r12, rsi      a0
	0x48, 0x29, 0xcc, // sub rsp, rcx      room for the struct, still aligned
	0x48, 0x89, 0xd6, // mov rsi, rdx      source: the Go copy
	0x48, 0x89, 0xe7, // mov rdi, rsp      destination: the argument area
	0xfc,       // cld
	0xf3, 0xa4, // rep movsb
	0x4c, 0x89, 0xe7, // mov rdi, r12      first argument
	0xff, 0xd3, // call rbx          the struct is at the callee's rsp+8
	0x48, 0x8d, 0x65, 0xf0, // lea rsp, [rbp-16]
	0x41, 0x5c, // pop r12
	0x5b, // pop rbx
	0x5d, // pop rbp
	0xc3, // ret
}

// newTrampoline maps the trampoline into executable memory.
func newTrampoline() (uintptr, error) {
	mem, err := syscall.Mmap(-1, 0, syscall.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, fmt.Errorf("mmap: %w", err)
	}
	copy(mem, trampoline)
	if err := syscall.Mprotect(mem, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		return 0, fmt.Errorf("mprotect: %w", err)
	}
	return uintptr(unsafe.Pointer(&mem[0])), nil
}

func callStruct[T any](fn, a0 uintptr, s *T) uintptr {
	size := (unsafe.Sizeof(*s) + 15) &^ 15
	buf := make([]byte, size) // the struct with its padding to 16, on the Go heap
	copy(buf, unsafe.Slice((*byte)(unsafe.Pointer(s)), unsafe.Sizeof(*s)))
	r := structCall(fn, a0, unsafe.Pointer(&buf[0]), size)
	runtime.KeepAlive(buf)
	return r
}

func modelLoadFromFile(path string, p modelParams) llamaModel {
	cpath := append([]byte(path), 0)
	r := callStruct(fnModelLoadFromFile, uintptr(unsafe.Pointer(&cpath[0])), &p)
	runtime.KeepAlive(cpath)
	return llamaModel(r)
}

func initFromModel(m llamaModel, p contextParams) llamaContext {
	return llamaContext(callStruct(fnInitFromModel, uintptr(m), &p))
}

// decode runs llama_decode on b (made by llama_batch_init, filled by the
// caller).
func decode(c llamaContext, b *batch) int32 {
	return int32(callStruct(fnDecode, uintptr(c), b))
}

// batchFree is llama_batch_free (its one argument is the struct; the
// trampoline's first argument goes unread).
func batchFree(b batch) {
	callStruct(fnBatchFree, 0, &b)
}

// bind opens the libraries in dir and binds the functions.
func bind(dir string) (err error) {
	defer func() {
		// purego panics on a signature it cannot call; report it as an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("binding llama.cpp from %s: %v", dir, r)
		}
	}()
	open := func(name string) (uintptr, error) {
		path, err := libFile(dir, name)
		if err != nil {
			return 0, fmt.Errorf("%w: %v; %s", ErrNoLibrary, err, howToGet())
		}
		h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			return 0, fmt.Errorf("loading %s: %w (the libraries need glibc and libstdc++; see %s)", path, err, NPMPackage)
		}
		return h, nil
	}
	ggml, err := open("ggml")
	if err != nil {
		return err
	}
	llama, err := open("llama")
	if err != nil {
		return err
	}
	var missing []string
	sym := func(lib uintptr, name string) uintptr {
		p, err := purego.Dlsym(lib, name)
		if err != nil || p == 0 {
			missing = append(missing, name)
			return 0
		}
		return p
	}
	reg := func(fptr any, lib uintptr, name string) {
		if p := sym(lib, name); p != 0 {
			purego.RegisterFunc(fptr, p)
		}
	}
	reg(&ggmlBackendLoadAllFromPath, ggml, "ggml_backend_load_all_from_path")
	reg(&llamaBackendInit, llama, "llama_backend_init")
	reg(&llamaLogSet, llama, "llama_log_set")
	reg(&llamaModelDefaultParams, llama, "llama_model_default_params")
	reg(&llamaContextDefaultParam, llama, "llama_context_default_params")
	reg(&llamaModelFree, llama, "llama_model_free")
	reg(&llamaFree, llama, "llama_free")
	reg(&llamaModelGetVocab, llama, "llama_model_get_vocab")
	reg(&llamaModelNCtxTrain, llama, "llama_model_n_ctx_train")
	reg(&llamaNCtx, llama, "llama_n_ctx")
	reg(&llamaNBatch, llama, "llama_n_batch")
	reg(&llamaNUbatch, llama, "llama_n_ubatch")
	reg(&llamaNCtxSeq, llama, "llama_n_ctx_seq")
	reg(&llamaNSeqMax, llama, "llama_n_seq_max")
	reg(&llamaModelIsRecurrent, llama, "llama_model_is_recurrent")
	reg(&llamaModelIsHybrid, llama, "llama_model_is_hybrid")
	reg(&llamaBatchInit, llama, "llama_batch_init")
	reg(&llamaGetMemory, llama, "llama_get_memory")
	reg(&llamaMemoryClear, llama, "llama_memory_clear")
	reg(&llamaMemorySeqRm, llama, "llama_memory_seq_rm")
	reg(&llamaMemorySeqCp, llama, "llama_memory_seq_cp")
	reg(&llamaMemorySeqPosMin, llama, "llama_memory_seq_pos_min")
	reg(&llamaMemorySeqPosMax, llama, "llama_memory_seq_pos_max")
	reg(&llamaVocabNTokens, llama, "llama_vocab_n_tokens")
	reg(&llamaStateSeqGetSize, llama, "llama_state_seq_get_size")
	reg(&llamaStateSeqGetData, llama, "llama_state_seq_get_data")
	reg(&llamaStateSeqSetData, llama, "llama_state_seq_set_data")
	reg(&llamaVocabIsEOG, llama, "llama_vocab_is_eog")
	reg(&llamaVocabBOS, llama, "llama_vocab_bos")
	reg(&llamaVocabEOS, llama, "llama_vocab_eos")
	reg(&llamaVocabType, llama, "llama_vocab_type")
	reg(&llamaVocabGetAttr, llama, "llama_vocab_get_attr")
	reg(&llamaVocabGetAddBOS, llama, "llama_vocab_get_add_bos")
	reg(&llamaVocabGetAddEOS, llama, "llama_vocab_get_add_eos")
	reg(&llamaTokenize, llama, "llama_tokenize")
	reg(&llamaTokenToPiece, llama, "llama_token_to_piece")
	reg(&llamaSamplerChainInit, llama, "llama_sampler_chain_init")
	reg(&llamaSamplerChainAdd, llama, "llama_sampler_chain_add")
	reg(&llamaSamplerInitGreedy, llama, "llama_sampler_init_greedy")
	reg(&llamaSamplerInitDist, llama, "llama_sampler_init_dist")
	reg(&llamaSamplerInitTemp, llama, "llama_sampler_init_temp")
	reg(&llamaSamplerInitTopK, llama, "llama_sampler_init_top_k")
	reg(&llamaSamplerInitTopP, llama, "llama_sampler_init_top_p")
	reg(&llamaSamplerInitMinP, llama, "llama_sampler_init_min_p")
	reg(&llamaSamplerInitPenalty, llama, "llama_sampler_init_penalties")
	reg(&llamaSamplerInitGrammar, llama, "llama_sampler_init_grammar")
	reg(&llamaSamplerInitLazy, llama, "llama_sampler_init_grammar_lazy_patterns")
	reg(&llamaSamplerSample, llama, "llama_sampler_sample")
	reg(&llamaSamplerFree, llama, "llama_sampler_free")
	reg(&llamaSamplerApply, llama, "llama_sampler_apply")
	reg(&llamaSamplerAccept, llama, "llama_sampler_accept")
	reg(&llamaGetLogitsIth, llama, "llama_get_logits_ith")
	fnModelLoadFromFile = sym(llama, "llama_model_load_from_file")
	fnInitFromModel = sym(llama, "llama_init_from_model")
	fnDecode = sym(llama, "llama_decode")
	fnBatchFree = sym(llama, "llama_batch_free")
	if len(missing) > 0 {
		return fmt.Errorf("the llama.cpp in %s lacks %v: it is not release %s (%s)", dir, missing, LlamaVersion, NPMPackage)
	}
	tramp, err := newTrampoline()
	if err != nil {
		return fmt.Errorf("the by-value call trampoline: %w", err)
	}
	purego.RegisterFunc(&structCall, tramp)

	llamaLogSet(logCallback(), 0)
	// The CPU backends are separate libraries (libggml-cpu-<variant>.so);
	// ggml picks the best one this CPU runs.
	ggmlBackendLoadAllFromPath(dir)
	llamaBackendInit()
	return nil
}

var (
	logCBOnce sync.Once
	logCB     uintptr
)

// logCallback is the C function pointer of logLine (created once: purego's
// callbacks are never freed).
func logCallback() uintptr {
	logCBOnce.Do(func() {
		logCB = purego.NewCallback(func(level int32, text *byte, _ uintptr) {
			logLine(int(level), goString(text))
		})
	})
	return logCB
}

var (
	progressCBOnce sync.Once
	progressCB     uintptr
)

// progressCallback is the C function pointer of onProgress, llama.cpp's
// llama_progress_callback (bool (*)(float progress, void *user_data)),
// called while a model's tensors are read, on the loading thread.
func progressCallback() uintptr {
	progressCBOnce.Do(func() {
		progressCB = purego.NewCallback(onProgress)
	})
	return progressCB
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cString returns s NUL-terminated; the caller keeps the slice alive.
func cString(s string) []byte { return append([]byte(s), 0) }
