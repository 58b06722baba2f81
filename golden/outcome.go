package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
)

// Outcome is what `ka2 build` prints for a case, and what decided it.
type Outcome struct {
	// Bytes are exactly what `ka2 build` prints: the contract (compact
	// JSON) and a newline on standard output, or for a failed build the
	// error as `--error-format json` prints it on standard error. A
	// golden file holds them as Stored gives them.
	Bytes []byte
	// Kind is the error kind, or "" for a contract.
	Kind ErrorKind
	// Err is the build error, or nil.
	Err error
	// Selected are the sources the build selected, in contract order; nil
	// when the build failed before selecting (Selection is then false).
	Selected  []*corpus.Source
	Selection bool
	// Budget is the accounting of the input; nil when the build failed
	// before assembling it.
	Budget *budget.Report

	// def is the builder's definition, which says where the contract holds
	// text (textPathsOf); nil is the default one. paths, when not nil, is
	// textPathsOf(def), worked out already (Case.paths).
	def   *contract.Definition
	paths *textPaths
}

// textPaths is where the outcome's contract holds text.
func (o Outcome) textPaths() *textPaths {
	if o.paths != nil {
		return o.paths
	}
	return textPathsOf(o.def)
}

// Stored returns the bytes a golden file holds for the outcome. A contract
// is indented, two spaces, one field or array element per line, keys in
// contract order and every token exactly as built, and each text that
// spans lines (an evidence record's quote: the policy's body lines) is the
// JSON array of its lines (see textPaths), so that a pull request's diff
// shows which record, and which line of a quote, changed; Matches joins
// and compacts it back. An error is stored as Bytes, which are indented
// already.
func (o Outcome) Stored() []byte {
	if o.Kind != "" {
		return o.Bytes
	}
	return o.textPaths().store(o.Bytes)
}

// Matches reports whether the bytes of a golden file hold the outcome. An
// error must be byte for byte the same. A contract golden, each line array
// joined back into its string and compacted (json.Compact: white space
// between tokens removed, nothing re-encoded), and a newline must be byte
// for byte what `ka2 build` prints: the stored form, the indented one of
// older ka2 and a compact one written by hand all match, and a changed
// escape, key order or number does not.
func (o Outcome) Matches(golden []byte) bool {
	if o.Kind != "" {
		return bytes.Equal(golden, o.Bytes)
	}
	return o.matchesPinned(o.textPaths().join(golden))
}

// matchesPinned is Matches given what a golden pins (Pins, as readGolden
// returns it), so that a run joins each golden's lines once, not twice:
// Pins returns an error golden unchanged.
func (o Outcome) matchesPinned(pinned []byte) bool {
	if o.Kind != "" {
		return bytes.Equal(pinned, o.Bytes)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, pinned); err != nil {
		return false
	}
	b.WriteByte('\n')
	return bytes.Equal(b.Bytes(), o.Bytes)
}

// inStoredForm reports whether golden is byte for byte what Stored
// returns, which Matches then says too; false says nothing, and the
// caller asks matchesPinned. Checking this first is the fast path of a
// run, where nearly every golden is in the stored form: see runCase.
func (o Outcome) inStoredForm(golden []byte) bool {
	if o.Kind != "" {
		// Pins returns an error golden as it is (no text path leads
		// into one), so these bytes are what Matches compares.
		return bytes.Equal(golden, o.Bytes)
	}
	return o.textPaths().isStored(o.Bytes, golden)
}

// SourceIDs lists the selected source IDs in order.
func (o Outcome) SourceIDs() []string {
	ids := make([]string, len(o.Selected))
	for i, s := range o.Selected {
		ids[i] = s.ID
	}
	return ids
}

// KindOf names an error from contract.Builder.Build as `ka2 build` does
// in its JSON error output, and as goldens and `expect: error:` name it:
// errkind's one classifier.
func KindOf(err error) ErrorKind { return ErrorKind(errkind.Classify(err)) }

// ErrorBytes formats a build error exactly as `ka2 build --error-format
// json` prints it: errkind's body, indented JSON without HTML escaping,
// and a newline.
func ErrorBytes(err error) []byte {
	// The body's types always encode; Encode fails only for values
	// encoding/json cannot write.
	b, _ := errkind.Body{Error: errkind.NewDetail(errkind.Classify(err), err)}.Encode(true)
	return b
}

// BuildOutcome builds req with b and returns what `ka2 build` would print.
func BuildOutcome(b *contract.Builder, req contract.Request) Outcome {
	res, err := b.Build(context.Background(), req)
	o := Outcome{def: b.Definition}
	if res != nil {
		o.Selected, o.Selection = res.Selection.Sources, true
		rep := res.Budget
		o.Budget = &rep
	}
	if err != nil {
		o.Err, o.Kind, o.Bytes = err, KindOf(err), ErrorBytes(err)
		if o.Kind == KindNoEvidence { // nothing applied: the selection is empty
			o.Selected, o.Selection = []*corpus.Source{}, true
		}
		return o
	}
	o.Bytes = append(bytes.Clone(res.JSON), '\n')
	return o
}

// Build runs the case's build. The case must come from Load.
func (c *Case) Build() Outcome {
	o := BuildOutcome(c.builder, c.Request())
	o.paths = c.textPaths()
	return o
}

// textPaths is where the case's contracts hold text: worked out by Load
// once per definition.
func (c *Case) textPaths() *textPaths {
	if c.paths != nil {
		return c.paths
	}
	return textPathsOf(c.builder.Definition)
}

// check returns the case's failed expectations, each as a sentence.
func (c *Case) check(o Outcome) []string {
	var out []string
	e := c.Expect
	if e.Error != "" && o.Kind != e.Error {
		got := "a contract"
		if o.Kind != "" {
			got = "error " + string(o.Kind) + ": " + firstClause(o.Err.Error())
		}
		out = append(out, "expected error "+string(e.Error)+", got "+got)
	}
	if e.CheckSources {
		switch {
		case !o.Selection:
			out = append(out, "expected sources "+list(e.Sources)+", but the build failed before selecting: "+
				string(o.Kind)+": "+firstClause(o.Err.Error()))
		case !slices.Equal(e.Sources, o.SourceIDs()):
			out = append(out, "expected sources "+list(e.Sources)+", selected "+list(o.SourceIDs()))
		}
	}
	return out
}

// list formats IDs as "[a, b]".
func list(ids []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id)
	}
	b.WriteByte(']')
	return b.String()
}
