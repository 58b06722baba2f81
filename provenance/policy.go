package provenance

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"github.com/ka2/ka2/internal/diag"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/strict"
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
	return p.ends(to, func(t transition) (near, far Kind) { return t.to, t.from })
}

// targets lists the types from may become, in the order of the file.
func (p *Policy) targets(from Kind) []Kind {
	return p.ends(from, func(t transition) (near, far Kind) { return t.from, t.to })
}

// ends lists, in the order of the file, the far end of every transition
// whose near end is k; side says which end of a transition is which.
func (p *Policy) ends(k Kind, side func(transition) (near, far Kind)) []Kind {
	var out []Kind
	for _, t := range p.transitions {
		if near, far := side(t); near == k {
			out = append(out, far)
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
// duplicate entries are problems, never ignored. Every problem in the file
// is reported, in the order of their positions; errors.As finds the first.
func ParsePolicy(name string, data []byte) (*Policy, error) {
	pp := &policyParser{d: &strict.Decoder{Path: name, Words: policyWords}}
	p := pp.parse(data)
	if err := pp.err(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	p.name, p.digest = name, hex.EncodeToString(sum[:])
	return p, nil
}

type policyParser struct{ d *strict.Decoder }

// err returns the problems found as *Errors, or nil.
func (pp *policyParser) err() error {
	if len(pp.d.Diags) == 0 {
		return nil
	}
	pp.d.Diags.Sort()
	out := make(diag.Errors[*Error], len(pp.d.Diags))
	for i, d := range pp.d.Diags {
		d.Code = CodePolicy
		out[i] = &Error{Diagnostic: *d, Op: "parse policy"}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// errAt reports a problem at n (nil: the file).
func (pp *policyParser) errAt(n *yaml.Node, hint, format string, args ...any) {
	pp.d.Report(n, CodePolicy, diag.Fix(hint), fmt.Sprintf(format, args...))
}

// policyWords words the structural problems of a policy file.
func policyWords(is strict.Issue, d *diag.Diagnostic) {
	d.Code = CodePolicy
	what := is.Map.What
	switch is.Problem {
	case strict.NotMapping:
		d.Message = what + " must be a mapping of keys to values"
	case strict.KeyNotScalar:
		d.Message = what + ": keys must be plain strings"
	case strict.UnknownKey:
		d.Message, d.Hint = fmt.Sprintf("%s: unknown key %q", what, is.Key), is.DidYouMean("did you mean %s?", diag.Fix("the keys are "+strings.Join(is.Known(), ", ")))
	case strict.DuplicateKey:
		d.Message, d.Hint = fmt.Sprintf("%s: key %q repeats line %d", what, is.Key, is.First.Line), diag.Fix("keep one")
	case strict.MissingKey:
		switch is.Map {
		case policyMap:
			d.Message, d.Hint = fmt.Sprintf("the policy has no %q key", is.Key), diag.Fix("see provenance/default_policy.yaml for the format")
		case remoteMap:
			d.Message, d.Hint = fmt.Sprintf("remote has no %q key", is.Key), diag.Fix("write [] to grant none")
		default:
			d.Message = fmt.Sprintf("%s has no %q", what, is.Key)
		}
	}
}

// The keys of a policy file, at each level.
var (
	policyMap = &strict.Map{What: "the policy", Keys: []strict.Key{
		{Name: "version", Required: true}, {Name: "protected", Required: true}, {Name: "wrapped"},
		{Name: "sources", Required: true}, {Name: "transitions", Required: true}, {Name: "remote"}}}
	wrappedMap    = &strict.Map{What: "wrapped", Keys: []strict.Key{{Name: "types"}, {Name: "min_codepoints"}}}
	remoteMap     = &strict.Map{What: "remote", Keys: []strict.Key{{Name: "types", Required: true}, {Name: "sources", Required: true}, {Name: "promote", Required: true}}}
	sourcesMap    = &strict.Map{What: "sources", AnyKey: true}
	transitionMap = &strict.Map{Keys: []strict.Key{{Name: "from", Required: true}, {Name: "to", Required: true}, {Name: "validate"}}}
	validatorMap  = &strict.Map{AnyKey: true}
)

// mapping is the decoder's Mapping, refusing aliases: in a policy every
// value is written out where it applies.
func (pp *policyParser) mapping(n *yaml.Node, m *strict.Map) *strict.Fields {
	if n.Kind == yaml.AliasNode {
		pp.errAt(n, "write the value out", "%s: YAML aliases are not supported", m.What)
		return nil
	}
	f := pp.d.Mapping(n, m)
	if f == nil {
		return nil
	}
	kept := f.Entries[:0]
	for _, e := range f.All() {
		if e.Value.Kind == yaml.AliasNode {
			pp.errAt(e.Value, "write the value out", "%s: YAML aliases are not supported", m.What)
			continue
		}
		kept = append(kept, e)
	}
	f.Entries = kept
	return f
}

func (pp *policyParser) parse(data []byte) *Policy {
	root, problem := strict.ParseYAML(pp.d.Path, data, strict.YAMLWords{})
	switch {
	case problem != nil:
		pp.d.Diags = append(pp.d.Diags, problem)
		return nil
	case root == nil:
		pp.errAt(nil, "start from the default: ka2's provenance/default_policy.yaml", "the policy file is empty")
		return nil
	}
	top := pp.mapping(root, policyMap)
	if top == nil {
		return nil
	}
	p := &Policy{wrapped: []Kind{KindInstruction}, minWrapped: 20}
	if v := top.Value("version"); v != nil && (v.Kind != yaml.ScalarNode || v.Value != "1") {
		pp.errAt(v, "write version: 1", "version %q is not supported", v.Value)
	}
	if v := top.Value("protected"); v != nil {
		p.protected = pp.kinds(v, "protected")
	}
	if w := top.Value("wrapped"); w != nil {
		if m := pp.mapping(w, wrappedMap); m != nil {
			if v := m.Value("types"); v != nil {
				p.wrapped = pp.kinds(v, "wrapped.types")
			}
			if v := m.Value("min_codepoints"); v != nil {
				p.minWrapped = pp.positive(v, "wrapped.min_codepoints")
			}
		}
	}
	if v := top.Value("sources"); v != nil {
		p.sources = pp.sourceRules(v)
	}
	if v := top.Value("transitions"); v != nil {
		p.transitions = pp.transitions(v)
	}
	// Without a remote section, remote callers get the default's grants,
	// less the promotions no transition of this policy makes.
	p.remote = defaultRemote()
	p.remote.Promote = slices.DeleteFunc(p.remote.Promote, func(k Kind) bool { return len(p.transitionsTo(k)) == 0 })
	if r := top.Value("remote"); r != nil {
		p.remote = pp.remoteSection(r, p)
	}
	return p
}

// remoteSection reads the remote section: every key is required, since a
// key left out would grant what the reader cannot see.
func (pp *policyParser) remoteSection(n *yaml.Node, p *Policy) Remote {
	var r Remote
	m := pp.mapping(n, remoteMap)
	if m == nil {
		return r
	}
	if v := m.Value("types"); v != nil {
		r.Types = pp.kinds(v, "remote.types")
		if v.Kind == yaml.SequenceNode {
			for _, c := range v.Content {
				if k := Kind(c.Value); k.Valid() && !slices.Contains(remoteKinds, k) {
					pp.errAt(c, "evidence comes from the corpus, or from a tool_output item through a promotion",
						"remote.types: %s: a request may add only %s items", k, kindList(remoteKinds))
				}
			}
		}
	}
	if v := m.Value("sources"); v != nil {
		var nodes []*yaml.Node
		r.Sources, nodes = pp.stringList(v, "remote.sources")
		for i, src := range r.Sources {
			if scheme, ok := strings.CutSuffix(src, ":*"); ok {
				if err := CheckSource(scheme + ":x"); err != nil {
					pp.errAt(nodes[i], "a pattern is corpus:*, tool:* or memory:*", "remote.sources: %q is not a source pattern", src)
				}
			} else if err := CheckSource(src); err != nil {
				pp.errAt(nodes[i], "", "remote.sources: %v", err)
			}
		}
	}
	if v := m.Value("promote"); v != nil {
		r.Promote = pp.kinds(v, "remote.promote")
		if v.Kind == yaml.SequenceNode {
			for _, c := range v.Content {
				if k := Kind(c.Value); k.Valid() && len(p.transitionsTo(k)) == 0 {
					pp.errAt(c, "list only types that a transition below leads to", "remote.promote: no transition of the policy leads to %s", c.Value)
				}
			}
		}
	}
	return r
}

// stringList reads a list of distinct non-empty strings, and returns the
// nodes they came from, in step.
func (pp *policyParser) stringList(n *yaml.Node, what string) ([]string, []*yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		pp.errAt(n, "write a list such as [a, b]", "%s must be a list", what)
		return nil, nil
	}
	out := make([]string, 0, len(n.Content))
	var nodes []*yaml.Node
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" || strings.TrimSpace(c.Value) == "" {
			pp.errAt(c, "", "%s: every entry must be a non-empty string", what)
			continue
		}
		if slices.Contains(out, c.Value) {
			pp.errAt(c, "keep one", "%s: %q is listed twice", what, c.Value)
			continue
		}
		out = append(out, c.Value)
		nodes = append(nodes, c)
	}
	return out, nodes
}

func (pp *policyParser) kinds(n *yaml.Node, what string) []Kind {
	names, nodes := pp.stringList(n, what)
	out := make([]Kind, 0, len(names))
	for i, s := range names {
		k, err := ParseKind(s)
		if err != nil {
			pp.errAt(nodes[i], "", "%s: %v", what, err)
			continue
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Kind) int { return a.rank() - b.rank() })
	return out
}

func (pp *policyParser) positive(n *yaml.Node, what string) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 1 {
		pp.errAt(n, "", "%s must be a whole number of at least 1, not %q", what, n.Value)
		return 1
	}
	return v
}

func (pp *policyParser) sourceRules(n *yaml.Node) []SourceRule {
	m := pp.mapping(n, sourcesMap)
	if m == nil {
		return nil
	}
	var out []SourceRule
	for _, e := range m.All() {
		match := e.Key.Value
		pattern := strings.TrimSuffix(match, "*")
		if strings.HasSuffix(match, ":*") {
			if err := CheckSource(pattern + "x"); err != nil {
				pp.errAt(e.Key, "a pattern is corpus:*, tool:* or memory:*", "sources: %q is not a source pattern", match)
			}
		} else if err := CheckSource(match); err != nil {
			pp.errAt(e.Key, "", "sources: %v", err)
		}
		out = append(out, SourceRule{Match: match, Types: pp.kinds(e.Value, "sources."+match)})
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
	return out
}

func (pp *policyParser) transitions(n *yaml.Node) []transition {
	if n.Kind != yaml.SequenceNode {
		pp.errAt(n, "write a list of {from, to, validate}; [] allows no transform", "transitions must be a list")
		return nil
	}
	var out []transition
	for i, c := range n.Content {
		what := fmt.Sprintf("transitions[%d]", i)
		m := pp.mapping(c, transitionMap.Named(what))
		if m == nil {
			continue
		}
		var t transition
		ok := m.Has("from") && m.Has("to")
		for _, f := range []string{"from", "to"} {
			v := m.Value(f)
			if v == nil {
				continue
			}
			k, err := ParseKind(v.Value)
			if err != nil || v.Kind != yaml.ScalarNode {
				pp.errAt(v, "", "%s.%s: %v", what, f, err)
				ok = false
				continue
			}
			if f == "from" {
				t.from = k
			} else {
				t.to = k
			}
		}
		if v := m.Value("validate"); v != nil {
			t.validators = pp.validators(v, what+".validate")
		}
		if !ok {
			continue
		}
		if t.from == t.to {
			pp.errAt(c, "", "%s: %s → %s changes nothing", what, t.from, t.to)
			continue
		}
		if slices.ContainsFunc(out, func(prev transition) bool { return prev.from == t.from && prev.to == t.to }) {
			pp.errAt(c, "keep one, with all its validators", "%s: %s → %s is listed twice", what, t.from, t.to)
			continue
		}
		out = append(out, t)
	}
	return out
}

var validatorParams = map[string][]string{
	ValidatorToolResultOK:  {"check", "markers", "status_fields", "ok_fields", "ok_statuses", "error_fields"},
	ValidatorNonEmpty:      {"check"},
	ValidatorMaxCodepoints: {"check", "limit"},
}

func (pp *policyParser) validators(n *yaml.Node, what string) []validator {
	if n.Kind != yaml.SequenceNode {
		pp.errAt(n, "write a list of {check: NAME, …}", "%s must be a list", what)
		return nil
	}
	var out []validator
	for i, c := range n.Content {
		w := fmt.Sprintf("%s[%d]", what, i)
		m := pp.mapping(c, validatorMap.Named(w))
		if m == nil {
			continue
		}
		check := m.Value("check")
		if check == nil || check.Kind != yaml.ScalarNode {
			pp.errAt(c, "name one of "+validatorNames(), "%s has no check", w)
			continue
		}
		known, ok := validatorParams[check.Value]
		if !ok {
			pp.errAt(check, "use one of "+validatorNames(), "%s: unknown check %q", w, check.Value)
			continue
		}
		for _, e := range m.All() {
			if !slices.Contains(known, e.Name) {
				pp.errAt(e.Key, check.Value+" takes "+strings.Join(known[1:], ", "), "%s: unknown key %q", w, e.Name)
			}
		}
		list := func(key string, def []string) []string {
			if v := m.Value(key); v != nil {
				l, _ := pp.stringList(v, w+"."+key)
				return l
			}
			return def
		}
		switch check.Value {
		case ValidatorToolResultOK:
			out = append(out, newToolResultOK(list("markers", defaultFailureMarkers), list("status_fields", defaultStatusFields),
				list("ok_fields", defaultOKFields), list("ok_statuses", defaultOKStatuses), list("error_fields", defaultErrorFields)))
		case ValidatorNonEmpty:
			out = append(out, nonEmpty{})
		case ValidatorMaxCodepoints:
			v := m.Value("limit")
			if v == nil {
				pp.errAt(c, "write limit: N", "%s: max_codepoints needs a limit", w)
				continue
			}
			out = append(out, maxCodepoints{pp.positive(v, w+".limit")})
		}
	}
	return out
}

func validatorNames() string {
	return strings.Join([]string{ValidatorMaxCodepoints, ValidatorNonEmpty, ValidatorToolResultOK}, ", ")
}
