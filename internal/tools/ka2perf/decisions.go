package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/loadgen"
	"github.com/ka2/ka2/serve"
)

// decisions drives `ka2 serve` over loopback with the decision log off
// and on, in turns within one run, and prints the throughput of each side
// by side; it checks that each log has exactly one line per answer, that
// `ka2 audit` finds it clean, and that after an edit of the corpus the
// audit names exactly the decisions that quoted the edited source.
//
//	go run ./internal/tools/ka2perf decisions -c 32 -d 5s -rounds 2
func decisions(args []string) error {
	flags := flag.NewFlagSet("decisions", flag.ExitOnError)
	bin := flags.String("ka2", "", "ka2 binary (default: build ./cmd/ka2 into the work folder)")
	work := flags.String("work", "", "work folder (default: a new temporary one)")
	conns := flags.Int("c", 32, "connections, one request in flight each")
	dur := flags.Duration("d", 5*time.Second, "duration of each run")
	maxReq := flags.Int("max", 1_000_000, "stop each run after this many requests")
	rounds := flags.Int("rounds", 2, "pairs of runs, log off then on")
	flags.Parse(args)
	if *work == "" {
		dir, err := os.MkdirTemp("", "ka2perf-decisions-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*work = dir
	}
	if *bin == "" {
		*bin = filepath.Join(*work, "ka2")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/ka2").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	dir := filepath.Join(*work, "corpus")
	if err := copySample(dir); err != nil {
		return err
	}
	var bodies [][]byte
	for _, d := range []string{"2025-09-14", "2026-09-14", "2026-01-01", "2025-12-31"} {
		bodies = append(bodies, fmt.Appendf(nil, `{"subject":"lodging","dates":[%q],"question":"What is the Beijing lodging limit?"}`, d))
	}
	ctx := context.Background()
	var logs []string
	var sums [2]float64
	for round := range *rounds {
		for _, on := range []bool{false, true} {
			log := ""
			if on {
				log = filepath.Join(*work, fmt.Sprintf("decisions-%d.log", round))
				logs = append(logs, log)
				// ka2 serve appends to a decision log; a -work folder kept
				// from an earlier run must not add its lines to this one's.
				if err := os.Remove(log); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
			res, err := serveRun(ctx, *bin, dir, log, loadgen.Config{Path: "/v1/contract", Bodies: bodies, Connections: *conns, Duration: *dur, MaxRequests: *maxReq})
			if err != nil {
				return err
			}
			side := "off"
			if on {
				side = "on "
				sums[1] += res.Throughput()
			} else {
				sums[0] += res.Throughput()
			}
			fmt.Printf("round %d, decision log %s: %s\n", round+1, side, res)
			if on {
				lines, dropped, err := countDecisions(log)
				if err != nil {
					return err
				}
				fmt.Printf("  log: %d lines for %d answers, %d dropped\n", lines, res.Requests, dropped)
				if lines != res.Requests || dropped != 0 {
					return fmt.Errorf("%s: %d lines and %d dropped for %d answers", log, lines, dropped, res.Requests)
				}
			}
		}
	}
	off, on := sums[0]/float64(*rounds), sums[1]/float64(*rounds)
	fmt.Printf("mean throughput: log off %.0f/s, log on %.0f/s (%.1f%% of off)\n", off, on, 100*on/off)

	// Audit: clean against the corpus served; after an edit, exactly the
	// decisions that quoted the edited source.
	for _, log := range logs {
		if out, err := exec.Command(*bin, "audit", log, "--corpus", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("audit before the edit: %v\n%s", err, lastLines(out))
		} else {
			fmt.Printf("audit %s: %s", filepath.Base(log), lastLines(out))
		}
	}
	path := filepath.Join(dir, "en", "travel-v2.md")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte("750"), []byte("760"), 1), 0o644); err != nil {
		return err
	}
	for _, log := range logs {
		out, err := exec.Command(*bin, "audit", log, "--corpus", dir, "--format", "json").Output()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return err
		}
		var rep serve.AuditReport
		if err := json.Unmarshal(out, &rep); err != nil {
			return fmt.Errorf("audit after the edit: %v", err)
		}
		quoted, err := quotingDecisions(log, "travel-v2:")
		if err != nil {
			return err
		}
		named := 0
		for _, f := range rep.Differ {
			if !quoted[f.ID] || f.Reason != serve.ReasonCorpusChanged {
				return fmt.Errorf("audit after the edit names %s (%s), which did not quote travel-v2", f.ID, f.Reason)
			}
			named++
		}
		fmt.Printf("audit %s after the edit: %d of %d decisions named (corpus_changed), %d quoted travel-v2\n", filepath.Base(log), named, rep.Decisions, len(quoted))
		if named != len(quoted) {
			return fmt.Errorf("the audit named %d decisions, %d quoted the edited source", named, len(quoted))
		}
	}
	return nil
}

// serveRun starts ka2 serve on a free loopback port, with the decision
// log file when log is not "", runs the load, and stops the server with
// SIGTERM, which drains it and closes the log.
func serveRun(ctx context.Context, bin, dir, log string, cfg loadgen.Config) (loadgen.Result, error) {
	cfg.Addr = freeAddr()
	args := []string{"serve", "--addr", cfg.Addr, "--corpus", dir, "--watch=false", "--log-level", "warn"}
	if log != "" {
		args = append(args, "--decision-log", log)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	// Stopped below with SIGTERM, not startReady's kill: the drain closes the log.
	if _, err := startReady(ctx, cmd, "http://"+cfg.Addr+"/healthz", 30*time.Second); err != nil {
		return loadgen.Result{}, err
	}
	res, err := loadgen.Run(ctx, cfg)
	cmd.Process.Signal(syscall.SIGTERM)
	if werr := cmd.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("ka2 serve: %w", werr)
	}
	return res, err
}

// copySample writes the embedded sample corpus into dir, afresh: a run
// edits it.
func copySample(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.CopyFS(dir, corpus.Sample())
}

// countDecisions counts a decision log's decision lines and the dropped
// decisions its count lines report.
func countDecisions(path string) (lines int, dropped uint64, err error) {
	err = eachDecision(path, func(d serve.Decision) {
		if d.ID != "" {
			lines++
		}
		dropped += d.Dropped
	})
	return lines, dropped, err
}

// quotingDecisions returns the ids of the decisions with a record whose
// address starts with prefix.
func quotingDecisions(path, prefix string) (map[string]bool, error) {
	ids := map[string]bool{}
	err := eachDecision(path, func(d serve.Decision) {
		for _, r := range d.Records {
			if strings.HasPrefix(r, prefix) {
				ids[d.ID] = true
			}
		}
	})
	return ids, err
}

func eachDecision(path string, f func(serve.Decision)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var d serve.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("%s: not a decision line: %v", path, err)
		}
		f(d)
	}
	return sc.Err()
}

// lastLines is the last line of out, with its newline.
func lastLines(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return lines[len(lines)-1] + "\n"
}
