package golden

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/parallel"
	"github.com/ka2/ka2/internal/suggest"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Suite is every case found in some case files and folders, checked and
// ready to run.
type Suite struct {
	// Files are the case files, sorted by path.
	Files []*File
	// Cases are all cases: by file, then in file order. Reports use this
	// order whatever the number of workers.
	Cases []*Case
	// Unreferenced are golden files (NAME.golden) and pending ones
	// (NAME.golden.new) in the suite's golden folders that no case refers
	// to, such as those of removed or renamed cases. Sorted, slash paths.
	Unreferenced []string
	// CaseFiles are the case files' digests, by path; Corpora are the
	// corpora the cases read, by location, with their digests.
	CaseFiles []FileDigest
	Corpora   []CorpusDigest
	// unreferenced are the same files inside their case trees, for
	// pruning.
	unreferenced []inTree
}

// ErrNoSuchCase is returned by Only for a name no case of the suite has.
var ErrNoSuchCase = errors.New("no such case")

// Only returns the suite with only the cases named (in any case file), in
// suite order; its files and unreferenced goldens are s's. A name no case
// has is an error matching ErrNoSuchCase, with the closest name as a
// suggestion.
func (s *Suite) Only(names []string) (*Suite, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := *s
	out.Cases = nil
	have := map[string]bool{}
	var all []string
	for _, c := range s.Cases {
		if !have[c.Name] {
			have[c.Name] = true
			all = append(all, c.Name)
		}
		if want[c.Name] {
			out.Cases = append(out.Cases, c)
		}
	}
	for _, n := range names {
		if have[n] {
			continue
		}
		if near := suggest.Closest(n, all); near != "" {
			return nil, fmt.Errorf("%w: no case is named %q; did you mean %q?", ErrNoSuchCase, n, near)
		}
		return nil, fmt.Errorf("%w: no case is named %q in these case files", ErrNoSuchCase, n)
	}
	return &out, nil
}

// LoadOptions change how Load resolves cases.
type LoadOptions struct {
	// Corpus, when not nil, replaces the corpus of every case, and the
	// corpus a case file names is not loaded. `ka2 impact` uses it.
	Corpus *corpus.Corpus
	// OpenCorpus opens each corpus folder the cases name, as the front end
	// does (with a project's exclusions); nil is corpus.Folder, which
	// reads what the folder's own .ka2ignore files leave.
	OpenCorpus func(dir string) corpus.Location
}

