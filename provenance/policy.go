package provenance

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/ka2/ka2/internal/diag"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/yamlerr"
)

// DefaultPolicyYAML is the embedded default policy file.
//
//go:embed default_policy.yaml
var DefaultPolicyYAML []byte

// DefaultPolicyName names the embedded policy in traces and messages.
const DefaultPolicyName = "embedded:default_policy.yaml"

// Policy is a parsed policy file: which types are protected, which are
// checked for wrapped content, which sources may register which types, and
// the allowed transitions with their validators. A Policy cannot be
// changed after ParsePolicy returns it and is safe for concurrent use.
type Policy struct {
	name        string
	digest      string
	protected   []Kind
	wrapped     []Kind
	minWrapped  int
	sources     []SourceRule
	transitions []transition
	remote      Remote
}

// Remote is what the policy grants a remote caller, one that sends a
// build request over the network: the types of the items it may add, the
// sources it may claim for them, and the types it may ask its items to be
// promoted to. A remote caller says what it likes about an item's source,
// so a source here is a claim the server accepts from anyone, not a fact.
type Remote struct {
	Types []Kind `json:"types"`
	// Sources are exact sources ("tool:weather") or scheme patterns
	// ("tool:*").
	Sources []string `json:"sources"`
	Promote []Kind   `json:"promote"`
}

// defaultRemote is what a policy file without a remote section grants:
// the embedded default's section (the promotions only where the file has
// a transition to the type). Remote callers never get the system or
// user sources, nor instruction items, unless a policy file says so.
func defaultRemote() Remote {
	return Remote{Types: []Kind{KindMemory, KindToolOutput}, Sources: []string{"memory:*", "tool:*"},
		Promote: []Kind{KindEvidence, KindMemory}}
}

// remoteKinds are the types a build request may add at all.
var remoteKinds = []Kind{KindInstruction, KindMemory, KindToolOutput}

// SourceRule lets the sources Match names register items of Types. Match
// is an exact source ("system", "tool:weather") or a scheme pattern
// ("tool:*").
type SourceRule struct {
	Match string `json:"match"`
	Types []Kind `json:"types"`
}

// Transition is an allowed transform From → To and the names of the
// validators it runs, in order.
type Transition struct {
	From       Kind     `json:"from"`
	To         Kind     `json:"to"`
	Validators []string `json:"validators"`
}

type transition struct {
	from, to   Kind
	validators []validator
}

// DefaultPolicy returns the embedded default policy. It is parsed once;
// a Policy cannot change, so every caller shares it.
func DefaultPolicy() *Policy { return defaultPolicy() }

var defaultPolicy = sync.OnceValue(func() *Policy {
	p, err := ParsePolicy(DefaultPolicyName, DefaultPolicyYAML)
	if err != nil {
		panic("embedded provenance policy: " + err.Error())
	}
	return p
})

// Name is the file name the policy was parsed from.
func (p *Policy) Name() string { return p.name }

// Digest is the hex SHA-256 of the policy file's bytes.
func (p *Policy) Digest() string { return p.digest }

// Protected lists the protected types, in canonical order.
func (p *Policy) Protected() []Kind { return slices.Clone(p.protected) }

// IsProtected reports whether content of another origin may enter k only
// through an allowed transform.
func (p *Policy) IsProtected(k Kind) bool { return slices.Contains(p.protected, k) }

// Wrapped lists the types checked for wrapped content and the shortest
// line, in code points after canonicalization, that the check looks for.
func (p *Policy) Wrapped() ([]Kind, int) { return slices.Clone(p.wrapped), p.minWrapped }

// Sources lists the source rules, exact sources first, each group sorted.
func (p *Policy) Sources() []SourceRule {
	out := make([]SourceRule, len(p.sources))
	for i, r := range p.sources {
		out[i] = SourceRule{Match: r.Match, Types: slices.Clone(r.Types)}
	}
	return out
}

