package provenance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// Store holds typed items under one policy. Every item enters through Add
// or Transform, which check the policy and the ledger and record the
// outcome, refusals included, in the history. A refused call changes no
// item and no ledger entry. A Store is safe for concurrent use: each call
// checks and records atomically, so two registrations of one content
// under different protected types never both succeed.
type Store struct {
	mu     sync.RWMutex
	policy *Policy
	now    func() time.Time
	// base, when set, is the frozen state this store starts from (see
	// Freeze): its items and events come first, and the store holds only
	// what it registered itself.
	base    *Store
	held    held
	history []Event
	ledger  Ledger
}

type record struct {
	item Item
	root Kind // the type of the first item of its lineage
}

// held is the items a store registered itself, in order.
type held struct {
	recs  []record
	byKey map[string]int32 // recs by key, once they outgrow a scan (see scanMax)
}

// find returns the record of the item with this key.
func (h *held) find(key string) (*record, bool) {
	if h.byKey != nil {
		i, ok := h.byKey[key]
		if !ok {
			return nil, false
		}
		return &h.recs[i], true
	}
	for i := range h.recs {
		if h.recs[i].item.Key == key {
			return &h.recs[i], true
		}
	}
	return nil, false
}

// add appends r, whose key h does not hold.
func (h *held) add(r record) {
	h.recs = append(h.recs, r)
	switch {
	case h.byKey != nil:
		h.byKey[r.item.Key] = int32(len(h.recs) - 1)
	case len(h.recs) > scanMax:
		h.byKey = make(map[string]int32, 2*len(h.recs))
		for i := range h.recs {
			h.byKey[h.recs[i].item.Key] = int32(i)
		}
	}
}

// Option configures a Store.
type Option func(*Store)

// WithClock stamps items and events with now() instead of the zero time.
func WithClock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// NewStore makes an empty store under policy p (nil means DefaultPolicy).
// Without WithClock, items and events get the zero time, which keeps
// histories reproducible.
func NewStore(p *Policy, opts ...Option) *Store {
	if p == nil {
		p = DefaultPolicy()
	}
	_, minWrapped := p.Wrapped()
	if len(p.wrapped) == 0 {
		minWrapped = 0
	}
	// The policy never changes its wrapped list, so the ledger shares it.
	s := &Store{policy: p, now: zeroTime, ledger: Ledger{min: minWrapped, checked: p.wrapped}}
	for _, o := range opts {
		o(s)
	}
	return s
}

func zeroTime() time.Time { return time.Time{} }

// Base is a store's state frozen by Freeze: what it held, its ledger
// (with every line indexed) and its history, under its policy and clock.
// Nothing changes a Base, so any number of stores made from it, on any
// goroutines, share it without copying or locking it.
type Base struct {
	s *Store // flat (no base of its own); nothing calls its methods
}

// Freeze returns a Base that holds what s holds now. s is unchanged and
// goes on as before; later calls on it do not reach the Base.
//
// A caller that starts many stores with the same registrations (a
// service registers one instruction and one example in every build)
// registers them once, freezes the store and starts each one from the
// Base (see Base.NewStore): a new store then costs what it registers
// itself, not a copy of what the base holds.
func (s *Store) Freeze() *Base {
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	f := &Store{policy: s.policy, now: s.now}
	s.ledger.freeze(&f.ledger)
	var recs []record
	if s.base != nil {
		recs, f.history = s.base.held.recs, s.base.history
	}
	for _, r := range slices.Concat(recs, s.held.recs) {
		f.held.add(r)
	}
	f.history = slices.Concat(f.history, s.history)
	return &Base{s: f}
}

// NewStore makes a store under b's policy and clock that holds what b
// holds, as the frozen store did: its items, ledger and history, as if it
// had been given the same calls. What it is given later it holds itself;
// b does not change.
func (b *Base) NewStore() *Store {
	f := b.s
	return &Store{policy: f.policy, now: f.now, base: f, ledger: Ledger{base: &f.ledger, min: f.ledger.min, checked: f.ledger.checked}}
}

// Grow makes room for n more calls of Add or Transform, so that a caller
// that knows how many it will make (a contract build does) allocates
// each of the store's lists once.
func (s *Store) Grow(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held.recs = slices.Grow(s.held.recs, n)
	s.history = slices.Grow(s.history, n)
	s.ledger.mu.Lock()
	s.ledger.entries = slices.Grow(s.ledger.entries, n)
	s.ledger.mu.Unlock()
}

