package provenance

import (
	"fmt"
	"strings"
	"testing"
)

// TestContentIDCache: the cache never changes an ID. Texts that share a
// slot, texts that differ only where canonical forms agree, a text met
// again after its slot was taken, and texts over the size the cache
// keeps all get the ID computed from scratch.
func TestContentIDCache(t *testing.T) {
	var texts []string
	for i := range 3 * len(idCache) { // more texts than slots: slots are shared and retaken
		texts = append(texts, fmt.Sprintf("Line %d of the policy: 住宿 %d 元", i, i%7))
	}
	texts = append(texts, "", "   ", "Ａ Ｂ", "a b", "A\tB", strings.Repeat("x", idCacheMaxText+1), strings.Repeat("é", idCacheMaxText))
	for round := range 3 {
		for _, text := range texts {
			wantID, wantEmpty := computeContentID(text)
			id, empty := contentID(text)
			if id != wantID || empty != wantEmpty {
				t.Fatalf("round %d: contentID(%.40q) = %s, %v; computed %s, %v", round, text, id, empty, wantID, wantEmpty)
			}
			if id != idOf(Canonical(text)) {
				t.Fatalf("contentID(%.40q) is not the SHA-256 of its canonical form", text)
			}
		}
	}
}
