package template

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// This file reads the metadata of a GGUF file (the llama.cpp model format):
//
//	magic    "GGUF"
//	version  uint32 (1, 2 or 3)
//	tensors  uint64 (uint32 in version 1)
//	kv count uint64 (uint32 in version 1)
//	kv pairs key (string), value type (uint32), value
//	... tensor infos and tensor data, which we never read
//
// A string is a length (uint64; uint32 in version 1) followed by that many bytes.
// An array is an element type (uint32), a count (uint64; uint32 in version 1) and
// the elements. Files are little-endian; big-endian files exist too and are read
// when the version only makes sense byte-swapped.
//
// The input is untrusted: every count and length is checked against what is left
// of the file (when its size is known) and against fixed caps before anything is
// allocated, and with an unknown size memory grows only as bytes actually arrive.

// GGUFType is the type tag of a GGUF metadata value.
type GGUFType uint32

// GGUF metadata value types.
const (
	GGUFUint8 GGUFType = iota
	GGUFInt8
	GGUFUint16
	GGUFInt16
	GGUFUint32
	GGUFInt32
	GGUFFloat32
	GGUFBool
	GGUFString
	GGUFArray
	GGUFUint64
	GGUFInt64
	GGUFFloat64
	ggufTypeCount
)

var ggufTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (t GGUFType) String() string {
	if t < ggufTypeCount {
		return ggufTypeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size is the encoded size of a fixed-size type, 0 for string and array.
func (t GGUFType) size() int64 {
	switch t {
	case GGUFUint8, GGUFInt8, GGUFBool:
		return 1
	case GGUFUint16, GGUFInt16:
		return 2
	case GGUFUint32, GGUFInt32, GGUFFloat32:
		return 4
	case GGUFUint64, GGUFInt64, GGUFFloat64:
		return 8
	}
	return 0
}

// Caps on what a GGUF header may claim, whatever the file size.
const (
	ggufMaxKeyLen       = 1<<16 - 1 // the spec limits keys to 65535 bytes
	ggufMaxKVs          = 1 << 20
	ggufMaxStringLen    = 1 << 30
	ggufMaxArrayLen     = 1 << 30
	ggufMaxArrayDepth   = 8
	ggufMaxMetadata     = 2 << 30 // bytes of metadata read in all
	ggufDirectAllocSize = 1 << 20 // larger strings are read in chunks when the size is unknown
)

// GGUF is the header and metadata of a GGUF file.
//
// Values holds, per key: uint8, int8, uint16, int16, uint32, int32, float32, bool,
// string, uint64, int64 or float64 for scalars; for arrays a typed slice ([]uint8 …
// []float64, []bool, []string) or, for arrays of arrays, []any of such slices.
type GGUF struct {
	Version     uint32
	BigEndian   bool
	TensorCount uint64
	Keys        []string // metadata keys in file order
	Values      map[string]any
}

// ReadGGUFFile reads the header and metadata of the GGUF file at path. It stops
// after the metadata; tensor data is never read.
func ReadGGUFFile(path string) (*GGUF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	g, err := ReadGGUF(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ReadGGUF reads a GGUF header and its metadata from r. size is the total size of
// the input in bytes, or -1 when unknown; it bounds every count the file claims.
func ReadGGUF(r io.Reader, size int64) (*GGUF, error) {
	d := &ggufDecoder{r: bufio.NewReaderSize(r, 64<<10), size: size, order: binary.LittleEndian}
	g, err := d.header()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("GGUF file is truncated at byte %d (%w)", d.off, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	return g, nil
}

// IsGGUF reports whether the file at path starts with the GGUF magic.
func IsGGUF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	return string(magic[:]) == "GGUF"
}

type ggufDecoder struct {
	r     *bufio.Reader
	off   int64 // bytes consumed
	size  int64 // total size, -1 if unknown
	order binary.ByteOrder
	v1    bool // version 1: 32-bit counts and lengths
	buf   [8]byte
}

func (d *ggufDecoder) header() (*GGUF, error) {
	magic, err := d.fixed(4)
	if err != nil {
		return nil, err
	}
	if string(magic) != "GGUF" {
		return nil, fmt.Errorf("not a GGUF file (magic %q)", magic)
	}
	vb, err := d.fixed(4)
	if err != nil {
		return nil, err
	}
	g := &GGUF{Values: map[string]any{}}
	g.Version = binary.LittleEndian.Uint32(vb)
	if g.Version == 0 || g.Version > 0xffff {
		if be := binary.BigEndian.Uint32(vb); be >= 1 && be <= 3 {
			g.Version, g.BigEndian, d.order = be, true, binary.BigEndian
		}
	}
	if g.Version < 1 || g.Version > 3 {
		return nil, fmt.Errorf("unsupported GGUF version %d (this reader knows 1, 2 and 3)", g.Version)
	}
	d.v1 = g.Version == 1
	if g.TensorCount, err = d.count(); err != nil {
		return nil, err
	}
	nkv, err := d.count()
	if err != nil {
		return nil, err
	}
	// Each pair takes at least a key length, a type and one byte of value.
	if err := d.plausible(nkv, d.countSize()+4+1, ggufMaxKVs, "metadata key/value pairs"); err != nil {
		return nil, err
	}
	g.Keys = make([]string, 0, min(nkv, 4096))
	for i := uint64(0); i < nkv; i++ {
		key, err := d.str(ggufMaxKeyLen, "key")
		if err != nil {
			return nil, fmt.Errorf("metadata pair %d: %w", i, err)
		}
		t, err := d.u32()
		if err != nil {
			return nil, err
		}
		v, err := d.value(GGUFType(t), 0)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", key, err)
		}
		if _, dup := g.Values[key]; !dup {
			g.Keys = append(g.Keys, key)
		}
		g.Values[key] = v
		if d.off > ggufMaxMetadata {
			return nil, fmt.Errorf("GGUF metadata larger than %d bytes", int64(ggufMaxMetadata))
		}
	}
	return g, nil
}

// plausible checks a claimed element count against the caps and, when the input
// size is known, against the bytes left (each element needs at least minSize).
func (d *ggufDecoder) plausible(n uint64, minSize int64, limit uint64, what string) error {
	if n > limit {
		return fmt.Errorf("implausible GGUF header: %d %s (limit %d)", n, what, limit)
	}
	if d.size >= 0 && minSize > 0 {
		left := d.size - d.off
		if left < 0 || n > uint64(left)/uint64(minSize) {
			return fmt.Errorf("implausible GGUF header: %d %s need at least %d bytes, only %d left in the file",
				n, what, n*uint64(minSize), max(left, 0))
		}
	}
	return nil
}

func (d *ggufDecoder) countSize() int64 {
	if d.v1 {
		return 4
	}
	return 8
}

func (d *ggufDecoder) fixed(n int) ([]byte, error) {
	b := d.buf[:n]
	k, err := io.ReadFull(d.r, b)
	d.off += int64(k)
	return b, err
}

func (d *ggufDecoder) u32() (uint32, error) {
	b, err := d.fixed(4)
	if err != nil {
		return 0, err
	}
	return d.order.Uint32(b), nil
}

func (d *ggufDecoder) u64() (uint64, error) {
	b, err := d.fixed(8)
	if err != nil {
		return 0, err
	}
	return d.order.Uint64(b), nil
}

// count reads a count or length: uint64, or uint32 in version 1.
func (d *ggufDecoder) count() (uint64, error) {
	if d.v1 {
		n, err := d.u32()
		return uint64(n), err
	}
	return d.u64()
}

func (d *ggufDecoder) str(limit uint64, what string) (string, error) {
	n, err := d.count()
	if err != nil {
		return "", err
	}
	if err := d.plausible(n, 1, limit, "bytes of "+what); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	if d.size >= 0 || n <= ggufDirectAllocSize {
		b := make([]byte, n)
		k, err := io.ReadFull(d.r, b)
		d.off += int64(k)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	// Unknown size and a long string: let the buffer grow with the data that arrives.
	var sb strings.Builder
	k, err := io.CopyN(&sb, d.r, int64(n))
	d.off += k
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	return sb.String(), nil
}

func (d *ggufDecoder) value(t GGUFType, depth int) (any, error) {
	switch t {
	case GGUFString:
		return d.str(ggufMaxStringLen, "string")
	case GGUFArray:
		return d.array(depth)
	}
	if t >= ggufTypeCount {
		return nil, fmt.Errorf("unknown GGUF value type %d", uint32(t))
	}
	b, err := d.fixed(int(t.size()))
	if err != nil {
		return nil, err
	}
	return d.scalar(t, b), nil
}

func (d *ggufDecoder) scalar(t GGUFType, b []byte) any {
	switch t {
	case GGUFUint8:
		return b[0]
	case GGUFInt8:
		return int8(b[0])
	case GGUFBool:
		return b[0] != 0
	case GGUFUint16:
		return d.order.Uint16(b)
	case GGUFInt16:
		return int16(d.order.Uint16(b))
	case GGUFUint32:
		return d.order.Uint32(b)
	case GGUFInt32:
		return int32(d.order.Uint32(b))
	case GGUFFloat32:
		return math.Float32frombits(d.order.Uint32(b))
	case GGUFUint64:
		return d.order.Uint64(b)
	case GGUFInt64:
		return int64(d.order.Uint64(b))
	case GGUFFloat64:
		return math.Float64frombits(d.order.Uint64(b))
	}
	return nil
}

// arrayChunk bounds the up-front allocation of an array whose length cannot be
// checked against the file size.
const arrayChunk = 1 << 16

func (d *ggufDecoder) array(depth int) (any, error) {
	if depth >= ggufMaxArrayDepth {
		return nil, fmt.Errorf("GGUF arrays nested deeper than %d", ggufMaxArrayDepth)
	}
	et, err := d.u32()
	if err != nil {
		return nil, err
	}
	t := GGUFType(et)
	if t >= ggufTypeCount {
		return nil, fmt.Errorf("unknown GGUF array element type %d", et)
	}
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	minSize := t.size()
	if minSize == 0 { // string: a length; array: a type and a count
		minSize = d.countSize()
		if t == GGUFArray {
			minSize += 4
		}
	}
	if err := d.plausible(n, minSize, ggufMaxArrayLen, t.String()+" array elements"); err != nil {
		return nil, err
	}
	capHint := int(n)
	if d.size < 0 {
		capHint = int(min(n, arrayChunk))
	}
	switch t {
	case GGUFString:
		out := make([]string, 0, capHint)
		for i := uint64(0); i < n; i++ {
			s, err := d.str(ggufMaxStringLen, "string")
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, s)
		}
		return out, nil
	case GGUFArray:
		out := make([]any, 0, capHint)
		for i := uint64(0); i < n; i++ {
			v, err := d.array(depth + 1)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, v)
		}
		return out, nil
	case GGUFUint8:
		return readNums(d, n, capHint, func(b []byte) uint8 { return b[0] }, 1)
	case GGUFInt8:
		return readNums(d, n, capHint, func(b []byte) int8 { return int8(b[0]) }, 1)
	case GGUFBool:
		return readNums(d, n, capHint, func(b []byte) bool { return b[0] != 0 }, 1)
	case GGUFUint16:
		return readNums(d, n, capHint, d.order.Uint16, 2)
	case GGUFInt16:
		return readNums(d, n, capHint, func(b []byte) int16 { return int16(d.order.Uint16(b)) }, 2)
	case GGUFUint32:
		return readNums(d, n, capHint, d.order.Uint32, 4)
	case GGUFInt32:
		return readNums(d, n, capHint, func(b []byte) int32 { return int32(d.order.Uint32(b)) }, 4)
	case GGUFFloat32:
		return readNums(d, n, capHint, func(b []byte) float32 { return math.Float32frombits(d.order.Uint32(b)) }, 4)
	case GGUFUint64:
		return readNums(d, n, capHint, d.order.Uint64, 8)
	case GGUFInt64:
		return readNums(d, n, capHint, func(b []byte) int64 { return int64(d.order.Uint64(b)) }, 8)
	case GGUFFloat64:
		return readNums(d, n, capHint, func(b []byte) float64 { return math.Float64frombits(d.order.Uint64(b)) }, 8)
	}
	return nil, fmt.Errorf("unknown GGUF array element type %d", et)
}

func readNums[T any](d *ggufDecoder, n uint64, capHint int, conv func([]byte) T, size int) ([]T, error) {
	out := make([]T, 0, capHint)
	for i := uint64(0); i < n; i++ {
		b, err := d.fixed(size)
		if err != nil {
			return nil, err
		}
		out = append(out, conv(b))
	}
	return out, nil
}

// String returns the string value of key.
func (g *GGUF) String(key string) (string, bool) {
	s, ok := g.Values[key].(string)
	return s, ok
}

// Strings returns the string-array value of key.
func (g *GGUF) Strings(key string) ([]string, bool) {
	s, ok := g.Values[key].([]string)
	return s, ok
}

// Int returns the value of key if it is an integer of any width that fits an int64.
func (g *GGUF) Int(key string) (int64, bool) {
	switch v := g.Values[key].(type) {
	case uint8:
		return int64(v), true
	case int8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case int16:
		return int64(v), true
	case uint32:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v), true
		}
	}
	return 0, false
}
