package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFastFolderRead reads 100 goldens of about 1 KB from one golden
// folder with the fast folder reader, as a run reads them.
func BenchmarkFastFolderRead(b *testing.B) {
	tree := b.TempDir()
	dir := filepath.Join(tree, "g")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var names []string
	for i := range 100 {
		name := fmt.Sprintf("case-%03d.golden", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("{\"x\": 1}\n", 110+i)), 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, name)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ff := openFastFolder(r)
	defer ff.close()
	for b.Loop() {
		for _, n := range names {
			if _, ok := ff.read(n); !ok {
				b.Fatal(n)
			}
		}
	}
}
