package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/atomicfile"
	"github.com/ka2/ka2/internal/inputfile"
	"github.com/ka2/ka2/pipeline"
)

// PipelineRollbackOptions are the inputs of `ka2 pipeline rollback`.
type PipelineRollbackOptions struct {
	f     *Factory
	Dir   string
	Stage string
	cmdContext
}

// NewCmdPipelineRollback makes `ka2 pipeline rollback`. runF replaces the
// run step in tests.
func NewCmdPipelineRollback(f *Factory, runF func(*PipelineRollbackOptions) error) *cobra.Command {
	opts := &PipelineRollbackOptions{f: f}
	cmd := &cobra.Command{
		Use:   "rollback DIR STAGE",
		Short: "Discard the snapshots after a stage, so that --resume runs again from there",
		Long: `Rollback takes a --snapshots folder (DIR) back to the state it had after STAGE
ran: STAGE's snapshot and those before it stay, those after it (by their NN-
number) are moved, with a record of them (rollback.json), into
DIR/discarded/N, the first free N. A following ka2 pipeline run --resume then
reuses the kept stages and runs the rest again. STAGE "input" keeps only the
run input's snapshot.

The move is all or nothing: the record is written before any file moves, and
a rollback stopped halfway (killed, a full disk) is finished by the next
rollback, run --snapshots or replay of DIR; one stopped before its record
was written leaves DIR as it was. It prints each discarded file and the
record's path. Exit codes: 0 done (or nothing after STAGE to discard); 2 DIR
holds no snapshot of STAGE, or two, or DIR/discarded is not a folder.`,
		Example: `  ka2 pipeline rollback run/ answer
  ka2 pipeline run answer.pipeline.yaml --input question.json --snapshots run/ --resume`,
		Args: cobra.ExactArgs(2),
		RunE: runE(opts, &opts.cmdContext, func(args []string) { opts.Dir, opts.Stage = args[0], args[1] }, opts.validate, runF, runPipelineRollback),
	}
	return cmd
}

func (o *PipelineRollbackOptions) validate() error { return nil }

func runPipelineRollback(o *PipelineRollbackOptions) error {
	ctx := context.WithoutCancel(o.ctx()) // a rollback once begun is finished
	rec, where, err := rollbackSnapshots(ctx, o.Dir, o.Stage, nil)
	if err != nil {
		return err
	}
	if len(rec.Discarded) == 0 {
		fmt.Fprintf(o.f.ErrOut, "ka2: %s holds nothing after stage '%s' to discard\n", displayName(o.Dir), o.Stage)
		return nil
	}
	for _, name := range rec.Discarded {
		fmt.Fprintf(o.f.Out, "discarded %s\n", name)
	}
	_, err = fmt.Fprintf(o.f.Out, "record %s\n", filepath.ToSlash(filepath.Join(where, rollbackRecordName)))
	return err
}

// rollbackRecord is what a rollback discarded, as DIR/discarded/N/
// rollback.json records it, written before any file moves.
type rollbackRecord struct {
	// Stage is the stage rolled back to: its snapshot and those before
	// it were kept.
	Stage     string   `json:"stage"`
	Kept      []string `json:"kept"`
	Discarded []string `json:"discarded"`
}

const (
	// discardedDir is the folder in DIR that rollbacks move snapshots to.
	discardedDir = "discarded"
	// rollbackRecordName is the record in each DIR/discarded/N.
	rollbackRecordName = "rollback.json"
	// partialSuffix marks a DIR/discarded/N whose rollback is not
	// finished.
	partialSuffix = ".partial"
)

// snapshotFile is one NN-STAGE.json entry of a snapshot folder.
type snapshotFile struct {
	name  string
	n     int
	stage string
}

// listSnapshotFiles lists dir's NN-STAGE.json entries that are not folders,
// by number then name.
func listSnapshotFiles(dir string) ([]snapshotFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []snapshotFile
	for _, e := range entries {
		m := snapshotName.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(e.Name()[:strings.IndexByte(e.Name(), '-')])
		if err != nil {
			continue // too many digits to be a place in a flow
		}
		out = append(out, snapshotFile{name: e.Name(), n: n, stage: m[1]})
	}
	slices.SortFunc(out, func(a, b snapshotFile) int { return cmp.Or(cmp.Compare(a.n, b.n), strings.Compare(a.name, b.name)) })
	return out, nil
}

