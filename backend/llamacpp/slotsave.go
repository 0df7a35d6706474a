package llamacpp

// Slots saved to disk (Options.SlotSaveDir). An agent's conversation can be
// tens of thousands of tokens, minutes of prompt processing on a CPU; a
// restarted gateway would decode it all again. So when a model's context is
// freed — the engine closes, the model is unloaded, or the idle release
// frees its KV cache — each slot holding tokens writes its sequence's state
// (its tokens and its KV cells, llama_state_seq_get_data) to the directory,
// and when the context is made again the slots read their files back
// (llama_state_seq_set_data), so that the first request extending a saved
// prefix decodes only the rest.
//
// One file a slot, <model>.slot<N>.kv: a magic, a JSON header saying what
// the state was made with (the llama.cpp release, the model file's absolute
// path, size and modification time, the context's size and KV cache type),
// the tokens' count, the cells' size and the slot's place in the LRU order;
// then the tokens, the cells as llama.cpp wrote them, and a CRC-32C of all
// before it. It is written to a temporary file renamed into place, so a
// crash leaves the old file or the new one. A state is read back only when
// the model file and the context are the ones it was saved with and the
// file is whole (no larger than the KV cache can be, its checksum right): a
// KV cache from another model, or another layout, would decode nonsense,
// and llama.cpp checks only the layers' shapes. Anything else is a warning
// (Options.OnLoad, SlotStateIgnored) and the slot starts empty; the file is
// left as it is until that slot's next save replaces it.
//
// The buffer API, not llama_state_seq_save_file and load_file: the file
// functions stream without a copy in memory, but load_file aborts the
// process (a GGML_ASSERT) on a file cut short, where set_data's reader
// refuses to read past its buffer. So saving and restoring hold one slot's
// cells in memory at a time, at most the KV cache's size.
//
// Only a plain KV cache is saved (not recurrent or hybrid memory, whose
// prefix the slots cannot reuse anyway: cache.go), and only a sequence
// holding positions 0 to len(cached)-1 (a sliding window that dropped old
// positions is not). A slot empty at the save removes its file: it would
// restore a conversation the slot no longer holds; so does a slot whose
// tokens another slot holds all of (a prefix copied into an empty slot). With NoPromptReuse
// nothing is saved or read (every request clears the slots).

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// slotStateVersion is the version of the file's layout and header.
const slotStateVersion = 1

// slotStateMagic starts every slot file.
const slotStateMagic = "dragokv\x01"

// slotStateKey is what a saved state was made with; a load needs all of it
// equal.
type slotStateKey struct {
	Llama      string `json:"llama"`
	Model      string `json:"model"`
	ModelSize  int64  `json:"model_size"`
	ModelMtime int64  `json:"model_mtime_ns"`
	Context    int    `json:"context"`
	CacheType  string `json:"cache_type"`
}

