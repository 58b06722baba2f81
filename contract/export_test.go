package contract

import (
	"context"
	"sync"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/provenance"
	"github.com/ka2/ka2/selector"
)

// BuildIn is Build in the store s rather than a new one, for tests that
// compare a build with one in a store they hold.
func (b *Builder) BuildIn(ctx context.Context, s *provenance.Store, req Request) (*Result, error) {
	return b.build(ctx, s, req)
}

// Records returns the records c holds of s: its body's and its cite
// ranges'; ok is false when it holds none.
func (c *Catalog) Records(s *corpus.Source) (body provenance.Prepared, cites []provenance.Prepared, ok bool) {
	l := c.lazy(s)
	if l == nil {
		return body, nil, false
	}
	r := l.get(s)
	for _, c := range r.cites {
		cites = append(cites, c.pre)
	}
	return r.body[0].pre, cites, r.hasBody
}

// Prepared reports whether the catalog has prepared s's records yet. Not
// safe beside a build that may prepare them.
func Prepared(c *Catalog, s *corpus.Source) bool {
	l := c.lazy(s)
	return l != nil && l.r.Load() != nil
}

// SameRecords reports whether a and b hold the very same records of s,
// prepared once: the same place for them, or the same records there.
func SameRecords(a, b *Catalog, s *corpus.Source) bool {
	ra, rb := a.lazy(s), b.lazy(s)
	return ra != nil && rb != nil && (ra == rb || ra.r.Load() != nil && ra.r.Load() == rb.r.Load())
}

// Layered is how many changes c holds on top of its base.
func Layered(c *Catalog) int { return len(c.over) }

var catalogs sync.Map // *selector.Index → *Catalog

// NewCatalogOnce is NewCatalog, once per index.
func NewCatalogOnce(ix *selector.Index) *Catalog {
	if c, ok := catalogs.Load(ix); ok {
		return c.(*Catalog)
	}
	c, _ := catalogs.LoadOrStore(ix, NewCatalog(ix))
	return c.(*Catalog)
}
