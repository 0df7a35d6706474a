package llamacpp

// Sizing a model's context and the engine's threads to the work.
//
// The context: a model is given the context it was trained for
// (<arch>.context_length), unless its KV cache would not fit the memory
// budget; then it gets as many tokens as the budget holds, rounded down to
// a multiple of 256 (llama.cpp's cell padding). A token's KV cache costs,
// summed over the layers, (K + V elements per token) × the cache type's
// bytes per element, the elements being the layer's KV heads × the key
// (value) head size: all of it in the GGUF's header. The budget is
// Options.KVBudget, by default a quarter of the machine's memory
// (DefaultKVBudget). It is an upper bound: a sliding-window model's cache
// is smaller. An explicit context is taken as given (never above the
// trained one).
//
// The threads: the physical cores (cores, not hyper-threads: ggml's
// threads each want a core), at most the CPUs this process may use; where
// the topology cannot be read, half the CPUs.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/dragoman-dev/dragoman/template"
)

// DefaultContext is the context of a model whose header does not say what
// it was trained for, or what its KV cache costs (at most what it was
// trained for).
const DefaultContext = 4096

// fallbackKVBudget is the KV budget where the machine's memory is unknown.
const fallbackKVBudget = 4 << 30

// DefaultKVBudget is the KV budget of each model when Options.KVBudget is
// 0: a quarter of the machine's memory (MemTotal in /proc/meminfo), or 4 GiB
// where that cannot be read.
func DefaultKVBudget() int64 {
	if m := memTotal(); m > 0 {
		return m / 4
	}
	return fallbackKVBudget
}

// memTotal is /proc/meminfo's MemTotal in bytes; 0 when unknown.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}

// cacheTypes are the KV cache types Options.CacheType takes: ggml's type
// (enum ggml_type) and its size as bytes per block of elements.
var cacheTypes = map[string]struct {
	ggml         int32
	bytes, block int64
}{
	"f16":  {1, 2, 1},
	"q8_0": {8, 34, 32}, // 32 int8 and one f16 scale
}

// kvBytesPerToken is what one token's K and V cache cost in a model of
// header g, with the cache type given.
func kvBytesPerToken(g *template.GGUF, cacheType string) (int64, error) {
	ct, ok := cacheTypes[cacheType]
	if !ok {
		return 0, fmt.Errorf("KV cache type %q: want f16 or q8_0", cacheType)
	}
	arch, _ := g.String("general.architecture")
	key := func(k string) string { return arch + "." + k }
	layers, ok := g.Int(key("block_count"))
	if !ok || layers <= 0 {
		return 0, fmt.Errorf("the GGUF header has no %s", key("block_count"))
	}
	heads, _ := g.Int(key("attention.head_count"))
	kvHeads := perLayer(g, key("attention.head_count_kv"), int(layers))
	if kvHeads == nil {
		if heads <= 0 {
			return 0, fmt.Errorf("the GGUF header has neither %s nor %s", key("attention.head_count_kv"), key("attention.head_count"))
		}
		kvHeads = perLayer(g, key("attention.head_count"), int(layers))
	}
	embd, _ := g.Int(key("embedding_length"))
	headK, okK := g.Int(key("attention.key_length"))
	headV, okV := g.Int(key("attention.value_length"))
	if !okK || !okV {
		if heads <= 0 || embd <= 0 {
			return 0, fmt.Errorf("the GGUF header gives no head size (%s, or %s and %s)", key("attention.key_length"), key("embedding_length"), key("attention.head_count"))
		}
		if !okK {
			headK = embd / heads
		}
		if !okV {
			headV = embd / heads
		}
	}
	var elems int64
	for _, h := range kvHeads {
		elems += h * (headK + headV)
	}
	return (elems*ct.bytes + ct.block - 1) / ct.block, nil
}

// perLayer is key's value for each of n layers: one number for all, or an
// array of one per layer; nil when absent or malformed.
func perLayer(g *template.GGUF, key string, n int) []int64 {
	if v, ok := g.Int(key); ok {
		out := make([]int64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	var out []int64
	switch a := g.Values[key].(type) {
	case []int32:
		for _, v := range a {
			out = append(out, int64(v))
		}
	case []uint32:
		for _, v := range a {
			out = append(out, int64(v))
		}
	}
	if len(out) != n {
		return nil
	}
	return out
}

// autoContext is the context a model trained for train tokens gets under
// budget bytes at perToken bytes a token (see above), and why, for the
// start-up line.
func autoContext(train int, perToken, budget int64) (int, string) {
	fits := budget / max(perToken, 1)
	if int64(train) <= fits {
		return train, fmt.Sprintf("the model's trained context; its KV cache, %s, fits the budget of %s", humanBytes(int64(train)*perToken), humanBytes(budget))
	}
	n := int(fits) / 256 * 256
	if n < 256 {
		n = min(256, train)
	}
	return n, fmt.Sprintf("of the %d the model was trained for: the KV cache's budget of %s holds %d tokens at %s a token (set -kv-budget or -ctx)", train, humanBytes(budget), fits, humanBytes(perToken))
}

// humanBytes is n in B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ParseBytes reads a size such as 8GiB, 512MiB, 4G or 1048576 (bytes).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, or one with GiB, MiB or KiB", s)
	}
	return int64(f * float64(mult)), nil
}

// defaultThreads is the physical cores this process may use, and why; half
// the CPUs (at least one) where the topology cannot be read.
func defaultThreads() (int, string) {
	cpus := runtime.NumCPU()
	if n := physicalCores("/sys/devices/system/cpu"); n > 0 {
		if n > cpus {
			return cpus, fmt.Sprintf("the CPUs this process may use (%d physical cores)", n)
		}
		return n, "the physical cores"
	}
	return max(1, cpus/2), "half the CPUs (the cores' topology is unknown)"
}

// physicalCores counts the distinct (package, core) pairs of the online
// CPUs under sys (/sys/devices/system/cpu); 0 when unknown.
func physicalCores(sys string) int {
	dirs, _ := filepath.Glob(filepath.Join(sys, "cpu[0-9]*"))
	cores := map[string]bool{}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "online")); err == nil && strings.TrimSpace(string(b)) == "0" {
			continue
		}
		pkg, err1 := os.ReadFile(filepath.Join(d, "topology", "physical_package_id"))
		core, err2 := os.ReadFile(filepath.Join(d, "topology", "core_id"))
		if err1 != nil || err2 != nil {
			return 0
		}
		cores[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
	}
	return len(cores)
}
