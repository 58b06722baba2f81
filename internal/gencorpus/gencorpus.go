// Package gencorpus generates large, deterministic policy corpora for
// benchmarks and scale tests: the same n always gives the same files.
package gencorpus

import (
	"fmt"
	"testing/fstest"
	"time"
)

// VersionsPerSubject is how many consecutive versions each subject has.
const VersionsPerSubject = 100

// First is the valid_from of every subject's first version; each version
// is valid for 30 days and the last one is open-ended.
var First = time.Date(2020, time.January, 1, 0, 0, 0, 0, time.UTC)

// Subject names the subject of source i.
func Subject(i int) string { return fmt.Sprintf("subject-%05d", i/VersionsPerSubject) }

// ValidFrom is the first day source i applies.
func ValidFrom(i int) time.Time {
	return First.AddDate(0, 0, 30*(i%VersionsPerSubject))
}

// File returns the path and content of source i: about 1 KB, alternating
// en and zh bodies, with a cite range.
func File(i int) (string, []byte) {
	v := i % VersionsPerSubject
	from := ValidFrom(i)
	until := ""
	if v < VersionsPerSubject-1 {
		until = "valid_until: " + from.AddDate(0, 0, 30).Format(time.DateOnly) + "\n"
	}
	supersedes := ""
	if v > 0 {
		supersedes = fmt.Sprintf("supersedes: [src-%07d]\n", i-1)
	}
	body := fmt.Sprintf("Scope: expense rule %d for %s.\n", i, Subject(i)) +
		fmt.Sprintf("Effective from %s.\n", from.Format(time.DateOnly)) +
		fmt.Sprintf("The limit is %d EUR per claim.\n", 100+i%900)
	for l := 0; l < 12; l++ {
		body += fmt.Sprintf("Line %d explains a detail of the rule in plain words, with a receipt required for every claim.\n", l+4)
	}
	content := fmt.Sprintf("---\nsource_id: src-%07d\nversion: v%d\nsubjects: [%s]\nvalid_from: %s\n%s%slang: en\nunit: EUR per claim\ncite: [\"1-3\"]\n---\n%s",
		i, v+1, Subject(i), from.Format(time.DateOnly), until, supersedes, body)
	return fmt.Sprintf("%03d/src-%07d.md", i%997, i), []byte(content)
}

// FS returns n generated sources as an in-memory file system.
func FS(n int) fstest.MapFS {
	fsys := make(fstest.MapFS, n)
	for i := range n {
		p, data := File(i)
		fsys[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}
