package corpus

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/ka2/ka2/internal/diag"
)

// SampleName names the embedded sample corpus wherever a corpus location
// is written down: in traces, in messages and in regression case files
// (see Embedded). The sample is only ever used when it is named.
const SampleName = "embedded:sample"

// ErrNoCorpus is a Location that has no files: the zero Location never
// silently means the embedded sample.
var ErrNoCorpus = errors.New("no corpus given")

// Location is where a corpus's files are, and the name traces and
// problems give it. Folder, Embedded and FromFS make one; Narrow filters
// the files every load reads, for example through a project's exclusions
// (Exclude).
type Location struct {
	// FS holds files that are in no folder (the embedded sample, a test's
	// fstest.MapFS); nil for a Folder.
	FS fs.FS
	// Name is the corpus as traces record it, and what the paths of its
	// problems are joined to: the folder, slash separated, or SampleName.
	Name string
	// Dir is the folder of a Folder location, "" otherwise: each load
	// opens it afresh (a server watches it and follows a link swapped in
	// under it) and reads all of its files through that one opening.
	Dir string
	// narrow filters the files of every load, in order (see Narrow).
	narrow []func(fs.FS) fs.FS
}

// Embedded is the embedded sample corpus (Sample), named SampleName.
func Embedded() Location { return FromFS(SampleName, Sample()) }

// FromFS is the corpus of the files in fsys, named name.
func FromFS(name string, fsys fs.FS) Location { return Location{FS: fsys, Name: name} }

// Folder is the corpus in folder dir. Each load opens dir once, with
// OpenFolder: it follows a link swapped in under dir since the last load
// (a ConfigMap's ..data, current -> v2), reads every file of that one
// folder even if the link is swapped again mid-load, and resolves links
// inside the folder only, so that a link that leaves it fails to open and
// is reported. Folder("") names no folder: it is the zero Location, which
// does not load.
func Folder(dir string) Location {
	if dir == "" {
		return Location{}
	}
	return Location{Name: filepath.ToSlash(dir), Dir: dir}
}

// Narrow returns l with f applied to the files every load reads, after
// any filter l already has.
func (l Location) Narrow(f func(fs.FS) fs.FS) Location {
	l.narrow = append(slices.Clip(l.narrow), f)
	return l
}

// open returns the files of one load and what ends the load's use of
// them: a Folder opened once (OpenFolder), with every Narrow filter
// applied. A location without files is ErrNoCorpus.
func (l Location) open() (fs.FS, func(), error) {
	fsys, done := l.FS, func() {}
	switch {
	case l.Dir != "":
		var err error
		fsys, done, err = OpenFolder(l.Dir)
		if err != nil {
			// A folder that cannot be opened is one problem, said once,
			// not one for every file the load would have read.
			return nil, nil, &diag.Diagnostic{Message: "open corpus: " + err.Error(), Err: err,
				Hint: diag.Set("check the folder {corpus} names")}
		}
	case l.FS == nil:
		return nil, nil, &diag.Diagnostic{Message: ErrNoCorpus.Error(), Err: ErrNoCorpus,
			Hint: diag.Set("name a corpus folder in {corpus}, or " + SampleName + " for the embedded sample")}
	}
	for _, f := range l.narrow {
		fsys = f(fsys)
	}
	return fsys, done, nil
}

// Load reads the corpus at l, stopping early once ctx is done (see
// LoadContext); it then returns ctx.Err() and no corpus. Problems name
// files as a person would type them: l.Name joined with the path inside
// the corpus.
func (l Location) Load(ctx context.Context) (*Corpus, error) {
	return l.LoadWith(func(fsys fs.FS) (*Corpus, error) { return LoadContext(ctx, fsys) })
}

// LoadWith is Load, reading l's files with load: a server passes a load
// that reuses what it read before.
func (l Location) LoadWith(load func(fs.FS) (*Corpus, error)) (*Corpus, error) {
	fsys, done, err := l.open()
	if err != nil {
		return nil, err
	}
	defer done()
	corp, err := load(fsys)
	if err != nil {
		return nil, l.named(err)
	}
	return corp, nil
}

// named names the files of a problem as a person would type them, l.Name
// joined with the path inside the corpus; a cancellation stays as it is.
func (l Location) named(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var list diag.List
	if errors.As(err, &list) {
		for _, e := range list {
			e.Path = path.Join(l.Name, e.Path)
		}
	}
	return err
}

// OpenFolder opens the corpus folder dir for one load, the one place that
// opens a corpus folder (a Folder's loads, lint, the language server, the
// service's change stamps go through it). It opens dir once, with
// os.OpenRoot: a link swapped in under dir since the last opening is
// followed (a ConfigMap's ..data, current -> v2), every file is read from
// that one folder even if the link is swapped again mid-load, and links
// resolve inside the folder only, so that a link that leaves it fails to
// open. done releases the folder once the load is over.
//
// On Linux the load lists each folder and reads each policy file in it
// with fewer system calls than os.Root takes, under the same guarantees
// (see folder in folder_linux.go); fsys reads like os.Root's FS.
func OpenFolder(dir string) (fsys fs.FS, done func(), err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	fsys, done = rootFolder(root)
	return fsys, done, nil
}
