package format

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestFamilyMarkersWrittenOnce walks the families and checks that each of
// their markers is written as a string literal in at most one non-test file
// of the package: a family's markup is declared in its own file (or, for a
// marker several families write the same, once in a shared file such as
// markers.go), and everything else names the constant.
//
// The markers are what the Family values expose: the reasoning opener
// (ThinkOpen), the call grammar's triggers and reasoning markers
// (Calls.Triggers, Calls.ThinkOpen, Calls.ThinkClose), the forced call's
// open and close (Force), and the response template's assistant headers and
// literal delimiters (ResponseTemplate: StartAnchor, each field's Open and
// Close), each with surrounding whitespace trimmed. A literal counts when it
// equals a marker; a marker built by joining constants ("<|channel>" +
// "thought") matches no literal, which is what is wanted: it is written once,
// as its parts. Markers with no letter or digit ({", [{", ```) are JSON and Markdown
// punctuation that many parsers write as such, not a family's markup, and
// are left out.
func TestFamilyMarkersWrittenOnce(t *testing.T) {
	literalFiles := packageStringLiterals(t)
	checked := 0
	for _, f := range Families() {
		for _, m := range familyMarkers(f) {
			checked++
			if files := literalFiles[m]; len(files) > 1 {
				t.Errorf("%s: the marker %q is written in %d files: %s", f.ID, m, len(files), strings.Join(files, ", "))
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d markers found on the families; the walk is broken", checked)
	}
}

// familyMarkers returns the markers f's values expose, trimmed, without
// duplicates or punctuation-only ones.
func familyMarkers(f *Family) []string {
	ms := []string{f.ThinkOpen}
	if c := f.Calls; c != nil {
		ms = append(ms, c.Triggers...)
		ms = append(ms, c.ThinkOpen, c.ThinkClose)
	}
	if f.Force != nil {
		ms = append(ms, f.Force.Open, f.Force.Close)
	}
	if f.ResponseTemplate != nil {
		rt := f.ResponseTemplate()
		ms = append(ms, rt.StartAnchor...)
		for _, field := range rt.Fields {
			ms = append(ms, field.Open...)
			ms = append(ms, field.Close...)
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		m = strings.TrimSpace(m)
		if seen[m] || !strings.ContainsFunc(m, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// packageStringLiterals maps each string literal's value in the package's
// non-test files to the files that write it.
func packageStringLiterals(t *testing.T) map[string][]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if in[s] == nil {
				in[s] = map[string]bool{}
			}
			in[s][name] = true
			return true
		})
	}
	out := map[string][]string{}
	for s, files := range in {
		for name := range files {
			out[s] = append(out[s], name)
		}
		sort.Strings(out[s])
	}
	return out
}
