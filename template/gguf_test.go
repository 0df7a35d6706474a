package template

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// ggufKV is one metadata pair for the test writer; the value's Go type picks the
// GGUF type (uint8 … float64, bool, string, typed slices, []any of slices).
type ggufKV struct {
	key string
	val any
}

// ggufWriter writes GGUF headers for tests.
type ggufWriter struct {
	b     bytes.Buffer
	order binary.ByteOrder
	v1    bool
}

func buildGGUF(t testing.TB, version uint32, order binary.ByteOrder, kvs ...ggufKV) []byte {
	t.Helper()
	w := &ggufWriter{order: order, v1: version == 1}
	w.b.WriteString("GGUF")
	w.u32(version)
	w.count(0) // tensors
	w.count(uint64(len(kvs)))
	for _, kv := range kvs {
		w.str(kv.key)
		typ := w.typeOf(t, kv.val)
		w.u32(uint32(typ))
		w.value(t, kv.val)
	}
	return w.b.Bytes()
}

func (w *ggufWriter) u32(v uint32) { _ = binary.Write(&w.b, w.order, v) }
func (w *ggufWriter) count(n uint64) {
	if w.v1 {
		w.u32(uint32(n))
		return
	}
	_ = binary.Write(&w.b, w.order, n)
}
func (w *ggufWriter) str(s string) { w.count(uint64(len(s))); w.b.WriteString(s) }

func (w *ggufWriter) typeOf(t testing.TB, v any) GGUFType {
	switch v.(type) {
	case uint8:
		return GGUFUint8
	case int8:
		return GGUFInt8
	case uint16:
		return GGUFUint16
	case int16:
		return GGUFInt16
	case uint32:
		return GGUFUint32
	case int32:
		return GGUFInt32
	case float32:
		return GGUFFloat32
	case bool:
		return GGUFBool
	case string:
		return GGUFString
	case uint64:
		return GGUFUint64
	case int64:
		return GGUFInt64
	case float64:
		return GGUFFloat64
	}
	if reflect.TypeOf(v).Kind() == reflect.Slice {
		return GGUFArray
	}
	t.Fatalf("ggufWriter: no GGUF type for %T", v)
	return 0
}

func (w *ggufWriter) value(t testing.TB, v any) {
	switch x := v.(type) {
	case string:
		w.str(x)
	case bool:
		if x {
			w.b.WriteByte(1)
		} else {
			w.b.WriteByte(0)
		}
	case uint8, int8, uint16, int16, uint32, int32, float32, uint64, int64, float64:
		_ = binary.Write(&w.b, w.order, x)
	default:
		rv := reflect.ValueOf(v)
		var et GGUFType
		if rv.Len() > 0 {
			et = w.typeOf(t, rv.Index(0).Interface())
		} else {
			et = w.typeOf(t, reflect.Zero(rv.Type().Elem()).Interface())
		}
		w.u32(uint32(et))
		w.count(uint64(rv.Len()))
		for i := 0; i < rv.Len(); i++ {
			w.value(t, rv.Index(i).Interface())
		}
	}
}