// slotStateMeta is the file's JSON header.
type slotStateMeta struct {
	Version int          `json:"version"`
	Key     slotStateKey `json:"key"`
	Tokens  int          `json:"tokens"`
	Cells   int64        `json:"cells_bytes"`
	Used    uint64       `json:"used"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// stateKey is the key of a context made from the model file as it is now;
// ok is false when the file cannot be read. loadWeights takes it when it
// reads the weights (model.key), so that a file replaced while it is loaded
// does not have the old weights' cells saved under its new key.
func (m *model) stateKey() (slotStateKey, bool) {
	abs, err := filepath.Abs(m.path)
	if err != nil {
		return slotStateKey{}, false
	}
	st, err := os.Stat(abs)
	if err != nil {
		return slotStateKey{}, false
	}
	return slotStateKey{Llama: LlamaVersion, Model: abs, ModelSize: st.Size(), ModelMtime: st.ModTime().UnixNano(),
		Context: m.nCtx, CacheType: m.sizing.CacheType}, true
}

// statePath is slot sl's file.
func (m *model) statePath(sl *slot) string {
	return filepath.Join(m.saveDir, fmt.Sprintf("%s.slot%d.kv", safeFileName(m.id), sl.seq))
}

// safeFileName keeps letters, digits, '.', '-' and '_' of a model's name
// (an Ollama name has ':' and may have '/'); the others become '_'.
func safeFileName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, id)
}

// maxStateBytes bounds a slot file: the KV cache's size (one sequence may
// fill the whole context), the tokens, the cells' positions and sequence
// ids, and a margin for the headers (ours, llama.cpp's per layer). Where
// the bytes a token costs are unknown, the KV budget stands for the cache.
func (m *model) maxStateBytes() int64 {
	kv := m.kvHeld()
	if kv == 0 {
		kv = m.kvBudget
	}
	return kv + int64(m.nCtx)*20 + 1<<20
}

// saving is true when the slots are saved and read back: a directory is
// given, prompts are reused, the memory is a plain KV cache, and the model
// file could be read when its weights were.
func (m *model) saving() bool { return m.saveDir != "" && !m.noReuse && m.canCopy && m.key.Model != "" }

// saveSlots writes every slot's state before the context is freed; only
// while nothing runs, on the goroutine that owns the context.
func (m *model) saveSlots() {
	if !m.saving() || m.lctx == 0 {
		return
	}
	key := m.key
	if err := os.MkdirAll(m.saveDir, 0o700); err != nil {
		m.warnState(fmt.Errorf("slots not saved: %w", err))
		return
	}
	saved, tokens := 0, 0
	for _, sl := range m.slots {
		if m.covered(sl) {
			// Restored, the longer slot serves its prefix (a request for it
			// takes an empty slot, the prefix copied: cache.go).
			if err := removeAll(m.statePath(sl)); err != nil {
				m.warnState(fmt.Errorf("slot %d: %w", sl.seq, err))
			}
			continue
		}
		if err := m.saveSlot(sl, key); err != nil {
			m.warnState(fmt.Errorf("slot %d not saved: %w", sl.seq, err))
		} else if len(sl.cached) > 0 {
			saved, tokens = saved+1, tokens+len(sl.cached)
		}
	}
	if saved > 0 {
		m.event(LoadEvent{Kind: SlotsSaved, Why: fmt.Sprintf("%d slot(s), %d tokens, saved to %s", saved, tokens, m.saveDir)})
	}
}

// covered is true when another slot holds all of sl's tokens (more, or as
// many and a lower index): restored sequences share no cells, so saving
// both would cost the disk and, read back, the cells twice.
func (m *model) covered(sl *slot) bool {
	for _, o := range m.slots {
		longer := len(o.cached) > len(sl.cached) || len(o.cached) == len(sl.cached) && o.seq < sl.seq
		if o != sl && len(sl.cached) > 0 && longer && commonPrefix(o.cached, sl.cached) == len(sl.cached) {
			return true
		}
	}
	return false
}

// saveSlot writes sl's file, or removes it when sl holds nothing that can
// be saved.
func (m *model) saveSlot(sl *slot, key slotStateKey) error {
	path := m.statePath(sl)
	mem := llamaGetMemory(m.lctx)
	n := len(sl.cached)
	if n == 0 || llamaMemorySeqPosMin(mem, sl.seq) != 0 || llamaMemorySeqPosMax(mem, sl.seq) != int32(n-1) {
		return removeAll(path)
	}
	size := llamaStateSeqGetSize(m.lctx, sl.seq)
	meta, err := json.Marshal(slotStateMeta{Version: slotStateVersion, Key: key, Tokens: n, Cells: int64(size), Used: sl.used})
	if err != nil {
		return err
	}
	head := len(slotStateMagic) + 4 + len(meta)
	b := make([]byte, head+4*n+int(size)+4)
	copy(b, slotStateMagic)
	binary.LittleEndian.PutUint32(b[len(slotStateMagic):], uint32(len(meta)))
	copy(b[len(slotStateMagic)+4:], meta)
	for i, t := range sl.cached {
		binary.LittleEndian.PutUint32(b[head+4*i:], uint32(t))
	}
	cells := b[head+4*n : len(b)-4]
	takeProblems()
	if size == 0 || llamaStateSeqGetData(m.lctx, &cells[0], size, sl.seq) != size {
		err := fmt.Errorf("llama_state_seq_get_data failed: %s", orUnknown(takeProblems()))
		return errors.Join(err, removeAll(path)) // the old file holds a conversation the slot no longer does
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return writeFileAtomic(path, b)
}

// restoreSlots reads the saved states back into the slots of a context just
// made (all of them empty), the most recently used first: restored
// sequences share no cells, so when they do not all fit the older ones are
// the ones left out.
func (m *model) restoreSlots() {
	if !m.saving() {
		return
	}
	key := m.key
	var saved []*slotFile
	for _, sl := range m.slots {
		f, err := m.readSlotFile(sl, key)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			m.warnState(fmt.Errorf("slot %d's saved state ignored: %w", sl.seq, err))
		default:
			saved = append(saved, f)
		}
	}
	slices.SortFunc(saved, func(a, b *slotFile) int { return cmp.Compare(b.meta.Used, a.meta.Used) })
	restored, tokens := 0, 0
	for _, f := range saved {
		if err := m.restoreSlot(f); err != nil {
			m.warnState(fmt.Errorf("slot %d's saved state ignored: %w", f.sl.seq, err))
			continue
		}
		restored, tokens = restored+1, tokens+len(f.sl.cached)
	}
	// The LRU order of the saved slots, oldest first, from the model's clock.
	for i := len(saved) - 1; i >= 0; i-- {
		if len(saved[i].sl.cached) > 0 {
			m.clock++
			saved[i].sl.used = m.clock
		}
	}
	if restored > 0 {
		m.event(LoadEvent{Kind: SlotsRestored, Why: fmt.Sprintf("%d slot(s), %d tokens, read back from %s", restored, tokens, m.saveDir)})
	}
}

// slotFile is a slot's file read and checked: its header, tokens and
// cells.
type slotFile struct {
	sl     *slot
	path   string
	meta   slotStateMeta
	tokens []llamaToken
	cells  []byte
}

// readSlotFile reads sl's file and checks it against key; os.ErrNotExist
// when there is none. (Every slot's file is read before any is restored, to
// restore the most recent first; the cells of each are read again then, so
// that only one slot's are held at a time.)
func (m *model) readSlotFile(sl *slot, key slotStateKey) (*slotFile, error) {
	path := m.statePath(sl)
	b, err := readBounded(path, m.maxStateBytes())
	if err != nil {
		return nil, err
	}
	f := &slotFile{sl: sl, path: path}
	if err := f.parse(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.check(f, key); err != nil {
		return nil, fmt.Errorf("%s %w", path, err)
	}
	f.cells = nil
	return f, nil
}

// parse splits b into the header, the tokens and the cells, checking the
// magic, the checksum and the sizes.
func (f *slotFile) parse(b []byte) error {
	head := len(slotStateMagic) + 4
	if len(b) < head+4 || string(b[:len(slotStateMagic)]) != slotStateMagic {
		return errors.New("not a dragoman slot file")
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return fmt.Errorf("damaged: its checksum is %08x, it says %08x", got, want)
	}
	n := int(binary.LittleEndian.Uint32(b[len(slotStateMagic):]))
	if n > len(body)-head {
		return errors.New("damaged: its header runs past its end")
	}
	if err := json.Unmarshal(body[head:head+n], &f.meta); err != nil {
		return fmt.Errorf("its header: %v", err)
	}
	rest := body[head+n:]
	if f.meta.Version != slotStateVersion {
		return fmt.Errorf("version %d, this dragoman reads %d", f.meta.Version, slotStateVersion)
	}
	if f.meta.Tokens <= 0 || f.meta.Cells <= 0 || int64(len(rest)) != 4*int64(f.meta.Tokens)+f.meta.Cells {
		return fmt.Errorf("damaged: %d bytes after its header, not %d tokens and %d bytes of cells", len(rest), f.meta.Tokens, f.meta.Cells)
	}
	f.tokens = make([]llamaToken, f.meta.Tokens)
	for i := range f.tokens {
		f.tokens[i] = llamaToken(binary.LittleEndian.Uint32(rest[4*i:]))
	}
	f.cells = rest[4*f.meta.Tokens:]
	return nil
}

// check refuses a state saved for another llama.cpp, model file or
// context, or one this context cannot hold.
func (m *model) check(f *slotFile, key slotStateKey) error {
	k := f.meta.Key
	switch {
	case k.Llama != key.Llama:
		return fmt.Errorf("was saved by llama.cpp %s, this is %s", k.Llama, key.Llama)
	case k.Model != key.Model || k.ModelSize != key.ModelSize || k.ModelMtime != key.ModelMtime:
		return fmt.Errorf("was saved for another model file (%s, %d bytes), not %s as it is now", k.Model, k.ModelSize, key.Model)
	case k.Context != key.Context || k.CacheType != key.CacheType:
		return fmt.Errorf("was saved for a context of %d tokens with a %s KV cache, this one is %d with %s", k.Context, k.CacheType, key.Context, key.CacheType)
	case f.meta.Tokens >= m.nCtx:
		return fmt.Errorf("holds %d tokens, more than this context of %d leaves room for", f.meta.Tokens, m.nCtx)
	}
	for _, t := range f.tokens {
		if t < 0 || t >= m.nVocab {
			return fmt.Errorf("lists token %d, outside the vocabulary", t)
		}
	}
	return nil
}

// restoreSlot reads f's file again and hands its cells to llama.cpp for the
// slot's sequence; on any failure the sequence is left empty.
func (m *model) restoreSlot(f *slotFile) error {
	b, err := readBounded(f.path, m.maxStateBytes())
	if err != nil {
		return err
	}
	again := &slotFile{sl: f.sl, path: f.path}
	if err := again.parse(b); err != nil || !slices.Equal(again.tokens, f.tokens) {
		return fmt.Errorf("%s changed while it was read", f.path)
	}
	sl, cells := f.sl, again.cells
	takeProblems()
	if n := llamaStateSeqSetData(m.lctx, &cells[0], uintptr(len(cells)), sl.seq); n != uintptr(len(cells)) {
		m.clear(sl)
		return fmt.Errorf("llama.cpp could not load %s (it read %d of %d bytes): %s", f.path, n, len(cells), orUnknown(takeProblems()))
	}
	mem := llamaGetMemory(m.lctx)
	if lo, hi := llamaMemorySeqPosMin(mem, sl.seq), llamaMemorySeqPosMax(mem, sl.seq); lo != 0 || hi != int32(len(f.tokens)-1) {
		m.clear(sl)
		return fmt.Errorf("%s holds positions %d to %d, not the %d tokens it lists", f.path, lo, hi, len(f.tokens))
	}
	sl.cached = append(sl.cached[:0], f.tokens...)
	return nil
}

// readBounded reads the file whole, refusing one larger than limit before
// reading it.
func readBounded(path string, limit int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than this model's KV cache can hold (%d)", path, st.Size(), limit)
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(fh, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// warnState reports a state that was not saved or not read back.
func (m *model) warnState(err error) {
	m.event(LoadEvent{Kind: SlotStateIgnored, Err: err})
}

// writeFileAtomic writes data to a temporary file renamed to path.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// removeAll removes the files, none of which need exist.
func removeAll(paths ...string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
