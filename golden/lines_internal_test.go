package golden

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ka2/ka2/contract"
)

// The texts are found by the context types of the definition's fields,
// not by the default names: a definition that names its evidence field
// records, its memory notes and its question ask gets those split, and a
// field that only bears a default name (evidence, question) is not a text
// of that contract.
func TestTextPathsFollowTheDefinition(t *testing.T) {
	def := &contract.Definition{Fields: []contract.Field{
		{Name: "template", ContextType: "constant"},
		{Name: "records", ContextType: "evidence"},
		{Name: "notes", ContextType: "memory"},
		{Name: "ask", ContextType: "question"},
		{Name: "question", ContextType: "scope"},
	}}
	built := `{"template":"t","records":[{"source_id":"a","quote":"a\nb"}],"notes":[{"source":"memory:m","text":"c\nd"}],"ask":"e\nf","question":{"subjects":["s"],"dates":["d"]},"evidence":[{"quote":"g\nh"}]}`
	p := textPathsOf(def)
	stored := p.store([]byte(built + "\n"))
	for _, want := range []string{`"quote": [` + "\n", `"text": [` + "\n", `"ask": [` + "\n", `"quote": "g\nh"`} {
		if !bytes.Contains(stored, []byte(want)) {
			t.Errorf("stored form lacks %q:\n%s", want, stored)
		}
	}
	var back bytes.Buffer
	if err := json.Compact(&back, p.join(stored)); err != nil {
		t.Fatal(err)
	}
	if back.String() != built {
		t.Errorf("join(store()) =\n%s\nwant\n%s", back.String(), built)
	}
	// Read with the default definition, the records' quote is no text.
	if bytes.Equal(textPathsOf(nil).join(stored), p.join(stored)) {
		t.Error("the default definition joined the lines of another definition's field")
	}
}