// rollbackSnapshots moves the snapshot files of dir numbered after
// stage's into dir/discarded/N with a record of them, and returns the
// record and that folder. The record is written first, into
// dir/discarded/N.partial; the files are moved there, and the folder is
// renamed to N last, so a rollback stopped at any point is either not
// begun (no record: finishRollbacks removes the empty folder) or
// finished by finishRollbacks. crash, when not nil, is asked before each
// step whether to stop there, as a kill would, for tests.
func rollbackSnapshots(ctx context.Context, dir, stage string, crash func(step int) bool) (rollbackRecord, string, error) {
	bad := func(err error) error { return exitError{kind: errkind.BadInput, err: fmt.Errorf("rollback: %w", err)} }
	if err := finishRollbacks(ctx, dir); err != nil {
		return rollbackRecord{}, "", bad(err)
	}
	files, err := listSnapshotFiles(dir)
	if err != nil {
		return rollbackRecord{}, "", bad(err)
	}
	var target []snapshotFile
	var stages []string
	for _, f := range files {
		if f.stage == stage {
			target = append(target, f)
		}
		stages = append(stages, f.stage)
	}
	switch len(target) {
	case 0:
		have := "no snapshots"
		if len(stages) > 0 {
			have = "snapshots of " + strings.Join(stages, ", ")
		}
		return rollbackRecord{}, "", bad(fmt.Errorf("%s holds no snapshot of stage '%s' (no NN-%s.json), so there is nothing to roll back to; it holds %s",
			displayName(dir), stage, stage, have))
	case 1:
	default:
		return rollbackRecord{}, "", bad(fmt.Errorf("%s holds two snapshots of stage '%s' (%s and %s); remove the stale one",
			displayName(dir), stage, target[0].name, target[1].name))
	}
	rec := rollbackRecord{Stage: stage, Kept: []string{}, Discarded: []string{}}
	for _, f := range files {
		if f.n > target[0].n {
			rec.Discarded = append(rec.Discarded, f.name)
		} else {
			rec.Kept = append(rec.Kept, f.name)
		}
	}
	if len(rec.Discarded) == 0 {
		return rec, "", nil
	}
	step := 0
	stop := func() bool {
		step++
		return crash != nil && crash(step)
	}
	errStopped := errors.New("stopped")
	do := func() (string, error) {
		trash := filepath.Join(dir, discardedDir)
		if stop() {
			return "", errStopped
		}
		if err := os.Mkdir(trash, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		if err := realDir(trash); err != nil {
			return "", err
		}
		n, err := nextRollback(trash)
		if err != nil {
			return "", err
		}
		final := filepath.Join(trash, strconv.Itoa(n))
		partial := final + partialSuffix
		if stop() {
			return "", errStopped
		}
		if err := os.Mkdir(partial, 0o755); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		if err := writeJSON(&buf, rec, true); err != nil {
			return "", err
		}
		if stop() {
			return "", errStopped
		}
		// The commit point: with the record in place, the rollback is
		// done as far as any later reader of dir is concerned.
		if err := atomicfile.Write(ctx, filepath.Join(partial, rollbackRecordName), buf.Bytes(), 0o644); err != nil {
			return "", err
		}
		return final, moveDiscarded(dir, partial, final, rec, stop, errStopped)
	}
	final, err := do()
	if err != nil {
		return rollbackRecord{}, "", bad(err)
	}
	return rec, final, nil
}

// rollbackFrom rolls dir back to the snapshot just before stage's, so
// that stage and every later one run again: pipeline run --from.
func rollbackFrom(ctx context.Context, dir, stage string) (rollbackRecord, string, error) {
	bad := func(err error) error { return exitError{kind: errkind.BadInput, err: fmt.Errorf("--from: %w", err)} }
	if err := finishRollbacks(ctx, dir); err != nil {
		return rollbackRecord{}, "", bad(err)
	}
	files, err := listSnapshotFiles(dir)
	if err != nil {
		return rollbackRecord{}, "", bad(err)
	}
	i := slices.IndexFunc(files, func(f snapshotFile) bool { return f.stage == stage })
	switch {
	case stage == pipeline.InputStage:
		return rollbackRecord{}, "", bad(fmt.Errorf("the run input is not a stage to run again; name the first stage of the flow"))
	case i < 0:
		return rollbackRecord{}, "", bad(fmt.Errorf("%s holds no snapshot of stage '%s' (no NN-%s.json), so there is nothing to run again from",
			displayName(dir), stage, stage))
	case i == 0:
		return rollbackRecord{}, "", bad(fmt.Errorf("%s holds no snapshot before stage '%s''s to keep", displayName(dir), stage))
	}
	return rollbackSnapshots(ctx, dir, files[i-1].stage, nil)
}

// moveDiscarded moves the files rec discards from dir into partial, then
// renames partial to final. A file already in partial moved before; one
// in both places is a conflict it refuses to settle. stop, when it says
// so, stops it before a step with errStopped.
func moveDiscarded(dir, partial, final string, rec rollbackRecord, stop func() bool, errStopped error) error {
	for _, name := range rec.Discarded {
		if stop() {
			return errStopped
		}
		src, dst := filepath.Join(dir, name), filepath.Join(partial, name)
		_, srcErr := os.Lstat(src)
		_, dstErr := os.Lstat(dst)
		switch {
		case srcErr == nil && dstErr == nil:
			return fmt.Errorf("%s is in %s and in the unfinished rollback %s; remove the one that is not wanted", name, displayName(dir), displayName(partial))
		case errors.Is(srcErr, fs.ErrNotExist) && dstErr == nil:
			continue // moved before the rollback was stopped
		case errors.Is(srcErr, fs.ErrNotExist) && errors.Is(dstErr, fs.ErrNotExist):
			continue // removed by hand since: nothing left to discard
		case srcErr != nil:
			return srcErr
		}
		if err := os.Rename(src, dst); err != nil {
			return err
		}
	}
	if stop() {
		return errStopped
	}
	if err := os.Rename(partial, final); err != nil {
		return err
	}
	// Make the renames last; a crash before this only leaves a rollback
	// that the next reader finishes.
	for _, d := range []string{dir, filepath.Dir(final)} {
		if f, err := os.Open(d); err == nil {
			_ = f.Sync()
			f.Close()
		}
	}
	return nil
}

// realDir refuses a path that is not a folder of its own: a link there
// could send the discarded snapshots anywhere.
func realDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (a link, or a file); move it away", displayName(path))
	}
	return nil
}

