package ka2_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// flagWord is a command-line flag named in text: "--name".
var flagWord = regexp.MustCompile(`(^|[^-\w])--[a-z]`)

// flagWordsAllowed are the string literals in library code that name a
// flag and are not messages to a user of the library, by file and a part
// of the literal, each with why it may.
var flagWordsAllowed = []struct{ file, part, why string }{}

// TestLibrariesNameNoFlags: libraries return structured hints (see
// internal/diag), and each front end words them: the CLI as flags, the
// service as request fields. A string literal in a library package that
// names a flag is a message the service would send wrongly worded.
// Commands (cmd/, package main) are the CLI and may name flags; comments
// and tests are not scanned.
func TestLibrariesNameNoFlags(t *testing.T) {
	used := map[int]bool{}
	libraryFiles(t, func(fset *token.FileSet, file string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			// A lint rule's Doc is its documentation (the SARIF rule
			// help), which describes what the CLI does; it is no advice
			// a front end words.
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Doc" && strings.HasPrefix(file, "lint/") {
					return false
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !flagWord.MatchString(s) {
				return true
			}
			for i, a := range flagWordsAllowed {
				if a.file == file && strings.Contains(s, a.part) {
					used[i] = true
					return true
				}
			}
			t.Errorf("%s: a library message names a flag: %.80q; return a structured hint (diag.Set) that each front end words", fset.Position(lit.Pos()), s)
			return true
		})
	})
	for i, a := range flagWordsAllowed {
		if !used[i] {
			t.Errorf("%s: allowed %q is no longer there; remove it from flagWordsAllowed", a.file, a.part)
		}
	}
}

// productFiles calls f on every non-test Go file of the module, commands
// and tools included: not below testdata or a hidden folder. Files are
// named with slashes. The files are parsed once for every test that asks.
func productFiles(t *testing.T, f func(fset *token.FileSet, file string, af *ast.File)) {
	t.Helper()
	parsed := parseProductFiles()
	if parsed.err != nil {
		t.Fatal(parsed.err)
	}
	for i, file := range parsed.names {
		f(parsed.fset, file, parsed.files[i])
	}
}

// parseProductFiles parses the files productFiles walks, once.
var parseProductFiles = sync.OnceValue(func() (out struct {
	fset  *token.FileSet
	names []string
	files []*ast.File
	err   error
}) {
	out.fset = token.NewFileSet()
	out.err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(out.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out.names = append(out.names, filepath.ToSlash(path))
		out.files = append(out.files, af)
		return nil
	})
	return out
})

// libraryFiles calls f on every non-test Go file of a library package:
// not below cmd/ or testdata, and not package main.
func libraryFiles(t *testing.T, f func(fset *token.FileSet, file string, af *ast.File)) {
	t.Helper()
	productFiles(t, func(fset *token.FileSet, file string, af *ast.File) {
		if !strings.HasPrefix(file, "cmd/") && af.Name.Name != "main" {
			f(fset, file, af)
		}
	})
}

// TestNoAliasesOfTheDiagnosticModel: one diagnostic type and one error
// body, named once. A library's alias of a diag or errkind type, or a
// constant that only re-exports one of theirs, keeps an old name compiling
// and lets two names drift into two ideas.
func TestNoAliasesOfTheDiagnosticModel(t *testing.T) {
	libraryFiles(t, func(fset *token.FileSet, file string, f *ast.File) {
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok {
				for _, a := range modelAliases(gd) {
					t.Errorf("%s: %s; use it by its own name", fset.Position(a.pos), a.what)
				}
			}
		}
	})
}

// modelAlias is an exported name that only names something of package
// diag or errkind again.
type modelAlias struct {
	pos  token.Pos
	what string
}

// modelAliases finds gd's aliases of the diagnostic model: a type alias
// of a diag or errkind type, and a constant or variable whose value is
// one of their names, bare or through conversions (string(errkind.X),
// Kind(errkind.X), errkind.Kind(diag.X)), typed or not.
func modelAliases(gd *ast.GenDecl) []modelAlias {
	// model reports whether e names something of package diag or errkind.
	model := func(e ast.Expr) (*ast.SelectorExpr, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return nil, false
		}
		x, ok := sel.X.(*ast.Ident)
		return sel, ok && (x.Name == "diag" || x.Name == "errkind")
	}
	// unconvert strips conversions and parentheses: a call of a type
	// name, local or qualified, with one argument. A call of a model
	// name is no conversion, but a value computed from it.
	unconvert := func(e ast.Expr) ast.Expr {
		for {
			switch v := e.(type) {
			case *ast.ParenExpr:
				e = v.X
				continue
			case *ast.CallExpr:
				if len(v.Args) == 1 {
					switch v.Fun.(type) {
					case *ast.Ident, *ast.SelectorExpr, *ast.ParenExpr:
						e = v.Args[0]
						continue
					}
				}
			}
			return e
		}
	}
	var out []modelAlias
	for _, spec := range gd.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if sel, ok := model(s.Type); ok && s.Assign.IsValid() {
				out = append(out, modelAlias{s.Pos(), fmt.Sprintf("type %s is an alias of %s.%s", s.Name.Name, sel.X, sel.Sel.Name)})
			}
		case *ast.ValueSpec:
			for k, v := range s.Values {
				if sel, ok := model(unconvert(v)); ok && k < len(s.Names) && s.Names[k].IsExported() {
					out = append(out, modelAlias{s.Pos(), fmt.Sprintf("%s %s re-exports %s.%s", gd.Tok, s.Names[k].Name, sel.X, sel.Sel.Name)})
				}
			}
		}
	}
	return out
}

