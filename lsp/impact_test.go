package lsp

import (
	"fmt"
	"testing"

	"github.com/ka2/ka2/golden"
)

func TestLensTitle(t *testing.T) {
	changed := func(n int) *golden.ImpactReport {
		r := &golden.ImpactReport{Cases: 9}
		for i := range n {
			r.Changed = append(r.Changed, golden.CaseImpact{Name: fmt.Sprint("c", i)})
		}
		return r
	}
	tests := []struct {
		name string
		res  impactResult
		want string
	}{
		{name: "none", res: impactResult{changed: true, report: changed(0)}, want: "no regression case changes (of 9)"},
		{name: "one", res: impactResult{changed: true, report: changed(1)}, want: "1 case changes: c0"},
		{name: "three", res: impactResult{changed: true, report: changed(3)}, want: "3 cases change: c0, c1, c2"},
		{name: "more than five", res: impactResult{changed: true, report: changed(7)}, want: "7 cases change: c0, c1, c2, c3, c4, and 2 more"},
		{name: "unavailable", res: impactResult{changed: true, unavailable: "the corpus with this edit does not load: x"}, want: "impact unknown: the corpus with this edit does not load: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.lensTitle(); got != tt.want {
				t.Errorf("lensTitle() = %q, want %q", got, tt.want)
			}
		})
	}
}
