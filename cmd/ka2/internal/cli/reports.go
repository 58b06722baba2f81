package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ka2/ka2/golden"
)

// reportSpec is one report file a run writes: its format and where.
type reportSpec struct{ format, file string }

// reportSpecs reads the --report values: FORMAT=FILE when the text before
// the first "=" is a report format, else FILE in format (--format). Only
// one report may go to standard output (-).
func reportSpecs(format string, values []string) ([]reportSpec, error) {
	var specs []reportSpec
	stdout := 0
	for _, v := range values {
		sp := reportSpec{format, v}
		if f, file, ok := strings.Cut(v, "="); ok && slices.Contains(reportFormats, f) {
			sp = reportSpec{f, file}
		}
		if sp.file == "" {
			return nil, usageError{fmt.Errorf("--report %q: name a file, e.g. --report %s=ka2.%s (- for standard output)", v, sp.format, map[string]string{"text": "txt", "json": "json", "junit": "xml", "html": "html"}[sp.format])}
		}
		if sp.file == stdoutName {
			stdout++
		}
		specs = append(specs, sp)
	}
	if stdout > 1 {
		return nil, usageError{errors.New("--report: only one report can go to standard output (-)")}
	}
	return specs, nil
}

// writeReports writes rep to each report file, then, unless one of them
// went to standard output, shows it there in console (text is coloured
// when color is set).
func writeReports(ctx context.Context, f *Factory, rep *golden.Report, console string, specs []reportSpec, color bool) error {
	toStdout := false
	for _, sp := range specs {
		link := sp.file
		if link == stdoutName {
			link, toStdout = "", true
		}
		var buf bytes.Buffer
		if err := writeMergedReport(&buf, rep, sp.format, link, false); err != nil {
			return err
		}
		if err := writeOutput(ctx, f.Out, "--report", sp.file, buf.Bytes()); err != nil {
			return err
		}
	}
	if toStdout {
		return nil
	}
	return writeMergedReport(f.Out, rep, console, "", color && console == "text")
}

// runInfo is what the CLI knows of a regress run: this binary, the host
// (unless noHost) and the git commit of the repository holding the first
// case folder, when it is in one.
func runInfo(ctx context.Context, f *Factory, paths []string, noHost bool) golden.RunInfo {
	v := f.version()
	info := golden.RunInfo{Tool: golden.Tool{Version: v.Version, Revision: v.Revision, Dirty: v.Dirty, Go: v.GoVersion}}
	if !noHost {
		info.Host, _ = f.hostname()
	}
	if len(paths) > 0 {
		dir := paths[0]
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
		if out, err := f.git()(ctx, "-C", dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
			if c := strings.TrimSpace(string(out)); c != "" {
				info.Repository = &golden.Repository{Commit: c}
			}
		}
	}
	return info
}
