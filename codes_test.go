package ka2_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ka2/ka2/lint"
)

// snakeCode is the one style of a machine code: snake_case, as the HTTP
// API's error kinds, verify's problems and grade's findings first were.
var snakeCode = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// codeTypes are the types whose constants are codes a program reads,
// named as a file outside the package writes them and as the package
// itself does.
var codeTypes = map[string]bool{
	"diag.Code": true, "diag.HintKind": true,
	"errkind.Kind":     true,
	"grade.Kind":       true,
	"golden.ErrorKind": true,
	"eval.Condition":   true,
}

// codeType reports whether a constant of type typ, declared in package
// pkg, is a code.
func codeType(pkg string, typ ast.Expr) bool {
	switch t := typ.(type) {
	case *ast.Ident:
		return codeTypes[pkg+"."+t.Name]
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			return codeTypes[x.Name+"."+t.Sel.Name]
		}
	}
	return false
}

// TestCodesAreSnakeCase: every code any package can emit is snake_case:
// the constants of the code types, wherever they are declared, and the
// lint rules' IDs from their registry. A code is a constant of its
// package, never a string literal where a problem is made, so that this
// test sees every one.
func TestCodesAreSnakeCase(t *testing.T) {
	codes := map[string]string{} // code -> where it is declared
	productFiles(t, func(fset *token.FileSet, _ string, f *ast.File) {
		pkg := f.Name.Name
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.CONST {
					return true
				}
				for _, spec := range n.Specs {
					vs := spec.(*ast.ValueSpec)
					if vs.Type == nil || !codeType(pkg, vs.Type) {
						continue
					}
					for i, v := range vs.Values {
						// "" is a type's zero value: no code.
						if s, ok := stringLit(v); ok && s != "" {
							codes[s] = fset.Position(vs.Names[i].Pos()).String()
						}
					}
				}
			case *ast.CallExpr:
				// diag.Code("x") makes a code where a constant belongs.
				if len(n.Args) == 1 && codeType(pkg, n.Fun) {
					if s, ok := stringLit(n.Args[0]); ok {
						t.Errorf("%s: code %q converted from a literal; declare it as a constant of its package", fset.Position(n.Pos()), s)
					}
				}
			case *ast.KeyValueExpr:
				// Diagnostic{Code: "x"} likewise.
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" {
					if s, ok := stringLit(n.Value); ok {
						t.Errorf("%s: Code: %q is a literal; declare it as a constant of its package", fset.Position(n.Pos()), s)
					}
				}
			}
			return true
		})
	})
	for _, r := range lint.Rules() {
		codes[r.ID] = "lint rule " + r.ID
	}
	// The scan found what it must: a code of each kind of place, so that
	// a scan that finds nothing fails rather than passes.
	for _, c := range []string{"unknown_key", "unknown_stage", "selection_missing", "unsupported_number", "bad_input", "no_example", "renamed_rule", "definition_syntax", "coverage_gap"} {
		if _, ok := codes[c]; !ok {
			t.Errorf("code %s was not found; the scan misses a kind of declaration", c)
		}
	}
	keys := make([]string, 0, len(codes))
	for c := range codes {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	for _, c := range keys {
		// An eval condition may name a place of a part
		// ("position:start"): each part is a code.
		for part := range strings.SplitSeq(c, ":") {
			if !snakeCode.MatchString(part) {
				t.Errorf("%s: code %q is not snake_case (%s)", codes[c], c, snakeCode)
				break
			}
		}
	}
}

// stringLit returns the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
