// Package selector decides which sources apply to a question: a source
// applies when one of its subjects equals an asked subject and an asked date
// d satisfies valid_from ≤ d < valid_until. It orders what it selects by
// valid_from descending, then source_id ascending (bytewise), then lang, and
// reports applicable sources that contradict each other instead of choosing
// between them.
package selector
