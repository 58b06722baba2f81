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
// A watch follows a folder, not its name: a folder renamed or swapped
// (mv pol pol.old; mv new pol, or mv pol/a pol/b) would keep being
// watched where it went while its name holds another. So Watch also
// watches the folder that holds the corpus folder, and plans its watches
// anew, walking the tree, whenever a watched folder (or the corpus
// folder, or a folder on the way to it) is renamed, removed or created,
// after every reload that walked the tree (SIGHUP's too), and whenever
// the periodic check (every Config.PollInterval: a stat of each watched
// folder) finds a watched name that holds another folder now. When it
// cannot watch the whole corpus (the folder is gone, a folder cannot be
// watched, the system's watches ran out), it says so (see WatchStatus,
// /readyz: degraded) and falls back to a reload every PollInterval until
// it can.
//
// The reload reads only the files the events name (see ReloadChanged), so
// its cost follows the change, not the size of the corpus; after lost
// events (an overflow), a change of a link or a folder, or an event it
// cannot place, it is a Reload, which walks the tree. A failed reload
// keeps the serving corpus (see Reload); the next change tries again.
// Watch returns an error only when it cannot resolve the corpus folder's
// path.
func (s *Server) Watch(ctx context.Context) error {
	dir := s.cfg.Build.Corpus.Dir
	if dir == "" { // embedded: never changes
		<-ctx.Done()
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	wt := &watcher{s: s, abs: abs, ids: map[string]fileID{}}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w, err := fsnotify.NewWatcher(); err != nil {
		wt.broken = fmt.Errorf("cannot watch files: %w", err)
	} else {
		defer w.Close()
		wt.w, events, errs = w, w.Events, w.Errors
	}
	wt.replan()
	debounce := s.cfg.Debounce
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	poll := time.NewTicker(s.cfg.PollInterval)
	defer poll.Stop()
	var first time.Time // first change not yet reloaded; zero when none
	// The changed paths not yet reloaded, relative to the corpus; walk is
	// set when they cannot tell the whole change, replan when the watches
	// must be planned anew before the reload.
	changed := map[string]bool{}
	walk, replan := false, false
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
		case ev, ok := <-events:
			if !ok {
				events, errs = nil, nil
				wt.broken = errors.New("the file watcher stopped")
				wt.replan()
				continue
			}
			switch act, rel := wt.plan.classify(ev, wt.ids); act {
			case evIgnore:
				continue
			case evRewatch:
				// A link, the corpus folder or a watched folder changed:
				// what the names lead to may be other folders now.
				replan, walk = true, true
			case evWalk:
				walk = true
			case evPath:
				if ev.Has(fsnotify.Create) {
					if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
						if err := wt.addTree(ev.Name); err != nil {
							s.log.Warn("cannot watch a new folder; changes in it are picked up on the next reload", "path", ev.Name, "error", err.Error())
							replan = true
						}
					}
				}
				changed[rel] = true
			}
			pending()
		case err, ok := <-errs:
			if !ok {
				continue // Events closes too
			}
			// An overflow loses events: reload to be sure.
			s.log.Warn("watch error; reloading to be sure", "error", err.Error())
			walk = true
			pending()
		case <-s.reloadNote:
			// A reload not started here (SIGHUP) read the tree as it is
			// now: watch that tree.
			if wt.replan() {
				walk = true
				pending()
			}
		case <-poll.C:
			switch {
			case wt.problem() != nil:
				// Watching cannot be trusted: look again, and reload
				// whatever the watches could not tell.
				wt.replan()
				if wt.plan.ok {
					walk = true
					timer.Reset(0)
				}
			case !wt.verify():
				s.log.Warn("a watched folder of the corpus was swapped unseen; watching it anew")
				replan, walk = true, true
				timer.Reset(0)
			}
		case <-timer.C:
			first = time.Time{}
			replanned := replan
			if replan {
				// Before the reload: what changes once it read a folder is
				// then seen.
				wt.replan()
			}
			if walk || len(changed) == 0 {
				s.Reload(ctx, "watch")
			} else {
				s.ReloadChanged(ctx, "watch", slices.Sorted(maps.Keys(changed)))
			}
			select {
			case <-s.reloadNote: // this reload's own
			default:
			}
			walked := walk
			changed, walk, replan = map[string]bool{}, false, false
			// After every reload: one that walked the tree may have read
			// folders no event told of; after one that did not, a cheap
			// check that every watched name still holds its folder.
			if walked && !replanned && wt.replan() || !walked && wt.problem() == nil && !wt.verify() {
				walk = true
				pending()
			}
		}
	}
}

