package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/linkpath"
	"github.com/ka2/ka2/internal/parallel"
)

// Corpus is a loaded, checked set of policy sources.
type Corpus struct {
	// Sources sorted by source_id, then lang (bytewise).
	Sources []*Source
	// Digest is a hex SHA-256 over every file's path and bytes, in path
	// order: the same files give the same digest whatever their walk order.
	Digest string

	// byPath is Sources in path order (bytewise), which the digest covers
	// and Update merges changes into.
	byPath []*Source
}

// Load reads every *.md file below the root of fsys. Files and folders whose
// names start with "." are skipped. Files are parsed in parallel, but the
// result never depends on walk order or scheduling.
//
// Symbolic links are followed only when fsys resolves them inside its root:
// pass an fs.FS from os.Root.FS (not os.DirFS), so that a link that leaves
// the root fails to open and is reported instead of read. Every link is
// checked, whatever its name. A link to a folder inside the root is
// followed when that folder is one the walk skips (below a "."-named
// folder, as in a Kubernetes ConfigMap volume: en -> ..data/en), and its
// files are named through the link; a link to a folder the walk reads
// where it is is not followed. A link that loops, or a second link to a
// folder already read through one, is a problem.
//
// On any problem Load returns an diag.List of every problem and no corpus.
// Every problem means all of them in one run: a duplicate source_id among
// the files that parsed is reported alongside the files that did not.
func Load(fsys fs.FS) (*Corpus, error) {
	return load(context.Background(), fsys, nil, nil)
}

// LoadContext is Load, stopping early once ctx is done: no file is read
// after that, and LoadContext returns ctx.Err() and no corpus.
func LoadContext(ctx context.Context, fsys fs.FS) (*Corpus, error) {
	return load(ctx, fsys, nil, nil)
}

// Reload loads like LoadContext, but takes prev's source for a file,
// without reading the file again, when keep reports that the file did not
// change since prev read it. keep is called once for every file the walk
// lists (concurrently, from several goroutines), with the walk's entry for
// it: nil for a file reached through a linked folder. What keep decides
// on — a file's status, a clock — is the caller's: a server that reloads
// a corpus it watches knows when a file may have changed. A nil prev or
// keep reads everything.
func Reload(ctx context.Context, fsys fs.FS, prev *Corpus, keep func(path string, d fs.DirEntry) bool) (*Corpus, error) {
	return load(ctx, fsys, prev, keep)
}

