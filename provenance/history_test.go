package provenance_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/provenance"
)

// busyStore runs a little of everything: adds, transforms, refusals, a
// repeat, and texts that canonicalize alike.
func busyStore(t *testing.T, p *provenance.Policy) *provenance.Store {
	t.Helper()
	clock := time.Date(2026, 9, 14, 8, 0, 0, 0, time.UTC)
	s := provenance.NewStore(p, provenance.WithClock(func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}))
	s.Add(provenance.NewItem(provenance.KindInstruction, "system", "Answer only from evidence.", time.Time{}))
	s.Add(provenance.NewItem(provenance.KindMemory, "memory:prefs", memoryText, time.Time{}))
	s.Add(provenance.NewItem(provenance.KindMemory, "memory:prefs", strings.ToUpper(memoryText), time.Time{}))
	tool, _ := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:order_lookup", toolText, time.Time{}))
	ev, _ := s.Transform(tool, provenance.KindEvidence)
	s.Transform(ev, provenance.KindMemory)
	s.Transform(tool, provenance.KindMemory) // refused: no such transition
	s.Add(provenance.NewItem(provenance.KindInstruction, "system", "<i>"+toolText+"</i>", time.Time{}))
	failed, _ := s.Add(provenance.NewItem(provenance.KindToolOutput, "tool:order_lookup", "Status: failed.", time.Time{}))
	s.Transform(failed, provenance.KindEvidence) // refused by the validator
	s.Add(provenance.NewItem(provenance.KindMemory, "memory:prefs", memoryText, time.Time{}))
	return s
}

