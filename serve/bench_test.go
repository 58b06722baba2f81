package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/selector"
)

// benchSources is the size of the benchmark corpus: 100,000 generated
// files of about 1 KB.
const benchSources = 100_000

// BenchmarkLoadChanged reloads the benchmark corpus after one file
// changed, told its path, as the watcher does on a file event: with the
// index updated (selector.UpdateIndex), it is the whole cost of such a
// reload.
func BenchmarkLoadChanged(b *testing.B) {
	dir := b.TempDir()
	for i := range benchSources {
		p, data := gencorpus.File(i)
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fsys := openRoot(b, dir)
	c, stats := loadFull(b, fsys)
	name, orig := gencorpus.File(0)
	for _, index := range []string{"none", "index", "catalog"} {
		b.Run("update="+index, func(b *testing.B) {
			ix := selector.NewIndex(c)
			cat := contract.NewCatalog(ix)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				data := bytes.Replace(orig, []byte("\n---\n"), fmt.Appendf(nil, "\n---\nEdit %d.\n", i), 1)
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				next, nextStats, err := loadChanged(b.Context(), fsys, c, stats, []string{name}, time.Time{})
				if err != nil {
					b.Fatal(err)
				}
				stats = nextStats
				if next.Digest == c.Digest {
					b.Fatal("the change did not change the digest")
				}
				if index != "none" {
					ix = selector.UpdateIndex(ix, next)
				}
				if index == "catalog" { // what a delta reload of the service does
					cat = contract.UpdateCatalog(cat, ix)
				}
				c = next
			}
		})
	}
}
