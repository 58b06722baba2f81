package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// onDemand is the record of lines r of s as a store registers it for a
// build without a catalog.
func onDemand(t *testing.T, c *corpus.Corpus, s *corpus.Source, r corpus.Range) provenance.Item {
	t.Helper()
	quote, err := s.Quote(r)
	if err != nil {
		t.Fatalf("Quote(%s, %v): %v", s.ID, r, err)
	}
	held, err := provenance.NewStore(nil).Add(provenance.Item{Kind: provenance.KindEvidence, Source: provenance.SchemeCorpus + ":" + s.ID, Text: quote, Ref: contract.SourceRef(s, r)})
	if err != nil {
		t.Fatalf("Add(%s:%v): %v", s.ID, r, err)
	}
	return held
}

// checkRecords compares every record cat holds for c's sources with the
// on-demand computation.
func checkRecords(t *testing.T, cat *contract.Catalog, c *corpus.Corpus) {
	t.Helper()
	for _, s := range c.Sources {
		body, cites, ok := cat.Records(s)
		if !ok {
			t.Fatalf("catalog has no records of %s", s.ID)
		}
		if diff := cmp.Diff(onDemand(t, c, s, s.Body()), body.Item()); diff != "" {
			t.Errorf("body record of %s mismatch (-on demand +catalog):\n%s", s.ID, diff)
		}
		if len(cites) != len(s.Cite) {
			t.Fatalf("catalog has %d cite records of %s, want %d", len(cites), s.ID, len(s.Cite))
		}
		for i, r := range s.Cite {
			if diff := cmp.Diff(onDemand(t, c, s, r), cites[i].Item()); diff != "" {
				t.Errorf("cite record %d of %s mismatch (-on demand +catalog):\n%s", i, s.ID, diff)
			}
		}
	}
}

// TestCatalogRecordsAreOnDemand: every record a catalog prepares at load
// is the one a build would derive on demand, for every source of
// generated corpora (bodies, cite ranges, escapes, two languages).
func TestCatalogRecordsAreOnDemand(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{"varied": gencorpus.Varied(80), "scale": gencorpus.FS(300)} {
		t.Run(name, func(t *testing.T) {
			c, err := corpus.Load(fsys)
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, contract.NewCatalog(selector.NewIndex(c)), c)
		})
	}
}

// TestUpdateCatalogDelta: a reload that changes, adds and removes files
// prepares exactly the changed sources' records again, keeps the
// others' as they were, and holds none of a removed source.
func TestUpdateCatalogDelta(t *testing.T) {
	fsys := gencorpus.Varied(40)
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	cat := contract.NewCatalog(ix)
	next := fstest.MapFS{}
	for p, f := range fsys {
		next[p] = f
	}
	var read, removed []string
	n := 0
	for _, s := range c.Sources {
		switch n++; n % 10 {
		case 3: // an edited body
			f := *next[s.Path]
			f.Data = append(bytes.Clone(f.Data), "An added line with a \"quote\".\n"...)
			next[s.Path] = &f
			read = append(read, s.Path)
		case 7:
			delete(next, s.Path)
			removed = append(removed, s.Path)
		}
	}
	p, data := "added/new-source.md", []byte("---\nsource_id: added-1\nversion: v1\nsubjects: [meals]\nvalid_from: 2024-02-01\ncite: [\"2-2\"]\n---\nFirst line.\nThe added limit is 12 EUR.\n")
	next[p] = &fstest.MapFile{Data: data}
	read = append(read, p)
	c2, err := c.Update(next, read, removed)
	if err != nil {
		t.Fatal(err)
	}
	cat2 := contract.UpdateCatalog(cat, selector.UpdateIndex(ix, c2))
	checkRecords(t, cat2, c2)
	old := map[*corpus.Source]bool{}
	for _, s := range c.Sources {
		old[s] = true
	}
	kept, prepared := 0, 0
	for _, s := range c2.Sources {
		if old[s] {
			kept++
			if !contract.SameRecords(cat, cat2, s) {
				t.Errorf("the records of unchanged %s were prepared again", s.ID)
			}
			delete(old, s)
			continue
		}
		prepared++
		if contract.SameRecords(cat, cat2, s) {
			t.Errorf("changed %s kept its old records", s.ID)
		}
	}
	if want := len(read); prepared != want || kept != len(c.Sources)-len(read)-len(removed)+1 {
		t.Errorf("reload prepared %d sources and kept %d, want %d prepared and %d kept", prepared, kept, want, len(c.Sources)-len(read)-len(removed)+1)
	}
	for s := range old {
		if _, _, ok := cat2.Records(s); ok {
			t.Errorf("the catalog still holds the records of %s, which the reload removed or replaced", s.ID)
		}
	}
}

