package response

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dragoman-dev/dragoman/format"
)

// BenchmarkVersusFamily parses the same outputs with a response template and
// with Dragoman's hand-written parser of the same markup: the generations of
// the transformers vectors on that template (distinct texts), whole and in
// 8-byte chunks. The family parser runs with reasoning open where the
// template's prefix leaves it open, so both do the same work.
func BenchmarkVersusFamily(b *testing.B) {
	pairs := []struct{ template, family string }{
		{"hf_test_smollm", "hermes"},
		{"hf_test_qwen3_xml", "qwen3-coder-xml"},
		{"hf_test_gpt_oss", "gpt-oss-harmony"},
	}
	vectors := loadVectors(b)
	for _, pair := range pairs {
		tpl := loadSharedB(b, pair.template)
		fam, ok := format.Lookup(pair.family)
		if !ok {
			b.Fatalf("no family %s", pair.family)
		}
		seen := map[string]bool{}
		var outputs []string
		bytes := 0
		for i := range vectors {
			v := &vectors[i]
			g := v.generation()
			if v.Template != pair.template || v.Prefix != "" || seen[g] || g == "" {
				continue
			}
			seen[g] = true
			outputs = append(outputs, g)
			bytes += len(g)
		}
		for _, chunk := range []int{0, 8} {
			mode := "whole"
			if chunk > 0 {
				mode = "chunks8"
			}
			pieces := make([][]string, len(outputs))
			for i, o := range outputs {
				pieces[i] = split(o, chunk)
			}
			b.Run(pair.family+"/"+mode+"/family", func(b *testing.B) {
				b.SetBytes(int64(bytes))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						format.Run(fam.New(format.Options{}), p...)
					}
				}
			})
			b.Run(pair.family+"/"+mode+"/template", func(b *testing.B) {
				b.SetBytes(int64(bytes))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						if _, err := Run(tpl, Options{}, p...); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

func split(s string, n int) []string {
	if n <= 0 {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func loadSharedB(b testing.TB, name string) *Template {
	data := readShared(b, name)
	tpl, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	return tpl
}

func readShared(tb testing.TB, name string) []byte {
	data, err := os.ReadFile(filepath.Join(templatesDir(tb), name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