// SourceTypes returns the types source may register directly: those of an
// exact rule for it, else those of its scheme's "scheme:*" rule, else none.
func (p *Policy) SourceTypes(source string) []Kind {
	if r := p.rule(source); r != nil {
		return slices.Clone(r.Types)
	}
	return nil
}

func (p *Policy) rule(source string) *SourceRule {
	for i := range p.sources {
		if p.sources[i].Match == source {
			return &p.sources[i]
		}
	}
	if scheme, _, ok := strings.Cut(source, ":"); ok {
		for i := range p.sources {
			if p.sources[i].Match == scheme+":*" {
				return &p.sources[i]
			}
		}
	}
	return nil
}

// Allows reports whether source may register items of type k directly.
func (p *Policy) Allows(source string, k Kind) bool {
	r := p.rule(source)
	return r != nil && slices.Contains(r.Types, k)
}

// Remote returns what the policy grants remote callers.
func (p *Policy) Remote() Remote {
	return Remote{Types: slices.Clone(p.remote.Types), Sources: slices.Clone(p.remote.Sources), Promote: slices.Clone(p.remote.Promote)}
}

// matchSource reports whether source is match, or has the scheme of a
// "scheme:*" pattern match.
func matchSource(match, source string) bool {
	if scheme, ok := strings.CutSuffix(match, ":*"); ok {
		return strings.HasPrefix(source, scheme+":")
	}
	return match == source
}

// CheckRemote refuses an item of type k from source that a remote caller
// asks to add, unless the remote section grants both the type and the
// source. The refusal is an *Error with CodeRemote.
func (p *Policy) CheckRemote(k Kind, source string) error {
	typeOK := slices.Contains(p.remote.Types, k)
	sourceOK := slices.ContainsFunc(p.remote.Sources, func(m string) bool { return matchSource(m, source) })
	if typeOK && sourceOK {
		return nil
	}
	what := fmt.Sprintf("add %s items", k)
	if typeOK {
		what = fmt.Sprintf("claim the source %s", source)
	}
	return &Error{Diagnostic: diag.Diagnostic{Code: CodeRemote, Message: fmt.Sprintf("a remote caller may not %s (policy %s)", what, p.Name()), Hint: diag.Fix(p.remoteHint())}, Op: "remote", Type: k, Source: source}
}

// CheckRemotePromote refuses a remote caller's promotion of an item of
// type from and source to type to, unless the remote section lists to.
// The policy's transition and its validators still decide the transform.
func (p *Policy) CheckRemotePromote(from Kind, source string, to Kind) error {
	if slices.Contains(p.remote.Promote, to) {
		return nil
	}
	return &Error{Diagnostic: diag.Diagnostic{Code: CodeRemote, Message: fmt.Sprintf("a remote caller may not promote items to %s (policy %s)", to, p.Name()), Hint: diag.Fix(p.remoteHint())}, Op: "remote", Type: to, From: from, Source: source}
}

func (p *Policy) remoteHint() string {
	r := p.remote
	var b strings.Builder
	if len(r.Types) == 0 || len(r.Sources) == 0 {
		b.WriteString("the policy grants remote callers no items")
	} else {
		fmt.Fprintf(&b, "the policy grants remote callers %s items from %s", kindList(r.Types), strings.Join(r.Sources, ", "))
	}
	if len(r.Promote) > 0 {
		fmt.Fprintf(&b, " and promotions to %s", kindList(r.Promote))
	}
	b.WriteString("; to allow more, widen the remote section of the policy")
	return b.String()
}

// Transitions lists the allowed transitions in the order of the file.
func (p *Policy) Transitions() []Transition {
	out := make([]Transition, len(p.transitions))
	for i, t := range p.transitions {
		out[i] = t.describe()
	}
	return out
}

