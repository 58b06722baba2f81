package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ka2/ka2/corpus"
)

// Watch reloads the corpus when a file under the corpus folder changes,
// until ctx is done. It watches every folder of the tree (new folders
// too), ignores names starting with "." as the loader does, and waits for
// Debounce without further changes before it reloads, so a burst of writes
// (a checkout, an editor's save) is one reload; a burst that never pauses
// still reloads at least every 20 debounce periods. With the embedded
// sample corpus there is nothing to watch and Watch waits for ctx.
//
// Symbolic links are followed to what they lead to: the corpus folder
// may itself be a link (or lead through one, like current -> v2), and its
// files may be links into another folder (a Kubernetes ConfigMap volume:
// travel.md -> ..data/travel.md, ..data -> ..2026_11_30_12_00_00.123).
// Watch watches the real folders, the folders the links' targets are in,
// and the folders that hold the links, so that the swap of a link (a
// ConfigMap update renames ..data_tmp over ..data; a deploy renames a new
// current link over the old) reloads and is watched anew.
//
// The reload reads only the files the events name (see ReloadChanged), so
// its cost follows the change, not the size of the corpus; after lost
// events (an overflow), a change of a link, or an event it cannot place,
// it is a Reload, which walks the tree. A failed reload keeps the serving
// corpus (see Reload); the next change tries again. Watch returns an
// error only when it cannot start watching.
func (s *Server) Watch(ctx context.Context) error {
	dir := s.cfg.Build.Corpus.Dir
	if dir == "" { // embedded: never changes
		<-ctx.Done()
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	plan, err := planWatch(dir)
	if err != nil {
		return err
	}
	if err := plan.add(w, nil); err != nil {
		return err
	}
	if s.hooks.watching != nil {
		s.hooks.watching()
	}
	debounce := s.cfg.Debounce
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time // first change not yet reloaded; zero when none
	// The changed paths not yet reloaded, relative to the corpus; walk is
	// set when they cannot tell the whole change.
	changed := map[string]bool{}
	walk := false
	pending := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		wait := debounce
		if limit := 20 * debounce; now.Sub(first)+wait > limit {
			wait = max(0, limit-now.Sub(first))
		}
		timer.Reset(wait)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			switch act, rel := plan.classify(ev); act {
			case evIgnore:
				continue
			case evRewatch:
				// A link changed: what the corpus folder and its files lead
				// to may be somewhere else now.
				if np, err := planWatch(dir); err != nil {
					s.log.Warn("cannot resolve the corpus after a link changed; watching what was watched until the next change", "path", ev.Name, "error", err.Error())
				} else {
					if err := np.add(w, plan); err != nil {
						s.log.Warn("cannot watch a folder of the corpus; changes in it are picked up on the next reload", "error", err.Error())
					}
					plan = np
					if s.hooks.watching != nil {
						s.hooks.watching()
					}
				}
				walk = true
			case evWalk:
				walk = true
			case evPath:
				if ev.Has(fsnotify.Create) {
					if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
						if err := plan.addTree(w, ev.Name); err != nil {
							s.log.Warn("cannot watch a new folder; changes in it are picked up on the next reload", "path", ev.Name, "error", err.Error())
						}
					}
				}
				changed[rel] = true
			}
			pending()
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflow loses events: reload to be sure.
			s.log.Warn("watch error; reloading to be sure", "error", err.Error())
			walk = true
			pending()
		case <-timer.C:
			first = time.Time{}
			if walk || len(changed) == 0 {
				s.Reload(ctx, "watch")
			} else {
				s.ReloadChanged(ctx, "watch", slices.Sorted(maps.Keys(changed)))
			}
			changed, walk = map[string]bool{}, false
		}
	}
}

// What an event asks of Watch.
const (
	evIgnore  = iota // nothing the corpus is made of
	evPath           // a path of the tree: reload it
	evWalk           // something the paths cannot tell: reload walking the tree
	evRewatch        // a link changed: resolve and watch again, and walk
)

// watchPlan is what Watch watches for a corpus folder, found by following
// every symbolic link that leads to the folder or from its files.
type watchPlan struct {
	real    string          // the corpus folder, every link resolved
	dirs    map[string]bool // folders watched
	links   map[string]bool // links whose change can change the corpus
	targets map[string]bool // folders, outside the walked tree, that file links lead into
}

// maxLinks bounds the links followed to resolve one path, as the
// system's own resolution does (Linux: 40).
const maxLinks = 40

