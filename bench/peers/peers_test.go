package peers

import (
	"testing"
)

// BenchmarkPeers: for each pair, ours and Ollama's on the same output in the
// same 4-byte chunks.
//
//	cd bench/peers && go test -run '^$' -bench . -benchmem
func BenchmarkPeers(b *testing.B) {
	for _, p := range Pairs {
		c, err := LoadCase("../..", p.Family, p.Ollama)
		if err != nil {
			b.Fatal(err)
		}
		four := TokenChunks(c.Output, 4)
		tools := ollamaTools(c.Tools)
		b.Run(p.Family+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(c.Output)))
			b.ReportAllocs()
			for b.Loop() {
				ParseOurs(c, four)
			}
		})
		b.Run(p.Family+"/ollama-"+p.Ollama, func(b *testing.B) {
			b.SetBytes(int64(len(c.Output)))
			b.ReportAllocs()
			for b.Loop() {
				ParseTheirs(c, tools, four)
			}
		})
	}
}

// TestAgreement logs where the two sides find different calls; it fails only
// if a case cannot be loaded (disagreements are reported, not hidden, in
// docs/PERFORMANCE.md).
func TestAgreement(t *testing.T) {
	for _, p := range Pairs {
		c, err := LoadCase("../..", p.Family, p.Ollama)
		if err != nil {
			t.Fatal(err)
		}
		four := TokenChunks(c.Output, 4)
		_, ours := Ours(c, four)
		_, theirs := Theirs(c, ollamaTools(c.Tools), four)
		if !Agree(ours, theirs) {
			t.Logf("%s vs %s: ours %+v, Ollama %+v", p.Family, p.Ollama, ours, theirs)
		}
	}
}