// Transition returns the transition from → to, if the policy allows it.
func (p *Policy) Transition(from, to Kind) (Transition, bool) {
	if t := p.transition(from, to); t != nil {
		return t.describe(), true
	}
	return Transition{}, false
}

func (p *Policy) transition(from, to Kind) *transition {
	for i := range p.transitions {
		if p.transitions[i].from == from && p.transitions[i].to == to {
			return &p.transitions[i]
		}
	}
	return nil
}

func (t transition) describe() Transition {
	d := Transition{From: t.from, To: t.to, Validators: []string{}}
	for _, v := range t.validators {
		d.Validators = append(d.Validators, v.name())
	}
	return d
}

// transitionsTo lists the types that may become to.
func (p *Policy) transitionsTo(to Kind) []Kind {
	var out []Kind
	for _, t := range p.transitions {
		if t.to == to {
			out = append(out, t.from)
		}
	}
	return out
}

// targets lists the types from may become, in the order of the file.
func (p *Policy) targets(from Kind) []Kind {
	var out []Kind
	for _, t := range p.transitions {
		if t.from == from {
			out = append(out, t.to)
		}
	}
	return out
}

// Route returns the shortest chain of types by which content from source
// can become type to: a type the source may register, then each allowed
// transition in turn, ending with to. Ties go to the earlier type in
// canonical order. It reports false when there is none.
func (p *Policy) Route(source string, to Kind) ([]Kind, bool) {
	starts := p.SourceTypes(source)
	slices.SortFunc(starts, func(a, b Kind) int { return a.rank() - b.rank() })
	prev := map[Kind]Kind{}
	seen := map[Kind]bool{}
	queue := []Kind{}
	for _, k := range starts {
		seen[k] = true
		queue = append(queue, k)
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if k == to {
			path := []Kind{k}
			for {
				pk, ok := prev[path[0]]
				if !ok {
					return path, true
				}
				path = append([]Kind{pk}, path...)
			}
		}
		next := p.targets(k)
		slices.SortFunc(next, func(a, b Kind) int { return a.rank() - b.rank() })
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				prev[n] = k
				queue = append(queue, n)
			}
		}
	}
	return nil, false
}

// ParsePolicy reads a policy file. name is used in error messages and
// returned by Name. Every problem is an *Error with CodePolicy and the line
// and column it is at; unknown keys, unknown types and validators, and
// duplicate entries are problems, never ignored.
func ParsePolicy(name string, data []byte) (*Policy, error) {
	pp := &policyParser{name: name}
	p, err := pp.parse(data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	p.name, p.digest = name, hex.EncodeToString(sum[:])
	return p, nil
}

type policyParser struct{ name string }

func (pp *policyParser) errAt(n *yaml.Node, hint, format string, args ...any) *Error {
	e := &Error{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: pp.name}, Code: CodePolicy, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(hint)}, Op: "parse policy"}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