// fileID tells a folder from another that took its name.
type fileID struct{ dev, ino uint64 }

// watcher is Watch's state: what it watches and whether that can be
// trusted.
type watcher struct {
	s   *Server
	abs string            // the corpus folder's path, absolute
	w   *fsnotify.Watcher // nil when the system gives no watcher
	ids map[string]fileID // the folders watched, each as it was when its watch was added
	// plan is the last plan; when the corpus could not be planned, a
	// stand-in that watches the nearest folder on its path that exists.
	plan *watchPlan
	// broken is why there are no watches at all (nil while there are);
	// failed why some folders are not watched.
	broken, failed error
}

// problem is why watching cannot be trusted now, or nil.
func (wt *watcher) problem() error {
	switch {
	case wt.broken != nil:
		return wt.broken
	case !wt.plan.ok:
		return wt.plan.err
	}
	return wt.failed
}

// replan plans the watches anew and makes the watcher's follow the plan;
// it reports whether a folder is watched now that was not (or was another
// folder), in which case changes in it may have been missed.
func (wt *watcher) replan() bool {
	np, err := planWatch(wt.abs)
	if err != nil {
		np = fallbackPlan(wt.abs, err)
	}
	wt.plan = np
	added := false
	wt.failed = nil
	if wt.w != nil {
		added, wt.failed = wt.reconcile(np)
	}
	wt.report()
	if h := wt.s.hooks.watching; h != nil {
		h()
	}
	return added
}

// reconcile makes the watches those of the plan: it stops watching the
// folders the plan lacks, the names that hold another folder now and the
// watches the system dropped (a folder moved or removed loses its), then
// watches the plan's folders not watched yet.
func (wt *watcher) reconcile(np *watchPlan) (added bool, err error) {
	listed := map[string]bool{}
	for _, p := range wt.w.WatchList() {
		listed[p] = true
	}
	for p, id := range wt.ids {
		if nid, ok := np.dirs[p]; !ok || nid != id || !listed[p] {
			if listed[p] {
				wt.w.Remove(p)
			}
			delete(wt.ids, p)
		}
	}
	for p := range listed {
		if _, ok := wt.ids[p]; !ok {
			wt.w.Remove(p) // not ours any more
		}
	}
	var errs []error
	for _, d := range slices.Sorted(maps.Keys(np.dirs)) {
		if _, ok := wt.ids[d]; ok {
			continue
		}
		if err := wt.add(d); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		added = true
	}
	return added, errors.Join(errs...)
}

// add watches the folder d. The system keeps one watch per folder, named
// after the path it was first added by: a folder moved from a watched
// name would stay watched under that old name, so the old name goes
// first.
func (wt *watcher) add(d string) error {
	info, err := os.Stat(d)
	if err != nil {
		return err
	}
	id := idOf(info)
	if id != (fileID{}) {
		for q, qid := range wt.ids {
			if qid == id && q != d {
				wt.w.Remove(q)
				delete(wt.ids, q)
			}
		}
	}
	if h := wt.s.hooks.addWatch; h != nil {
		err = h(d)
	}
	if err == nil {
		err = wt.w.Add(d)
	}
	if err != nil {
		return fmt.Errorf("watch %s: %w", d, err)
	}
	wt.ids[d] = id
	return nil
}

// addTree watches dir, a new folder of the tree, and every folder below it
// whose name does not start with ".".
func (wt *watcher) addTree(dir string) error {
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
		if err := wt.add(q); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		wt.plan.dirs[q] = wt.ids[q]
		return nil
	})
}

// verify reports whether the watches still are what a plan would make
// them, as far as a stat of each watched folder tells: the corpus still
// leads to the folder watched, and every watched name still holds the
// folder it held and is still watched. A folder created unseen is not
// found this way; a reload that walks the tree finds it.
func (wt *watcher) verify() bool {
	if wt.problem() != nil {
		return false
	}
	if wt.w == nil {
		return false
	}
	if real, err := resolve(wt.abs, map[string]bool{}); err != nil || real != wt.plan.real {
		return false
	}
	listed := map[string]bool{}
	for _, p := range wt.w.WatchList() {
		listed[p] = true
	}
	for p, id := range wt.ids {
		info, err := os.Stat(p)
		if !listed[p] || err != nil || idOf(info) != id {
			return false
		}
	}
	return true
}

