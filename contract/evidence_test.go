package contract_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/selector"
)

// servesCorpus has two cities' lodging limits and a meal allowance with a
// supplement.
var servesCorpus = fstest.MapFS{
	"beijing.md":  {Data: []byte("---\nsource_id: beijing\nversion: v1\nsubjects: [lodging.beijing]\nvalid_from: 2026-01-01\nunit: CNY per room-night\n---\nThe Beijing limit is 800 CNY per room-night.\n")},
	"shanghai.md": {Data: []byte("---\nsource_id: shanghai\nversion: v1\nsubjects: [lodging.shanghai, lodging.east]\nvalid_from: 2026-01-01\nunit: CNY per room-night\n---\nThe Shanghai limit is 900 CNY per room-night.\n")},
	"meals.md":    {Data: []byte("---\nsource_id: meals\nversion: v1\nsubjects: [meals]\nvalid_from: 2026-01-01\n---\nThe meal allowance is 150 CNY per day.\n")},
	"dinner.md":   {Data: []byte("---\nsource_id: dinner\nversion: v1\nsubjects: [meals]\nvalid_from: 2026-01-01\nrole: supplement\n---\nA client dinner adds up to 80 CNY per day.\n")},
}

func buildServes(t *testing.T, subjects ...string) (*contract.Builder, string) {
	t.Helper()
	b, err := contract.Config{Corpus: corpus.FromFS("serves", servesCorpus)}.Builder()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := corpus.ParseDate("2026-09-14")
	res, err := b.Build(context.Background(), contract.Request{Query: selector.Query{Subjects: subjects, Dates: []corpus.Date{d}, Lang: "en"}, Question: "What are the limits?"})
	if err != nil {
		t.Fatal(err)
	}
	return b, string(res.JSON)
}

// TestServesAndRole: a record names the asked subjects it serves when the
// scope asks more than one, and its role when it is not primary; a
// contract of one subject and primary sources is written as before; what
// build writes verifies, and a record that claims another role or other
// subjects does not.
func TestServesAndRole(t *testing.T) {
	b, two := buildServes(t, "lodging.beijing", "lodging.east", "lodging.shanghai")
	for _, want := range []string{
		`"source_id":"beijing","version":"v1","valid_from":"2026-01-01","unit":"CNY per room-night","serves":["lodging.beijing"],"line_start":1`,
		`"source_id":"shanghai","version":"v1","valid_from":"2026-01-01","unit":"CNY per room-night","serves":["lodging.east","lodging.shanghai"],"line_start":1`,
	} {
		if !strings.Contains(two, want) {
			t.Errorf("Build() = %s, want it to hold %s", two, want)
		}
	}
	_, one := buildServes(t, "lodging.beijing")
	if strings.Contains(one, `"serves"`) || strings.Contains(one, `"role"`) {
		t.Errorf("Build(one subject, primary sources) = %s, want neither serves nor role", one)
	}
	_, meals := buildServes(t, "meals")
	if !strings.Contains(meals, `"source_id":"dinner","version":"v1","valid_from":"2026-01-01","role":"supplement","line_start":1`) || strings.Count(meals, `"role"`) != 1 {
		t.Errorf("Build(meals) = %s, want role on the supplement only", meals)
	}
	c, err := contract.ReadContract("c.json", []byte(two))
	if err != nil || len(c.Evidence) != 2 || !c.Evidence[0].ServesSubject("lodging.beijing", c.Scope.Subjects) || c.Evidence[0].ServesSubject("lodging.east", c.Scope.Subjects) {
		t.Errorf("ReadContract(two subjects) = %+v, %v", c, err)
	}
	for _, doc := range []string{two, one, meals} {
		if v := b.Verify([]byte(doc), "en"); !v.OK() {
			t.Errorf("Verify(what build wrote) = %v", v.Problems)
		}
	}
	tests := []struct{ name, doc, want string }{
		{"another subject", strings.Replace(two, `"serves":["lodging.beijing"]`, `"serves":["lodging.east"]`, 1),
			`/evidence/0/serves: record: serves is ["lodging.east"], and ka2 writes ["lodging.beijing"] for beijing:1-1`},
		{"serves with one subject", strings.Replace(one, `"line_start":1`, `"serves":["lodging.beijing"],"line_start":1`, 1),
			`/evidence/0/serves: record: serves is ["lodging.beijing"], and ka2 writes null for beijing:1-1`},
		{"not a supplement", strings.Replace(one, `"line_start":1`, `"role":"supplement","line_start":1`, 1),
			`/evidence/0/role: record: role is "supplement", and ka2 writes "" for beijing:1-1`},
		{"the role left out", strings.Replace(meals, `"role":"supplement",`, ``, 1),
			`/evidence/0/role: record: role is "", and ka2 writes "supplement" for dinner:1-1`},
	}
	for _, tt := range tests {
		v := b.Verify([]byte(tt.doc), "en")
		found := false
		for _, p := range v.Problems {
			found = found || strings.Contains(p.String(), tt.want)
		}
		if !found {
			t.Errorf("%s: Verify() = %v, want a problem %q", tt.name, v.Problems, tt.want)
		}
	}
}