// Load reads every case file (*.yaml) in the given files and folders,
// checks it, and loads the corpus and contract definition each case names
// (each distinct one once). Folders are walked recursively, skipping
// folders named testdata (where goldens live) and those starting with "."
// or "_".
//
// On any problem Load returns an diag.List of every problem in every file
// (matched by errors.Is(err, ErrBadCases)) and no suite: no case runs when
// any case file is broken.
//
// Load stops early when ctx is done, and then returns ctx.Err() (wrapped).
func Load(ctx context.Context, paths []string, opts LoadOptions) (*Suite, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load case files: %w", err)
	}
	found, goldenDirs, errs := findFiles(paths)
	if len(found) == 0 && len(errs) == 0 {
		errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(strings.Join(paths, ", "))}, Code: CodeNoCaseFiles, Message: "no case files (*.yaml) found", Hint: diag.Fix("name the folder that holds the case files; folders named testdata or starting with . or _ are skipped")})
	}
	files := make([]*File, len(found))
	perFile := make([]error, len(found))
	digests := make([]FileDigest, len(found))
	err := parallel.Do(ctx, len(found), 0, func(i int) {
		data, err := inputfile.ReadFile(filepath.FromSlash(found[i].path), inputfile.MaxSize)
		if err != nil {
			perFile[i] = diag.List{&diag.Diagnostic{Pos: diag.Pos{Path: found[i].path}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err)}}
			return
		}
		digests[i] = FileDigest{Path: found[i].path, SHA256: fileDigest(data)}
		files[i], perFile[i] = ParseFile(found[i].path, data)
		if perFile[i] != nil {
			return
		}
		// Where each case's golden is, inside the tree the file was found
		// in: worked out here, on all cores, not in the loop below.
		for _, c := range files[i].Cases {
			c.key = found[i].rel + "\x00" + c.Name
			c.golden = inTree{root: found[i].root, rel: Path(found[i].rel, c.Name)}
			c.goldenShown = c.golden.shown()
		}
	})
	if err != nil {
		return nil, fmt.Errorf("load case files: %w", err)
	}
	s := &Suite{CaseFiles: digests}
	for i, err := range perFile {
		if err != nil {
			var l diag.List
			errors.As(err, &l)
			errs = append(errs, l...)
			continue
		}
		for _, c := range files[i].Cases {
			switch {
			case c.Config.Corpus.Dir == "":
				// The case file names no corpus, or names SampleCorpus:
				// the case format's default is the embedded sample, and
				// the library has none, so say so.
				c.Config.Corpus = corpus.Embedded()
			case opts.OpenCorpus != nil:
				c.Config.Corpus = opts.OpenCorpus(c.Config.Corpus.Dir)
			}
		}
		s.Files = append(s.Files, files[i])
		s.Cases = append(s.Cases, files[i].Cases...)
	}
	// Resolve the files that parsed, even when others did not, so that one
	// run reports every problem.
	rerrs, err := s.resolve(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("load case files: %w", err)
	}
	errs = append(errs, rerrs...)
	// Goldens are checked before any is read: a link out of the case
	// tree, a named pipe or a device stops the run here, naming it (or
	// the golden folder it is in, once).
	// Each golden folder is listed once: a name it lists as a regular
	// file is one (in a folder inside the tree), and a name it does not
	// list is missing, which is fine; only the rest (links, pipes,
	// folders) and the goldens of folders not listed are resolved one
	// by one, a walk from the tree down each.
	dirErrs := make([]*diag.Diagnostic, len(goldenDirs))
	lists := make([]map[string]fs.DirEntry, len(goldenDirs))
	if err := parallel.Do(ctx, len(goldenDirs), 0, func(i int) {
		if dirErrs[i] = goldenDirs[i].checkDir(); dirErrs[i] == nil {
			lists[i], _ = goldenDirs[i].list()
		}
	}); err != nil {
		return nil, fmt.Errorf("load case files: %w", err)
	}
	badDir := map[string]bool{}
	listed := map[string]map[string]fs.DirEntry{}
	for i, g := range goldenDirs {
		switch {
		case dirErrs[i] != nil:
			errs = append(errs, dirErrs[i])
			badDir[g.shown()] = true
		case lists[i] != nil:
			listed[g.shown()] = lists[i]
		}
	}
	for _, c := range s.Cases {
		dir := path.Dir(c.goldenShown)
		if badDir[dir] {
			continue
		}
		entries, ok := listed[dir]
		for _, t := range []struct {
			what string
			at   inTree
		}{{"golden", c.golden}, {"pending golden", c.golden.with(PendingSuffix)}} {
			if ok {
				if e, found := entries[path.Base(t.at.rel)]; !found || e.Type().IsRegular() {
					continue
				}
			}
			if d := t.at.check(t.what); d != nil {
				errs = append(errs, d)
			}
		}
	}
	if err := errs.Mark(ErrBadCases); err != nil {
		return nil, err
	}
	s.unreferenced = s.findUnreferenced(goldenDirs, listed)
	for _, u := range s.unreferenced {
		s.Unreferenced = append(s.Unreferenced, u.shown())
	}
	return s, nil
}

// caseFile is a case file found by findFiles: its path as reported, its
// path below the root it was found in (the stable part of a shard key),
// and that root, the case tree, as an OS path.
type caseFile struct{ path, rel, root string }

