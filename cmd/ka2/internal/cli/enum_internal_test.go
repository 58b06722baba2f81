package cli

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestScanErrorFormat(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		want      string
		wantFound bool
	}{
		{"absent", []string{"build", "--bogus"}, "", false},
		{"after a bad flag", []string{"build", "--bogus", "--error-format", "json"}, "json", true},
		{"with =", []string{"build", "--bogus", "--error-format=json"}, "json", true},
		{"last wins", []string{"--error-format", "json", "build", "--error-format", "text"}, "text", true},
		{"invalid value is left to the parse", []string{"--error-format", "JSON"}, "", false},
		{"no value", []string{"build", "--error-format"}, "", false},
		{"after --", []string{"build", "--", "--error-format", "json"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := scanErrorFormat(tt.args)
			if got != tt.want || found != tt.wantFound {
				t.Errorf("scanErrorFormat(%q) = %q, %v, want %q, %v", tt.args, got, found, tt.want, tt.wantFound)
			}
		})
	}
}

func TestEnumValue(t *testing.T) {
	var v string
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	enumVar(fs, &v, "format", "text", textJSON, "output format")
	if v != "text" {
		t.Fatalf("default = %q, want text", v)
	}
	if err := fs.Parse([]string{"--format", "json"}); err != nil || v != "json" {
		t.Fatalf("Parse(json) = %v, value %q", err, v)
	}
	err := fs.Parse([]string{"--format", "xml"})
	if got, want := flagError(err).Error(), `invalid value "xml" for --format: want one of text, json`; got != want {
		t.Errorf("flagError() = %q, want %q", got, want)
	}
	if v != "json" {
		t.Errorf("a refused value changed the flag to %q", v)
	}
}
