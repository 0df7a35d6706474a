package llamacpp

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend"
)

// Tests of the slots saved to disk (slotsave.go). Each engine serves one
// tiny model under the name "m", so that a state saved for one model file
// is found by an engine serving another under the same name.

// saveEngine is an engine serving the model file (a tiny model's name, or
// an absolute path) under "m", saving its slots to dir; its events go to
// ev.
func saveEngine(t *testing.T, file, dir string, ctxSize int, ev events) *Engine {
	t.Helper()
	p := file
	if !filepath.IsAbs(p) {
		p = modelPath(t, file)
	}
	e, err := New(Options{LibDir: libDir(t), Models: []string{p}, Names: map[string]string{p: "m"}, ContextSize: ctxSize, Threads: 1, Slots: 2,
		SlotSaveDir: dir, IdleRelease: time.Hour, OnLoad: ev.hook})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// drain is the events sent so far (they are sent on the goroutine that
// saves or restores, before the request that caused it is answered).
func (ev events) drain() []LoadEvent {
	var out []LoadEvent
	for {
		select {
		case e := <-ev:
			out = append(out, e)
		default:
			return out
		}
	}
}

// ignored is the SlotStateIgnored warnings among evs, joined.
func ignored(evs []LoadEvent) string {
	var ws []string
	for _, e := range evs {
		if e.Kind == SlotStateIgnored {
			ws = append(ws, e.Err.Error())
		}
	}
	return strings.Join(ws, "; ")
}

func has(evs []LoadEvent, k LoadEventKind) bool {
	for _, e := range evs {
		if e.Kind == k {
			return true
		}
	}
	return false
}

var savedPrompt = conversation(strings.Repeat(weatherText, 8) + "What's the weather in Paris?")

func savedReq() backend.CompleteRequest {
	return backend.CompleteRequest{Model: "m", Prompt: savedPrompt, MaxTokens: 16, Temperature: f64(0)}
}

// saveOnce runs one conversation on file under "m" and closes the engine,
// which saves its slot to dir; it returns the greedy answer (from an empty
// cache) and the prompt's tokens.
func saveOnce(t *testing.T, file, dir string, ctxSize int) (string, int) {
	t.Helper()
	ev := make(events, 256)
	e := saveEngine(t, file, dir, ctxSize, ev)
	a := ask(t, e, savedReq(), true)
	if a.cached != 0 {
		t.Fatalf("the first request kept %d tokens: the directory held a state already", a.cached)
	}
	e.Close()
	if evs := ev.drain(); !has(evs, SlotsSaved) || ignored(evs) != "" {
		t.Fatalf("closing saved nothing: events %+v", evs)
	}
	return a.text, a.cached + a.evald
}

// A conversation decoded, the engine closed: a new engine with the same
// options reads the slot back, and the same prompt comes from the cache
// (all but its last token) with the answer a cold engine gives; the agent's
// next turn, extending it, keeps the whole saved prefix.
func TestSlotSaveRestore(t *testing.T) {
	dir := t.TempDir()
	cold, n := saveOnce(t, "tiny-qwen3-toolcall.gguf", dir, 512)
	if cold == "" {
		t.Fatal("the cold answer is empty")
	}
	ev := make(events, 256)
	e := saveEngine(t, "tiny-qwen3-toolcall.gguf", dir, 512, ev)
	defer e.Close()
	got := ask(t, e, savedReq(), true)
	evs := ev.drain()
	if !has(evs, SlotsRestored) || ignored(evs) != "" {
		t.Errorf("events %+v", evs)
	}
	if got.cached != n-1 || got.text != cold {
		t.Errorf("after the restart: %q with %d of %d prompt tokens cached; cold: %q", got.text, got.cached, n, cold)
	}
	next := savedReq()
	next.Prompt = conversation(strings.Repeat(weatherText, 8)+"What's the weather in Paris?", got.text, "And in Lyon?")
	if a := ask(t, e, next, true); a.cached < n {
		t.Errorf("the next turn kept %d tokens, want the saved prompt's %d at least", a.cached, n)
	}
}

// Two slots holding the same conversation (the same prompt sent twice: the
// second request takes an empty slot, the prefix copied) are saved once,
// and that one file serves the prompt after the restart.
func TestSlotSaveSkipsCoveredSlots(t *testing.T) {
	dir := t.TempDir()
	ev := make(events, 256)
	e := saveEngine(t, "tiny-qwen3-toolcall.gguf", dir, 512, ev)
	first, second := ask(t, e, savedReq(), true), ask(t, e, savedReq(), true)
	m := held(t, e)
	full := 0
	for _, sl := range m.slots {
		if len(sl.cached) > 0 {
			full++
		}
	}
	m.release()
	if full != 2 || first.text != second.text {
		t.Fatalf("%d slots hold tokens, answers %q and %q: the test's premise fails", full, first.text, second.text)
	}
	e.Close()
	if files, _ := filepath.Glob(filepath.Join(dir, "*.kv")); len(files) != 1 {
		t.Errorf("saved %v, want one file", files)
	}
	e = saveEngine(t, "tiny-qwen3-toolcall.gguf", dir, 512, ev)
	defer e.Close()
	if got := ask(t, e, savedReq(), true); got.cached != first.cached+first.evald-1 {
		t.Errorf("after the restart %d prompt tokens cached, want %d", got.cached, first.cached+first.evald-1)
	}
}

// The idle release saves the slots before it frees the context, and the
// context made again for the next request reads them back.
func TestSlotSaveIdleRelease(t *testing.T) {
	ev := make(events, 256)
	e := saveEngine(t, "tiny-qwen3-random.gguf", t.TempDir(), 512, ev)
	defer e.Close()
	first := ask(t, e, savedReq(), true)
	done := make(chan struct{})
	e.byID["m"].idleNow <- done
	<-done
	if e.Resident("m") {
		t.Fatal("still resident after the idle release")
	}
	again := ask(t, e, savedReq(), true)
	if n := first.cached + first.evald; again.cached != n-1 {
		t.Errorf("after the idle release %d of %d prompt tokens cached, want all but the last; events %+v", again.cached, n, ev.drain())
	}
}

// A state saved for another model file, or for another context size, is
// refused with a warning: the request decodes its prompt from scratch and
// answers as a cold engine does.
func TestSlotSaveRefusesOtherModelOrContext(t *testing.T) {
	for _, c := range []struct {
		name, file string
		ctx        int
		why        string
	}{
		{"another model", "tiny-qwen3-random.gguf", 512, "another model file"},
		{"another context", "tiny-qwen3-toolcall.gguf", 1024, "a context of 512 tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			saveOnce(t, "tiny-qwen3-toolcall.gguf", dir, 512)
			coldDir := t.TempDir()
			want, _ := saveOnce(t, c.file, coldDir, c.ctx)
			ev := make(events, 256)
			e := saveEngine(t, c.file, dir, c.ctx, ev)
			defer e.Close()
			got := ask(t, e, savedReq(), true)
			evs := ev.drain()
			if w := ignored(evs); !strings.Contains(w, c.why) || has(evs, SlotsRestored) {
				t.Errorf("warnings %q, want one saying %q; events %+v", w, c.why, evs)
			}
			if got.cached != 0 || got.text != want {
				t.Errorf("%q with %d tokens cached; cold: %q", got.text, got.cached, want)
			}
		})
	}
}