// findFiles lists the case files in paths, sorted by path, and the golden
// folders (testdata/golden/STEM) in which to look for unreferenced goldens.
func findFiles(paths []string) ([]caseFile, []inTree, diag.List) {
	var files []caseFile
	var goldenDirs []inTree
	var errs diag.List
	seen := map[string]bool{}
	add := func(p, rel, root string) {
		p = filepath.ToSlash(p)
		if !seen[p] {
			seen[p] = true
			files = append(files, caseFile{path: p, rel: filepath.ToSlash(rel), root: root})
		}
	}
	for _, root := range paths {
		root = filepath.Clean(root)
		info, err := os.Stat(root)
		if err != nil {
			errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(root)}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err), Hint: diag.Fix("name folders or *.yaml case files that exist")})
			continue
		}
		if !info.IsDir() {
			if !strings.HasSuffix(root, ".yaml") {
				errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(root)}, Code: CodeUnreadable, Message: "not a case file", Hint: diag.Fix("case files end in .yaml; name them or the folder that holds them")})
				continue
			}
			add(root, filepath.Base(root), filepath.Dir(root))
			goldenDirs = append(goldenDirs, inTree{root: filepath.Dir(root), rel: goldenDirOf(filepath.Base(root))})
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(p)}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err)})
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return fs.SkipDir
				}
				dirs, _ := filepath.Glob(filepath.Join(p, "testdata", "golden", "*"))
				for _, g := range dirs {
					if rel, err := filepath.Rel(root, g); err == nil {
						goldenDirs = append(goldenDirs, inTree{root: root, rel: filepath.ToSlash(rel)})
					}
				}
				return nil
			}
			if strings.HasSuffix(name, ".yaml") && !strings.HasPrefix(name, ".") {
				rel, _ := filepath.Rel(root, p)
				add(p, rel, root)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: filepath.ToSlash(root)}, Code: CodeUnreadable, Message: err.Error()})
		}
	}
	slices.SortFunc(files, func(a, b caseFile) int { return strings.Compare(a.path, b.path) })
	slices.SortFunc(goldenDirs, func(a, b inTree) int { return strings.Compare(a.shown(), b.shown()) })
	return files, slices.CompactFunc(goldenDirs, func(a, b inTree) bool { return a.shown() == b.shown() }), errs
}

// resolve loads every distinct contract definition and corpus once and
// gives each case its builder. It returns ctx.Err() when ctx ends first.
func (s *Suite) resolve(ctx context.Context, opts LoadOptions) (diag.List, error) {
	type loaded[T any] struct {
		v   T
		err error
	}
	defs := map[string]loaded[*contract.Definition]{}
	paths := map[*contract.Definition]*textPaths{}
	indexes := map[string]loaded[*selector.Index]{}
	var override *selector.Index
	if opts.Corpus != nil {
		override = selector.NewIndex(opts.Corpus)
		s.Corpora = []CorpusDigest{{Location: "(given)", Digest: opts.Corpus.Digest, Sources: len(opts.Corpus.Sources)}}
	}
	// A nil Builder.Policy means provenance.DefaultPolicy(), which parses
	// the embedded policy on every build; parse it once for the suite.
	// Extension point: a case-file `policy` key would choose another here.
	policy := provenance.DefaultPolicy()
	var errs diag.List
	seen := map[string]bool{}
	report := func(c *Case, key string, code diag.Code, hint, format string, args ...any) {
		p := c.pos[key]
		e := &diag.Diagnostic{Pos: diag.Pos{Path: c.File, Line: p.line, Col: p.col}, Code: code, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(hint)}
		if e.Line == 0 {
			e.Line = c.Line
		}
		if k := e.Error(); !seen[k] {
			seen[k] = true
			errs = append(errs, e)
		}
	}
	for _, c := range s.Cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		key := c.Config.Contract + "\x00" + c.Config.Content
		d, ok := defs[key]
		if !ok {
			d.v, d.err = contract.LoadDefinitionContent(filepath.FromSlash(c.Config.Contract), filepath.FromSlash(c.Config.Content))
			defs[key] = d
		}
		if d.err != nil {
			if _, ok := c.pos["content"]; ok && c.Config.Content != "" {
				report(c, "content", CodeContract, "fix the content file, or remove content to use the contract's",
					"content %s cannot be loaded: %v", c.Config.Content, d.err)
				continue
			}
			report(c, "contract", CodeContract, "fix the definition, or remove contract to use the embedded one",
				"contract %s cannot be loaded: %v", c.Config.Contract, d.err)
			continue
		}
		counter, limits, err := c.Config.Budget(d.v)
		if err != nil {
			var list budget.RangeErrors
			if !errors.As(err, &list) {
				report(c, "counter", CodeBudget, "", "%v", err)
				continue
			}
			for _, re := range list {
				key, hint := re.Limit, "" // the case-file key is the limit's name
				if _, set := c.pos[key]; !set && re.Capacity > 0 {
					// The contract's default reserve or wrapper does not
					// fit under the capacity the case sets.
					key = budget.LimitCapacity
					hint = fmt.Sprintf("the %s is the contract's default; set %s too, or raise capacity", re.Limit, re.Limit)
				}
				report(c, key, CodeBudget, hint, "%v", re)
			}
			continue
		}
		ix := override
		if ix == nil {
			x, ok := indexes[c.Config.Corpus.Name]
			if !ok {
				corp, err := c.Config.Corpus.Load(ctx)
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
				x.err = err
				if err == nil {
					x.v = selector.NewIndex(corp)
					s.Corpora = append(s.Corpora, CorpusDigest{Location: c.Config.Corpus.Name, Digest: corp.Digest, Sources: len(corp.Sources)})
				}
				indexes[c.Config.Corpus.Name] = x
			}
			if x.err != nil {
				report(c, "corpus", CodeCorpus, "fix the corpus (ka2 lint shows its problems), or the corpus path, which is relative to the case file",
					"corpus %s cannot be loaded:\n\t%s", c.Config.Location(), strings.ReplaceAll(x.err.Error(), "\n", "\n\t"))
				continue
			}
			ix = x.v
		}
		c.builder = &contract.Builder{Definition: d.v, Index: ix, Counter: counter, Limits: limits, Policy: policy}
		if c.paths = paths[d.v]; c.paths == nil {
			c.paths = textPathsOf(d.v)
			paths[d.v] = c.paths
		}
	}
	s.prepareEvidence()
	slices.SortFunc(s.Corpora, func(a, b CorpusDigest) int { return strings.Compare(a.Location, b.Location) })
	return errs, nil
}

