package corpus_test

import (
	"testing"

	"github.com/ka2/ka2/corpus"
)

// TestKeyPositions: only known keys at a real line are recorded, and an
// unset or unknown key is not found.
func TestKeyPositions(t *testing.T) {
	var k corpus.KeyPositions
	if !k.Set("lang", corpus.Pos{Line: 4, Col: 1}) {
		t.Error("Set(lang) = false")
	}
	if k.Set("colour", corpus.Pos{Line: 4, Col: 1}) || k.Set("unit", corpus.Pos{}) {
		t.Error("Set recorded an unknown key or a position before line 1")
	}
	if p, ok := k.Get("lang"); !ok || p.Line != 4 {
		t.Errorf("Get(lang) = %v, %v", p, ok)
	}
	for _, key := range []string{"unit", "colour"} {
		if _, ok := k.Get(key); ok {
			t.Errorf("Get(%s) found a key that is not set", key)
		}
	}
}
