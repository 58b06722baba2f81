package golden_test

import (
	"testing"

	"github.com/ka2/ka2/golden"
)

// TestParseShard: "K/N" with 1 ≤ K ≤ N, written back as it was read; the
// whole suite is "all"; anything else is an error that shows the form.
func TestParseShard(t *testing.T) {
	for _, s := range []string{"1/1", "2/4", "4/4", "10/12"} {
		sh, err := golden.ParseShard(s)
		if err != nil {
			t.Errorf("ParseShard(%q) error = %v", s, err)
			continue
		}
		want := s
		if sh.All() {
			want = "all"
		}
		if sh.String() != want {
			t.Errorf("ParseShard(%q).String() = %q, want %q", s, sh.String(), want)
		}
	}
	for _, s := range []string{"", "2", "0/4", "5/4", "1/0", "-1/4", "a/b", "1/4/2", " 1/4"} {
		if sh, err := golden.ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", s, sh)
		} else if want := `shard "` + s + `": write K/N with 1 ≤ K ≤ N, e.g. 2/4 for the second of four`; err.Error() != want {
			t.Errorf("ParseShard(%q) error = %q, want %q", s, err, want)
		}
	}
	if (golden.Shard{}).String() != "all" {
		t.Error("the zero Shard is not the whole suite")
	}
}
