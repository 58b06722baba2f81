package corpus

import "github.com/ka2/ka2/internal/strict"

// RoleSupplement is the value of the role front matter key for a source
// that applies together with the other sources of its subjects by design,
// such as shared rules for several cities beside each city's own policy.
// Its validity may overlap theirs: lint does not report the overlap, and a
// selection does not report them as a conflict.
const RoleSupplement = "supplement"

// IsSupplement reports whether s declares role: supplement.
func (s *Source) IsSupplement() bool { return s.Role == RoleSupplement }

// role reads the optional role key: absent, or "supplement".
func (p *parser) role(v *strict.Fields) string {
	r := p.scalar(v, "role", false)
	if r != "" && r != RoleSupplement {
		n := v.Value("role")
		p.errorf(n.Line+1, n.Column, CodeBadValue,
			"write role: supplement for a source that applies together with the others of its subjects, or remove the key",
			"role %q is not a known role", r)
		return ""
	}
	return r
}