func load(ctx context.Context, fsys fs.FS, prev *Corpus, keep func(string, fs.DirEntry) bool) (*Corpus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	paths, entries, errs := files(fsys)
	if keep == nil {
		// Only keep reads the entries: let them go before the files are
		// read, rather than hold 100k of them through the whole load.
		entries = nil
	}
	fsys, _ = unwrapExclude(fsys)
	sources := make([]*Source, len(paths))
	perFile := make([]diag.List, len(paths))

	parallel.Do(ctx, len(paths), 0, func(i int) {
		if keep != nil && keep(paths[i], entries[i]) {
			if src := prev.at(paths[i]); src != nil {
				sources[i] = src
				return
			}
		}
		sources[i], perFile[i] = loadFile(fsys, paths[i], true)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

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
		var l diag.List
		errors.As(err, &l)
		errs = append(errs, l...)
	}
	if len(paths) == 0 && len(errs) == 0 {
		errs = append(errs, errEmpty())
	}
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	return c, nil
}

// at returns the source c read from the file at p, or nil.
func (c *Corpus) at(p string) *Source {
	if c == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(c.byPath, p, func(s *Source, p string) int { return strings.Compare(s.Path, p) })
	if !ok {
		return nil
	}
	return c.byPath[i]
}

// New builds a corpus from parsed sources, checking what only the whole set
// can show (duplicate source_id for a language).
func New(sources []*Source) (*Corpus, error) {
	c := &Corpus{Sources: slices.Clone(sources)}
	slices.SortFunc(c.Sources, CompareSources)
	var errs diag.List
	for i := range c.Sources {
		errs = c.checkID(errs, i)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	c.byPath = slices.Clone(sources)
	if !slices.IsSortedFunc(c.byPath, byPath) {
		slices.SortFunc(c.byPath, byPath)
	}
	c.Digest = digest(c.byPath)
	return c, nil
}

// CompareSources is the order of Corpus.Sources: source_id, then lang,
// then path (bytewise). An index or catalog kept beside a corpus merges
// an updated corpus's Sources with its previous ones in this order.
func CompareSources(a, b *Source) int {
	// Not cmp.Or, which would compare all three every time.
	if n := strings.Compare(a.ID, b.ID); n != 0 {
		return n
	}
	if n := strings.Compare(a.Lang, b.Lang); n != 0 {
		return n
	}
	return strings.Compare(a.Path, b.Path)
}

// DiffSources merges two Sources lists, each in the order of
// CompareSources (an updated corpus's and its previous one's), and calls
// gone for each source only old holds and added for each only cur holds,
// in that order; a source both hold (the same *Source: an unchanged file
// keeps its Source) is neither. An index or a catalog kept beside a
// corpus renews what the two calls name.
func DiffSources(old, cur []*Source, gone, added func(*Source)) {
	for len(old) > 0 || len(cur) > 0 {
		switch {
		case len(old) > 0 && len(cur) > 0 && old[0] == cur[0]:
			old, cur = old[1:], cur[1:]
		case len(cur) == 0 || len(old) > 0 && CompareSources(old[0], cur[0]) < 0:
			gone(old[0])
			old = old[1:]
		default:
			added(cur[0])
			cur = cur[1:]
		}
	}
}

func byPath(a, b *Source) int { return strings.Compare(a.Path, b.Path) }

// checkID appends to errs the clash of c.Sources[i] with any source of
// its source_id before it in Sources order.
func (c *Corpus) checkID(errs diag.List, i int) diag.List {
	s := c.Sources[i]
	first := i
	for first > 0 && c.Sources[first-1].ID == s.ID {
		first--
	}
	for _, o := range c.Sources[first:i] {
		if o.Lang == s.Lang || o.Lang == "" || s.Lang == "" {
			pos, _ := s.Keys.Get("source_id")
			errs = append(errs, &diag.Diagnostic{Pos: diag.Pos{Path: s.Path, Line: pos.Line, Col: pos.Col}, Code: CodeDuplicateSource, Message: fmt.Sprintf("source_id %s%s is also used by %s", s.ID, langSuffix(s.Lang), o.Path), Hint: diag.Fix("give each source its own source_id, or set a different lang on each translation")})
		}
	}
	return errs
}

// withID returns the sources with source_id id, in Sources order: a run
// of Sources, which are sorted by source_id first. A binary search, not
// a map from id to sources, which cost about 100 bytes a source to hold
// and a copy of the whole map on every delta reload.
func (c *Corpus) withID(id string) []*Source {
	i, ok := slices.BinarySearchFunc(c.Sources, id, func(s *Source, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return nil
	}
	j := i + 1
	for j < len(c.Sources) && c.Sources[j].ID == id {
		j++
	}
	return c.Sources[i:j:j]
}

func langSuffix(lang string) string {
	if lang == "" {
		return ""
	}
	return " (lang " + lang + ")"
}

// digest hashes the path and digest of every source, given in path order.
func digest(byPath []*Source) string {
	h := sha256.New()
	// Hash in blocks of many sources: a Write per string would copy each
	// to bytes, a cost that shows at 100,000 sources per reload.
	buf := make([]byte, 0, 64<<10)
	for _, s := range byPath {
		if len(buf)+len(s.Path)+2*len(s.Digest)+2 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(buf, s.Path...)
		buf = append(buf, 0)
		buf = hex.AppendEncode(buf, s.Digest[:]) // the file's digest in hex
		buf = append(buf, '\n')
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Files lists the policy files (*.md) below the root of fsys in walk order
// (lexical, folder by folder), skipping names that start with ".", as Load
// reads them. Entries it cannot read, and symbolic links that do not stay
// inside the root or loop, are returned as problems; a problem with Path "."
// means the root itself could not be read.
func Files(fsys fs.FS) ([]string, diag.List) {
	paths, _, errs := files(fsys)
	return paths, errs
}

// files is Files, with the directory entry of each path: nil for a file
// reached through a linked folder (see Reload).
func files(fsys fs.FS) ([]string, []fs.DirEntry, diag.List) {
	base, extra := unwrapExclude(fsys)
	w := &walker{fsys: base, followed: map[string]string{}, ignore: newIgnorer(base, extra)}
	w.walk(".", ".")
	for _, err := range w.ignore.errs {
		var pe *fs.PathError
		errors.As(err, &pe)
		w.errs = append(w.errs, &diag.Diagnostic{Pos: diag.Pos{Path: pe.Path}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err), Hint: diag.Fix("make the " + IgnoreFile + " file a readable regular file, or remove it")})
	}
	return w.paths, w.entries, w.errs
}

// walker lists the policy files of a corpus (see files).
//
// A link to a folder is followed when its target, inside the root, is a
// folder the walk does not list where it is: one below a "."-named folder.
// That is how Kubernetes mounts a ConfigMap whose items have paths with
// folders (en -> ..data/en, ..data -> ..2026_11_30_...): without following,
// those policies would be silently left out. The files are named through
// the link (en/travel.md). A link to a folder the walk lists anyway is not
// followed, so that no file is read twice. Each target folder is read
// through one link only: a second link to it, to a folder inside it or to a
// folder that holds it (a loop among them) is a problem, which also bounds
// the walk.
type walker struct {
	fsys    fs.FS
	paths   []string
	entries []fs.DirEntry
	errs    diag.List
	// followed maps each folder read through a link (its path with every
	// link resolved) to the link's path.
	followed map[string]string
	// ignore leaves out what IgnoreFile files and Exclude patterns name.
	ignore *ignorer
}

// walk lists the files below the folder real (every link resolved), naming
// them below logical.
func (w *walker) walk(real, logical string) {
	name := func(q string) string { // q's name through the link
		if logical == real {
			return q
		}
		return path.Join(logical, strings.TrimPrefix(strings.TrimPrefix(q, real), "/"))
	}
	err := fs.WalkDir(w.fsys, real, func(q string, d fs.DirEntry, err error) error {
		p := name(q)
		if err != nil {
			w.errs = append(w.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err), Hint: diag.Fix("check that the path exists and is readable")})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if q != real && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if q != real && w.ignore.ignored(p, d.IsDir()) {
			// Left out by a .ka2ignore or an exclude pattern, links
			// too: an excluded link is never followed or checked.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			w.ignore.enter(q, p)
		}
		isMD := path.Ext(q) == ".md"
		linked := real != logical
		if d.Type()&fs.ModeSymlink != 0 {
			// Check every link, not only *.md ones: a linked folder of
			// policies outside the root would otherwise vanish silently.
			info, err := fs.Stat(w.fsys, q)
			switch {
			case err != nil:
				w.errs = append(w.errs, w.badLink(p, q))
				return nil
			case isMD && !info.Mode().IsRegular():
				w.errs = append(w.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeSymlinkOutside, Message: "symbolic link does not lead to a file inside the corpus root", Hint: diag.Fix("replace the link with a copy of the file, or move its target into the corpus")})
				return nil
			case info.IsDir():
				w.follow(q, p)
				return nil
			}
			linked = true
		}
		if d.IsDir() || !isMD {
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 {
			// A named pipe or a device is refused by its entry, without
			// opening it: opening a pipe blocks until someone writes.
			if err := inputfile.CheckMode(p, d.Type()); err != nil {
				w.errs = append(w.errs, Unreadable(p, err))
				return nil
			}
		}
		w.paths = append(w.paths, p)
		if linked && d.Type()&fs.ModeSymlink == 0 {
			d = nil // its status is the target's, which a link swap changes
		}
		w.entries = append(w.entries, d)
		return nil
	})
	if err != nil {
		w.errs = append(w.errs, &diag.Diagnostic{Code: CodeUnreadable, Message: "cannot read the corpus: " + err.Error()})
	}
}

// follow reads the folder the link at q (named p) leads to, when the walk
// does not list that folder where it is (see walker).
func (w *walker) follow(q, p string) {
	lfs, ok := w.fsys.(fs.ReadLinkFS)
	if !ok {
		w.errs = append(w.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeSymlinkOutside, Message: "symbolic link to a folder that cannot be resolved on this file system", Hint: diag.Fix("replace the link with a copy of the folder")})
		return
	}
	target, err := ResolveLinks(lfs, q)
	if err != nil {
		w.errs = append(w.errs, w.badLink(p, q))
		return
	}
	if listed(target) {
		return // read where it is
	}
	for t, by := range w.followed {
		if t == target || strings.HasPrefix(t, target+"/") || strings.HasPrefix(target, t+"/") {
			msg := "symbolic link leads to a folder also read through " + by
			if by == p || strings.HasPrefix(p, by+"/") {
				msg = "symbolic link loop: the link leads to a folder that holds it"
			}
			w.errs = append(w.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeSymlinkLoop, Message: msg, Hint: diag.Fix("make each folder reachable through one link only, and no link lead back to a folder above it")})
			return
		}
	}
	w.followed[target] = p
	w.walk(target, p)
}

// badLink is the problem of a link at q (named p) that fs.Stat cannot
// follow: a loop, or a target outside the root or missing.
func (w *walker) badLink(p, q string) *diag.Diagnostic {
	if lfs, ok := w.fsys.(fs.ReadLinkFS); ok {
		if _, err := ResolveLinks(lfs, q); errors.Is(err, ErrLinkLoop) {
			return &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeSymlinkLoop, Message: "symbolic link loop: too many links to follow", Hint: diag.Fix("make the link lead to a file or folder, not back to another link of the loop")}
		}
	}
	return &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeSymlinkOutside, Message: "symbolic link leads outside the corpus root, or to nothing", Hint: diag.Fix("replace the link with a copy of its target, or make it a relative link to a target inside the corpus")}
}

