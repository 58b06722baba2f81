package corpus_test

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/ka2/ka2/corpus"
)

func TestResolveLinks(t *testing.T) {
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Mode: fs.ModeSymlink | 0o777, Data: []byte(target)}
	}
	fsys := fstest.MapFS{
		"..2026_11_30/en/travel.md": {Data: []byte("policy")},
		"..data":                    link("..2026_11_30"),
		"en":                        link("..data/en"),
		"out.md":                    link("../secret.md"),
		"a":                         link("b"),
		"b":                         link("a"),
	}
	tests := []struct {
		name, path, want string // want "" for an error
		wantErr          error  // what the error matches, if anything
	}{
		{"through two links", "en/travel.md", "..2026_11_30/en/travel.md", nil},
		{"no link", "..2026_11_30/en", "..2026_11_30/en", nil},
		{"leaving the root", "out.md", "", nil},
		{"loop", "a/x.md", "", corpus.ErrLinkLoop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.ResolveLinks(fsys, tt.path)
			if got != tt.want || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || (tt.want != "") != (err == nil) {
				t.Errorf("ResolveLinks(%q) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
