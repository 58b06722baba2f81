package contract_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
)

// TestDefinitionBudgetRange checks that a definition's default limits are
// range-checked like the flags and case files that override them.
func TestDefinitionBudgetRange(t *testing.T) {
	tests := []struct {
		name, limits, want string
	}{
		{"huge wrapper", `"capacity": 1, "reserve": 0, "wrapper": 9223372036854775807`,
			"ka2-context-contract-v1.json:31:61: contract definition: budget.counters.codepoint: wrapper 9223372036854775807 is out of range 0..0: it must be smaller than the capacity 1; lower it, or raise the capacity"},
		{"reserve equal to capacity", `"capacity": 1400, "reserve": 1400, "wrapper": 0`,
			"ka2-context-contract-v1.json:31:50: contract definition: budget.counters.codepoint: reserve 1400 is out of range 0..1399: it must be smaller than the capacity 1400; lower it, or raise the capacity"},
		{"capacity over the maximum", `"capacity": 100000001, "reserve": 0, "wrapper": 0`,
			"ka2-context-contract-v1.json:31:33: contract definition: budget.counters.codepoint: capacity 100000001 is out of range 1..100000000; write a capacity from 1 to 100000000"},
		{"negative capacity", `"capacity": -1, "reserve": 0, "wrapper": 0`,
			"ka2-context-contract-v1.json:31:33: contract definition: budget.counters.codepoint: capacity -1 is out of range 1..100000000; write a capacity from 1 to 100000000"},
	}
	orig := []byte(`"codepoint": {"capacity": 1600, "reserve": 200, "wrapper": 0}`)
	if !bytes.Contains(ka2.ContractJSON, orig) {
		t.Fatalf("the embedded definition no longer holds %s", orig)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := bytes.Replace(ka2.ContractJSON, orig, []byte(`"codepoint": {`+tt.limits+`}`), 1)
			_, err := contract.ParseDefinition(def, ka2.ContentYAML)
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParseDefinition() error = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestConfigBudgetRange checks the overrides: huge and negative values
// are a SettingLimits ConfigError holding the RangeErrors.
func TestConfigBudgetRange(t *testing.T) {
	p := func(v int) *int { return &v }
	tests := []struct {
		name string
		cfg  contract.Config
		want []string // the limits out of range
	}{
		{"valid", contract.Config{Capacity: p(100), Reserve: p(99), Wrapper: p(99)}, nil},
		{"huge wrapper", contract.Config{Capacity: p(1), Reserve: p(0), Wrapper: p(math.MaxInt)}, []string{"wrapper"}},
		{"default reserve over a small capacity", contract.Config{Capacity: p(100)}, []string{"reserve"}},
		{"reserve equal to the default capacity", contract.Config{Reserve: p(1600)}, []string{"reserve"}},
		{"everything negative", contract.Config{Capacity: p(math.MinInt), Reserve: p(-1), Wrapper: p(-1)}, []string{"capacity", "reserve", "wrapper"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.cfg.Budget(contract.Default())
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Budget() = %v, want nil", err)
				}
				return
			}
			var ce *contract.ConfigError
			var list budget.RangeErrors
			if !errors.As(err, &ce) || ce.Setting != contract.SettingLimits || !errors.As(err, &list) {
				t.Fatalf("Budget() = %v, want a limits ConfigError", err)
			}
			var got []string
			for _, re := range list {
				got = append(got, re.Limit)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Budget() limits out of range = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBuilderRefusesInvalidLimits checks that a Builder made by hand with
// limits out of range gets an error, not a panic or a wrapped-around
// budget.
func TestBuilderRefusesInvalidLimits(t *testing.T) {
	b := newBuilder(t, corpus.Sample(), "codepoint")
	req := request("en", "What is the limit?", true, "lodging", "2026-09-14")
	res, err := b.Build(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	b.Limits = budget.Limits{Capacity: 1, Wrapper: math.MaxInt}
	if _, err := b.Build(t.Context(), req); !errors.Is(err, budget.ErrLimitRange) {
		t.Fatalf("Build() error = %v, want ErrLimitRange", err)
	}
	v := b.Verify(res.JSON, "en")
	if len(v.Problems) != 1 || v.Problems[0].Code != "budget" || !strings.Contains(v.Problems[0].Message, "wrapper") || v.Budget != nil {
		t.Errorf("Verify() with invalid limits = %+v, want one budget problem naming the wrapper", v)
	}
}