// listed reports whether the walk lists the folder p (every link
// resolved) where it is: no part of its path starts with ".".
func listed(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return false
		}
	}
	return true
}

// ErrLinkLoop is a path whose links loop, or take more than
// linkpath.MaxLinks hops: ResolveLinks and ResolvePath fail with it.
var ErrLinkLoop = linkpath.ErrLoop

// ResolveLinks returns the path p inside fsys with every symbolic link on
// it resolved as Load resolves them: relative to the link's folder, and
// never leaving the root. A file system that holds links without
// resolving them itself (a corpus read from git) uses it to follow them
// as Load does.
func ResolveLinks(fsys fs.ReadLinkFS, p string) (string, error) {
	return linkpath.In(fsys, p, linkpath.Options{})
}

// ResolvePath returns the absolute, clean path abs with every symbolic
// link on the file system resolved, as the system resolves them, calling
// visit with each link it goes through: a service that watches a corpus
// folder watches those links too. Unlike ResolveLinks it may leave any
// root; both follow at most linkpath.MaxLinks links.
func ResolvePath(abs string, visit func(link string)) (string, error) {
	return linkpath.System(abs, linkpath.Options{Visit: visit})
}

// loadFile reads and parses the file at p; listed says the walk has just
// found it a regular file (see files), which stands for the status
// inputfile.ReadFS takes before opening it.
//
// Only a regular file of at most inputfile.MaxSize bytes is read: a named
// pipe would block the load for good, and a device could fill the memory.
func loadFile(fsys fs.FS, p string, listed bool) (*Source, diag.List) {
	var data []byte
	var err error
	if listed {
		data, err = ReadListed(fsys, p)
	} else {
		data, _, err = inputfile.ReadFS(fsys, p, inputfile.MaxSize)
	}
	if err != nil {
		return nil, diag.List{Unreadable(p, err)}
	}
	s, err := parse(p, data, true) // data is not used again
	if err != nil {
		var l diag.List
		errors.As(err, &l)
		return nil, l
	}
	return s, nil
}

