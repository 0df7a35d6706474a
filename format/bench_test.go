package format

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// benchCase is a family's representative output from its own vectors: the
// case with text before and after a call, else its first case with a call.
func benchCase(b *testing.B, id string) (string, Options) {
	path := "testdata/vectors/" + id + ".jsonl"
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	notes := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		var n struct{ ID, Notes string }
		if json.Unmarshal([]byte(line), &n) == nil {
			notes[n.ID] = n.Notes
		}
	}
	var first *vector
	for _, v := range readVectors(b, path) {
		if v.Expected.ToolCalls == nil || len(*v.Expected.ToolCalls) == 0 {
			continue
		}
		if strings.Contains(notes[v.ID], "text before") {
			return v.Input, vectorOptions(v)
		}
		if first == nil {
			first = &v
		}
	}
	if first == nil {
		b.Skip("no vector with a call")
	}
	return first.Input, vectorOptions(*first)
}

// BenchmarkFamilies: every family's representative output, whole and in
// 4-byte chunks (MB/s, allocations per output).
//
//	go test ./format -run '^$' -bench Families -benchmem
func BenchmarkFamilies(b *testing.B) {
	for _, f := range Families() {
		out, opts := benchCase(b, f.ID)
		four := splitEvery(out, 4)
		b.Run(f.ID+"/whole", func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				Run(f.New(opts), out)
			}
		})
		b.Run(f.ID+"/4-byte", func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				Run(f.New(opts), four...)
			}
		})
	}
}

// BenchmarkPlainText: plain prose streamed to a parser already in its
// content, reported as allocations per chunk.
func BenchmarkPlainText(b *testing.B) {
	for _, f := range Families() {
		b.Run(f.ID, func(b *testing.B) {
			start := plainStart[f.ID]
			p := f.New(start.opts)
			p.Feed(start.lead)
			b.SetBytes(int64(len(plainChunk)))
			b.ReportAllocs()
			for b.Loop() {
				p.Feed(plainChunk)
			}
			b.StopTimer()
			b.ReportMetric(float64(testing.AllocsPerRun(100, func() { p.Feed(plainChunk) })), "allocs/chunk")
		})
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

// BenchmarkLongCall: each family's one-call vector with its "Paris" argument
// replaced by 100 KB of prose, fed in 4-byte chunks (before the gate in
// stream.go this took about 2 s per output in most families: quadratic).
//
//	go test ./format -run '^$' -bench LongCall -benchmem
func BenchmarkLongCall(b *testing.B) {
	body := strings.Repeat("lorem ipsum dolor sit amet ", 100*1024/27)
	for _, f := range Families() {
		v, ok := oneCallVector(b, f.ID)
		if !ok {
			continue
		}
		out := strings.Replace(v.Input, "Paris", body, 1)
		chunks := splitEvery(out, 4)
		opts := vectorOptions(v)
		b.Run(f.ID, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				Run(f.New(opts), chunks...)
			}
		})
	}
}
