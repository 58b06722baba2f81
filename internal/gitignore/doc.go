// Package gitignore decides whether a path matches the patterns of a
// .gitignore file, the way git decides it.
//
// It is our own because the well-kept library that does this (go-git's
// plumbing/format/gitignore) brings go-git, go-billy, gcfg, x/net and
// dozens more modules into the build, which made the first `go run` of ka2
// on a fresh machine half as slow again; the rules fit in one file, and
// the tests check them against git itself.
//
// The matching follows git's dir.c and wildmatch.c: a pattern without a
// slash (other than a trailing one) matches a name at any depth, one with
// a slash is anchored to the folder of its file; a trailing "/" matches
// folders only; "*", "?" and "[...]" (with "!" or "^" negation, ranges and
// [:classes:]) never match a "/"; "**" matches any number of folders when
// it stands between slashes or at either end; "!" re-includes; "\" escapes
// the next character, and trailing spaces are dropped unless escaped.
//
// That a file cannot be re-included once a folder above it is excluded is
// the caller's part: it does not look inside an excluded folder (see
// Match).
package gitignore
