package contract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// checkServes compares a record's role and serves with what its source
// and the contract's scope say: a record that claims to be a supplement,
// or to serve another asked subject, changes which records a reader takes
// to conflict, however exact its quote is.
func checkServes(add func(code diag.Code, where, format string, args ...any), where string, s *corpus.Source, e EvidenceRecord, sc *ScopeRecord) {
	if e.Role != s.Role {
		switch {
		case s.Role == "":
			add("applicability", where+"/role", "%s is a primary source in the corpus, not role %q: leave role out", s.ID, e.Role)
		default:
			add("applicability", where+"/role", "%s has role %q in the corpus, and the record leaves it out", s.ID, s.Role)
		}
	}
	if sc == nil {
		return
	}
	want := Serves(s, sc.Subjects)
	if slices.Equal(want, e.Serves) {
		return
	}
	switch {
	case want == nil:
		add("applicability", where+"/serves", "the scope asks one subject, so records name none: leave serves out")
	default:
		add("applicability", where+"/serves", "%s serves the asked subjects %s, not %s", s.ID, subjectList(want), subjectList(e.Serves))
	}
}

func subjectList(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return fmt.Sprintf("[%s]", strings.Join(ss, ", "))
}
