package golden

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/internal/parallel"
)

// Options control a run. The zero Options compare every case with its
// golden on all cores and write nothing.
type Options struct {
	// Jobs is how many cases run at once; ≤ 0 means all cores. The report
	// is the same for every value.
	Jobs int
	// Update rewrites the goldens of cases that differ or have none,
	// atomically. A case whose expectation fails is never updated.
	Update bool
	// Pending writes NAME.golden.new beside the golden of each case that
	// differs or has none, for `ka2 review`. It cannot be combined with
	// Update.
	Pending bool
	// Prune deletes unreferenced goldens.
	Prune bool
	// CI says the run is on a CI system (the CLI sets it from the CI
	// environment variable). Update and Prune then refuse to write unless
	// Force is set.
	CI    bool
	Force bool
	// RejectUnreferenced makes unreferenced goldens that are not pruned
	// fail the run (`--unreferenced=reject`).
	RejectUnreferenced bool
	// Shard restricts the run to one slice of the cases.
	Shard Shard
	// Progress, if not nil, is called after each case, one call at a time.
	Progress func(Progress)
	// MaxFailures, when above 0, stops the run once that many cases have
	// failed: no further case starts (those under way finish), and the
	// report says how many were not run. Which cases ran then depends on
	// Jobs, unless Jobs is 1.
	MaxFailures int
	// Clock, if not nil, stamps the report's start and end (Report.Run).
	Clock func() time.Time
	// Info is what the front end knows of the run (the ka2 build, the
	// host, the repository); Run adds the times and the inputs' digests.
	Info RunInfo
}

// Progress is how far a run is.
type Progress struct {
	Done, Total, Failed int
}

// ErrRefusedOnCI is returned by Run when it is asked to write goldens
// (Update or Prune) on CI without Force.
var ErrRefusedOnCI = errors.New("refusing to write goldens on CI")

// ErrBadOptions is returned by Run for options that contradict each other.
var ErrBadOptions = errors.New("bad options")

// ErrWrite is matched by the error Run returns when a golden or pending
// file could not be written or deleted. The report is complete even then,
// and says which case it was.
var ErrWrite = errors.New("cannot write goldens")

