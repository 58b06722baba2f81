package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		in      string
		want    memoryLimit
		wantErr bool
	}{
		{"auto", memoryLimit{auto: true}, false},
		{"off", memoryLimit{}, false},
		{"512MiB", memoryLimit{bytes: 512 << 20}, false},
		{"2GiB", memoryLimit{bytes: 2 << 30}, false},
		{"0MiB", memoryLimit{}, true},
		{"-1GiB", memoryLimit{}, true},
		{"512", memoryLimit{}, true},
		{"512MB", memoryLimit{}, true},
		{"9999999999999GiB", memoryLimit{}, true},
		{"", memoryLimit{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseMemoryLimit(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseMemoryLimit(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			// One message for every refusal: it names the value and what
			// the flag takes.
			if want := fmt.Sprintf("--memory-limit %q: use auto, off, or a size such as 512MiB or 2GiB", tt.in); err != nil && err.Error() != want {
				t.Errorf("parseMemoryLimit(%q) error = %q, want %q", tt.in, err, want)
			}
			var ue usageError
			if err != nil && !errors.As(err, &ue) {
				t.Errorf("parseMemoryLimit(%q) error %v is not a usage error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(memoryLimit{})); diff != "" {
				t.Errorf("parseMemoryLimit(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestAutoPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, 40},               // nothing measured yet: the headroom
		{4 << 20, 1600},       // a small corpus: the floor, 64 MiB over 4 MiB
		{160 << 20, 40},       // 1.4 × 160 MiB = 224 MiB, the floor's value too
		{100 << 20, 64},       // the floor: 64 MiB over 100 MiB
		{(100 << 20) + 1, 64}, // rounded up, never under the floor
		{1000 << 20, 40},      // a large one: the headroom
		{10 << 30, 40},        // 10 GiB
	}
	for _, tt := range tests {
		if got := autoPercent(tt.live); got != tt.want {
			t.Errorf("autoPercent(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}