func writeFile(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var allTypesKVs = []ggufKV{
	{"u8", uint8(200)}, {"i8", int8(-5)}, {"u16", uint16(60000)}, {"i16", int16(-300)},
	{"u32", uint32(4e9)}, {"i32", int32(-7)}, {"f32", float32(1.5)}, {"b", true},
	{"s", "héllo"}, {"u64", uint64(1 << 60)}, {"i64", int64(-1 << 40)}, {"f64", math.Pi},
	{"arr.s", []string{"a", "", "ccc"}}, {"arr.u32", []uint32{1, 2, 3}}, {"arr.f32", []float32{0.5}},
	{"arr.b", []bool{true, false}}, {"arr.empty", []int32{}},
	{"arr.nested", []any{[]uint8{1, 2}, []uint8{3}}},
}

func TestReadGGUFAllTypes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version uint32
		order   binary.ByteOrder
	}{{"v3", 3, binary.LittleEndian}, {"v2", 2, binary.LittleEndian}, {"v1", 1, binary.LittleEndian}, {"v3-big-endian", 3, binary.BigEndian}} {
		t.Run(tc.name, func(t *testing.T) {
			data := buildGGUF(t, tc.version, tc.order, allTypesKVs...)
			g, err := ReadGGUF(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if g.Version != tc.version || g.BigEndian != (tc.order == binary.BigEndian) {
				t.Errorf("version %d big-endian %v", g.Version, g.BigEndian)
			}
			want := map[string]any{}
			var keys []string
			for _, kv := range allTypesKVs {
				want[kv.key] = kv.val
				keys = append(keys, kv.key)
			}
			want["arr.nested"] = []any{[]uint8{1, 2}, []uint8{3}}
			if !reflect.DeepEqual(g.Keys, keys) {
				t.Errorf("keys %v", g.Keys)
			}
			for k, v := range want {
				if !reflect.DeepEqual(g.Values[k], v) {
					t.Errorf("%s = %#v, want %#v", k, g.Values[k], v)
				}
			}
			// The same file with an unknown size reads the same.
			g2, err := ReadGGUF(bytes.NewReader(data), -1)
			if err != nil || !reflect.DeepEqual(g2.Values, g.Values) {
				t.Errorf("unknown size: %v", err)
			}
		})
	}
}

func TestFindGGUF(t *testing.T) {
	dir := t.TempDir()
	tmpl := "{% for m in messages %}{{ bos_token }}{{ m.content }}{{ eos_token }}{% endfor %}"
	path := writeFile(t, filepath.Join(dir, "model.bin"), buildGGUF(t, 3, binary.LittleEndian,
		ggufKV{"general.architecture", "llama"},
		ggufKV{"general.name", "Tiny"},
		ggufKV{"tokenizer.ggml.tokens", []string{"<unk>", "<s>", "</s>", "hello"}},
		ggufKV{"tokenizer.ggml.bos_token_id", uint32(1)},
		ggufKV{"tokenizer.ggml.eos_token_id", uint32(2)},
		ggufKV{"tokenizer.ggml.unknown_token_id", uint32(0)},
		ggufKV{"tokenizer.ggml.padding_token_id", uint32(99)}, // out of range: a note
		ggufKV{"tokenizer.chat_template", tmpl},
	))
	s, err := Find(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindGGUF || s.Text != tmpl || s.Name != "" {
		t.Errorf("kind %s name %q text %q", s.Kind, s.Name, s.Text)
	}
	if s.From != (Location{Path: path, Field: "tokenizer.chat_template"}) {
		t.Errorf("from %v", s.From)
	}
	if s.ModelName != "Tiny" || s.Architecture != "llama" {
		t.Errorf("name %q arch %q", s.ModelName, s.Architecture)
	}
	wantTok := map[string]any{"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
	if !reflect.DeepEqual(s.SpecialTokens, wantTok) {
		t.Errorf("special tokens %v", s.SpecialTokens)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "padding_token_id is 99") {
		t.Errorf("notes %q", s.Notes)
	}
	if len(s.Conflicts) != 0 {
		t.Errorf("conflicts %v", s.Conflicts)
	}
}

func TestFindGGUFNamedTemplates(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "m.gguf"), buildGGUF(t, 3, binary.LittleEndian,
		ggufKV{"tokenizer.chat_template", "DEFAULT"},
		ggufKV{"tokenizer.chat_template.tool_use", "TOOLS"},
		ggufKV{"tokenizer.chat_templates", []string{"tool_use"}},
	))
	s, err := Find(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "default" || s.Text != "DEFAULT" {
		t.Errorf("default: %q %q", s.Name, s.Text)
	}
	c, err := s.Select("", true)
	if err != nil || c.Text != "TOOLS" || c.Field != "tokenizer.chat_template.tool_use" {
		t.Errorf("with tools: %+v %v", c, err)
	}
}

func TestFindGGUFNoTemplate(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "m.gguf"), buildGGUF(t, 3, binary.LittleEndian, ggufKV{"general.name", "x"}))
	_, err := Find(path)
	if !errors.Is(err, ErrNoTemplate) {
		t.Fatalf("err = %v", err)
	}
}

