package response

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// FuzzStreaming: any output through any shared template, in Dragoman's mode
// and the reference's, never panics, and splitting it (at one place, and
// byte by byte) never changes the message, the diagnostics or the error.
func FuzzStreaming(f *testing.F) {
	dir := templatesDir(f)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var tpls []*Template
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		tpl, err := Load(data)
		if err != nil {
			f.Fatal(err)
		}
		tpls = append(tpls, tpl)
	}
	names := map[string]int{}
	for i, file := range files {
		names[strings.TrimSuffix(filepath.Base(file), ".json")] = i
	}
	for _, v := range loadVectors(f) {
		if i, ok := names[v.Template]; ok {
			f.Add(uint8(i), v.Prefix, v.generation(), uint16(len(v.generation())/2))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, prefix, text string, cut uint16) {
		tpl := tpls[int(which)%len(tpls)]
		if len(text) > 4096 {
			text = text[:4096]
		}
		for _, ref := range []bool{false, true} {
			opts := Options{Prefix: prefix, Reference: ref}
			msg, diags, err := Parse(tpl, text, opts)
			k := int(cut) % (len(text) + 1)
			splits := [][]string{{text[:k], text[k:]}}
			if len(text) <= 512 {
				splits = append(splits, bytewise(text))
			}
			for _, pieces := range splits {
				p, _, perr := NewParser(tpl, opts)
				for _, c := range pieces {
					if perr == nil {
						_, perr = p.Feed(c)
					}
				}
				if perr == nil {
					_, perr = p.Finish()
				}
				if (perr != nil) != (err != nil) {
					t.Fatalf("reference=%v: streamed error %v, whole %v", ref, perr, err)
				}
				if err != nil {
					continue
				}
				if canonical(p.Message()) != canonical(msg) || len(p.Diagnostics()) != len(diags) {
					t.Fatalf("reference=%v: streamed %s (%d diagnostics), whole %s (%d)", ref, canonical(p.Message()), len(p.Diagnostics()), canonical(msg), len(diags))
				}
			}
		}
	})
}