// report records the watcher's state for /readyz and the metrics, and
// logs a change of it.
func (wt *watcher) report() {
	st := &WatchStatus{State: WatchWatching, Folders: len(wt.ids), Since: wt.s.now()}
	if err := wt.problem(); err != nil {
		st.State, st.Error = WatchPolling, err.Error()
	}
	prev := wt.s.watch.Load()
	if prev != nil && prev.State == st.State && prev.Error == st.Error {
		st.Since = prev.Since
	}
	wt.s.watch.Store(st)
	wt.s.metrics.watchedFolders.Set(float64(st.Folders))
	if st.State == WatchWatching {
		wt.s.metrics.watchOK.Set(1)
	} else {
		wt.s.metrics.watchOK.Set(0)
	}
	switch {
	case prev != nil && prev.State == st.State && prev.Error == st.Error:
	case st.State == WatchPolling:
		wt.s.log.Warn("cannot watch the whole corpus; reloading every poll interval until it can", "error", st.Error, "poll_interval", wt.s.cfg.PollInterval)
	case prev != nil:
		wt.s.log.Info("watching the corpus again", "folders", st.Folders)
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
	abs     string            // the corpus folder as named, absolute
	real    string            // the corpus folder, every link resolved
	dirs    map[string]fileID // folders to watch, each as it was when planned
	links   map[string]bool   // links whose change can change the corpus
	targets map[string]bool   // folders, outside the walked tree, that file links lead into
	// ok is false for the stand-in of a corpus that could not be
	// planned, with err saying why.
	ok  bool
	err error
}

// planWatch resolves the corpus folder dir and lists what to watch.
func planWatch(dir string) (*watchPlan, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &watchPlan{abs: abs, dirs: map[string]fileID{}, links: map[string]bool{}, targets: map[string]bool{}, ok: true}
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
			p.dirs[q] = fileID{}
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
	// A link's own change shows as an event in the folder that holds it,
	// and so does the rename, removal or creation of the corpus folder.
	for l := range p.links {
		p.dirs[filepath.Dir(l)] = fileID{}
	}
	for t := range p.targets {
		p.dirs[t] = fileID{}
	}
	p.dirs[filepath.Dir(p.real)] = fileID{}
	p.dirs[filepath.Dir(abs)] = fileID{}
	for d := range p.dirs {
		if info, err := os.Stat(d); err == nil {
			p.dirs[d] = idOf(info)
		}
	}
	return p, nil
}

// fallbackPlan stands in for the plan of a corpus folder abs that could
// not be planned (err: it is gone, say): it watches the nearest folder on
// abs's path that exists, so that the folder's return is seen.
func fallbackPlan(abs string, err error) *watchPlan {
	p := &watchPlan{abs: abs, real: abs, dirs: map[string]fileID{}, links: map[string]bool{}, targets: map[string]bool{},
		err: fmt.Errorf("cannot watch the corpus folder: %w", err)}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			p.dirs[d] = idOf(info)
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return p
}

// resolve returns the absolute, clean path abs with every symbolic link
// resolved (see corpus.ResolvePath), adding each link it went through to
// links.
func resolve(abs string, links map[string]bool) (string, error) {
	return corpus.ResolvePath(abs, func(link string) { links[link] = true })
}

// onPath reports whether name is the corpus folder, as named or where
// its links lead, or a folder on the way to it.
func (p *watchPlan) onPath(name string) bool {
	for _, f := range []string{p.abs, p.real} {
		if rel, err := filepath.Rel(name, f); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return true
		}
	}
	return false
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

// classify tells what an event asks, and for evPath the changed path,
// relative to the corpus and slash-separated; watched are the folders
// watched.
func (p *watchPlan) classify(ev fsnotify.Event, watched map[string]fileID) (int, string) {
	if !p.ok {
		return evRewatch, "" // the corpus folder may be back
	}
	if p.links[ev.Name] || p.onPath(ev.Name) {
		return evRewatch, ""
	}
	if _, ok := watched[ev.Name]; ok && ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
		// Its watch, and those below it, follow it to where it went.
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
