package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"maps"
	"slices"
	"strings"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// hooks are the hooks that run before (before) or after a stage, in the
// order they run: the pipeline's before_stage, then the stage's before;
// the stage's after, then the pipeline's after_stage.
func (r *runner) hooks(st *Stage, before bool) []*Hook {
	var hs []*Hook
	add := func(h *Hook) {
		if h != nil {
			hs = append(hs, h)
		}
	}
	if before {
		add(r.p.Hooks.BeforeStage)
		add(st.Before)
	} else {
		add(st.After)
		add(r.p.Hooks.AfterStage)
	}
	return hs
}

// hookOutput is what a hook may print on stdout: nothing, or artifacts to
// add to the stage's snapshot.
type hookOutput struct {
	Artifacts map[string]json.RawMessage `json:"artifacts"`
}

// runHooks runs the stage's before (or after) hooks in order, each
// handed stdin as JSON, marshalled afresh so that it carries the
// artifacts the hooks before it added to arts.
func (r *runner) runHooks(ctx context.Context, st *Stage, before bool, stdin any, arts map[string]json.RawMessage, snap *Snapshot) error {
	for _, h := range r.hooks(st, before) {
		data, err := jsontext.Marshal(stdin)
		if err != nil {
			return err
		}
		added, err := r.hook(ctx, st, h, data, snap)
		if err != nil {
			return err
		}
		// hook recorded its run last.
		snap.Hooks[len(snap.Hooks)-1].Kept = addArtifacts(arts, added, &snap.ArtifactClashes)
	}
	return nil
}

// hook runs one hook with stdin, under the stage's time limit and the
// rules of an exec stage, and returns the artifacts it adds. A non-zero
// exit vetoes the stage (ErrVetoed).
func (r *runner) hook(ctx context.Context, st *Stage, h *Hook, stdin []byte, snap *Snapshot) (map[string]json.RawMessage, error) {
	rec := HookRun{Hook: h.Kind, Exec: h.Exec}
	stdout, err := r.program(ctx, st, h.Exec, stdin, &rec.Stderr, &rec.ExitCode)
	defer func() { snap.Hooks = append(snap.Hooks, rec) }()
	who := fmt.Sprintf("hook %s (%s) of stage '%s'", h.Kind, strings.Join(h.Exec, " "), st.Name)
	if err != nil {
		var se *StageError
		if errors.As(err, &se) {
			se.Step = h.Kind
			switch {
			case errors.Is(se.Err, ErrStageFailed) && rec.ExitCode > 0:
				e := fmt.Errorf("%w: %s exited with status %d", ErrVetoed, who, rec.ExitCode)
				if line := lastLine(rec.Stderr); line != "" {
					e = fmt.Errorf("%w: %s", e, line)
				}
				se.Err = e
			default:
				se.Err = fmt.Errorf("%s: %w", who, se.Err)
			}
		}
		return nil, err
	}
	if len(bytes.TrimSpace(stdout)) == 0 {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return &StageError{Stage: st.Name, Step: h.Kind,
			Err: fmt.Errorf("%w: %s: %s", ErrBadOutput, who, fmt.Sprintf(format, args...))}
	}
	if err := checkText(stdout); err != nil {
		return nil, fail("stdout: %v", err)
	}
	if err := checkKeys(stdout, hookOutputMap); err != nil {
		return nil, fail(`%v; a hook prints nothing, or {"artifacts": {"NAME": VALUE, …}}`, err)
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.DisallowUnknownFields()
	var out hookOutput
	if err := dec.Decode(&out); err != nil {
		return nil, fail(`%v; a hook prints nothing, or {"artifacts": {"NAME": VALUE, …}}`, err)
	}
	if dec.More() {
		return nil, fail("more than one JSON value on stdout")
	}
	for name := range out.Artifacts {
		if name == "" {
			return nil, fail("an artifact has an empty name")
		}
	}
	if err := checkerArtifact(st, h.Kind, who, out.Artifacts, true); err != nil {
		return nil, err
	}
	rec.Artifacts = slices.Sorted(maps.Keys(out.Artifacts))
	return out.Artifacts, nil
}

// checkLimits fails a stage whose output text is over its
// max_output_bytes or max_output_tokens.
func (r *runner) checkLimits(st *Stage, text string) error {
	fail := func(format string, args ...any) error {
		return &StageError{Stage: st.Name, Step: "output", Err: fmt.Errorf("%w: %s", ErrOutputLimit, fmt.Sprintf(format, args...))}
	}
	if st.MaxOutputBytes > 0 && len(text) > st.MaxOutputBytes {
		return fail("its output text is %d bytes, over its max_output_bytes %d by %d; shorten the output or raise the limit",
			len(text), st.MaxOutputBytes, len(text)-st.MaxOutputBytes)
	}
	if st.MaxOutputTokens == 0 {
		return nil
	}
	b := r.opts.Builder
	limit, what := st.MaxOutputTokens, fmt.Sprintf("its max_output_tokens %d", st.MaxOutputTokens)
	if limit == ReserveTokens {
		limit = b.Limits.Reserve
		what = fmt.Sprintf("the contract's output reserve R = %d (max_output_tokens: reserve)", limit)
	}
	if n := b.Counter.Count(text); n > limit {
		return fail("its output text is %d %s units, over %s by %d; the output must fit the room the contract reserved for it",
			n, b.Counter.Name(), what, n-limit)
	}
	return nil
}

// Verification is the "verification" artifact of a ka2.verify stage: the
// problems as `ka2 verify --format json` lists them, their hints in
// front-end-neutral words.
type Verification struct {
	OK       bool                   `json:"ok"`
	Problems []contract.ProblemJSON `json:"problems"`
}

// verify checks the contract the stage is handed against the corpus, the
// same checks as ka2 verify, and passes it on unchanged with a
// "verification" artifact. With on_fail: stop, problems stop the run once
// the snapshot is complete.
func (r *runner) verify(st *Stage, sc *StageContext) (StageOutput, error) {
	v := r.opts.Builder.Verify(sc.Input, "")
	res := Verification{OK: v.OK(), Problems: contract.ProblemsJSON(v.Problems, diag.SettingWords)}
	var failed error
	if !res.OK {
		failed = fmt.Errorf("%w: %s, the first: %s", ErrVerification, plural.Count(len(v.Problems), "problem", "problems"), v.Problems[0])
	}
	return checkOutput(st, string(sc.Input), "verification", res, failed)
}
