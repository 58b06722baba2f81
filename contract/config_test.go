package contract_test

import (
	"errors"
	"testing"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/diag"
)

// errAny stands for an error whose cause the test does not name.
var errAny = errors.New("any error")

// TestConfigNamesItsCorpus: no zero value means the embedded sample. A
// Config or a load that names no corpus is an error with a hint naming
// the setting; the sample is used only when SampleCorpus names it.
func TestConfigNamesItsCorpus(t *testing.T) {
	tests := []struct {
		name     string
		corpus   string
		wantErr  error  // nil: loads
		wantHint string // the setting the hint names
	}{
		{"unset", "", contract.ErrNoCorpus, "corpus"},
		{"sample", contract.SampleCorpus, nil, ""},
		{"folder", "../corpus/sample", nil, ""},
		{"missing folder", "no-such-folder", errAny, "corpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := contract.Config{Corpus: tt.corpus}.Builder()
			_, lerr := contract.LoadCorpus(tt.corpus)
			if tt.wantErr == nil {
				if err != nil || lerr != nil {
					t.Fatalf("Builder() = %v, LoadCorpus() = %v, want no error", err, lerr)
				}
				if len(b.Index.Corpus().Sources) == 0 {
					t.Error("the corpus is empty")
				}
				return
			}
			for _, err := range []error{err, lerr} {
				var ce *contract.ConfigError
				if !errors.As(err, &ce) || ce.Setting != contract.SettingCorpus {
					t.Fatalf("error %v, want a ConfigError about the corpus", err)
				}
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
	if got := (contract.Config{Corpus: contract.SampleCorpus}).Location(); got != contract.SampleCorpus {
		t.Errorf("Location() = %q, want %q", got, contract.SampleCorpus)
	}
}
