package pipeline

import (
	"encoding/json"
	"fmt"
	"github.com/ka2/ka2/internal/plural"
	"maps"
	"slices"

	"github.com/ka2/ka2/grade"
	"github.com/ka2/ka2/internal/jsontext"
)

// Grade is the "grade" artifact of a ka2.grade stage: whether the answer
// keeps to its contract, and the findings of ka2 grade when it does not.
type Grade struct {
	OK       bool            `json:"ok"`
	Findings []grade.Finding `json:"findings"`
}

// grade runs ka2 grade's checks on the answer the stage is handed (its
// Input, the upstream output text) against the inherited "contract"
// artifact, and passes the answer on unchanged with a "grade" artifact.
// With on_fail: stop, findings stop the run once the snapshot is
// complete. The refusal phrases come from the pipeline's contract
// definition.
func (r *runner) grade(st *Stage, sc *StageContext) (StageOutput, error) {
	var answer string
	if err := json.Unmarshal(sc.Input, &answer); err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "input", Err: fmt.Errorf("%w: the stage's input is not the answer text: %v", errInternal, err)}
	}
	doc, ok := sc.Artifacts["contract"]
	if !ok {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "input",
			Err: fmt.Errorf(`%w: the stage inherited no "contract" artifact; a %s stage passes the contract on as one, and every stage between it and '%s' must inherit artifacts`,
				ErrNoContract, UsesBuild, st.Name)}
	}
	c, err := r.p.def.ReadContract("artifact contract", doc)
	if err != nil {
		return StageOutput{}, &StageError{Stage: st.Name, Step: "input", Err: err}
	}
	rep := grade.Grade(c, answer, grade.OptionsFor(r.p.def))
	res := Grade{OK: rep.OK, Findings: rep.Findings}
	if res.Findings == nil {
		res.Findings = []grade.Finding{}
	}
	var failed error
	if !res.OK {
		failed = fmt.Errorf("%w: %s, the first: %s", ErrGrade, plural.Count(len(res.Findings), "finding", "findings"), res.Findings[0])
	}
	return checkOutput(st, answer, "grade", res, failed)
}

// checkerArtifacts are the artifacts a built-in checker writes, by name,
// and the uses value of the checker that writes each. Downstream stages
// and the snapshot take such an artifact as the checker's verdict, so no
// other stage or hook may write one (ErrCheckerArtifact), and a checker's
// own wins over one it inherits from an earlier checker.
var checkerArtifacts = map[string]string{"grade": UsesGrade, "verification": UsesVerify}

// owns reports whether st is the checker that writes the artifact name.
func (st *Stage) owns(name string) bool {
	c, ok := checkerArtifacts[name]
	return ok && c == st.Uses
}

// checkerArtifact refuses arts, the artifacts stage st (or, with hook, one
// of its hooks) wrote, when they hold a name a checker writes and the
// writer is not that checker itself. step and who name the writer in the
// error.
func checkerArtifact(st *Stage, step, who string, arts map[string]json.RawMessage, hook bool) error {
	for _, name := range slices.Sorted(maps.Keys(arts)) {
		checker, ok := checkerArtifacts[name]
		if !ok || (!hook && st.owns(name)) {
			continue
		}
		return &StageError{Stage: st.Name, Step: step,
			Err: fmt.Errorf("%w: %s writes artifact '%s', which only a %s stage writes: stages downstream would take it for that check's result; name it otherwise",
				ErrCheckerArtifact, who, name, checker)}
	}
	return nil
}

// checkOutput is the output of a stage that checks what it is handed
// (ka2.grade, ka2.verify): text passed on unchanged, with res as the
// artifact named artifact. A failed check (failed is not nil) stops the
// run once the snapshot is complete, unless the stage says on_fail:
// continue.
func checkOutput(st *Stage, text, artifact string, res any, failed error) (StageOutput, error) {
	art, err := jsontext.Marshal(res)
	if err != nil {
		return StageOutput{}, err
	}
	out := StageOutput{OutputText: &text, Artifacts: map[string]json.RawMessage{artifact: art}}
	if failed != nil && st.OnFail != OnFailContinue {
		out.stop = &StageError{Stage: st.Name, Step: "run",
			Err: fmt.Errorf("%w; the %s artifact lists them all (on_fail: continue only records them)", failed, artifact)}
	}
	return out, nil
}