// ReadListed reads the policy file at p, which Files has just listed in
// fsys, as Load reads it: only a regular file of at most
// inputfile.MaxSize bytes, whose listing stands for the status taken
// before opening it (see inputfile.ReadListed). A folder opened with
// OpenFolder reads it with fewer system calls, as Load does; the linter
// reads each file it lints so.
func ReadListed(fsys fs.FS, p string) ([]byte, error) {
	fsys, _ = unwrapExclude(fsys)
	if r, ok := fsys.(listedReader); ok {
		return r.readListed(p, inputfile.MaxSize)
	}
	data, _, err := inputfile.ReadListed(fsys, p, inputfile.MaxSize)
	return data, err
}

// listedReader is a file system that reads a file the walk has just
// listed as a regular file faster than inputfile.ReadListed, with the
// same result: a folder opened by OpenFolder on Linux.
type listedReader interface {
	readListed(name string, max int64) ([]byte, error)
}

// Unreadable is the problem for a policy file at p that cannot be read:
// Load reports it, and so does the linter.
func Unreadable(p string, err error) *diag.Diagnostic {
	hint := "check the file's permissions, and that links stay inside the corpus"
	switch {
	case errors.Is(err, inputfile.ErrNotRegular):
		hint = "replace it with a regular file, or rename it so that it does not end in .md"
	case errors.Is(err, inputfile.ErrTooLarge):
		hint = "split the policy into several files"
	}
	return &diag.Diagnostic{Pos: diag.Pos{Path: p}, Code: CodeUnreadable, Message: "cannot read: " + inputfile.Reason(err), Hint: diag.Fix(hint)}
}

// HasID reports whether some source of the corpus, in any language, has
// the source_id id.
func (c *Corpus) HasID(id string) bool { return len(c.withID(id)) > 0 }

// Lookup returns the source with the given id for lang. An empty lang
// matches when exactly one source has the id. A source without lang matches
// any lang.
func (c *Corpus) Lookup(id, lang string) (*Source, error) {
	cands := c.withID(id)
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
		hint := diag.Fix("check the source_id; `ka2 subjects` lists every source by subject")
		if len(cands) > 0 {
			hint = diag.Set("it exists in " + langsOf(cands) + "; pass one of those with {lang}")
			hint.Allowed = langList(cands)
		}
		return nil, &diag.Diagnostic{Code: CodeUnknownSource, Message: fmt.Sprintf("no source %s%s", id, langSuffix(lang)), Hint: hint}
	default:
		hint := diag.Set("pass {lang} to choose one")
		hint.Allowed = langList(match)
		return nil, &diag.Diagnostic{Code: CodeAmbiguousAddress, Message: fmt.Sprintf("source %s exists in %s", id, langsOf(match)), Hint: hint}
	}
}

// langList lists the languages of ss, "" for a source without one.
func langList(ss []*Source) []string {
	langs := make([]string, len(ss))
	for i, s := range ss {
		langs[i] = s.Lang
	}
	return langs
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