func (pp *policyParser) parse(data []byte) (*Policy, error) {
	doc, err := yamlerr.Decode(data)
	var ye *yamlerr.Error
	switch {
	case errors.As(err, &ye):
		e := pp.errAt(nil, ye.Hint, "%s", ye.Msg)
		e.Line, e.Col = ye.Line, ye.Col
		return nil, e
	case err != nil:
		e := pp.errAt(nil, "", "%v", err)
		if line, msg := yamlerr.Locate(err, data); line > 0 {
			e.Line, e.Message = line, msg
		}
		return nil, e
	case doc.Kind == 0:
		return nil, pp.errAt(nil, "start from the default: ka2's provenance/default_policy.yaml", "the policy file is empty")
	}
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	top, err := pp.mapping(root, "the policy", "version", "protected", "wrapped", "sources", "transitions", "remote")
	if err != nil {
		return nil, err
	}
	for _, req := range []string{"version", "protected", "sources", "transitions"} {
		if top[req] == nil {
			return nil, pp.errAt(root, "see provenance/default_policy.yaml for the format", "the policy has no %q key", req)
		}
	}
	p := &Policy{wrapped: []Kind{KindInstruction}, minWrapped: 20}
	if v := top["version"].val; v.Kind != yaml.ScalarNode || v.Value != "1" {
		return nil, pp.errAt(v, "write version: 1", "version %q is not supported", v.Value)
	}
	if p.protected, err = pp.kinds(top["protected"].val, "protected"); err != nil {
		return nil, err
	}
	if w := top["wrapped"]; w != nil {
		m, err := pp.mapping(w.val, "wrapped", "types", "min_codepoints")
		if err != nil {
			return nil, err
		}
		if m["types"] != nil {
			if p.wrapped, err = pp.kinds(m["types"].val, "wrapped.types"); err != nil {
				return nil, err
			}
		}
		if m["min_codepoints"] != nil {
			if p.minWrapped, err = pp.positive(m["min_codepoints"].val, "wrapped.min_codepoints"); err != nil {
				return nil, err
			}
		}
	}
	if p.sources, err = pp.sourceRules(top["sources"].val); err != nil {
		return nil, err
	}
	if p.transitions, err = pp.transitions(top["transitions"].val); err != nil {
		return nil, err
	}
	// Without a remote section, remote callers get the default's grants,
	// less the promotions no transition of this policy makes.
	p.remote = defaultRemote()
	p.remote.Promote = slices.DeleteFunc(p.remote.Promote, func(k Kind) bool { return len(p.transitionsTo(k)) == 0 })
	if r := top["remote"]; r != nil {
		if p.remote, err = pp.remoteSection(r.val, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// remoteSection reads the remote section: every key is required, since a
// key left out would grant what the reader cannot see.
func (pp *policyParser) remoteSection(n *yaml.Node, p *Policy) (Remote, error) {
	m, err := pp.mapping(n, "remote", "types", "sources", "promote")
	if err != nil {
		return Remote{}, err
	}
	for _, req := range []string{"types", "sources", "promote"} {
		if m[req] == nil {
			return Remote{}, pp.errAt(n, "write [] to grant none", "remote has no %q key", req)
		}
	}
	var r Remote
	if r.Types, err = pp.kinds(m["types"].val, "remote.types"); err != nil {
		return Remote{}, err
	}
	for i, c := range m["types"].val.Content {
		if k := Kind(c.Value); !slices.Contains(remoteKinds, k) {
			return Remote{}, pp.errAt(m["types"].val.Content[i], "evidence comes from the corpus, or from a tool_output item through a promotion",
				"remote.types: %s: a request may add only %s items", k, kindList(remoteKinds))
		}
	}
	if r.Sources, err = pp.stringList(m["sources"].val, "remote.sources"); err != nil {
		return Remote{}, err
	}
	for i, src := range r.Sources {
		pos := m["sources"].val.Content[i]
		if scheme, ok := strings.CutSuffix(src, ":*"); ok {
			if err := CheckSource(scheme + ":x"); err != nil {
				return Remote{}, pp.errAt(pos, "a pattern is corpus:*, tool:* or memory:*", "remote.sources: %q is not a source pattern", src)
			}
		} else if err := CheckSource(src); err != nil {
			return Remote{}, pp.errAt(pos, "", "remote.sources: %v", err)
		}
	}
	if r.Promote, err = pp.kinds(m["promote"].val, "remote.promote"); err != nil {
		return Remote{}, err
	}
	for _, c := range m["promote"].val.Content {
		if len(p.transitionsTo(Kind(c.Value))) == 0 {
			return Remote{}, pp.errAt(c, "list only types that a transition below leads to", "remote.promote: no transition of the policy leads to %s", c.Value)
		}
	}
	return r, nil
}

type entry struct {
	key, val *yaml.Node
	index    int
}

// mapping checks that n is a mapping whose keys are distinct and among
// known (any key when known is empty), and returns its entries by key.
func (pp *policyParser) mapping(n *yaml.Node, what string, known ...string) (map[string]*entry, error) {
	if n.Kind == yaml.AliasNode {
		return nil, pp.errAt(n, "write the value out", "%s: YAML aliases are not supported", what)
	}
	if n.Kind != yaml.MappingNode {
		return nil, pp.errAt(n, "", "%s must be a mapping of keys to values", what)
	}
	out := map[string]*entry{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, pp.errAt(k, "", "%s: keys must be plain strings", what)
		}
		if len(known) > 0 && !slices.Contains(known, k.Value) {
			return nil, pp.errAt(k, "the keys are "+strings.Join(known, ", "), "%s: unknown key %q", what, k.Value)
		}
		if prev, dup := out[k.Value]; dup {
			return nil, pp.errAt(k, "keep one", "%s: key %q repeats line %d", what, k.Value, prev.key.Line)
		}
		if v.Kind == yaml.AliasNode {
			return nil, pp.errAt(v, "write the value out", "%s: YAML aliases are not supported", what)
		}
		out[k.Value] = &entry{key: k, val: v, index: i / 2}
	}
	return out, nil
}

// sorted returns the entries of a mapping in file order.
func sorted(m map[string]*entry) []*entry {
	out := make([]*entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entry) int { return a.index - b.index })
	return out
}

func (pp *policyParser) stringList(n *yaml.Node, what string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, pp.errAt(n, "write a list such as [a, b]", "%s must be a list", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" || strings.TrimSpace(c.Value) == "" {
			return nil, pp.errAt(c, "", "%s: every entry must be a non-empty string", what)
		}
		if slices.Contains(out, c.Value) {
			return nil, pp.errAt(c, "keep one", "%s: %q is listed twice", what, c.Value)
		}
		out = append(out, c.Value)
	}
	return out, nil
}