// prepareEvidence gives the builders of an index a catalog of its
// evidence records (see contract.Catalog) when its cases are at least as
// many as its sources: a catalog's entry per source then costs less than
// the builds it saves from deriving their records again.
func (s *Suite) prepareEvidence() {
	uses := map[*selector.Index]int{}
	for _, c := range s.Cases {
		if c.builder != nil {
			uses[c.builder.Index]++
		}
	}
	catalogs := map[*selector.Index]*contract.Catalog{}
	for _, c := range s.Cases {
		if c.builder == nil || uses[c.builder.Index] < len(c.builder.Index.Corpus().Sources) {
			continue
		}
		ix := c.builder.Index
		if catalogs[ix] == nil {
			catalogs[ix] = contract.NewCatalog(ix)
		}
		c.builder.Catalog = catalogs[ix]
	}
}

// findUnreferenced lists the golden and pending files in goldenDirs (as
// listed, by folder) that no case refers to, sorted by path. The cases'
// goldens are keyed by folder and name, substrings of the paths Load
// worked out, and a pending golden is looked up as its golden: no path
// is built but those of the files it returns (a path joined for every
// listed file and one for every case's pending golden were 3% of a run's
// CPU, all of it on one core: ka2perf regress -n 100000 -cpuprofile).
func (s *Suite) findUnreferenced(goldenDirs []inTree, listed map[string]map[string]fs.DirEntry) []inTree {
	type inFolder struct{ dir, name string }
	ref := make(map[inFolder]bool, len(s.Cases))
	for _, c := range s.Cases {
		ref[inFolder{path.Dir(c.goldenShown), path.Base(c.goldenShown)}] = true
	}
	var out []inTree
	for _, dir := range goldenDirs {
		shown := dir.shown()
		for _, e := range listed[shown] {
			name := e.Name()
			golden, _ := strings.CutSuffix(name, PendingSuffix)
			if e.IsDir() || !strings.HasSuffix(golden, ".golden") || ref[inFolder{shown, golden}] {
				continue
			}
			out = append(out, inTree{root: dir.root, rel: path.Join(dir.rel, name)})
		}
	}
	slices.SortFunc(out, func(a, b inTree) int { return strings.Compare(a.shown(), b.shown()) })
	return out
}