// A model file replaced since the save (here: its modification time
// changed) has its old state refused.
func TestSlotSaveRefusesReplacedFile(t *testing.T) {
	model := filepath.Join(t.TempDir(), "copy.gguf")
	putFile(t, model, readFile(t, modelPath(t, "tiny-qwen3-toolcall.gguf")))
	dir := t.TempDir()
	saveOnce(t, model, dir, 512)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(model, later, later); err != nil {
		t.Fatal(err)
	}
	ev := make(events, 256)
	e := saveEngine(t, model, dir, 512, ev)
	defer e.Close()
	got := ask(t, e, savedReq(), true)
	if w := ignored(ev.drain()); got.cached != 0 || !strings.Contains(w, "another model file") {
		t.Errorf("%d tokens cached, warnings %q", got.cached, w)
	}
}

// A damaged state is ignored with a warning and the request decodes from
// scratch; nothing crashes: a byte changed, the cells cut short with the
// header and checksum made to match (llama.cpp itself then refuses them), a
// file larger than the KV cache, a header that is not JSON.
func TestSlotSaveCorrupt(t *testing.T) {
	const file = "tiny-qwen3-toolcall.gguf"
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, path string)
		why    string
	}{
		{"a byte changed", func(t *testing.T, path string) {
			b := readFile(t, path)
			b[len(b)/2] ^= 0x55
			putFile(t, path, b)
		}, "damaged: its checksum"},
		{"cut short, its header matching", func(t *testing.T, path string) {
			f := parsed(t, path)
			f.meta.Cells /= 2
			meta, _ := json.Marshal(f.meta)
			putSlotFile(t, path, meta, f.tokens, f.cells[:f.meta.Cells])
		}, "llama.cpp could not load"},
		{"too large", func(t *testing.T, path string) {
			if err := os.Truncate(path, 64<<20); err != nil {
				t.Fatal(err)
			}
		}, "more than this model's KV cache can hold"},
		{"not JSON", func(t *testing.T, path string) {
			f := parsed(t, path)
			putSlotFile(t, path, []byte(`{"version": 1, `), f.tokens, f.cells)
		}, "its header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			want, _ := saveOnce(t, file, dir, 512)
			c.damage(t, filepath.Join(dir, "m.slot0.kv"))
			ev := make(events, 256)
			e := saveEngine(t, file, dir, 512, ev)
			defer e.Close()
			got := ask(t, e, savedReq(), true)
			evs := ev.drain()
			if w := ignored(evs); !strings.Contains(w, c.why) || has(evs, SlotsRestored) {
				t.Errorf("warnings %q, want one saying %q; events %+v", w, c.why, evs)
			}
			if got.cached != 0 || got.text != want {
				t.Errorf("%q with %d tokens cached; cold: %q", got.text, got.cached, want)
			}
			m := held(t, e)
			checkSlots(t, m)
			m.release()
		})
	}
}

// parsed is the slot file at path, read as a load reads it.
func parsed(t *testing.T, path string) *slotFile {
	t.Helper()
	f := &slotFile{path: path}
	if err := f.parse(readFile(t, path)); err != nil {
		t.Fatal(err)
	}
	return f
}

// putSlotFile writes a slot file of the given header, tokens and cells,
// its checksum right.
func putSlotFile(t *testing.T, path string, meta []byte, tokens []llamaToken, cells []byte) {
	t.Helper()
	b := []byte(slotStateMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	b = append(b, meta...)
	for _, tok := range tokens {
		b = binary.LittleEndian.AppendUint32(b, uint32(tok))
	}
	b = append(b, cells...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	putFile(t, path, b)
}

// held is e's model "m", its scheduler held (the caller releases it).
func held(t *testing.T, e *Engine) *model {
	t.Helper()
	m := e.byID["m"]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, not a measure
	defer cancel()
	if err := m.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
