package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadRanges decodes hand-made ranges.mjs data in the package's
// encoding: pairs of (gap before the range, length less one), each a
// base64 digit string whose first digit says how many digits follow.
func TestReadRanges(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []rng
		wantErr bool
	}{
		// (1, 0): one code point after U+0000.
		{name: "one code point", data: "BA", want: []rng{{1, 1}}},
		// (0, 1): U+0000..U+0001; (2, 3): after the one code point that
		// always separates ranges, 2 more skipped, then 4: U+0005..U+0008.
		{name: "two ranges", data: "ABCD", want: []rng{{0, 1}, {5, 8}}},
		// "gA" is a two-digit number: (32&15)<<6 | 0 = 0; "hA" = 1<<6 = 64.
		{name: "two-digit numbers", data: "gAhA", want: []rng{{0, 64}}},
		{name: "empty", data: "", wantErr: true},
		{name: "odd count", data: "A", wantErr: true},
		{name: "cut number", data: "Ag", wantErr: true},
		{name: "beyond U+10FFFF", data: "AA8Q__A", wantErr: true}, // gap 4<<18 + 69631
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ranges.mjs")
			src := "import decodeRanges from '../../decode-ranges.mjs';\n\nexport default decodeRanges('" + tt.data + "');\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readRanges(path)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readRanges() error = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				t.Log(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(rng{})); diff != "" {
				t.Errorf("readRanges() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