// find returns the record of the held item with this key, the base's
// first.
func (s *Store) find(key string) (*record, bool) {
	if s.base != nil {
		if r, ok := s.base.held.find(key); ok {
			return r, true
		}
	}
	return s.held.find(key)
}

// seq is the sequence number of the next event.
func (s *Store) seq() int {
	n := len(s.history) + 1
	if s.base != nil {
		n += len(s.base.history)
	}
	return n
}

// Policy returns the store's policy.
func (s *Store) Policy() *Policy { return s.policy }

// Ledger returns the store's ledger.
func (s *Store) Ledger() *Ledger { return &s.ledger }

// Add registers a candidate item (see NewItem): it checks the item, that
// the policy lets its source register its type, that its content was not
// first registered under another type if the type is protected, and, for a
// wrapped-checked type, that it contains no registered line of another
// type. It returns the held item, with its Key. Adding an item the store
// already holds (the same Key) returns the held one.
//
// The candidate's ID, when set, must be the content ID of its text; its
// Key is recomputed; a candidate with DerivedFrom set is refused (derived
// items come only from Transform). A zero Created is stamped from the
// store's clock.
func (s *Store) Add(c Item) (Item, error) {
	return s.AddContext(context.Background(), c)
}

// AddContext is Add under ctx: when ctx is done before the checks end
// (the wrapped-content check of a long text is the one that takes time),
// it returns ctx's error, wrapped; the call then changes nothing and is
// not recorded in the history, since no check decided it.
func (s *Store) AddContext(ctx context.Context, c Item) (Item, error) {
	return s.addContext(ctx, c, nil)
}

// AddPrepared is AddContext of the candidate p was prepared from (see
// Prepare), with the content ID, key and reading Prepare derived: the
// checks that depend on the store (its policy, its ledger, what it
// holds) run as they do for AddContext, and the outcome and the history
// are the same.
func (s *Store) AddPrepared(ctx context.Context, p Prepared) (Item, error) {
	c := p.item
	c.Key = "" // a refusal names the candidate's key, which a candidate has not got
	return s.addContext(ctx, c, &p)
}

