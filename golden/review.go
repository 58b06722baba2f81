package golden

import (
	"context"
	"errors"
	"io/fs"
)

// PendingGolden is a pending golden (NAME.golden.new, written by
// `ka2 regress --pending`) waiting for review.
type PendingGolden struct {
	Case *Case
	// Path is the pending file's path.
	Path string
	// Old is what the golden pins, or nil when there is none yet; New is
	// what the pending golden pins: each file as read, with each text's
	// line array joined back into its string (as older ka2 stored it), so
	// that Summarize and Diff read them.
	Old, New []byte
}

// Pending lists the suite's pending goldens in case order.
func (s *Suite) Pending() ([]PendingGolden, error) {
	var out []PendingGolden
	for _, c := range s.Cases {
		p := c.Golden + PendingSuffix
		_, data, err := c.readGolden(c.golden.with(PendingSuffix), nil)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		_, old, err := c.readGolden(c.golden, nil)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, PendingGolden{Case: c, Path: p, Old: old, New: data})
	}
	return out, nil
}

// Summary says in one line what accepting would change.
func (p PendingGolden) Summary() string {
	b := p.Case.builder
	return Summarize(p.Old, p.New, b.Counter, b.Limits)
}

// Diff shows what accepting would change, the golden as the old side.
func (p PendingGolden) Diff() string {
	return Diff(p.Case.Golden, p.Old, p.Path, p.New)
}

// Accept replaces the golden with the pending content, atomically, in the
// stored form (a contract as Outcome.Stored writes it, whatever form the
// pending file had; an error report as it is), and deletes the pending
// file. A ctx done before the golden is replaced leaves both files as they
// were.
func (p PendingGolden) Accept(ctx context.Context) error {
	data := p.New
	if !isErrorReport(data) {
		data = textPathsOf(p.Case.builder.Definition).store(compact(data))
	}
	if err := p.Case.golden.write(ctx, data); err != nil {
		return err
	}
	return p.Reject()
}

// Reject deletes the pending file and leaves the golden as it is.
func (p PendingGolden) Reject() error {
	return p.Case.golden.with(PendingSuffix).remove()
}