// TestModelAliasesCaught: every way of naming the model again is found,
// and what only uses it is not.
func TestModelAliasesCaught(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"type Diagnostic = diag.Diagnostic", 1},
		{"type Diagnostic diag.Diagnostic", 0}, // a new type, not an alias
		{"const KindBadRequest = errkind.BadRequest", 1},
		{"const KindBadRequest = string(errkind.BadRequest)", 1},
		{"const KindBadRequest string = string(errkind.BadRequest)", 1},
		{"const KindBadRequest Kind = Kind(string(errkind.BadRequest))", 1},
		{"const KindBadRequest = (errkind.Kind)(errkind.BadRequest)", 1},
		{"var ErrThing = diag.ErrSomething", 1},
		{"var ErrThing error = diag.ErrSomething", 1},
		{"const (\n\tA = string(errkind.BadRequest)\n\tB = string(errkind.NotFound)\n)", 2},
		{"const kindBadRequest = string(errkind.BadRequest)", 0}, // unexported: no second public name
		{"var hint = diag.Fix(\"check the folder\")", 0},
		{"var Hint = diag.Set(\"x\").Text", 0},
		{"var Kinds = []string{string(errkind.BadRequest)}", 0},
		{"const Status = 404", 0},
	}
	for _, tt := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+tt.src+"\n", parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		var got []string
		for _, decl := range f.Decls {
			for _, a := range modelAliases(decl.(*ast.GenDecl)) {
				got = append(got, a.what)
			}
		}
		if len(got) != tt.want {
			t.Errorf("%q: found %q, want %d", tt.src, got, tt.want)
		}
	}
}

// TestREADMEListsEveryPackage: the "Using ka2 from Go" table of docs/go.md
// names every package a Go program can import (not cmd/, not internal/),
// and no other.
func TestREADMEListsEveryPackage(t *testing.T) {
	const page = "docs/go.md"
	data, err := os.ReadFile(filepath.FromSlash(page))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut("\n"+string(data), "\n# Using ka2 from Go\n")
	if !ok {
		t.Fatalf("%s has no section # Using ka2 from Go", page)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)`")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	var want []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "cmd" || name == "internal" || name == "testdata" || name == "deploy" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(path))
			if dir == "." {
				dir = "ka2"
			}
			if !slices.Contains(want, dir) {
				want = append(want, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(want, listed) {
		t.Errorf("%s's package table lists %v, the module has %v", page, listed, want)
	}
}

// TestOneCorpusOpener: a corpus folder is opened in one place,
// corpus.OpenFolder; os.OpenRoot in library and command code is that, or
// a folder that is no corpus (by file, with why).
func TestOneCorpusOpener(t *testing.T) {
	allowed := map[string]string{
		"corpus/folder.go":                  "the one corpus opener",
		"golden/tree.go":                    "the case-file tree, not a corpus",
		"internal/atomicfile/atomicfile.go": "the folder a file is replaced in",
	}
	productFiles(t, func(_ *token.FileSet, file string, _ *ast.File) {
		data, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "os.OpenRoot(") && allowed[file] == "" {
			t.Errorf("%s calls os.OpenRoot; open a corpus folder with corpus.OpenFolder", file)
		}
	})
}

// TestMarkupThroughHTMLTemplate: HTML and SVG are drawn through
// html/template, which escapes each value for where it lands (text, an
// attribute, a URL); markup built as strings has to remember to escape
// each value by hand, and one report page that forgot ran a script. So no
// product file, commands included, imports package html (EscapeString)
// or text/template (no escaping at all).
func TestMarkupThroughHTMLTemplate(t *testing.T) {
	productFiles(t, func(fset *token.FileSet, _ string, af *ast.File) {
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "html" || p == "text/template" {
				t.Errorf("%s: imports %s; draw HTML and SVG with html/template", fset.Position(imp.Pos()), p)
			}
		}
	})
}

// TestOneEnumOfContextTypes: the context types (instruction, example,
// memory, evidence, tool_output, scope, question) are one enum,
// provenance.Kind; a second type whose constants spell them (the budget's
// part kinds once did) is two names for one idea that can drift apart.
func TestOneEnumOfContextTypes(t *testing.T) {
	contextTypes := map[string]bool{"instruction": true, "example": true, "memory": true, "evidence": true,
		"tool_output": true, "scope": true, "question": true}
	libraryFiles(t, func(fset *token.FileSet, file string, f *ast.File) {
		spelled := map[string][]string{} // type → the context types its constants spell
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				s := spec.(*ast.ValueSpec)
				typ, ok := s.Type.(*ast.Ident) // a type of this package
				if !ok {
					continue
				}
				for _, v := range s.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if text, err := strconv.Unquote(lit.Value); err == nil && contextTypes[text] {
							spelled[typ.Name] = append(spelled[typ.Name], text)
						}
					}
				}
			}
		}
		for typ, values := range spelled {
			if len(values) >= 3 && !(file == "provenance/kind.go" && typ == "Kind") {
				t.Errorf("%s: type %s spells the context types %v; use provenance.Kind", file, typ, values)
			}
		}
	})
}
