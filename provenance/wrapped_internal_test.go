package provenance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refLedger is the wrapped-content check as it was before the automata:
// every position of the canonical text against every indexed line that
// shares its first min code points. It is kept as the reference the
// automata must agree with.
type refLedger struct {
	min      int
	lines    []lineEntry
	byPrefix map[string][]int
	seen     map[string]bool
}

func newRefLedger(min int) *refLedger {
	return &refLedger{min: min, byPrefix: map[string][]int{}, seen: map[string]bool{}}
}

func (l *refLedger) record(o Origin, text string) {
	for _, line := range lines(text) {
		c := Reading(line)
		if l.seen[c] || utf8.RuneCountInString(c) < l.min {
			continue
		}
		l.seen[c] = true
		l.byPrefix[prefixRunes(c, l.min)] = append(l.byPrefix[prefixRunes(c, l.min)], len(l.lines))
		l.lines = append(l.lines, lineEntry{canon: c, line: strings.TrimSpace(line), origin: o})
	}
}

func (l *refLedger) wrapped(text string, except Kind) (lineEntry, bool) {
	if len(l.lines) == 0 {
		return lineEntry{}, false
	}
	canon := Reading(text)
	best := -1
	starts := make([]int, 0, len(canon))
	for i := range canon {
		starts = append(starts, i)
	}
	starts = append(starts, len(canon))
	for i := 0; i+l.min < len(starts); i++ {
		rest := canon[starts[i]:]
		for _, c := range l.byPrefix[canon[starts[i]:starts[i+l.min]]] {
			e := l.lines[c]
			if e.origin.Kind != except && strings.HasPrefix(rest, e.canon) && (best < 0 || c < best) {
				best = c
			}
		}
	}
	if best < 0 {
		return lineEntry{}, false
	}
	return l.lines[best], true
}

// differential registers each text in a ledger and in the reference,
// checking each against both first, and fails on the first difference.
type differential struct {
	t    testing.TB
	got  *Ledger
	want *refLedger
	seq  int
}

func newDifferential(t testing.TB, min int) *differential {
	return &differential{t: t, got: newLedger(min, Kinds()), want: newRefLedger(min)}
}

func (d *differential) check(kind Kind, text string) {
	d.t.Helper()
	got, gotOK, err := d.got.wrapped(context.Background(), text, kind)
	if err != nil {
		d.t.Fatalf("wrapped(%q, %s): %v", text, kind, err)
	}
	want, wantOK := d.want.wrapped(text, kind)
	if gotOK != wantOK || got != want {
		d.t.Fatalf("wrapped(%q, %s) = %+v, %v; the reference says %+v, %v", text, kind, got, gotOK, want, wantOK)
	}
}

func (d *differential) record(kind Kind, text string) {
	d.seq++
	id, empty := contentID(text)
	o := Origin{Kind: kind, ContentID: id, Item: fmt.Sprint("item", d.seq), Source: "tool:t", Seq: d.seq}
	d.got.record(o, text, readingKey(text), empty)
	if !empty {
		d.want.record(o, text)
	}
}

