package format

import "testing"

// FamilyVector is a full-output vector with the options TestPeerVectors
// parses it with, for the external test that runs the families' response
// templates (responsetemplate_test.go) on the same vectors.
type FamilyVector struct {
	ID, Family string
	Options    Options
	Chunks     []string
}

// FamilyVectors returns the vectors of the registered families.
func FamilyVectors(t testing.TB) []FamilyVector {
	var out []FamilyVector
	for _, v := range loadVectors(t) {
		if _, ok := Lookup(v.Family); ok && v.Scope == "full_output" {
			out = append(out, FamilyVector{ID: v.ID, Family: v.Family, Options: vectorOptions(v), Chunks: vectorChunks(v)})
		}
	}
	return out
}

// TemplateMap is FORMATS.md's Template map: corpus template file → family.
func TemplateMap(t testing.TB) map[string]string {
	m, err := readTemplateMap(sharedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SharedDir is the shared fixtures' folder.
func SharedDir(t testing.TB) string { return sharedDir(t) }