// addContext is AddContext of c, or with p of the candidate p holds,
// which is c.
func (s *Store) addContext(ctx context.Context, c Item, p *Prepared) (Item, error) {
	if err := ctx.Err(); err != nil {
		return Item{}, fmt.Errorf("add %s from %s: %w", c.Kind, c.Source, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := Event{Op: OpAdd, Type: c.Kind, Source: c.Source, Text: c.Text, Created: c.Created}
	if ev.Created.IsZero() {
		ev.Created = s.now()
	}
	it, existing, err := s.add(ctx, c, p, ev.Created)
	if _, refusal := err.(*Error); err != nil && !refusal {
		return Item{}, fmt.Errorf("add %s from %s: %w", c.Kind, c.Source, err) // ctx's error
	}
	if err != nil {
		// An add that held an item leaves the example and the address
		// for History to copy from it (see withFields); a refusal holds
		// none, so its event keeps them.
		ev.Example, ev.Ref = fields(c)
	}
	return s.finish(ev, it, existing, err)
}

// add checks and registers c; pre, when not nil, is c prepared, whose
// checks of c alone passed and whose derived values are used.
func (s *Store) add(ctx context.Context, c Item, pre *Prepared, created time.Time) (Item, bool, error) {
	refuse := func(code diag.Code, hint, format string, args ...any) (Item, bool, error) {
		return Item{}, false, &Error{Diagnostic: diag.Diagnostic{Code: code, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(hint)}, Op: string(OpAdd), Type: c.Kind, Source: c.Source}
	}
	if pre == nil {
		d, err := prepare(c)
		if err != nil {
			return refuse(CodeInvalid, "", "%v", err)
		}
		pre = &d
	}
	id, empty, reading := pre.item.ID, pre.empty, pre.reading
	p := s.policy
	if !p.Allows(c.Source, c.Kind) {
		hint := "change the sources section of the policy to allow it"
		if ks := p.SourceTypes(c.Source); len(ks) > 0 {
			hint = fmt.Sprintf("register it as %s, or change the sources section of the policy", kindList(ks))
		}
		return refuse(CodeSourceNotAllowed, hint, "source %s may not register %s (policy %s)", c.Source, c.Kind, p.Name())
	}
	if !empty && p.IsProtected(c.Kind) {
		if o, ok := s.ledger.originByReading(reading); ok && o.Kind != c.Kind {
			return Item{}, false, s.protectedError(OpAdd, c, o, "")
		}
	}
	if !empty && s.ledger.min > 0 && contains(p.wrapped, c.Kind) {
		e, ok, err := s.ledger.wrapped(ctx, c.Text, c.Kind)
		if err != nil {
			return Item{}, false, err
		}
		if ok {
			err := s.protectedError(OpAdd, c, e.origin, "")
			err.Code = CodeWrapped
			err.Message = fmt.Sprintf("%s cannot be inserted into %s context (it contains a line first registered as %s, id=%s: %q)",
				e.origin.Kind, c.Kind, e.origin.Kind, s.ledger.ShortID(e.origin.ContentID), excerpt(e.line))
			return Item{}, false, err
		}
	}
	it := pre.item
	it.Created = created
	if r, ok := s.find(it.Key); ok {
		return r.item, true, nil
	}
	s.held.add(record{item: it, root: it.Kind})
	s.ledger.record(Origin{Kind: it.Kind, ContentID: id, Item: it.Key, Source: it.Source, Seq: s.seq()}, it.Text, reading, empty)
	return it, false, nil
}

// protectedError is the refusal of content of origin o entering c's type.
func (s *Store) protectedError(op Op, c Item, o Origin, from Kind) *Error {
	hint := fmt.Sprintf("register it as %s", o.Kind)
	if t, ok := s.policy.Transition(o.Kind, c.Kind); ok {
		hint = fmt.Sprintf("only a transform of the %s item to %s can do that (validators: %s)", o.Kind, c.Kind, validatorList(t))
	} else {
		hint += fmt.Sprintf("; the policy allows no transform from %s to %s", o.Kind, c.Kind)
	}
	return &Error{Diagnostic: diag.Diagnostic{Code: CodeProtected, Message: fmt.Sprintf("%s cannot be inserted into %s context (content first registered as %s, id=%s)",
		o.Kind, c.Kind, o.Kind, s.ledger.ShortID(o.ContentID)), Hint: diag.Fix(hint)}, Op: string(op), Type: c.Kind, From: from, Origin: o.Kind, OriginID: o.ContentID, Item: c.Key, Source: c.Source}
}

func validatorList(t Transition) string {
	if len(t.Validators) == 0 {
		return "none"
	}
	return strings.Join(t.Validators, ", ")
}

// checkCandidate finds what makes c unfit to register at all; ascii
// reports that its text is ASCII, so valid UTF-8.
func checkCandidate(c Item, ascii bool) error {
	if !c.Kind.Valid() {
		_, err := ParseKind(string(c.Kind))
		return err
	}
	if err := CheckSource(c.Source); err != nil {
		return err
	}
	if !ascii && !utf8.ValidString(c.Text) {
		return fmt.Errorf("the %s text from %s is not valid UTF-8", c.Kind, c.Source)
	}
	if c.DerivedFrom != "" {
		return fmt.Errorf("the item claims to derive from %s: derived items enter a store only through Transform", ShortID(c.DerivedFrom))
	}
	if c.Kind == KindExample {
		if c.Example == (Example{}) || ExampleText(c.Example) != c.Text {
			return fmt.Errorf("an example item's text must be its question and answer joined by a blank line (use NewExample)")
		}
	} else if c.Example != (Example{}) {
		return fmt.Errorf("a %s item cannot carry an example", c.Kind)
	}
	return checkRef(c)
}

// checkRef is checkCandidate's check of c's address.
func checkRef(c Item) error {
	if c.Ref != (Ref{}) {
		if c.Kind != KindEvidence {
			return fmt.Errorf("a %s item cannot carry an evidence address", c.Kind)
		}
		if want := SchemeCorpus + ":" + c.Ref.SourceID; c.Source != want {
			return fmt.Errorf("evidence from %s cannot address %s", c.Source, c.Ref.Address())
		}
	}
	return nil
}

// Transform makes a new item of type to from it, which must be an item
// the store holds, exactly as the store holds it. The policy must allow
// the transition from the held item's type, every validator of the
// transition must accept the item, and when to is protected the item's
// lineage must start from the type its content was first registered under.
// The new item keeps the text, content ID and source, and names it in
// DerivedFrom; it is unchanged. Evidence made from an item without an
// address is addressed as the whole text under the item's source, with the
// first 12 hex digits of the content ID as its version.
func (s *Store) Transform(it Item, to Kind) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := Event{Op: OpTransform, Type: to, From: it.Key, Source: it.Source, Text: it.Text, Created: s.now()}
	out, existing, err := s.transform(it, to, ev.Created)
	return s.finish(ev, out, existing, err)
}

func (s *Store) transform(it Item, to Kind, created time.Time) (Item, bool, error) {
	r, ok := s.find(it.Key)
	if !ok {
		return Item{}, false, &Error{Diagnostic: diag.Diagnostic{Code: CodeNotHeld, Message: fmt.Sprintf("the %s item %s is not held by this store", it.Kind, ShortID(it.Key)), Hint: diag.Fix("transform only items that Add or Transform returned")}, Op: string(OpTransform), Type: to, From: it.Kind, Item: it.Key, Source: it.Source}
	}
	held := r.item
	if held != it {
		return Item{}, false, &Error{Diagnostic: diag.Diagnostic{Code: CodeNotHeld, Message: fmt.Sprintf("the item given differs from the %s item the store holds under %s (%s)", held.Kind, ShortID(it.Key), difference(held, it)), Hint: diag.Fix("pass the item exactly as Add or Transform returned it")}, Op: string(OpTransform), Type: to, From: held.Kind, Item: it.Key, Source: held.Source}
	}
	base := &Error{Op: string(OpTransform), Type: to, From: held.Kind, Item: held.Key, Source: held.Source}
	if o, ok := s.ledger.Origin(held.ID); ok {
		base.Origin, base.OriginID = o.Kind, o.ContentID
	}
	if !to.Valid() {
		_, err := ParseKind(string(to))
		base.Code = CodeInvalid
		base.Message = fmt.Sprintf("the %s item %s from %s (id=%s) cannot become %v", held.Kind, ShortID(held.Key), held.Source, s.ledger.ShortID(held.ID), err)
		return Item{}, false, base
	}
	t := s.policy.transition(held.Kind, to)
	if t == nil {
		base.Code = CodeTransition
		base.Message = fmt.Sprintf("%s cannot become %s (item %s from %s, id=%s)", held.Kind, to, ShortID(held.Key), held.Source, s.ledger.ShortID(held.ID))
		if ts := s.policy.targets(held.Kind); len(ts) > 0 {
			base.Hint = diag.Fix(fmt.Sprintf("the policy lets %s become only %s", held.Kind, kindList(ts)))
		} else {
			base.Hint = diag.Fix(fmt.Sprintf("the policy allows no transform from %s", held.Kind))
		}
		return Item{}, false, base
	}
	if s.policy.IsProtected(to) {
		if o, ok := s.ledger.originByReading(readingKey(held.Text)); ok && o.Kind != to && o.Kind != r.root {
			c := held
			c.Kind = to
			return Item{}, false, s.protectedError(OpTransform, c, o, held.Kind)
		}
	}
	for _, v := range t.validators {
		if why := v.check(held); why != "" {
			base.Code, base.Validator = CodeValidation, v.name()
			base.Message = fmt.Sprintf("%s cannot become %s (item %s from %s, id=%s): %s refused it: %s",
				held.Kind, to, ShortID(held.Key), held.Source, s.ledger.ShortID(held.ID), v.name(), why)
			base.Hint = diag.Fix("register the result of a call that succeeded instead")
			return Item{}, false, base
		}
	}
	n := Item{Kind: to, Source: held.Source, Text: held.Text, ID: held.ID, Created: created, DerivedFrom: held.Key, Ref: held.Ref}
	if to == KindExample {
		n.Example = held.Example
	}
	if to == KindEvidence && n.Ref == (Ref{}) {
		n.Ref = Ref{SourceID: held.Source, Version: ShortID(held.ID), Lines: wholeText(held.Text)}
	}
	n.Key = itemKey(n)
	if r, ok := s.find(n.Key); ok {
		return r.item, true, nil
	}
	s.held.add(record{item: n, root: r.root})
	return n, false, nil
}

// wholeText is the line range of all of text.
func wholeText(text string) corpus.Range {
	return corpus.Range{Start: 1, End: len(lines(text))}
}

// difference names the first field in which two items differ.
func difference(held, given Item) string {
	switch {
	case held.Kind != given.Kind:
		return fmt.Sprintf("it claims type %s, the store holds %s", given.Kind, held.Kind)
	case held.Source != given.Source:
		return fmt.Sprintf("it claims source %s, the store holds %s", given.Source, held.Source)
	case held.Text != given.Text:
		return "its text differs"
	case held.ID != given.ID:
		return "its content ID differs"
	case held.DerivedFrom != given.DerivedFrom:
		return "its lineage differs"
	case held.Created != given.Created:
		return "its creation time differs"
	}
	return "its example or address differs"
}

// finish records the event of a call and returns its outcome.
func (s *Store) finish(ev Event, it Item, existing bool, err error) (Item, error) {
	ev.Seq = s.seq()
	switch {
	case err == nil:
		ev.ContentID = it.ID
	default:
		ev.ContentID = ContentID(ev.Text)
	}
	// ExactSHA256 is left for History to fill: only an audit reads it,
	// and a contract build registers a dozen items it never audits.
	if err != nil {
		e := err.(*Error)
		ev.Outcome, ev.Error = OutcomeRefused, e
		s.history = append(s.history, ev)
		return Item{}, e
	}
	ev.Outcome, ev.Item = OutcomeRegistered, it.Key
	if existing {
		ev.Outcome = OutcomeExisting
	}
	s.history = append(s.history, ev)
	return it, nil
}

// Item returns the held item with this key.
func (s *Store) Item(key string) (Item, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.find(key)
	if !ok {
		return Item{}, false
	}
	return r.item, true
}

// Holds reports whether the store holds it exactly: an item under its key
// that equals it in every field.
func (s *Store) Holds(it Item) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.find(it.Key)
	return ok && r.item == it
}