func TestReadGGUFTruncated(t *testing.T) {
	data := buildGGUF(t, 3, binary.LittleEndian, allTypesKVs...)
	for n := 0; n < len(data); n++ {
		for _, size := range []int64{int64(n), -1} {
			_, err := ReadGGUF(bytes.NewReader(data[:n]), size)
			if err == nil {
				t.Fatalf("prefix %d (size %d): no error", n, size)
			}
			if n >= 8 && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "implausible") {
				t.Fatalf("prefix %d (size %d): unclear error %v", n, size, err)
			}
		}
	}
	// A file cut inside the template string, through Find.
	path := writeFile(t, filepath.Join(t.TempDir(), "cut.gguf"), data[:len(data)-20])
	if _, err := Find(path); err == nil || !strings.Contains(err.Error(), "cut.gguf") {
		t.Fatalf("Find on a truncated file: %v", err)
	}
}

// hostile builds a header by hand: the magic, version 3, no tensors, then rest.
func hostile(rest ...any) []byte {
	var b bytes.Buffer
	b.WriteString("GGUF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(3))
	_ = binary.Write(&b, binary.LittleEndian, uint64(0))
	for _, v := range rest {
		if s, ok := v.(string); ok {
			b.WriteString(s)
			continue
		}
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func TestReadGGUFHostile(t *testing.T) {
	const huge = uint64(1) << 62
	key := func(k string) []any { return []any{uint64(len(k)), k} }
	cat := func(parts ...[]any) []any {
		var out []any
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := map[string][]byte{
		"kv count":                  hostile(huge),
		"key length":                hostile(uint64(1), huge),
		"key over 64KiB":            hostile(uint64(1), uint64(1<<17)),
		"string length":             hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(GGUFString), huge})...),
		"array count":               hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(GGUFArray), uint32(GGUFUint64), huge})...),
		"array count under the cap": hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(GGUFArray), uint32(GGUFUint64), uint64(1 << 29)})...),
		"string array":              hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(GGUFArray), uint32(GGUFString), huge >> 4})...),
		"value type":                hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(77)})...),
		"array elem type":           hostile(cat([]any{uint64(1)}, key("k"), []any{uint32(GGUFArray), uint32(99), uint64(1)})...),
		"bad version":               append([]byte("GGUF"), 9, 0, 0, 0),
		"bad magic":                 []byte("GGML\x03\x00\x00\x00"),
	}
	// Deeply nested arrays.
	var deep []any
	deep = append(deep, uint64(1))
	deep = append(deep, key("k")...)
	deep = append(deep, uint32(GGUFArray))
	for range 20 {
		deep = append(deep, uint32(GGUFArray), uint64(1))
	}
	cases["nesting"] = hostile(deep...)

	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, size := range []int64{int64(len(data)), -1} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := ReadGGUF(bytes.NewReader(data), size)
				runtime.ReadMemStats(&after)
				if err == nil {
					t.Fatalf("size %d: no error", size)
				}
				if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
					t.Errorf("size %d: allocated %d bytes for a %d-byte file", size, got, len(data))
				}
				t.Logf("size %d: %v", size, err)
			}
		})
	}
}

// TestReadGGUFSharedModel reads the real tiny Qwen3 GGUF when the shared fixtures are there.
func TestReadGGUFSharedModel(t *testing.T) {
	path := filepath.Join(sharedDir(t), "models", "tiny-qwen3-toolcall.gguf")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := Find(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("allocated %d MB", (after.TotalAlloc-before.TotalAlloc)>>20)
	if s.SpecialTokens["bos_token"] != "<|endoftext|>" || s.SpecialTokens["eos_token"] != "<|im_end|>" {
		t.Errorf("special tokens %v", s.SpecialTokens)
	}
	if !strings.Contains(s.Text, "<tool_call>") || s.Architecture != "llama" {
		t.Errorf("arch %q, template starts %q", s.Architecture, s.Text[:min(len(s.Text), 80)])
	}
}

// sharedDir is ../shared beside the repository, or $DRAGOMAN_SHARED. Tests that
// need it skip when it is missing, and fail in CI (CI=true).
func sharedDir(t testing.TB) string {
	return fixtures.Require(t)
}
