package corpus

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Corpus is a loaded, checked set of policy sources.
type Corpus struct {
	// Sources sorted by source_id, then lang (bytewise).
	Sources []*Source
	// Digest is a hex SHA-256 over every file's path and bytes, in path
	// order: the same files give the same digest whatever their walk order.
	Digest string

	byID map[string][]*Source
}

// Load reads every *.md file below the root of fsys. Files and folders whose
// names start with "." are skipped. Files are parsed in parallel, but the
// result never depends on walk order or scheduling.
//
// Symbolic links are followed only when fsys resolves them inside its root:
// pass an fs.FS from os.Root.FS (not os.DirFS), so that a link that leaves
// the root fails to open and is reported instead of read. Every link is
// checked, whatever its name; a link to a folder inside the root is not
// followed, since that folder is read where it is.
//
// On any problem Load returns an ErrorList of every problem and no corpus.
// Every problem means all of them in one run: a duplicate source_id among
// the files that parsed is reported alongside the files that did not.
func Load(fsys fs.FS) (*Corpus, error) {
	paths, errs := Files(fsys)
	sources := make([]*Source, len(paths))
	perFile := make([]ErrorList, len(paths))

	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Go(func() {
			for i := range next {
				sources[i], perFile[i] = loadFile(fsys, paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()

	parsed := make([]*Source, 0, len(sources))
	for i, l := range perFile {
		errs = append(errs, l...)
		if sources[i] != nil {
			parsed = append(parsed, sources[i])
		}
	}
	// Check the whole set even when some files failed, so that one run
	// reports every problem (a duplicate source_id too), not the first batch.
	c, err := New(parsed)
	if err != nil {
		var l ErrorList
		errors.As(err, &l)
		errs = append(errs, l...)
	}
	if len(paths) == 0 && len(errs) == 0 {
		errs = append(errs, &Error{Code: CodeEmptyCorpus, Msg: "no policy files (*.md) found",
			Hint: "point --corpus at the folder that holds the policy files"})
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return c, nil
}

// New builds a corpus from parsed sources, checking what only the whole set
// can show (duplicate source_id for a language).
func New(sources []*Source) (*Corpus, error) {
	c := &Corpus{Sources: slices.Clone(sources), byID: map[string][]*Source{}}
	slices.SortFunc(c.Sources, func(a, b *Source) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Lang, b.Lang), strings.Compare(a.Path, b.Path))
	})
	var errs ErrorList
	for _, s := range c.Sources {
		for _, o := range c.byID[s.ID] {
			if o.Lang == s.Lang || o.Lang == "" || s.Lang == "" {
				pos := s.Keys["source_id"]
				errs = append(errs, &Error{Path: s.Path, Line: pos.Line, Col: pos.Col, Code: CodeDuplicateSource,
					Msg:  fmt.Sprintf("source_id %s%s is also used by %s", s.ID, langSuffix(s.Lang), o.Path),
					Hint: "give each source its own source_id, or set a different lang on each translation"})
			}
		}
		c.byID[s.ID] = append(c.byID[s.ID], s)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	c.Digest = digest(c.Sources)
	return c, nil
}

func langSuffix(lang string) string {
	if lang == "" {
		return ""
	}
	return " (lang " + lang + ")"
}

func digest(sources []*Source) string {
	byPath := slices.Clone(sources)
	slices.SortFunc(byPath, func(a, b *Source) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, s := range byPath {
		fmt.Fprintf(h, "%s\x00%s\n", s.Path, s.Digest)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Files lists the policy files (*.md) below the root of fsys in lexical
// order, skipping names that start with ".", as Load reads them. Entries it
// cannot read, and symbolic links that do not stay inside the root, are
// returned as problems; a problem with Path "." means the root itself could
// not be read.
func Files(fsys fs.FS) ([]string, ErrorList) {
	var paths []string
	var errs ErrorList
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, &Error{Path: p, Code: CodeUnreadable, Msg: "cannot read: " + unwrapPathError(err),
				Hint: "check that the path exists and is readable"})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		isMD := path.Ext(p) == ".md"
		if d.Type()&fs.ModeSymlink != 0 {
			// Check every link, not only *.md ones: a linked folder of
			// policies outside the root would otherwise vanish silently.
			info, err := fs.Stat(fsys, p)
			switch {
			case err != nil:
				errs = append(errs, &Error{Path: p, Code: CodeSymlinkOutside,
					Msg:  "symbolic link leads outside the corpus root, or to nothing",
					Hint: "replace the link with a copy of its target, or make it a relative link to a target inside the corpus"})
				return nil
			case isMD && !info.Mode().IsRegular():
				errs = append(errs, &Error{Path: p, Code: CodeSymlinkOutside,
					Msg:  "symbolic link does not lead to a file inside the corpus root",
					Hint: "replace the link with a copy of the file, or move its target into the corpus"})
				return nil
			}
			// A link to a folder inside the root is not followed: the folder
			// is read where it is.
		}
		if d.IsDir() || !isMD {
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		errs = append(errs, &Error{Code: CodeUnreadable, Msg: "cannot read the corpus: " + err.Error()})
	}
	return paths, errs
}

func loadFile(fsys fs.FS, p string) (*Source, ErrorList) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, ErrorList{{Path: p, Code: CodeUnreadable, Msg: "cannot read: " + unwrapPathError(err),
			Hint: "check the file's permissions, and that links stay inside the corpus"}}
	}
	s, err := Parse(p, data)
	if err != nil {
		var l ErrorList
		errors.As(err, &l)
		return nil, l
	}
	return s, nil
}

// unwrapPathError drops the operation and path that fs errors repeat, since
// our Error already carries the path.
func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Lookup returns the source with the given id for lang. An empty lang
// matches when exactly one source has the id. A source without lang matches
// any lang.
func (c *Corpus) Lookup(id, lang string) (*Source, error) {
	cands := c.byID[id]
	var match []*Source
	for _, s := range cands {
		if lang == "" || s.Lang == "" || s.Lang == lang {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		hint := "check the source_id; `ka2 select` lists every source"
		if len(cands) > 0 {
			hint = "it exists in " + langsOf(cands) + "; pass one of those with --lang"
		}
		return nil, &Error{Code: CodeUnknownSource, Msg: fmt.Sprintf("no source %s%s", id, langSuffix(lang)), Hint: hint}
	default:
		return nil, &Error{Code: CodeAmbiguousAddress,
			Msg:  fmt.Sprintf("source %s exists in %s", id, langsOf(match)),
			Hint: "pass --lang to choose one"}
	}
}

func langsOf(ss []*Source) string {
	var langs []string
	for _, s := range ss {
		l := s.Lang
		if l == "" {
			l = "(no lang)"
		}
		langs = append(langs, l)
	}
	return strings.Join(langs, ", ")
}

// Resolve returns the quote an address names, for lang (see Lookup). A
// zero range in the address means the whole body.
func (c *Corpus) Resolve(a Address, lang string) (*Source, Range, string, error) {
	s, err := c.Lookup(a.SourceID, lang)
	if err != nil {
		return nil, Range{}, "", err
	}
	r := a.Range
	if r == (Range{}) {
		r = s.Body()
	}
	q, err := s.Quote(r)
	return s, r, q, err
}