// Items returns every held item, in the order they were registered.
func (s *Store) Items() []Item {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Item, 0, s.len())
	for _, h := range s.layers() {
		for i := range h.recs {
			out = append(out, h.recs[i].item)
		}
	}
	return out
}

// layers are the base's held items, if any, and the store's own.
func (s *Store) layers() [2]*held {
	if s.base != nil {
		return [2]*held{&s.base.held, &s.held}
	}
	return [2]*held{&s.held, {}}
}

func (s *Store) len() int {
	n := len(s.held.recs)
	if s.base != nil {
		n += len(s.base.held.recs)
	}
	return n
}

// Len is the number of held items.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.len()
}

// Lineage returns the held item with this key followed by each item it
// was derived from, back to the one registered directly.
func (s *Store) Lineage(key string) []Item {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Item
	for r, ok := s.find(key); ok; r, ok = s.find(r.item.DerivedFrom) {
		out = append(out, r.item)
	}
	return out
}

// History returns every Add and Transform so far, refusals included, in
// the order they happened.
func (s *Store) History() []Event {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Event, 0, s.seq()-1)
	if s.base != nil {
		out = append(out, s.base.history...)
	}
	out = append(out, s.history...)
	for i := range out {
		if out[i].ExactSHA256 == "" {
			out[i].ExactSHA256 = ExactDigest(out[i].Text)
		}
		s.withFields(&out[i])
	}
	return out
}

// withFields sets the example and the address of an add that held an
// item from that item: its Key covers both, so they are the candidate's.
// Only an audit reads them, and a contract build registers a quote with
// an address in every request.
func (s *Store) withFields(ev *Event) {
	if ev.Op != OpAdd || ev.Outcome == OutcomeRefused {
		return
	}
	if r, ok := s.find(ev.Item); ok {
		ev.Example, ev.Ref = fields(r.item)
	}
}

// fields are the example and the address of it, as an event holds them.
func fields(it Item) (ex *Example, ref *Ref) {
	if it.Example != (Example{}) {
		ex = new(it.Example)
	}
	if it.Ref != (Ref{}) {
		ref = new(it.Ref)
	}
	return ex, ref
}

// WriteHistory writes the history as JSON Lines, one Event per line, so
// that an audit can read it back with Replay.
func (s *Store) WriteHistory(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, ev := range s.History() {
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func contains(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// excerpt shortens a line for a message.
func excerpt(s string) string {
	const n = 60
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return prefixRunes(s, n) + "…"
}
