package plan

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

// The packages that plan through this one (serve's gateway, inspect and
// bench in cmd/dragoman, bench's runner) decide no mode, constraint or
// context themselves: their code reads none of the capabilities these
// decisions are made from, declares none of the functions that made them
// before they moved here, and writes none of their reasons. Tests may.
func TestNoPlanningOutsidePlan(t *testing.T) {
	// The capabilities only planning reads; Grammar, LazyGrammar,
	// StructuralTag and JSONSchema are also CompleteRequest fields, so they
	// count when read off a Caps() call.
	planningOnly := map[string]bool{"EnforcesToolChoice": true, "ContextPerRequest": true, "RawPrompts": true}
	constraintCaps := map[string]bool{"Grammar": true, "LazyGrammar": true, "StructuralTag": true, "JSONSchema": true}
	takes := map[string]bool{"TakesGrammar": true, "TakesLazyGrammar": true, "TakesStructuralTag": true, "TakesJSONSchema": true}
	// The planning functions and constants as they were in the gateway.
	moved := map[string]bool{"PlanCalls": true, "PlanCallsContext": true, "planCalls": true, "forcedBySchema": true,
		"ownMode": true, "callReserve": true, "forcedReasoningMin": true, "defaultOutput": true, "choiceName": true, "describeChoice": true}
	// Fragments of the reasons only planning writes.
	reasons := []string{"relay mode: ", "num_ctx %d", "call grammar", "chat API does not enforce", "cannot be enforced",
		"closes the reasoning", "kept for the call", "takes no call constraint"}

	checked := 0
	for _, dir := range []string{"gateway", "cmd", "bench"} {
		root := filepath.Join("..", dir)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			checked++
			for _, at := range planningIn(t, p, planningOnly, constraintCaps, takes, moved, reasons) {
				t.Errorf("%s:%s: planning belongs in package plan", p, at)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked", checked)
	}
}

// planningIn lists where file p makes a planning decision of its own.
func planningIn(t *testing.T, p string, planningOnly, constraintCaps, takes, moved map[string]bool, reasons []string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	add := func(n ast.Node, what string) {
		pos := fset.Position(n.Pos())
		at = append(at, fmt.Sprintf("%d:%d: %s", pos.Line, pos.Column, what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			name := n.Sel.Name
			switch {
			case planningOnly[name]:
				add(n, "reads the capability "+name)
			case takes[name]:
				add(n, "calls "+name)
			case constraintCaps[name] && isCapsCall(n.X):
				add(n, "reads the capability "+name)
			}
		case *ast.FuncDecl:
			if moved[n.Name.Name] {
				add(n, "declares "+n.Name.Name)
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				if moved[id.Name] {
					add(id, "declares "+id.Name)
				}
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				for _, r := range reasons {
					if strings.Contains(n.Value, r) {
						add(n, fmt.Sprintf("writes a planning reason (%q)", r))
					}
				}
			}
		}
		return true
	})
	return at
}

// isCapsCall reports whether e is a call of a method named Caps.
func isCapsCall(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Caps"
}