// planWatch resolves the corpus folder dir and lists what to watch.
func planWatch(dir string) (*watchPlan, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &watchPlan{dirs: map[string]bool{}, links: map[string]bool{}, targets: map[string]bool{}}
	p.real, err = resolve(abs, p.links)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(p.real); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	err = filepath.WalkDir(p.real, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			if q == p.real {
				return err
			}
			return nil // gone already, or unreadable: the load reports it
		}
		if q != p.real && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			p.dirs[q] = true
		case d.Type()&fs.ModeSymlink != 0:
			// The loader reads a linked file where the link leads: watch
			// there, and every link on the way.
			target, err := resolve(q, p.links)
			if err != nil {
				return nil // a dangling link: the load reports it
			}
			info, err := os.Stat(target)
			switch {
			case err != nil:
			case !info.IsDir():
				if t := filepath.Dir(target); !p.inTree(t) {
					p.targets[t] = true
				}
			case !p.inTree(target) && p.below(target):
				// The loader reads a linked folder below a "."-named one
				// (a ConfigMap's en -> ..data/en): watch its folders.
				p.addTargets(target)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A link's own change shows as an event in the folder that holds it.
	for l := range p.links {
		p.dirs[filepath.Dir(l)] = true
	}
	for t := range p.targets {
		p.dirs[t] = true
	}
	return p, nil
}

// resolve returns the absolute, clean path abs with every symbolic link
// resolved, adding each link it went through to links.
func resolve(abs string, links map[string]bool) (string, error) {
	hops := 0
	for {
		vol := filepath.VolumeName(abs)
		parts := strings.Split(strings.Trim(filepath.ToSlash(abs[len(vol):]), "/"), "/")
		cur := vol + string(filepath.Separator)
		restarted := false
		for i, part := range parts {
			if part == "" {
				continue
			}
			next := filepath.Join(cur, part)
			info, err := os.Lstat(next)
			if err != nil {
				return "", err
			}
			if info.Mode()&fs.ModeSymlink == 0 {
				cur = next
				continue
			}
			if hops++; hops > maxLinks {
				return "", fmt.Errorf("%s: too many links", abs)
			}
			links[next] = true
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			abs = filepath.Join(append([]string{target}, parts[i+1:]...)...)
			restarted = true
			break
		}
		if !restarted {
			return cur, nil
		}
	}
}

// inTree reports whether p is the corpus folder or below it, outside any
// "."-named folder: where the loader lists files.
func (p *watchPlan) inTree(q string) bool {
	rel, err := filepath.Rel(p.real, q)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return false
		}
	}
	return true
}

// below reports whether q is the corpus folder or below it.
func (p *watchPlan) below(q string) bool {
	rel, err := filepath.Rel(p.real, q)
	return err == nil && (filepath.IsLocal(rel) || rel == ".")
}

// addTargets adds the folder dir, which the loader reads through a link,
// and every folder below it the loader reads, to the targets.
func (p *watchPlan) addTargets(dir string) {
	filepath.WalkDir(dir, func(q string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // gone already, or unreadable: the load reports it
		case !d.IsDir():
			return nil
		case q != dir && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case p.targets[q]:
			return fs.SkipDir // a loop, or a folder two links lead to: the load reports it
		}
		p.targets[q] = true
		return nil
	})
}

// add watches the plan's folders, and stops watching those of old (nil at
// the start) the plan does not have.
func (p *watchPlan) add(w *fsnotify.Watcher, old *watchPlan) error {
	var errs []error
	for _, d := range slices.Sorted(maps.Keys(p.dirs)) {
		if old != nil && old.dirs[d] {
			continue
		}
		if err := w.Add(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if old != nil {
		for d := range old.dirs {
			if !p.dirs[d] {
				w.Remove(d) // may be gone, and unwatched with it
			}
		}
	}
	return errors.Join(errs...)
}

// addTree watches dir, a new folder of the tree, and every folder below it
// whose name does not start with ".".
func (p *watchPlan) addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			if q == dir {
				return err
			}
			return nil // gone already, or unreadable: the load reports it
		}
		if !d.IsDir() {
			return nil
		}
		if q != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.Add(q); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		p.dirs[q] = true
		return nil
	})
}

// classify tells what an event asks, and for evPath the changed path,
// relative to the corpus and slash-separated.
func (p *watchPlan) classify(ev fsnotify.Event) (int, string) {
	if p.links[ev.Name] {
		return evRewatch, ""
	}
	if p.targets[filepath.Dir(ev.Name)] {
		return evWalk, "" // the file a link leads to
	}
	rel, err := filepath.Rel(p.real, ev.Name)
	if err != nil || !filepath.IsLocal(rel) {
		return evIgnore, "" // another name beside a link
	}
	if !relevant(p.real, ev) {
		return evIgnore, ""
	}
	if info, err := os.Lstat(ev.Name); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return evRewatch, "" // a new or replaced link
	}
	return evPath, filepath.ToSlash(rel)
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
	if filepath.Base(rel) == corpus.IgnoreFile {
		return true // it changes which files are policies
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
