package ka2_test

import (
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
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Doc" && strings.HasPrefix(file, "corpus/lint/") {
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

// libraryFiles calls f on every non-test Go file of a library package:
// not below cmd/ or testdata, and not package main.
func libraryFiles(t *testing.T, f func(fset *token.FileSet, file string, af *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "cmd" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if af.Name.Name != "main" {
			f(fset, filepath.ToSlash(path), af)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoAliasesOfTheDiagnosticModel: one diagnostic type and one error
// body, named once. A library's alias of a diag or errkind type, or a
// constant that only re-exports one of theirs, keeps an old name compiling
// and lets two names drift into two ideas.
func TestNoAliasesOfTheDiagnosticModel(t *testing.T) {
	// model reports whether e names something of package diag or errkind.
	model := func(e ast.Expr) (*ast.SelectorExpr, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return nil, false
		}
		x, ok := sel.X.(*ast.Ident)
		return sel, ok && (x.Name == "diag" || x.Name == "errkind")
	}
	libraryFiles(t, func(fset *token.FileSet, file string, f *ast.File) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if sel, ok := model(s.Type); ok && s.Assign.IsValid() {
						t.Errorf("%s: type %s is an alias of %s.%s; use that type by its own name", fset.Position(s.Pos()), s.Name.Name, sel.X, sel.Sel.Name)
					}
				case *ast.ValueSpec:
					if s.Type != nil {
						continue
					}
					for k, v := range s.Values {
						// A conversion (string(errkind.X)) re-exports as
						// much as the bare name does.
						if call, ok := v.(*ast.CallExpr); ok && len(call.Args) == 1 {
							if _, conv := call.Fun.(*ast.Ident); conv {
								v = call.Args[0]
							}
						}
						if sel, ok := model(v); ok && s.Names[k].IsExported() {
							t.Errorf("%s: %s %s re-exports %s.%s; use it by its own name", fset.Position(s.Pos()), gd.Tok, s.Names[k].Name, sel.X, sel.Sel.Name)
						}
					}
				}
			}
		}
	})
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
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), "os.OpenRoot(") && allowed[filepath.ToSlash(path)] == "" {
			t.Errorf("%s calls os.OpenRoot; open a corpus folder with corpus.OpenFolder", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMarkupThroughHTMLTemplate: HTML and SVG are drawn through
// html/template, which escapes each value for where it lands (text, an
// attribute, a URL); markup built as strings has to remember to escape
// each value by hand, and one report page that forgot ran a script. So no
// product file, commands included, imports package html (EscapeString)
// or text/template (no escaping at all).
func TestMarkupThroughHTMLTemplate(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "html" || p == "text/template" {
				t.Errorf("%s: imports %s; draw HTML and SVG with html/template", fset.Position(imp.Pos()), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