// nextRollback is the first N that no DIR/discarded/N or N.partial
// holds.
func nextRollback(trash string) (int, error) {
	entries, err := os.ReadDir(trash)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if k, err := strconv.Atoi(strings.TrimSuffix(e.Name(), partialSuffix)); err == nil && k > n {
			n = k
		}
	}
	return n + 1, nil
}

// finishRollbacks finishes every rollback of dir that was stopped
// halfway: one whose record was written is carried through (its files
// moved, its folder renamed); one stopped before is removed, which leaves
// dir as it was. A folder that is neither is an error, so nothing is
// lost by guessing.
func finishRollbacks(ctx context.Context, dir string) error {
	trash := filepath.Join(dir, discardedDir)
	if _, err := os.Lstat(trash); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := realDir(trash); err != nil {
		return err
	}
	entries, err := os.ReadDir(trash)
	if err != nil {
		return err
	}
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), partialSuffix)
		if !ok {
			continue
		}
		if _, err := strconv.Atoi(base); err != nil || !e.IsDir() {
			continue
		}
		partial := filepath.Join(trash, e.Name())
		data, err := inputfile.ReadFile(filepath.Join(partial, rollbackRecordName), inputfile.MaxSize)
		if errors.Is(err, fs.ErrNotExist) {
			if err := removeUnbegun(partial); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		rec, err := parseRollbackRecord(data)
		if err != nil {
			return fmt.Errorf("%s: %w", displayName(filepath.Join(partial, rollbackRecordName)), err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := moveDiscarded(dir, partial, filepath.Join(trash, base), rec, func() bool { return false }, nil); err != nil {
			return fmt.Errorf("finish the rollback in %s: %w", displayName(partial), err)
		}
	}
	// A rollback stopped before its record may have left the folder it
	// made and nothing in it; removing a folder that is not empty fails.
	_ = os.Remove(trash)
	return nil
}

// removeUnbegun removes the folder of a rollback stopped before its record
// was written: empty, or holding only the temporary file of the record.
func removeUnbegun(partial string) error {
	entries, err := os.ReadDir(partial)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "."+rollbackRecordName+".tmp-") || !e.Type().IsRegular() {
			return fmt.Errorf("%s holds %s but no %s; it is not a rollback ka2 began, so it is left for you to inspect",
				displayName(partial), e.Name(), rollbackRecordName)
		}
		if err := os.Remove(filepath.Join(partial, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(partial)
}

// parseRollbackRecord reads a record, refusing one that names anything
// but snapshot files in the snapshot folder itself.
func parseRollbackRecord(data []byte) (rollbackRecord, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec rollbackRecord
	if err := dec.Decode(&rec); err != nil {
		return rollbackRecord{}, err
	}
	for _, name := range rec.Discarded {
		if filepath.Base(name) != name || !snapshotName.MatchString(name) || strings.ContainsAny(name, `/\`) {
			return rollbackRecord{}, fmt.Errorf("it names %q, which is not a snapshot file of the folder", name)
		}
	}
	if rec.Stage == "" {
		return rollbackRecord{}, errors.New("it names no stage rolled back to")
	}
	return rec, nil
}
