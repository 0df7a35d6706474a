package backend

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every kind has its capabilities declared, and the constraint forms read
// them (the planner's inputs, once per kind).
func TestEveryKindDeclared(t *testing.T) {
	for _, k := range []Kind{Ollama, LlamaServer, LMStudio, VLLM, SGLang, MLX, OpenAI, Embedded} {
		if _, ok := kinds[k]; !ok {
			t.Errorf("%s has no capabilities declared", k)
		}
	}
	if len(Kinds()) != len(kinds) {
		t.Errorf("Kinds() lists %d of %d", len(Kinds()), len(kinds))
	}
	for name, want := range map[string]Kind{"llama.cpp": LlamaServer, "LlamaCpp": LlamaServer, "Ollama": Ollama, "mlx-lm": MLX} {
		if k, ok := ParseKind(name); !ok || k != want {
			t.Errorf("ParseKind(%q) = %q, %v", name, k, ok)
		}
	}
	if _, ok := ParseKind("tgi"); ok {
		t.Error("ParseKind took an unknown runtime")
	}
}

// Outside this package, code plans from Capabilities, never from a
// runtime's name: no comparison with a kind constant (==, !=, a switch
// case) is left in the other packages' code. Tests may compare.
func TestNoKindComparisonsOutsideBackend(t *testing.T) {
	consts := kindConstants(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "backend" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		checked++
		for _, at := range kindComparisons(t, p, consts) {
			t.Errorf("%s:%s compares a runtime kind: read its Capabilities (backend/capabilities.go) instead", rel, at)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked under %s", checked, root)
	}
}

// kindConstants are the names of this package's Kind constants.
func kindConstants(t *testing.T) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "backend.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Kind" {
				for _, n := range vs.Names {
					out[n.Name] = true
				}
			}
		}
	}
	if len(out) < 8 {
		t.Fatalf("found %d Kind constants in backend.go", len(out))
	}
	return out
}

// kindComparisons gives the positions in file p where backend.<Kind
// constant> is an operand of == or != or a switch case.
func kindComparisons(t *testing.T, p string, consts map[string]bool) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	isKind := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "backend" && consts[sel.Sel.Name]
	}
	var at []string
	line := func(n ast.Node) string {
		pos := fset.Position(n.Pos())
		return fmt.Sprintf("%d:%d", pos.Line, pos.Column)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isKind(n.X) || isKind(n.Y)) {
				at = append(at, line(n))
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isKind(e) {
					at = append(at, line(e))
				}
			}
		}
		return true
	})
	return at
}
