package contract

import (
	"hash/maphash"
	"maps"
	"math"
	"sync/atomic"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// Catalog holds, prepared for a store (see provenance.Prepare), every
// evidence record a build can quote from one corpus without being told a
// range: each source's whole body and each of its cite ranges. A loaded
// corpus does not change, so its records' content IDs, keys and readings
// are derived at most once per load instead of in every build; a build
// looks them up (see Builder.Catalog) and hashes only what its request
// brings. Each record is also kept as the bytes a contract holds it in,
// and their code points (see encoded). A source's records are prepared
// the first time a build quotes it: prepared up front, the records of
// 100k sources held 87 MB (0.64× the corpus's files, before they were
// kept encoded too) whether or not any question reached them. A
// Catalog is safe for concurrent use.
type Catalog struct {
	// corpus is the corpus whose sources the catalog holds.
	corpus *corpus.Corpus
	// A source's records are found in over, else in base. A reload
	// (UpdateCatalog) does not copy a record per source of the corpus:
	// the new catalog shares the previous one's base, which nothing
	// writes once it is made, and holds only the changes on top of it
	// (a nil entry for a source that is gone). The changes are folded
	// into a new base once they outnumber a few times the square root of
	// the corpus's sources, as serve's fileStats folds its own: a reload
	// of one file at 100k sources then costs a few thousand entries, not
	// a map of 100k (3.5 MB) and a lookup of every source. Until a fold,
	// base keeps the records of the sources gone since it was made.
	base *recordTable
	over map[*corpus.Source]*lazyRecords
	// fixed holds the instruction-and-example templates of builds on
	// this corpus (see fixedStore).
	fixed fixedTemplates
	// fixedEnc holds the encodings of the templates' two items, in a
	// table like fixed's, keyed by the instruction's key.
	fixedEnc [16]atomic.Pointer[fixedEncoding]
}

// fixedEncoding is the encoding of a template's instruction and example,
// and their keys.
type fixedEncoding struct {
	keys [2]string
	enc  [2]*encoded
}

// fixedKnown is what assemble is told about held, the instruction and
// the example of a template (see fixedStore): their encodings, made the
// first time a build starts from that template. A template's items never
// change, and the keys are compared in full on every use.
func (cat *Catalog) fixedKnown(held [2]provenance.Item) [2]knownItem {
	slot := &cat.fixedEnc[maphash.String(cat.fixed.seed, held[0].Key)&(uint64(len(cat.fixedEnc))-1)]
	f := slot.Load()
	if f == nil || f.keys != [2]string{held[0].Key, held[1].Key} {
		f = &fixedEncoding{keys: [2]string{held[0].Key, held[1].Key}, enc: [2]*encoded{encodeWith(appendInstruction, held[0]), encodeWith(appendExample, held[1])}}
		slot.Store(f)
	}
	return [2]knownItem{knownAs(f.enc[0], held[0]), knownAs(f.enc[1], held[1])}
}

// recordTable holds the records of a corpus's sources in one array, by
// each source's place in it: no object per source (a source's records are
// nil until a build first quotes it), since the collector marks every
// object of a loaded catalog in every collection. Measured on 100k
// generated sources loaded as ka2 serve loads them, 2026-12-02, against a
// map to an object per source: 100k objects fewer (313k against 413k)
// and 1.6 MB less live heap; a collection of the 10k corpus 0.88× the L1
// read misses and 0.97× the last-level ones (cachegrind, as in
// selector's timeline). Nothing changes a table once it is made but
// the records it holds, each set once.
type recordTable struct {
	at   map[*corpus.Source]uint32 // the place of each source in held
	held []lazyRecords
}

// newTable is the table of sources, with the records that prev holds
// for them (prev returns nil for a source it does not know).
func newTable(sources []*corpus.Source, prev func(*corpus.Source) *lazyRecords) *recordTable {
	t := &recordTable{at: make(map[*corpus.Source]uint32, len(sources)), held: make([]lazyRecords, len(sources))}
	for i, s := range sources {
		t.at[s] = uint32(i)
		if l := prev(s); l != nil {
			t.held[i].r.Store(l.r.Load())
		}
	}
	return t
}

// lazy returns the records of s in t, or nil when t does not know s.
func (t *recordTable) lazy(s *corpus.Source) *lazyRecords {
	if i, ok := t.at[s]; ok {
		return &t.held[i]
	}
	return nil
}

// lazyRecords are one source's records, prepared on first use. Two builds
// that first quote a source at once may both prepare them; one is kept,
// and they are equal, since they are made from the source alone.
type lazyRecords struct {
	r atomic.Pointer[sourceRecords]
}

// get prepares s's records the first time it is called.
func (l *lazyRecords) get(s *corpus.Source) *sourceRecords {
	if r := l.r.Load(); r != nil {
		return r
	}
	l.r.CompareAndSwap(nil, prepareSource(s))
	return l.r.Load()
}

// sourceRecords are one source's prepared records. A record that could
// not be prepared (an empty body, a cite range outside it) is left out,
// and a build quotes it as it would without a catalog, which reports
// the problem.
type sourceRecords struct {
	body     [1]record // a list of one, as records returns it
	hasBody  bool
	cites    []record // one per cite range, in order; nil when one of them could not be prepared
	corpusID string   // the source's "corpus:ID", shared by its records
}

// record is one evidence record prepared for a store and encoded for a
// contract (see encoded).
type record struct {
	pre provenance.Prepared
	enc encoded // held here, not behind a pointer: one load less per build
}

// NewCatalog is the catalog of the records of every source of ix's
// corpus.
func NewCatalog(ix *selector.Index) *Catalog { return UpdateCatalog(nil, ix) }

// UpdateCatalog is NewCatalog keeping prev's records of the sources that
// ix's corpus shares with prev's, told apart by identity as corpus.Reload
// and selector.UpdateIndex keep the unchanged ones: after a reload that
// changes a few files only those files' records are prepared again. A
// nil prev gives NewCatalog(ix).
func UpdateCatalog(prev *Catalog, ix *selector.Index) *Catalog {
	c := ix.Corpus()
	cat := &Catalog{corpus: c}
	if prev == nil {
		cat.fixed.seed = maphash.MakeSeed()
		cat.base = newTable(c.Sources, func(*corpus.Source) *lazyRecords { return nil })
		return cat
	}
	// A template is checked in full on every use, so a reload keeps
	// them: a changed definition or policy finds none.
	cat.fixed.seed = prev.fixed.seed
	for i := range cat.fixed.slots {
		cat.fixed.slots[i].Store(prev.fixed.slots[i].Load())
	}
	for i := range cat.fixedEnc {
		cat.fixedEnc[i].Store(prev.fixedEnc[i].Load())
	}
	cat.base = prev.base
	cat.over = maps.Clone(prev.over)
	if cat.over == nil {
		cat.over = map[*corpus.Source]*lazyRecords{}
	}
	corpus.DiffSources(prev.corpus.Sources, c.Sources, cat.drop, func(s *corpus.Source) { cat.over[s] = &lazyRecords{} })
	if len(cat.over) > 64+4*int(math.Sqrt(float64(len(c.Sources)))) {
		// The records prepared so far move to the new table; one that a
		// build of the previous catalogs prepares from now on is not
		// shared with this one.
		cat.base, cat.over = newTable(c.Sources, cat.lazy), nil
	}
	return cat
}

// drop forgets the records of s, a source of the previous corpus.
func (cat *Catalog) drop(s *corpus.Source) {
	if _, inBase := cat.base.at[s]; inBase {
		cat.over[s] = nil
	} else {
		delete(cat.over, s)
	}
}

// lazy returns the records of s, or nil when the catalog has none.
func (cat *Catalog) lazy(s *corpus.Source) *lazyRecords {
	if l, ok := cat.over[s]; ok {
		return l
	}
	return cat.base.lazy(s)
}

// prepareSource prepares the records of s, as evidenceCandidates would
// make them for a question about one subject.
func prepareSource(s *corpus.Source) *sourceRecords {
	r := &sourceRecords{corpusID: provenance.SchemeCorpus + ":" + s.ID}
	r.body[0], r.hasBody = r.prepare(s, s.Body())
	if len(s.Cite) > 0 {
		r.cites = make([]record, len(s.Cite))
		for i, rg := range s.Cite {
			var ok bool
			if r.cites[i], ok = r.prepare(s, rg); !ok {
				r.cites = nil
				break
			}
		}
	}
	return r
}

func (r *sourceRecords) prepare(s *corpus.Source, rg corpus.Range) (record, bool) {
	quote, err := s.Quote(rg)
	if err != nil {
		return record{}, false
	}
	p, err := provenance.Prepare(provenance.Item{Kind: provenance.KindEvidence, Source: r.corpusID, Text: quote, Ref: SourceRef(s, rg)})
	if err != nil {
		return record{}, false
	}
	return record{pre: p, enc: encodeEvidence(p.Item())}, true
}

// records returns the prepared records of s that a build quotes: its
// body, or with short its cite ranges; ok is false when the catalog has
// not got them all. The slice is the catalog's own, not to be changed.
func (cat *Catalog) records(s *corpus.Source, short bool) ([]record, bool) {
	if cat == nil {
		return nil, false
	}
	l := cat.lazy(s)
	if l == nil {
		return nil, false
	}
	r := l.get(s)
	if short && len(s.Cite) > 0 {
		return r.cites, r.cites != nil
	}
	if !r.hasBody {
		return nil, false
	}
	return r.body[:], true
}