// Run builds every case of the suite (or of opts.Shard), compares each
// build's bytes with the case's golden and checks its expectations. The
// report lists the cases in suite order whatever opts.Jobs is.
//
// Run returns an error before running anything for options it refuses
// (ErrRefusedOnCI, ErrBadOptions). When writing a golden fails it still
// returns the whole report, along with an error matching ErrWrite.
//
// Once ctx is done no further case starts; the cases under way finish, so
// every golden is either as it was or wholly rewritten, and Run returns no
// report and an error matching ctx.Err() that says how far it got.
func Run(ctx context.Context, s *Suite, opts Options) (*Report, error) {
	if opts.Update && opts.Pending {
		return nil, hinted(ErrBadOptions, diag.Set("{update} writes goldens and {pending} writes NAME.golden.new for review: choose one"))
	}
	if (opts.Update || opts.Prune) && opts.CI && !opts.Force {
		return nil, hinted(fmt.Errorf("%w: CI is set, and a CI run that rewrites its goldens passes whatever changed", ErrRefusedOnCI),
			diag.Set("run {update} (or {prune}) locally and commit the goldens, use {pending} to keep the new output for review, "+
				"or pass {force} if this job is meant to write them"))
	}
	var started time.Time
	if opts.Clock != nil {
		started = opts.Clock()
	}
	var cases []*Case
	for _, c := range s.Cases {
		if opts.Shard.Contains(c) {
			cases = append(cases, c)
		}
	}
	// A run that writes first removes the temporary files an earlier
	// writing run left when it was killed mid-write, in the folders it
	// writes; the report lists them.
	var stale []string
	var staleErrs []error
	if opts.Update || opts.Pending {
		stale, staleErrs = removeStale(cases)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run stopped before any case ran: %w", err)
	}
	results := make([]CaseReport, len(cases))
	var mu sync.Mutex
	done, failed := 0, 0
	var failures atomic.Int64 // read before a case starts, so without mu
	folders := newGoldenFolders(cases)
	defer folders.close()
	err := parallel.Do(ctx, len(cases), opts.Jobs, func(i int) {
		defer folders.done(cases[i].golden)
		if opts.MaxFailures > 0 && failures.Load() >= int64(opts.MaxFailures) {
			return // its result stays empty: not run
		}
		results[i] = runCase(ctx, cases[i], opts, folders)
		if results[i].Status == StatusFail {
			failures.Add(1)
		}
		if opts.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		if results[i].Status == StatusFail {
			failed++
		}
		opts.Progress(Progress{Done: done, Total: len(cases), Failed: failed})
	})
	if err == nil {
		err = ctx.Err() // every case ran, but a write may have been stopped
	}
	if err != nil {
		return nil, stopped(results, err)
	}

	rep := &Report{Format: ReportFormat, Files: []FileReport{}, Unreferenced: []UnreferencedGolden{},
		RejectUnreferenced: opts.RejectUnreferenced}
	if !opts.Shard.All() {
		rep.Shard = &ShardInfo{Shard: opts.Shard, SuiteCases: len(s.Cases)}
	}
	rep.StaleRemoved = stale
	errs := staleErrs
	for i, c := range cases {
		if results[i].Name == "" {
			if rep.Stopped == nil {
				rep.Stopped = &Stopped{MaxFailures: opts.MaxFailures}
			}
			rep.Stopped.NotRun++
			continue
		}
		if n := len(rep.Files); n == 0 || rep.Files[n-1].Path != c.File {
			rep.Files = append(rep.Files, FileReport{Path: c.File})
		}
		f := &rep.Files[len(rep.Files)-1]
		f.Cases = append(f.Cases, results[i])
		if results[i].Error != "" {
			errs = append(errs, errors.New(results[i].Error))
		}
	}
	for _, p := range s.unreferenced {
		u := UnreferencedGolden{Path: p.shown()}
		if opts.Prune {
			if err := p.remove(); err != nil {
				errs = append(errs, fmt.Errorf("prune: %w", err))
			} else {
				u.Pruned = true
			}
		}
		rep.Unreferenced = append(rep.Unreferenced, u)
	}
	rep.count()
	stamp(rep, s, opts, started)
	if len(errs) > 0 {
		return rep, fmt.Errorf("%w: %w", ErrWrite, errors.Join(errs...))
	}
	return rep, nil
}

// stopped describes a run that ctx ended: how many cases ran and how many
// golden or pending files they wrote. err is ctx's error.
func stopped(results []CaseReport, err error) error {
	ran, wrote := 0, 0
	for _, r := range results {
		if r.Name == "" {
			continue // never started
		}
		ran++
		if r.State == StateUpdated || r.State == StateCreated || r.Pending != "" {
			wrote++
		}
	}
	return fmt.Errorf("run stopped after %d of %d cases, %s written, every other golden as it was: %w",
		ran, len(results), plural(wrote, "golden file"), err)
}