func TestHistoryRecordsEverything(t *testing.T) {
	s := busyStore(t, nil)
	type row struct {
		Op      provenance.Op
		Outcome provenance.Outcome
		Type    provenance.Kind
		Code    diag.Code
	}
	var got []row
	for _, ev := range s.History() {
		r := row{ev.Op, ev.Outcome, ev.Type, ""}
		if ev.Error != nil {
			r.Code = ev.Error.Code
		}
		got = append(got, r)
	}
	want := []row{
		{provenance.OpAdd, provenance.OutcomeRegistered, provenance.KindInstruction, ""},
		{provenance.OpAdd, provenance.OutcomeRegistered, provenance.KindMemory, ""},
		{provenance.OpAdd, provenance.OutcomeRegistered, provenance.KindMemory, ""},
		{provenance.OpAdd, provenance.OutcomeRegistered, provenance.KindToolOutput, ""},
		{provenance.OpTransform, provenance.OutcomeRegistered, provenance.KindEvidence, ""},
		{provenance.OpTransform, provenance.OutcomeRegistered, provenance.KindMemory, ""},
		{provenance.OpTransform, provenance.OutcomeRefused, provenance.KindMemory, provenance.CodeTransition},
		{provenance.OpAdd, provenance.OutcomeRefused, provenance.KindInstruction, provenance.CodeWrapped},
		{provenance.OpAdd, provenance.OutcomeRegistered, provenance.KindToolOutput, ""},
		{provenance.OpTransform, provenance.OutcomeRefused, provenance.KindEvidence, provenance.CodeValidation},
		{provenance.OpAdd, provenance.OutcomeExisting, provenance.KindMemory, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History() mismatch (-want +got):\n%s", diff)
	}
	h := s.History()
	// Texts that canonicalize alike: same content ID, different exact digest.
	if h[1].ContentID != h[2].ContentID || h[1].ExactSHA256 == h[2].ExactSHA256 || h[1].Text == h[2].Text {
		t.Errorf("case variants: %+v / %+v", h[1], h[2])
	}
}

func TestWriteHistoryReplays(t *testing.T) {
	s := busyStore(t, nil)
	var buf bytes.Buffer
	if err := s.WriteHistory(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(s.History()) {
		t.Fatalf("%d lines for %d events", len(lines), len(s.History()))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %s", i+1, l)
		}
	}
	if strings.Contains(buf.String(), `\u003c`) {
		t.Error("history escapes HTML characters")
	}
	r, err := provenance.Replay("audit.jsonl", bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if diff := cmp.Diff(s.Items(), r.Items()); diff != "" {
		t.Errorf("replayed items mismatch (-want +got):\n%s", diff)
	}
	var again bytes.Buffer
	r.WriteHistory(&again)
	if diff := cmp.Diff(buf.String(), again.String()); diff != "" {
		t.Errorf("replayed history mismatch (-want +got):\n%s", diff)
	}
}

func TestReplayFindsDifferences(t *testing.T) {
	var buf bytes.Buffer
	busyStore(t, nil).WriteHistory(&buf)
	hist := buf.String()
	tests := []struct {
		name     string
		history  string
		policy   string
		wantLine int
		wantMsg  string
	}{
		{
			name:     "a policy that allows tool output to memory",
			history:  hist,
			policy:   strings.Replace(string(provenance.DefaultPolicyYAML), "  - from: evidence\n    to: memory\n", "  - from: evidence\n    to: memory\n  - from: tool_output\n    to: memory\n", 1),
			wantLine: 7,
			wantMsg:  "the history says refused, the replay registered",
		},
		{
			name:     "an edited text",
			history:  strings.Replace(hist, `"text":"Status: failed."`, `"text":"Status: ok."`, 1),
			wantLine: 9,
			wantMsg:  "content_id or exact_sha256 does not match",
		},
		{
			name:     "a missing event",
			history:  strings.Join(append(strings.Split(hist, "\n")[:3], strings.Split(hist, "\n")[4:]...), "\n"),
			wantLine: 4,
			wantMsg:  "seq 5, want 4",
		},
		{
			name:     "an unknown field",
			history:  `{"seq":1,"op":"add","sneaky":true}`,
			wantLine: 1,
			wantMsg:  "not a history event",
		},
		{
			name:     "a lone surrogate escape",
			history:  strings.Replace(hist, `"text":"Status: failed."`, `"text":"Status: \ud800"`, 1),
			wantLine: 9,
			wantMsg:  `text: invalid text: lone UTF-16 surrogate escape \ud800`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p *provenance.Policy
			if tt.policy != "" {
				p = mustPolicy(t, tt.policy)
			}
			_, err := provenance.Replay("audit.jsonl", strings.NewReader(tt.history), p)
			pe := provErr(t, err)
			if !errors.Is(err, provenance.ErrReplay) || pe.Line != tt.wantLine || !strings.Contains(pe.Message, tt.wantMsg) {
				t.Errorf("Replay() = %v (line %d), want line %d with %q", err, pe.Line, tt.wantLine, tt.wantMsg)
			}
		})
	}
}

// TestHistoryGolden: the audit history of a store that ran a little of
// everything (busyStore, then an example, addressed quotes held, repeated
// and refused) is byte for byte the golden one: the history is read by
// audits of other builds of ka2, so its bytes do not change with how the
// store keeps it. Refresh with GOLDIE_UPDATE=1 only for a change of the
// history's format.
func TestHistoryGolden(t *testing.T) {
	s := busyStore(t, nil)
	from, _ := corpus.ParseDate("2026-01-01")
	ref := provenance.Ref{SourceID: "travel-v2", Version: "v2", Lang: "en", Lines: corpus.Range{Start: 2, End: 4},
		ValidFrom: from, Unit: "CNY", Role: "supplement", Serves: "lodging meals"}
	s.Add(provenance.NewExample(provenance.Example{Question: "What is the limit?", Answer: "750 CNY."}, time.Time{}))
	s.Add(provenance.NewEvidence(ref, evidenceText, time.Time{}))
	s.Add(provenance.NewEvidence(ref, evidenceText, time.Time{}))                                       // held already
	s.Add(provenance.NewEvidence(ref, "Answer only from evidence.", time.Time{}))                       // protected: an instruction first
	s.Add(provenance.NewExample(provenance.Example{Question: memoryText, Answer: "Yes."}, time.Time{})) // an example quoting the memory: new content
	var buf bytes.Buffer
	if err := s.WriteHistory(&buf); err != nil {
		t.Fatal(err)
	}
	goldie.New(t, goldie.WithFixtureDir("testdata/golden"), goldie.WithNameSuffix(".jsonl")).Assert(t, "history", buf.Bytes())
}