func TestWrappedMatchesReference(t *testing.T) {
	type op struct {
		kind Kind
		text string
	}
	tests := []struct {
		name string
		min  int
		ops  []op
	}{
		{"case and spacing", 5, []op{
			{KindToolOutput, "Status: OK\nThe  Order  Ships Today"},
			{KindInstruction, "please note: the order ships today!"},
		}},
		{"earliest registered wins", 3, []op{
			{KindToolOutput, "xyzw"},
			{KindMemory, "abcd\nbcd"},
			{KindEvidence, "ab"},
			{KindInstruction, "zz bcd abcd xyzw"},
		}},
		{"same type is not wrapped", 3, []op{
			{KindInstruction, "answer only from evidence"},
			{KindToolOutput, "from evidence"},
			{KindInstruction, "Answer only from evidence."},
		}},
		{"first of the except type, second of another", 2, []op{
			{KindInstruction, "aaa"},
			{KindToolOutput, "aa"},
			{KindInstruction, "aaaa"},
			{KindMemory, "aaaa"},
		}},
		{"suffix lines through failure links", 2, []op{
			{KindToolOutput, "abcde\ncd\nbcdx"},
			{KindInstruction, "abcdx"},
			{KindInstruction, "abcx"},
		}},
		{"unicode", 3, []op{
			{KindToolOutput, "STRASSE 5\nﬁle ＡＢＣ"},
			{KindInstruction, "die straße 5"},
			{KindInstruction, "FILE abc"},
			{KindMemory, "日本語のテキスト\né"},
			{KindInstruction, "これは日本語のテキストです"},
			{KindInstruction, "cafe\u0301 e\u0301"},
		}},
		{"a line shorter than min is not indexed", 6, []op{
			{KindToolOutput, "short\nlonger line"},
			{KindInstruction, "short and a longer line"},
		}},
		{"worst case of the reference", 20, []op{
			{KindToolOutput, strings.Join([]string{strings.Repeat("a", 25) + "b", strings.Repeat("a", 30) + "b", strings.Repeat("a", 40)}, "\n")},
			{KindInstruction, strings.Repeat("a", 39)},
			{KindInstruction, strings.Repeat("a", 300)},
			{KindInstruction, strings.Repeat("a", 300) + "b"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDifferential(t, tt.min)
			for _, o := range tt.ops {
				for _, k := range Kinds() {
					d.check(k, o.text)
				}
				d.record(o.kind, o.text)
			}
		})
	}
}

// TestWrappedRandom compares the automata with the reference on texts of
// a small alphabet, where lines overlap and repeat often, registered one
// at a time so that automata are made and merged at every step.
func TestWrappedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	alphabet := []string{"a", "b", "a", "A", " ", "\n", "é", "ß"}
	for round := range 40 {
		d := newDifferential(t, 1+round%4)
		for range 60 {
			var b strings.Builder
			for range r.IntN(40) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			k := Kinds()[r.IntN(len(Kinds()))]
			d.check(k, b.String())
			d.record(k, b.String())
		}
		if len(d.got.automata) < 2 {
			t.Logf("round %d ended with %d automata", round, len(d.got.automata))
		}
	}
}

// FuzzWrapped: the automata give the reference's answer. The input is a
// list of texts separated by NUL; the first byte of each picks its type,
// and min_codepoints comes from the first byte of the input.
func FuzzWrapped(f *testing.F) {
	f.Add("\x03\x02abc\x00\x00zabcz")
	f.Add("\x05\x04Status OK\nthe order ships\x00\x00the ORDER ships today")
	f.Add("\x02\x01aaa\x00\x04aa\x00\x00aaaa\x00\x02aaaa")
	f.Add("\x01\x04ﬁ\x00\x00fi\x00\x03ß\x00\x00SS")
	f.Fuzz(func(t *testing.T, in string) {
		if in == "" || !utf8.ValidString(in) {
			return
		}
		d := newDifferential(t, 1+int(in[0])%8)
		for _, part := range strings.Split(in[1:], "\x00") {
			k := KindInstruction
			if part != "" {
				k = Kinds()[int(part[0])%len(Kinds())]
				part = part[1:]
			}
			if !utf8.ValidString(part) {
				return
			}
			d.check(k, part)
			d.record(k, part)
		}
	})
}

// worstCase is a ledger holding lines of "a…ab" of every length from 20
// to 20+n, and a text of m "a"s: the reference compares every position
// with every line, reading each line to its "b".
func worstCase(n int) *Ledger {
	l := newLedger(20, []Kind{KindInstruction})
	var b strings.Builder
	for k := 20; k < 20+n; k++ {
		b.WriteString(strings.Repeat("a", k) + "b\n")
	}
	l.record(Origin{Kind: KindToolOutput, ContentID: "x"}, b.String(), readKey{}, false)
	return l
}

// TestWrappedLinear holds the check to work linear in the text: the same
// lines against a text twice as long take at most about twice the steps,
// where the reference's work grows with the product of the sizes.
func TestWrappedLinear(t *testing.T) {
	steps := func(n, m int) int {
		l := worstCase(n)
		if _, ok, err := l.wrapped(context.Background(), strings.Repeat("a", m), KindInstruction); ok || err != nil {
			t.Fatalf("wrapped found a line or failed: %v", err)
		}
		return l.steps
	}
	const n, m = 200, 50_000
	// The lines' bytes are about n*n/2 + 20n.
	lineBytes := n*n/2 + 21*n
	one, two := steps(n, m), steps(n, 2*m)
	if two > 2*one {
		t.Errorf("steps for a text of %d bytes: %d; for %d bytes: %d, more than twice", m, one, 2*m, two)
	}
	if bound := 4 * (2*m + lineBytes); two > bound {
		t.Errorf("steps for %d text bytes and %d line bytes: %d, over %d", 2*m, lineBytes, two, bound)
	}
	// Doubling the lines doubles their bytes about fourfold; the work
	// grows with their size, not with its product with the text's.
	four := steps(2*n, m)
	if bound := 4 * (m + 4*lineBytes); four > bound {
		t.Errorf("steps for %d lines: %d, over %d", 2*n, four, bound)
	}
}

