package contract_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// errAny stands for an error whose cause the test does not name.
var errAny = errors.New("any error")

// TestConfigNamesItsCorpus: no zero value means the embedded sample. A
// Config or a load that has no corpus is an error with a hint naming the
// setting; the sample is used only when corpus.Embedded gives it.
func TestConfigNamesItsCorpus(t *testing.T) {
	tests := []struct {
		name     string
		corpus   corpus.Location
		wantErr  error  // nil: loads
		wantHint string // the setting the hint names
	}{
		{"unset", corpus.Location{}, corpus.ErrNoCorpus, "corpus"},
		{"named but no files", corpus.Location{Name: "policies"}, corpus.ErrNoCorpus, "corpus"},
		{"no folder", corpus.Folder(""), corpus.ErrNoCorpus, "corpus"},
		{"sample", corpus.Embedded(), nil, ""},
		{"folder", corpus.Folder("../corpus/sample"), nil, ""},
		{"missing folder", corpus.Folder("no-such-folder"), errAny, "corpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := contract.Config{Corpus: tt.corpus}.Builder()
			_, lerr := tt.corpus.Load(context.Background())
			if tt.wantErr == nil {
				if err != nil || lerr != nil {
					t.Fatalf("Builder() = %v, Load() = %v, want no error", err, lerr)
				}
				if len(b.Index.Corpus().Sources) == 0 {
					t.Error("the corpus is empty")
				}
				return
			}
			// The Builder says which setting is wrong; the location's own
			// load gives the same problem, with the same hint.
			if ce, ok := errors.AsType[*contract.ConfigError](err); !ok || ce.Setting != contract.SettingCorpus {
				t.Fatalf("Builder() = %v, want a ConfigError about the corpus", err)
			}
			if lerr == nil || lerr.Error() != err.Error() {
				t.Fatalf("Load() = %v, want %v", lerr, err)
			}
			for _, err := range []error{err, lerr} {
				if tt.wantErr != errAny && !errors.Is(err, tt.wantErr) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.wantErr)
				}
				ds := diag.As(err)
				if len(ds) != 1 || len(ds[0].Hint.Settings()) != 1 || ds[0].Hint.Settings()[0] != tt.wantHint {
					t.Errorf("hint of %v names %v, want [%s]", err, ds, tt.wantHint)
				}
			}
		})
	}
	for _, tt := range []struct {
		c    corpus.Location
		want string
	}{
		{corpus.Embedded(), corpus.SampleName},
		{corpus.Folder(filepath.Join("a", "b")), "a/b"},
		{corpus.Folder("."), "."},
	} {
		if got := (contract.Config{Corpus: tt.c}).Location(); got != tt.want {
			t.Errorf("Location() = %q, want %q", got, tt.want)
		}
	}
}
