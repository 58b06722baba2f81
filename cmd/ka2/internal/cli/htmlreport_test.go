package cli_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ka2/ka2/internal/testutil"
)

// TestRegressHTMLReport writes the HTML report of a run with a failing
// case to a file in a subfolder (links then lead back to the case file),
// and checks that merging the shards' JSON reports gives the same page.
func TestRegressHTMLReport(t *testing.T) {
	setupRegressFixture(t)
	testutil.ReplaceInFile(t, firstFreeDay, "free for staff", "free for everyone")
	if err := os.Mkdir("out", 0o755); err != nil {
		t.Fatal(err)
	}
	r := regressCLI(t, "", "regress", "--format", "html", "--report", "out/report.html", "cases").want(t, 1)
	if !strings.HasPrefix(r.stdout, "FAIL cases/parking.yaml:18") {
		t.Errorf("the console should show text beside --report:\n%s", r.stdout)
	}
	data, err := os.ReadFile("out/report.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{
		"<!DOCTYPE html>",
		`<h2 id="failing">Failing cases (1)</h2>`,
		`<a href="../cases/parking.yaml#L18">cases/parking.yaml:18</a>`,
		`<tr class="changed"><td class="what">changed</td>`,
		`role="img" aria-label="Budget: instruction`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}

	// On standard output, links are relative to the working folder; the
	// merged shards give the unsharded page.
	whole := regressCLI(t, "", "regress", "--format", "html", "cases").want(t, 1)
	if !strings.Contains(whole.stdout, `<a href="cases/parking.yaml#L18">`) {
		t.Errorf("stdout report links:\n%s", whole.stdout)
	}
	var files []string
	for k := 1; k <= 2; k++ {
		name := "shard-" + strconv.Itoa(k) + ".json"
		regressCLI(t, "", "regress", "--shard", strconv.Itoa(k)+"/2", "--format", "json", "--report", name, "cases")
		files = append(files, name)
	}
	merged := regressCLI(t, "", append([]string{"report", "merge", "--format", "html"}, files...)...).want(t, 1)
	if diff := cmp.Diff(whole.stdout, merged.stdout); diff != "" {
		t.Errorf("merged HTML differs from the unsharded run's (-whole +merged):\n%s", diff)
	}
}