func (pp *policyParser) kinds(n *yaml.Node, what string) ([]Kind, error) {
	names, err := pp.stringList(n, what)
	if err != nil {
		return nil, err
	}
	out := make([]Kind, 0, len(names))
	for i, s := range names {
		k, err := ParseKind(s)
		if err != nil {
			return nil, pp.errAt(n.Content[i], "", "%s: %v", what, err)
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Kind) int { return a.rank() - b.rank() })
	return out, nil
}

func (pp *policyParser) positive(n *yaml.Node, what string) (int, error) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 1 {
		return 0, pp.errAt(n, "", "%s must be a whole number of at least 1, not %q", what, n.Value)
	}
	return v, nil
}

func (pp *policyParser) sourceRules(n *yaml.Node) ([]SourceRule, error) {
	m, err := pp.mapping(n, "sources")
	if err != nil {
		return nil, err
	}
	var out []SourceRule
	for _, e := range sorted(m) {
		match := e.key.Value
		pattern := strings.TrimSuffix(match, "*")
		if strings.HasSuffix(match, ":*") {
			if err := CheckSource(pattern + "x"); err != nil {
				return nil, pp.errAt(e.key, "a pattern is corpus:*, tool:* or memory:*", "sources: %q is not a source pattern", match)
			}
		} else if err := CheckSource(match); err != nil {
			return nil, pp.errAt(e.key, "", "sources: %v", err)
		}
		ks, err := pp.kinds(e.val, "sources."+match)
		if err != nil {
			return nil, err
		}
		out = append(out, SourceRule{Match: match, Types: ks})
	}
	slices.SortFunc(out, func(a, b SourceRule) int {
		aw, bw := strings.HasSuffix(a.Match, "*"), strings.HasSuffix(b.Match, "*")
		if aw != bw {
			if aw {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Match, b.Match)
	})
	return out, nil
}

func (pp *policyParser) transitions(n *yaml.Node) ([]transition, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, pp.errAt(n, "write a list of {from, to, validate}; [] allows no transform", "transitions must be a list")
	}
	var out []transition
	for i, c := range n.Content {
		what := fmt.Sprintf("transitions[%d]", i)
		m, err := pp.mapping(c, what, "from", "to", "validate")
		if err != nil {
			return nil, err
		}
		var t transition
		for _, f := range []string{"from", "to"} {
			e := m[f]
			if e == nil {
				return nil, pp.errAt(c, "", "%s has no %q", what, f)
			}
			k, err := ParseKind(e.val.Value)
			if err != nil || e.val.Kind != yaml.ScalarNode {
				return nil, pp.errAt(e.val, "", "%s.%s: %v", what, f, err)
			}
			if f == "from" {
				t.from = k
			} else {
				t.to = k
			}
		}
		if t.from == t.to {
			return nil, pp.errAt(c, "", "%s: %s → %s changes nothing", what, t.from, t.to)
		}
		for _, prev := range out {
			if prev.from == t.from && prev.to == t.to {
				return nil, pp.errAt(c, "keep one, with all its validators", "%s: %s → %s is listed twice", what, t.from, t.to)
			}
		}
		if e := m["validate"]; e != nil {
			if t.validators, err = pp.validators(e.val, what+".validate"); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}

var validatorParams = map[string][]string{
	ValidatorToolResultOK:  {"check", "markers", "status_fields", "ok_statuses", "error_fields"},
	ValidatorNonEmpty:      {"check"},
	ValidatorMaxCodepoints: {"check", "limit"},
}

func (pp *policyParser) validators(n *yaml.Node, what string) ([]validator, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, pp.errAt(n, "write a list of {check: NAME, …}", "%s must be a list", what)
	}
	var out []validator
	for i, c := range n.Content {
		w := fmt.Sprintf("%s[%d]", what, i)
		m, err := pp.mapping(c, w)
		if err != nil {
			return nil, err
		}
		ce := m["check"]
		if ce == nil || ce.val.Kind != yaml.ScalarNode {
			return nil, pp.errAt(c, "name one of "+validatorNames(), "%s has no check", w)
		}
		known, ok := validatorParams[ce.val.Value]
		if !ok {
			return nil, pp.errAt(ce.val, "use one of "+validatorNames(), "%s: unknown check %q", w, ce.val.Value)
		}
		for _, e := range sorted(m) {
			if !slices.Contains(known, e.key.Value) {
				return nil, pp.errAt(e.key, ce.val.Value+" takes "+strings.Join(known[1:], ", "), "%s: unknown key %q", w, e.key.Value)
			}
		}
		list := func(key string, def []string) ([]string, error) {
			if e := m[key]; e != nil {
				return pp.stringList(e.val, w+"."+key)
			}
			return def, nil
		}
		switch ce.val.Value {
		case ValidatorToolResultOK:
			markers, err := list("markers", defaultFailureMarkers)
			if err != nil {
				return nil, err
			}
			status, err := list("status_fields", defaultStatusFields)
			if err != nil {
				return nil, err
			}
			okStatuses, err := list("ok_statuses", defaultOKStatuses)
			if err != nil {
				return nil, err
			}
			errFields, err := list("error_fields", defaultErrorFields)
			if err != nil {
				return nil, err
			}
			out = append(out, newToolResultOK(markers, status, okStatuses, errFields))
		case ValidatorNonEmpty:
			out = append(out, nonEmpty{})
		case ValidatorMaxCodepoints:
			e := m["limit"]
			if e == nil {
				return nil, pp.errAt(c, "write limit: N", "%s: max_codepoints needs a limit", w)
			}
			limit, err := pp.positive(e.val, w+".limit")
			if err != nil {
				return nil, err
			}
			out = append(out, maxCodepoints{limit})
		}
	}
	return out, nil
}

func validatorNames() string {
	return strings.Join([]string{ValidatorMaxCodepoints, ValidatorNonEmpty, ValidatorToolResultOK}, ", ")
}
