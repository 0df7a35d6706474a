package bench

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// BenchmarkCheckBFCL checks an answer for each of the 3,491 questions: the
// gold output where there is one, no call for irrelevance, a call for
// relevance. One op is the whole suite (docs/PERFORMANCE.md).
func BenchmarkCheckBFCL(b *testing.B) {
	s := loadBFCL(b)
	answers := make([][]chat.ToolCall, len(s.Items))
	for i := range s.Items {
		answers[i] = goldCallsOrNone(&s.Items[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		passed := 0
		for i := range s.Items {
			if Check(&s.Items[i], answers[i], Options{}).Pass {
				passed++
			}
		}
		if passed != len(s.Items)-len(unwinnable) {
			b.Fatalf("%d passed", passed)
		}
	}
}

// BenchmarkLoadBFCL reads and converts the staged data (7.9 MiB); it also
// reports the heap the loaded suite keeps (MiB-kept, after a collection).
func BenchmarkLoadBFCL(b *testing.B) {
	dir := filepath.Join(fixtures.Require(b), "bench", "bfcl")
	b.ReportAllocs()
	var kept float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := LoadBFCL(dir)
		if err != nil || len(s.Items) != 3491 {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(kept, "MiB-kept")
}
