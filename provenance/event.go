package provenance

import (
	"time"
)

// Op is what a history event did.
type Op string

// The operations.
const (
	OpAdd       Op = "add"
	OpTransform Op = "transform"
)

// Outcome is how an operation ended.
type Outcome string

// The outcomes.
const (
	// OutcomeRegistered: a new item is held.
	OutcomeRegistered Outcome = "registered"
	// OutcomeExisting: the store already held the same item (same Key).
	OutcomeExisting Outcome = "existing"
	// OutcomeRefused: nothing changed; Error says why.
	OutcomeRefused Outcome = "refused"
)

// Event is one entry of a store's history: one call of Add or Transform,
// what it asked for and how it ended. Text is the exact text; ContentID
// and ExactSHA256 tell apart texts that canonicalize alike.
type Event struct {
	Seq     int     `json:"seq"`
	Op      Op      `json:"op"`
	Outcome Outcome `json:"outcome"`
	// Type is the type asked for: the item's for an add, the target's for
	// a transform.
	Type   Kind   `json:"type"`
	Source string `json:"source"`
	// From is the key of the item a transform started from.
	From        string    `json:"from,omitempty"`
	ContentID   string    `json:"content_id"`
	ExactSHA256 string    `json:"exact_sha256"`
	Text        string    `json:"text"`
	Example     *Example  `json:"example,omitempty"`
	Ref         *Ref      `json:"ref,omitempty"`
	Created     time.Time `json:"created"`
	// Item is the key of the item registered or found.
	Item  string `json:"item,omitempty"`
	Error *Error `json:"error,omitempty"`
}