// built is everything a build decides, as bytes: the contract or the
// error, the trace and the audit history.
func built(t *testing.T, b *contract.Builder, req contract.Request) string {
	t.Helper()
	res, err := b.Build(context.Background(), req)
	var out bytes.Buffer
	fmt.Fprintf(&out, "error: %v\n", err)
	if res == nil {
		return out.String()
	}
	out.Write(res.JSON)
	decisions, derr := b.Index.Explain(res.Selection.Query)
	if derr == nil {
		tr, jerr := json.Marshal(contract.NewTrace("test", "corpus", b, req, res, decisions))
		if jerr != nil {
			t.Fatal(jerr)
		}
		out.WriteString("\ntrace: ")
		out.Write(tr)
	}
	out.WriteString("\nhistory:\n")
	if err := res.Store.WriteHistory(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestCatalogBuildsTheSame: a builder with a catalog builds every request
// byte for byte as one without: contracts, errors, traces and audit
// histories, for questions about one subject and several, whole and
// short, with a clock and without, and with request items that repeat
// the corpus's quotes (refused as protected content, or wrapped in an
// instruction, as first registration decides).
func TestCatalogBuildsTheSame(t *testing.T) {
	c, err := corpus.Load(gencorpus.Varied(60))
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	plain := &contract.Builder{Definition: contract.Default(), Index: ix, Counter: budget.Codepoint, Limits: budget.Limits{Capacity: 40000, Reserve: 200}}
	clock := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	rng := rand.New(rand.NewPCG(29, 1))
	seen := map[string]int{}
	for n := range 400 {
		req := randomRequest(rng, n)
		if n%4 == 1 {
			// An item repeating a selected quote: as an extra instruction
			// (refused, since the content is evidence first), as memory
			// (allowed) or as a tool result promoted to evidence.
			sel, err := ix.Select(req.Query)
			if err == nil && len(sel.Sources) > 0 {
				quote, _ := sel.Sources[0].Quote(sel.Sources[0].Body())
				kind := []provenance.Kind{provenance.KindInstruction, provenance.KindMemory, provenance.KindToolOutput}[n/4%3]
				source := map[provenance.Kind]string{provenance.KindInstruction: provenance.SourceSystem, provenance.KindMemory: "memory:notes", provenance.KindToolOutput: "tool:lookup"}[kind]
				req.Items = []provenance.Item{provenance.NewItem(kind, source, "Before.\n"+quote, time.Time{}), provenance.NewItem(kind, source, quote, time.Time{})}
				if kind == provenance.KindToolOutput {
					req.Promote = []contract.Promotion{{Item: 1, To: provenance.KindEvidence}}
				}
			}
		}
		b := *plain
		if n%5 == 2 {
			b.Now = clock
		}
		withCat := b
		withCat.Catalog = contract.NewCatalogOnce(ix)
		want, got := built(t, &b, req), built(t, &withCat, req)
		if want != got {
			t.Fatalf("build %d (%v, short %v) differs with a catalog:\n%s", n, req.Query, req.Short, cmp.Diff(want, got))
		}
		for _, k := range []string{`"outcome":"refused"`, `"serves":`, `"op":"transform"`, `"short":true`} {
			if strings.Contains(got, k) {
				seen[k]++
			}
		}
	}
	for _, k := range []string{`"outcome":"refused"`, `"serves":`, `"op":"transform"`, `"short":true`} {
		if seen[k] < 5 {
			t.Errorf("only %d builds hold %s: the requests do not exercise it", seen[k], k)
		}
	}
}

// TestCatalogPreparesOnFirstUse: a new catalog has prepared nothing; a
// build prepares the records of the sources it quotes and no others;
// builds at once on one catalog prepare each source once and build what
// a builder without one builds (run with -race).
func TestCatalogPreparesOnFirstUse(t *testing.T) {
	c, err := corpus.Load(gencorpus.Varied(60))
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	cat := contract.NewCatalog(ix)
	for _, s := range c.Sources {
		if contract.Prepared(cat, s) {
			t.Fatalf("%s is prepared before any build", s.ID)
		}
	}
	plain := &contract.Builder{Definition: contract.Default(), Index: ix, Counter: budget.Codepoint, Limits: budget.Limits{Capacity: 40000, Reserve: 200}}
	withCat := *plain
	withCat.Catalog = cat
	rng := rand.New(rand.NewPCG(7, 3))
	reqs := make([]contract.Request, 40)
	for i := range reqs {
		reqs[i] = randomRequest(rng, i)
	}
	quoted := map[*corpus.Source]bool{}
	for _, req := range reqs {
		if sel, err := ix.Select(req.Query); err == nil {
			for _, s := range sel.Sources {
				quoted[s] = true
			}
		}
	}
	if len(quoted) == 0 || len(quoted) == len(c.Sources) {
		t.Fatalf("the requests quote %d of %d sources; the test needs some and not all", len(quoted), len(c.Sources))
	}
	want := make([]string, len(reqs))
	for i, req := range reqs {
		want[i] = built(t, plain, req)
	}
	var wg sync.WaitGroup
	got := make([]string, len(reqs))
	for i, req := range reqs {
		wg.Go(func() { got[i] = built(t, &withCat, req) })
	}
	wg.Wait()
	for i := range reqs {
		if got[i] != want[i] {
			t.Errorf("build %d differs with a catalog built on at once:\n%s", i, cmp.Diff(want[i], got[i]))
		}
	}
	for _, s := range c.Sources {
		if contract.Prepared(cat, s) != quoted[s] {
			t.Errorf("%s: prepared %v, quoted by a build %v", s.ID, contract.Prepared(cat, s), quoted[s])
		}
	}
}

// TestUpdateCatalogChain: a catalog updated by many reloads in a row,
// each editing, adding or removing one file, holds after every one of
// them the records of exactly the corpus's sources, shares the records
// of every source no reload touched since it was prepared, and holds
// none of a source that is gone: across the folds of its changes into a
// new base too (the chain is longer than the fold threshold of a corpus
// this small).
func TestUpdateCatalogChain(t *testing.T) {
	fsys := gencorpus.Varied(30)
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	first := contract.NewCatalog(ix)
	cat := first
	next := fstest.MapFS{}
	for p, f := range fsys {
		next[p] = f
	}
	touched := map[string]bool{} // paths a reload read or removed
	var gone []*corpus.Source
	folds := 0
	for i := range 200 {
		var read, removed []string
		s := c.Sources[(i*7)%len(c.Sources)]
		switch i % 3 {
		case 0: // an edited body
			f := *next[s.Path]
			f.Data = append(bytes.Clone(f.Data), fmt.Sprintf("Edit %d of the rule.\n", i)...)
			next[s.Path] = &f
			read = append(read, s.Path)
			gone = append(gone, s)
		case 1: // a file removed
			delete(next, s.Path)
			removed = append(removed, s.Path)
			gone = append(gone, s)
		}
		if i%3 != 0 { // a file added
			p := fmt.Sprintf("added/new-%d.md", i)
			next[p] = &fstest.MapFile{Data: fmt.Appendf(nil, "---\nsource_id: added-%d\nversion: v1\nsubjects: [meals]\nvalid_from: 2024-02-01\n---\nThe added limit is %d EUR.\n", i, i)}
			read = append(read, p)
		}
		for _, p := range slices.Concat(read, removed) {
			touched[p] = true
		}
		c2, err := c.Update(next, read, removed)
		if err != nil {
			t.Fatal(err)
		}
		ix = selector.UpdateIndex(ix, c2)
		cat = contract.UpdateCatalog(cat, ix)
		c = c2
		if contract.Layered(cat) == 0 {
			folds++
		}
		checkRecords(t, cat, c)
		for _, s := range c.Sources {
			if !touched[s.Path] && !contract.SameRecords(first, cat, s) {
				t.Fatalf("reload %d: the records of %s, which no reload touched, were prepared again", i, s.ID)
			}
		}
		for _, s := range gone {
			if _, _, ok := cat.Records(s); ok {
				t.Fatalf("reload %d: the catalog holds the records of %s, which a reload removed or replaced", i, s.ID)
			}
		}
	}
	if folds == 0 {
		t.Error("no reload folded the catalog's changes into a new base")
	}
}

// TestCatalogCountsTheSame: with a catalog, whose records and templates
// come encoded and counted (see Builder.Catalog), every counter reports
// what a builder without one reports, and what counting the finished
// contract in full reports: whole and short, one subject and several,
// both languages, over budget and within, with request items whose text
// JSON escapes (a second instruction, which joins the first, memory
// and tool output with quotes, tabs, U+2028 and non-ASCII text).
func TestCatalogCountsTheSame(t *testing.T) {
	c, err := corpus.Load(gencorpus.Varied(60))
	if err != nil {
		t.Fatal(err)
	}
	ix := selector.NewIndex(c)
	cat := contract.NewCatalog(ix)
	rng := rand.New(rand.NewPCG(29, 2))
	extras := []provenance.Item{
		provenance.NewItem(provenance.KindInstruction, provenance.SourceSystem, "Also: answer \"briefly\".", time.Time{}),
		provenance.NewItem(provenance.KindMemory, "memory:notes", "Notiz:\t„Hotel“ <b>&</b>\u2028住宿 \\ done", time.Time{}),
		provenance.NewItem(provenance.KindToolOutput, "tool:lookup", "{\"limit\": 600}\n👍🏽", time.Time{}),
	}
	seen := map[string]int{}
	for n := range 300 {
		counter := budget.Names()[n%3]
		cnt, err := budget.Lookup(counter)
		if err != nil {
			t.Fatal(err)
		}
		req := randomRequest(rng, n)
		if n%4 == 1 {
			req.Items = slices.Clone(extras[:1+rng.IntN(len(extras))])
			if rng.IntN(2) == 0 {
				req.Items = req.Items[1:]
			}
		}
		limits := budget.Limits{Capacity: 40000, Reserve: 200, Wrapper: n % 7}
		if n%5 == 4 {
			limits.Capacity = 900 // over budget: the report comes with the error
		}
		plain := &contract.Builder{Definition: contract.Default(), Index: ix, Counter: cnt, Limits: limits}
		withCat := *plain
		withCat.Catalog = cat
		want, wantErr := plain.Build(context.Background(), req)
		got, gotErr := withCat.Build(context.Background(), req)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("build %d (%s): error %v with a catalog, %v without", n, counter, gotErr, wantErr)
		}
		if want == nil || want.JSON == nil {
			continue
		}
		if !bytes.Equal(want.JSON, got.JSON) {
			t.Fatalf("build %d (%s): contract differs with a catalog:\n%s", n, counter, cmp.Diff(string(want.JSON), string(got.JSON)))
		}
		if diff := cmp.Diff(want.Budget, got.Budget); diff != "" {
			t.Fatalf("build %d (%s, %v, short %v): budget differs with a catalog (-without +with):\n%s", n, counter, req.Query, req.Short, diff)
		}
		// The same items assembled and counted in full, as a contract
		// sent back is (no encoding known).
		again, err := withCat.AssembleIn(got.Store, got.Items)
		if again == nil {
			t.Fatalf("build %d: assembling its items again: %v", n, err)
		}
		if !bytes.Equal(again.JSON, got.JSON) || !cmp.Equal(again.Budget, got.Budget) {
			t.Fatalf("build %d (%s): assembled again in full it differs:\n%s\n%s", n, counter, cmp.Diff(string(again.JSON), string(got.JSON)), cmp.Diff(again.Budget, got.Budget))
		}
		for _, k := range []string{`"serves":`, `"role":`, `"memory":`, "\\u2028"} {
			if bytes.Contains(got.JSON, []byte(k)) {
				seen[counter+" "+k]++
			}
		}
		if !got.Budget.Fits() {
			seen[counter+" over"]++
		}
		if req.Short {
			seen[counter+" short"]++
		}
	}
	for _, counter := range budget.Names() {
		for _, k := range []string{`"serves":`, `"role":`, `"memory":`, "\\u2028", "over", "short"} {
			if seen[counter+" "+k] < 3 {
				t.Errorf("only %d %s builds hold %s: the requests do not exercise it", seen[counter+" "+k], counter, k)
			}
		}
	}
}
