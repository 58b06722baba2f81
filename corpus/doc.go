// Package corpus decides what a policy file says: it reads a tree of Markdown
// files with YAML front matter, checks every field, and keeps each body line
// exactly as written, addressed by its 1-based line number.
//
// A corpus is all or nothing: when any file is wrong, Load returns every
// problem it found (as an ErrorList, each with path, line and column) and no
// corpus, so a half-read library can never feed a contract.
package corpus