// runCase builds one case, compares it (reading its golden through
// folders) and writes what opts ask for. A write that ctx stops leaves
// the golden as it was and is reported as the case's error.
func runCase(ctx context.Context, c *Case, opts Options, folders *goldenFolders) CaseReport {
	o := c.Build()
	r := CaseReport{Name: c.Name, Line: c.Line, Golden: c.Golden, Outcome: outcomeName(o.Kind), Budget: caseBudget(o.Budget)}
	r.Expectations = c.check(o)
	counter, limits := c.builder.Counter, c.builder.Limits
	stored, err := readStored(c.golden, folders)
	// A golden in the stored form is compared with the build in one pass
	// that copies nothing (inStoredForm); only another form (an older
	// ka2's, one written by hand, a golden that differs) is joined (Pins)
	// and compacted. The figure (go run ./internal/tools/ka2perf regress
	// -n 20000, 5 pairs interleaved with main, which joined and compacted
	// every golden): CPU 1.34 s against 1.55 s, medians, 14% less; and
	// go test ./golden -bench CompareGolden: 2.3 µs against 15.7 µs per
	// sample golden, and no allocation against 123.
	var want []byte
	fast := err == nil && o.inStoredForm(stored)
	if err == nil && !fast {
		want = c.textPaths().join(stored) // Pins, with the paths Load worked out
	}
	switch {
	case fast || err == nil && o.matchesPinned(want):
		r.State = StateMatch
	case err == nil:
		r.State = StateDiffers
		r.Summary = Summarize(want, o.Bytes, counter, limits)
		r.Diff = Diff(c.Golden, want, "ka2 build", o.Bytes)
		r.Records = RecordChanges(want, o.Bytes)
	case errors.Is(err, fs.ErrNotExist):
		r.State = StateMissing
		r.Summary = Summarize(nil, o.Bytes, counter, limits)
		r.Records = RecordChanges(nil, o.Bytes)
	default:
		r.State = StateUnreadable
		hint := "check its permissions"
		if errors.Is(err, inputfile.ErrNotRegular) || errors.Is(err, inputfile.ErrTooLarge) {
			hint = "delete it, and update the goldens to write it again"
		}
		r.Error = fmt.Sprintf("%s: read golden: %s; %s", c.Golden, inputfile.Reason(err), hint)
	}
	if r.State == StateMatch && !fast && opts.Update && len(r.Expectations) == 0 && !bytes.Equal(stored, o.Stored()) {
		// The same contract, not in the stored form (compact, written by
		// hand, or by an older ka2 with each text one string): --update
		// writes it in the stored form, and says so, as it says of every
		// file it writes.
		if err := c.golden.write(ctx, o.Stored()); err != nil {
			r.Error = err.Error()
		} else {
			r.State, r.Summary = StateUpdated, "same contract; rewritten in the stored form (indented, one field per line, a text's lines one per line)"
		}
	}
	if r.State == StateDiffers || r.State == StateMissing {
		switch {
		case opts.Update && len(r.Expectations) > 0:
			r.Note = "not updated: a failed expectation is never written into a golden"
		case opts.Update:
			if err := c.golden.write(ctx, o.Stored()); err != nil {
				r.Error = err.Error()
				break
			}
			if err := c.golden.with(PendingSuffix).remove(); err != nil {
				r.Error = fmt.Sprintf("remove the pending golden: %v", err)
			}
			if r.State == StateMissing {
				r.State = StateCreated
			} else {
				r.State = StateUpdated
			}
		case opts.Pending:
			if err := c.golden.with(PendingSuffix).write(ctx, o.Stored()); err != nil {
				r.Error = err.Error()
				break
			}
			r.Pending = c.Golden + PendingSuffix
		}
	}
	r.Status = StatusPass
	switch {
	case r.Error != "", len(r.Expectations) > 0, r.State != StateMatch && r.State != StateUpdated && r.State != StateCreated:
		r.Status = StatusFail
	}
	return r
}

// removeStale removes stale temporary files (atomicfile.RemoveStale) from
// the golden folders of cases and returns their slash paths, sorted.
func removeStale(cases []*Case) ([]string, []error) {
	var dirs []string
	for _, c := range cases {
		dirs = append(dirs, path.Dir(c.Golden))
	}
	slices.Sort(dirs)
	var removed []string
	var errs []error
	for _, dir := range slices.Compact(dirs) {
		names, err := atomicfile.RemoveStale(filepath.FromSlash(dir))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
		}
		for _, n := range names {
			removed = append(removed, path.Join(dir, n))
		}
	}
	return removed, errs
}

func outcomeName(k ErrorKind) string {
	if k == "" {
		return "contract"
	}
	return string(k)
}

// goldenDirOf returns the folder that holds a case file's goldens.
func goldenDirOf(file string) string { return path.Dir(Path(file, "x")) }
