package serve

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch reloads the corpus when a file under the corpus folder changes,
// until ctx is done. It watches every folder of the tree (new folders
// too), ignores names starting with "." as the loader does, and waits for
// Debounce without further changes before it reloads, so a burst of writes
// (a checkout, an editor's save) is one reload; a burst that never pauses
// still reloads at least every 20 debounce periods. With the embedded
// sample corpus there is nothing to watch and Watch waits for ctx.
//
// The reload reads only the files the events name (see ReloadChanged), so
// its cost follows the change, not the size of the corpus; after lost
// events (an overflow) or an event it cannot place, it is a Reload, which
// walks the tree. A failed reload keeps the serving corpus (see Reload);
// the next change tries again. Watch returns an error only when it cannot start watching.
func (s *Server) Watch(ctx context.Context) error {
	dir := s.cfg.Build.Corpus
	if dir == "" {
		<-ctx.Done()
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := addTree(w, dir); err != nil {
		return err
	}
	debounce := s.cfg.Debounce
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time // first change not yet reloaded; zero when none
	// The changed paths not yet reloaded, relative to dir; walk is set when
	// they cannot tell the whole change.
	changed := map[string]bool{}
	walk := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if !relevant(dir, ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					if err := addTree(w, ev.Name); err != nil {
						s.log.Warn("cannot watch a new folder; changes in it are picked up on the next reload", "path", ev.Name, "error", err.Error())
					}
				}
			}
			if rel, err := filepath.Rel(dir, ev.Name); err != nil || !filepath.IsLocal(rel) {
				walk = true
			} else {
				changed[filepath.ToSlash(rel)] = true
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			wait := debounce
			if limit := 20 * debounce; now.Sub(first)+wait > limit {
				wait = max(0, limit-now.Sub(first))
			}
			timer.Reset(wait)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflow loses events: reload to be sure.
			s.log.Warn("watch error; reloading to be sure", "error", err.Error())
			walk = true
			if first.IsZero() {
				first = time.Now()
			}
			timer.Reset(debounce)
		case <-timer.C:
			first = time.Time{}
			if walk || len(changed) == 0 {
				s.Reload("watch")
			} else {
				s.ReloadChanged("watch", slices.Sorted(maps.Keys(changed)))
			}
			changed, walk = map[string]bool{}, false
		}
	}
}

// addTree watches dir and every folder below it whose name does not start
// with ".".
func addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // gone already, or unreadable: the load reports it
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// relevant reports whether an event can change the corpus: one about a
// *.md file, a folder, or a path that is gone (perhaps a removed folder),
// outside any "."-named file or folder. Permission changes count: a file
// made unreadable is a problem the load reports.
func relevant(root string, ev fsnotify.Event) bool {
	rel, err := filepath.Rel(root, ev.Name)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return false
		}
	}
	if filepath.Ext(ev.Name) == ".md" {
		return true
	}
	// Anything else matters unless it is plainly some other file: a folder
	// (whose name may well contain a dot, like v1.2) holds policy files, and
	// a path that is gone may have been such a folder.
	info, err := os.Lstat(ev.Name)
	return err != nil || !info.Mode().IsRegular()
}
