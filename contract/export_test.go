package contract

import (
	"context"

	"github.com/ka2/ka2/provenance"
)

// BuildIn is Build in the store s rather than a new one, for tests that
// compare a build with one in a store they hold.
func (b *Builder) BuildIn(ctx context.Context, s *provenance.Store, req Request) (*Result, error) {
	return b.build(ctx, s, req)
}
