package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/golden"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/internal/loadgen"
	"github.com/ka2/ka2/lint"
)

// The measuring subcommands below each run in a process of their own
// when ratios starts them, so that one measure's heap and page cache
// use do not weigh on the next; with -json each prints one object.

func printJSON(v any) error {
	return json.NewEncoder(os.Stdout).Encode(v)
}

type loadFigures struct {
	Files, Sources int
	Bytes          int64
	Seconds        float64 // median load + index
	RSS, HWM       int64   // after the first load and a GC; peak
}

type buildFigures struct {
	Sources  int
	Counter  string
	N        int
	P50, P99 float64 // seconds
}

type rateFigures struct {
	Files   int
	Bytes   int64
	Seconds float64
	CPU     float64 // seconds of process CPU time over the same span
}

type countFigures struct {
	Docs     int
	Bytes    int64
	Counters []counterFigures
}

type counterFigures struct {
	Name            string
	Ka2Tokens       int
	TiktokenTokens  int
	Ka2CPU, TikCPU  float64 // seconds of process CPU time
	Ka2Wall, TikWal float64
	// Linear is the CPU time of 2 MB of one unbroken letter run over
	// that of 1 MB: 2 for linear time.
	Linear float64
}

// bareBody is the response the bare handler writes, with the two
// snapshot headers ka2 sets, so both answers carry the same bytes.
type bareBody struct {
	Body       []byte
	Digest     string
	Generation string
}

// bare serves the reference of the service ratios: a plain net/http
// handler that reads the request body as ka2 does (bounded, into a pooled
// buffer) and writes a fixed answer of the same bytes and headers.
func bare(args []string) error {
	fs := flag.NewFlagSet("bare", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18081", "address (loopback only)")
	bodyFile := fs.String("body", "", "JSON file with the answer to write (from ratios)")
	fs.Parse(args)
	if err := loadgen.CheckLoopback(*addr); err != nil {
		return err
	}
	data, err := os.ReadFile(*bodyFile)
	if err != nil {
		return err
	}
	var ans bareBody
	if err := json.Unmarshal(data, &ans); err != nil {
		return err
	}
	length := fmt.Sprint(len(ans.Body))
	pool := sync.Pool{New: func() any { return new(bytes.Buffer) }}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := pool.Get().(*bytes.Buffer)
		defer func() { buf.Reset(); pool.Put(buf) }()
		if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		hd := w.Header()
		hd["Ka2-Corpus-Digest"] = []string{ans.Digest}
		hd["Ka2-Corpus-Generation"] = []string{ans.Generation}
		hd["Content-Type"] = []string{"application/json"}
		hd["Content-Length"] = []string{length}
		w.WriteHeader(http.StatusOK)
		w.Write(ans.Body)
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	return (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

// readAll is the floor of loading and linting: walk the folder and read
// every policy file, nothing more.
func readAll(args []string) error {
	flags := flag.NewFlagSet("readall", flag.ExitOnError)
	dir := flags.String("dir", "", "corpus folder")
	flags.Parse(args)
	t0 := time.Now()
	var f rateFigures
	err := filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		f.Files++
		f.Bytes += int64(len(data))
		return err
	})
	f.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return err
	}
	return printJSON(f)
}

// lintRun lints the corpus in dir as `ka2 lint` does.
func lintRun(args []string) error {
	fs := flag.NewFlagSet("lint", flag.ExitOnError)
	dir := fs.String("dir", "", "corpus folder")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run")
	fs.Parse(args)
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	t0, cpu := time.Now(), processCPU()
	// Through the folder opener ka2 lint uses, so that the row is its cost.
	fsys, done, err := corpus.OpenFolder(*dir)
	if err != nil {
		return err
	}
	defer done()
	rep, err := lint.Run(context.Background(), fsys, lint.Options{Today: corpus.MustDate(2026, 9, 14)})
	if err != nil {
		return err
	}
	return printJSON(rateFigures{Files: rep.Files, Seconds: time.Since(t0).Seconds(), CPU: (processCPU() - cpu).Seconds()})
}

// regressRun writes n generated cases on the embedded sample corpus to
// dir, writes their goldens, then times one `ka2 regress` run over them.
func regressRun(args []string) error {
	fs := flag.NewFlagSet("regress", flag.ExitOnError)
	dir := fs.String("dir", "", "folder for the case files (created)")
	n := fs.Int("n", 100_000, "cases, in files of 100")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed run")
	fs.Parse(args)
	if err := gencorpus.WriteCases(*dir, *n/100, 100, "Generated by ka2perf regress."); err != nil {
		return err
	}
	ctx := context.Background()
	suite, err := golden.Load(ctx, []string{*dir}, golden.LoadOptions{})
	if err != nil {
		return err
	}
	if rep, err := golden.Run(ctx, suite, golden.Options{Update: true}); err != nil || !rep.OK() {
		return fmt.Errorf("writing the goldens: %v", err)
	}
	runtime.GC()
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	t0, cpu := time.Now(), processCPU()
	suite, err = golden.Load(ctx, []string{*dir}, golden.LoadOptions{})
	if err != nil {
		return err
	}
	rep, err := golden.Run(ctx, suite, golden.Options{})
	if err != nil {
		return err
	}
	if !rep.OK() || rep.Summary.Cases != *n {
		return fmt.Errorf("regress: %s", rep.SummaryLine())
	}
	return printJSON(rateFigures{Files: rep.Summary.Cases, Seconds: time.Since(t0).Seconds(), CPU: (processCPU() - cpu).Seconds()})
}

