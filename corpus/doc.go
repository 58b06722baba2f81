// Package corpus decides what a policy file says: it reads a tree of Markdown
// files with YAML front matter, checks every field, and keeps each body line
// exactly as written, addressed by its 1-based line number.
//
// A corpus is all or nothing: when any file is wrong, Load returns every
// problem it found (as an ErrorList, each with path, line and column) and no
// corpus, so a half-read library can never feed a contract.
//
// It also decides what a body line states — a scope, a date, an amount, a
// unit (StatesScope, StatesDate, AmountWithoutUnit, NamesUnit) — and so what
// a source's cite ranges lose (Source.ShortLoss): one reading shared by the
// short build, which refuses such a source, and the linter, which reports it.
package corpus