// TestWrappedLinearInBatches: a request that alternates tool results and
// instructions makes one automaton per check; merging keeps the total
// work near-linear (n log n), where rebuilding everything at each check
// would be quadratic.
func TestWrappedLinearInBatches(t *testing.T) {
	steps := func(pairs int) int {
		l := newLedger(20, []Kind{KindInstruction})
		for i := range pairs {
			l.record(Origin{Kind: KindToolOutput, ContentID: fmt.Sprint("t", i)}, fmt.Sprintf("tool result line number %08d, long enough", i), readKey{}, false)
			if _, _, err := l.wrapped(context.Background(), fmt.Sprintf("instruction number %08d, long enough too", i), KindInstruction); err != nil {
				t.Fatal(err)
			}
		}
		if len(l.automata) > 20 {
			t.Errorf("%d automata after %d batches", len(l.automata), pairs)
		}
		return l.steps
	}
	one, two := steps(2000), steps(4000)
	if two > 5*one/2 {
		t.Errorf("steps for 2000 pairs: %d; for 4000: %d, more than 2.5 times", one, two)
	}
}

// TestWrappedCancel: a check under a cancelled context stops with the
// context's error and leaves the ledger consistent: the next check
// finds what it would have found.
func TestWrappedCancel(t *testing.T) {
	l := worstCase(50)
	l.record(Origin{Kind: KindToolOutput, ContentID: "y"}, "the order ships today, status confirmed", readKey{}, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("a", 1<<16) + " the order ships today, status confirmed"
	if _, _, err := l.wrapped(ctx, text, KindInstruction); !errors.Is(err, context.Canceled) {
		t.Fatalf("wrapped under a cancelled context: %v, want context.Canceled", err)
	}
	e, ok, err := l.wrapped(context.Background(), text, KindInstruction)
	if err != nil || !ok || e.origin.ContentID != "y" {
		t.Fatalf("wrapped after the cancel = %+v, %v, %v; want the line of y", e, ok, err)
	}
}

// BenchmarkWrappedWorstCase is the request that took minutes: a
// megabyte instruction of "a" against a tool result of lines "a…ab".
func BenchmarkWrappedWorstCase(b *testing.B) {
	var lines strings.Builder
	for k := 20; lines.Len() < 256<<10; k++ {
		lines.WriteString(strings.Repeat("a", k) + "b\n")
	}
	inst := strings.Repeat("a", 1<<20)
	b.SetBytes(int64(len(inst) + lines.Len()))
	for b.Loop() {
		s := NewStore(nil)
		if _, err := s.Add(NewItem(KindToolOutput, "tool:t", lines.String(), noTime)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Add(NewItem(KindInstruction, SourceSystem, inst, noTime)); err != nil {
			b.Fatal(err)
		}
	}
}

var noTime = zeroTime()

// TestAddContextCancelled: an Add stopped by its context returns the
// context's error, holds nothing and records nothing: no check decided
// it. The same Add without the cancel goes through.
func TestAddContextCancelled(t *testing.T) {
	s := NewStore(nil)
	if _, err := s.Add(NewItem(KindToolOutput, "tool:t", "the order ships today, status confirmed", noTime)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inst := NewItem(KindInstruction, SourceSystem, "Answer only from evidence.", noTime)
	if _, err := s.AddContext(ctx, inst); !errors.Is(err, context.Canceled) {
		t.Fatalf("AddContext(cancelled) = %v, want context.Canceled", err)
	}
	if s.Len() != 1 || len(s.History()) != 1 {
		t.Fatalf("after a cancelled Add: %d items, %d events; want 1 and 1", s.Len(), len(s.History()))
	}
	if _, err := s.AddContext(context.Background(), inst); err != nil {
		t.Fatal(err)
	}
}