// countRun counts real text with ka2's BPE counters and with tiktoken-go:
// Go sources from GOROOT and the man pages installed (every language
// there is), or, with -generated, a mixed zh/en JSON document.
func countRun(args []string) error {
	fs := flag.NewFlagSet("count", flag.ExitOnError)
	limit := fs.Int64("bytes", 6<<20, "bytes of real text to count")
	generated := fs.Bool("generated", false, "count a generated 1 MB mixed zh/en JSON document instead")
	fs.Parse(args)
	var docs []string
	if *generated {
		docs = []string{mixedDoc(1 << 20)}
	} else {
		docs = realText(*limit)
	}
	var f countFigures
	for _, d := range docs {
		f.Bytes += int64(len(d))
	}
	f.Docs = len(docs)
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		c, err := budget.Lookup(name)
		if err != nil {
			return err
		}
		tk, err := tiktoken.GetEncoding(name)
		if err != nil {
			return err
		}
		c.Count("warm up")
		cf := counterFigures{Name: name}
		runtime.GC()
		cpu, t0 := processCPU(), time.Now()
		for _, d := range docs {
			cf.Ka2Tokens += c.Count(d)
		}
		cf.Ka2CPU, cf.Ka2Wall = (processCPU() - cpu).Seconds(), time.Since(t0).Seconds()
		runtime.GC()
		cpu, t0 = processCPU(), time.Now()
		for _, d := range docs {
			cf.TiktokenTokens += len(tk.EncodeOrdinary(d))
		}
		cf.TikCPU, cf.TikWal = (processCPU() - cpu).Seconds(), time.Since(t0).Seconds()
		// The least of five of each, since a CPU time of tens of
		// milliseconds still moves with the machine's load.
		one, two := strings.Repeat("a", 1<<20), strings.Repeat("a", 2<<20)
		least := func(s string) time.Duration {
			best := time.Duration(1 << 62)
			for range 5 {
				cpu := processCPU()
				c.Count(s)
				best = min(best, processCPU()-cpu)
			}
			return best
		}
		cf.Linear = float64(least(two)) / float64(max(least(one), 1))
		f.Counters = append(f.Counters, cf)
	}
	return printJSON(f)
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// realText gathers about limit bytes of text, half Go sources from
// GOROOT, half man pages in every language installed, each file a
// document of its own, in a fixed order.
func realText(limit int64) []string {
	var docs []string
	var goBytes int64
	goroot := "/usr/local/go"
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	root := filepath.Join(goroot, "src")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || goBytes >= limit/2 {
			return fs.SkipDir
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			if data, err := os.ReadFile(p); err == nil {
				docs = append(docs, string(data))
				goBytes += int64(len(data))
			}
		}
		return nil
	})
	// Man pages round-robin across the languages, so that every script
	// the machine has is in the mix.
	var langs [][]string
	entries, _ := os.ReadDir("/usr/share/man")
	var english []string
	for _, e := range entries {
		pages, _ := filepath.Glob(filepath.Join("/usr/share/man", e.Name(), "man*", "*.gz"))
		if strings.HasPrefix(e.Name(), "man") {
			english = append(english, pages...)
			continue
		}
		if len(pages) > 0 {
			slices.Sort(pages)
			langs = append(langs, pages)
		}
	}
	slices.Sort(english)
	langs = append(langs, english)
	manBytes := int64(0)
	for i := 0; manBytes < limit-goBytes; i++ {
		added := false
		for _, pages := range langs {
			if i >= len(pages) || manBytes >= limit-goBytes {
				continue
			}
			if text, err := gunzip(pages[i]); err == nil && len(text) > 0 {
				docs = append(docs, text)
				manBytes += int64(len(text))
			}
			added = true
		}
		if !added {
			break
		}
	}
	return docs
}

func gunzip(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(zr, 4<<20))
	return string(data), err
}

// mixedDoc is a deterministic JSON document of about n bytes mixing
// Chinese and English records, numbers, dates and punctuation, the kind
// of text a contract carries.
func mixedDoc(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"id":%d,"lang":"zh","text":"住宿标准上限为每间夜 %d 元，报销时须提供酒店发票。第 %d 条规定自 2026-0%d-1%d 起生效。","amount":%d.%02d}`,
				i, 500+i%700, i, 1+i%9, i%10, 100+i%977, i%100)
		} else {
			fmt.Fprintf(&b, `{"id":%d,"lang":"en","text":"The lodging limit is %d CNY per room-night; rule %d applies from 2026-0%d-1%d. Keep the hotel invoice!","amount":%d.%02d}`,
				i, 500+i%700, i, 1+i%9, i%10, 100+i%977, i%100)
		}
	}
	b.WriteString("]")
	return b.String()
}
