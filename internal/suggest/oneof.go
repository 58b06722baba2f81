package suggest

import (
	"fmt"
	"strings"
)

// OneOf words candidates as the choice of a "did you mean" hint: "a",
// "a or b", "a, b or c", naming at most limit of them and then how many
// more there are.
func OneOf(candidates []string, limit int) string {
	if len(candidates) > limit {
		return strings.Join(candidates[:limit], ", ") + fmt.Sprintf(" or %d more", len(candidates)-limit)
	}
	if len(candidates) <= 1 {
		return strings.Join(candidates, "")
	}
	return strings.Join(candidates[:len(candidates)-1], ", ") + " or " + candidates[len(candidates)-1]
}
