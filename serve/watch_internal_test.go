package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
)

func TestRelevantEvents(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"v1.2", ".git"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"travel.md", true},
		{"v1.2", true},       // a folder whose name has a dot
		{"gone.d", true},     // gone: may have been a folder
		{"notes.txt", false}, // plainly another kind of file
		{".git", false},      // hidden
		{".git/x.md", false}, // inside a hidden folder
		{"v1.2/travel.md", true},
	}
	for _, tt := range tests {
		ev := fsnotify.Event{Name: filepath.Join(root, tt.path), Op: fsnotify.Write}
		if got := relevant(root, ev); got != tt.want {
			t.Errorf("relevant(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
