// Command ka2perf measures ka2 at scale: it writes generated corpora,
// times loading them and the resident memory that takes, times contracts
// built in process, and drives `ka2 serve` over loopback while the corpus
// changes every second. docs/performance.md's table comes from it.
//
//	go run ./internal/tools/ka2perf gen   -n 100000 -dir /tmp/c100k
//	go run ./internal/tools/ka2perf load  -dir /tmp/c100k
//	go run ./internal/tools/ka2perf build -dir /tmp/c100k -counter o200k_base -n 50000
//	go run ./internal/tools/ka2perf http  -addr 127.0.0.1:18080 -sources 100000 -c 32 -d 20s -touch /tmp/c100k
//	go run ./internal/tools/ka2perf decisions -c 32 -d 5s -rounds 2
//
// For -touch, run the server with --settle 0 (or an -every longer than
// its --settle): a file rewritten more often than the settle interval
// never settles, so the server would not reload it.
//
// Every run is bounded: http stops after -d or -max requests, and only
// loopback addresses are accepted.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/gencorpus"
	"github.com/ka2/ka2/internal/loadgen"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/serve"
)

type subcommand struct {
	name string
	run  func(args []string) error
}

// subcommands lists each subcommand with its run, in the usage's order.
var subcommands = []subcommand{
	{"ratios", ratios},
	{"gen", gen},
	{"load", load},
	{"build", build},
	{"http", httpLoad},
	{"bare", bare},
	{"readall", readAll},
	{"lint", lintRun},
	{"regress", regressRun},
	{"count", countRun},
	{"decisions", decisions},
}

func main() {
	if len(os.Args) < 2 {
		names := make([]string, len(subcommands))
		for i, c := range subcommands {
			names[i] = c.name
		}
		fmt.Fprintf(os.Stderr, "usage: ka2perf %s [flags]\n", strings.Join(names, "|"))
		os.Exit(2)
	}
	err := fmt.Errorf("unknown subcommand %q", os.Args[1])
	for _, c := range subcommands {
		if c.name == os.Args[1] {
			err = c.run(os.Args[2:])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ka2perf:", err)
		os.Exit(1)
	}
}

// gen writes n generated sources below dir.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 100000, "sources")
	dir := fs.String("dir", "", "folder to write (created)")
	fs.Parse(args)
	if *dir == "" {
		return fmt.Errorf("-dir is required")
	}
	var total int64
	for i := range *n {
		p, data := gencorpus.File(i)
		full := filepath.Join(*dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
		total += int64(len(data))
	}
	fmt.Printf("wrote %d sources, %d bytes (%.1f MB) to %s\n", *n, total, float64(total)/1e6, *dir)
	return nil
}

// procStatus reads a kB figure (VmRSS, VmHWM) from /proc/self/status.
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n * 1024
			}
		}
	}
	return -1
}

func dirBytes(dir string) (int64, int) {
	var total int64
	files := 0
	// A corpus folder that is a link (a generated corpus shared between
	// work folders) is measured where it leads: WalkDir does not follow
	// its root.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if info, err := d.Info(); err == nil {
				total += info.Size()
				files++
			}
		}
		return nil
	})
	return total, files
}

// load times loading and indexing the corpus in dir, as ka2 serve does,
// and reports the memory it takes.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	dir := fs.String("dir", "", "corpus folder")
	repeat := fs.Int("repeat", 3, "loads to time; the median is reported")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the loads")
	heapprofile := fs.String("heapprofile", "", "write a heap profile after the loads")
	reuse := fs.Bool("reuse", false, "after the first load, time reloads that reuse unchanged files (as ka2 serve's watch does)")
	asJSON := fs.Bool("json", false, "print one JSON object (for ratios)")
	fs.Parse(args)
	size, files := dirBytes(*dir)
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var times []time.Duration
	var ix *selector.Index
	var cat *contract.Catalog
	var rssAfterFirst int64
	var srv *serve.Server // with -reuse: the service's own reload
	for i := range *repeat {
		runtime.GC()
		t0 := time.Now()
		switch {
		case !*reuse:
			c, err := corpus.Folder(*dir).Load(context.Background())
			if err != nil {
				return err
			}
			// What a service keeps of a load: the index and the
			// prepared evidence records.
			ix = selector.NewIndex(c)
			cat = contract.NewCatalog(ix)
		case srv == nil:
			var err error
			srv, err = serve.New(serve.Config{Build: contract.Config{Corpus: corpus.Folder(*dir)}, Settle: -1})
			if err != nil {
				return err
			}
		default:
			if _, err := srv.Reload(context.Background(), "ka2perf"); err != nil {
				return err
			}
		}
		if srv != nil {
			ix = srv.Snapshot().Builder.Index
		}
		times = append(times, time.Since(t0))
		if *reuse && i == 0 {
			time.Sleep(1100 * time.Millisecond) // let the files settle past the reuse margin
		}
		if i == 0 {
			runtime.GC()
			rssAfterFirst = procStatus("VmRSS")
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(cat)
	if *heapprofile != "" {
		f, err := os.Create(*heapprofile)
		if err != nil {
			return err
		}
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	if *asJSON {
		return printJSON(loadFigures{Files: files, Bytes: size, Sources: len(ix.Corpus().Sources),
			Seconds: sorted[len(sorted)/2].Seconds(), RSS: rssAfterFirst, HWM: procStatus("VmHWM")})
	}
	fmt.Printf("corpus %s: %d files, %.1f MB\n", *dir, files, float64(size)/1e6)
	fmt.Printf("load+index times: %v; median %v\n", times, sorted[len(sorted)/2])
	fmt.Printf("after one load + GC: RSS %.1f MB (%.2f× the corpus); peak RSS (VmHWM) %.1f MB (%.2f×); live heap %.1f MB; %d sources\n",
		float64(rssAfterFirst)/1e6, float64(rssAfterFirst)/float64(size), float64(procStatus("VmHWM"))/1e6,
		float64(procStatus("VmHWM"))/float64(size), float64(ms.HeapAlloc)/1e6, len(ix.Corpus().Sources))
	live, scan := heapScan()
	fmt.Printf("after the last load + GC: live heap %.1f MB, of which the collector scans %.1f MB (%.0f bytes a source); %d objects\n",
		float64(live)/1e6, float64(scan)/1e6, float64(scan)/float64(max(1, len(ix.Corpus().Sources))), ms.HeapObjects)
	fmt.Printf("collector CPU per collection of the loaded heap: %v (process CPU time, median of 9 forced)\n", gcCPU(9))
	runtime.KeepAlive(ix) // and what it holds, through the collections above
	runtime.KeepAlive(cat)
	runtime.KeepAlive(srv)
	return nil
}

// gcCPU returns the median CPU time of n forced collections: what a
// collection of the loaded heap costs, steadier than wall time on a busy
// machine.
func gcCPU(n int) time.Duration {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var d []time.Duration
	for range n {
		t0 := cpu()
		runtime.GC()
		d = append(d, cpu()-t0)
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// heapScan returns the live heap after the last collection and how much
// of it the collector scans (the objects that may hold pointers, up to
// their last pointer): what each collection of a loaded service marks.
func heapScan() (live, scan uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// requests are build requests spread over the generated corpus's subjects
// and validity periods: each selects one source.
func requests(sources, n int, short bool) []contract.Request {
	reqs := make([]contract.Request, n)
	for i := range reqs {
		src := (i * 7919) % sources
		d := gencorpus.ValidFrom(src).AddDate(0, 0, i%30).Format(time.DateOnly)
		s := contract.Settings{Subjects: []string{gencorpus.Subject(src)}, Dates: []string{d},
			Question: "What is the limit for this claim?", Lang: "en", Short: short}
		reqs[i], _ = s.Request(nil)
	}
	return reqs
}

// build times contracts built in process on the corpus in dir.
func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	dir := fs.String("dir", "", "corpus folder (generated by gen)")
	counter := fs.String("counter", "codepoint", "budget counter")
	n := fs.Int("n", 50000, "contracts to build")
	factor := fs.Int("capacity-factor", 4, "multiply the default capacity: the generated bodies are longer than the sample's")
	short := fs.Bool("short", false, "quote cite ranges only")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the builds")
	asJSON := fs.Bool("json", false, "print one JSON object (for ratios)")
	fs.Parse(args)
	c, err := corpus.Folder(*dir).Load(context.Background())
	if err != nil {
		return err
	}
	def := contract.Default()
	cnt, err := budget.Lookup(*counter)
	if err != nil {
		return err
	}
	limits, err := def.Limits(*counter)
	if err != nil {
		return err
	}
	limits.Capacity *= *factor
	ix := selector.NewIndex(c)
	b := &contract.Builder{Definition: def, Index: ix, Catalog: contract.NewCatalog(ix), Counter: cnt, Limits: limits}
	reqs := requests(len(c.Sources), 1000, *short)
	for _, r := range reqs[:100] { // warm up
		if _, err := b.Build(context.Background(), r); err != nil {
			return err
		}
	}
	stopProfile, err := startCPUProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	lat := make([]time.Duration, *n)
	t0 := time.Now()
	for i := range *n {
		s := time.Now()
		res, err := b.Build(context.Background(), reqs[i%len(reqs)])
		lat[i] = time.Since(s)
		if err != nil || len(res.Selection.Sources) != 1 {
			return fmt.Errorf("build %d: %v", i, err)
		}
	}
	total := time.Since(t0)
	slices.Sort(lat)
	if *asJSON {
		return printJSON(buildFigures{Sources: len(c.Sources), Counter: *counter, N: *n,
			P50: lat[*n/2].Seconds(), P99: lat[*n*99/100].Seconds()})
	}
	fmt.Printf("%d sources, counter %s: %d contracts, mean %v, p50 %v, p90 %v, p99 %v\n", len(c.Sources), *counter, *n,
		total/time.Duration(*n), lat[*n/2], lat[*n*9/10], lat[*n*99/100])
	return nil
}

// httpLoad drives ka2 serve on addr; with -touch it rewrites a file of
// the corpus every -every, so the server reloads while it answers.
func httpLoad(args []string) error {
	fs := flag.NewFlagSet("http", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18080", "ka2 serve address (loopback only)")
	sources := fs.Int("sources", 0, "size of the generated corpus the server serves; 0 for the embedded sample")
	conns := fs.Int("c", 32, "connections, one request in flight each")
	dur := fs.Duration("d", 20*time.Second, "duration")
	maxReq := fs.Int("max", 5_000_000, "stop after this many requests")
	short := fs.Bool("short", false, "ask for cite ranges only")
	touch := fs.String("touch", "", "corpus folder: rewrite one file in it every -every, so the server reloads")
	every := fs.Duration("every", time.Second, "how often -touch or -hup changes the corpus")
	hup := fs.Int("hup", 0, "send SIGHUP to this process every -every (with -touch: after the rewrite)")
	fs.Parse(args)

	var bodies [][]byte
	if *sources > 0 {
		for _, r := range requests(*sources, 1000, *short) {
			bodies = append(bodies, fmt.Appendf(nil, `{"subject":%q,"dates":[%q],"question":%q,"short":%v}`,
				r.Query.Subjects[0], r.Query.Dates[0].String(), r.Question, *short))
		}
	} else {
		for _, d := range []string{"2025-09-14", "2026-09-14", "2026-01-01", "2025-12-31"} {
			bodies = append(bodies, fmt.Appendf(nil, `{"subject":"lodging","dates":[%q],"question":"What is the Beijing lodging limit?","short":%v}`, d, *short))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := 0
	wait := func() {}
	if *touch != "" || *hup != 0 {
		wait = everyTick(ctx, *every, func(i int) bool {
			if *touch != "" {
				if err := rewrite(*touch, i); err != nil {
					fmt.Fprintln(os.Stderr, "ka2perf: touch:", err)
					return false
				}
			}
			if *hup != 0 {
				syscall.Kill(*hup, syscall.SIGHUP)
			}
			changes++
			return true
		})
	}
	res, err := loadgen.Run(ctx, loadgen.Config{Addr: *addr, Path: "/v1/contract", Bodies: bodies, Connections: *conns,
		Duration: *dur, MaxRequests: *maxReq, DigestHeader: "Ka2-Corpus-Digest",
		Check: func(digest string, body []byte) error {
			if digest == "" || !bytes.HasPrefix(body, []byte(`{"template":`)) {
				return fmt.Errorf("not a contract with a digest: %.100s", body)
			}
			return nil
		}})
	cancel()
	wait()
	if err != nil {
		return err
	}
	fmt.Println(res)
	fmt.Printf("statuses %v; %d corpus changes; answers came from %d corpus digests\n", res.Statuses, changes, len(res.Digests))
	if res.FirstError != "" {
		fmt.Println("first failure:", res.FirstError)
	}
	return nil
}

// rewrite changes the body of a file in the corpus, so its digest
// changes: ka2perf-touch.md, a source of its own that no request selects.
func rewrite(dir string, i int) error {
	p := filepath.Join(dir, "ka2perf-touch.md")
	data := fmt.Sprintf("---\nsource_id: ka2perf-touch\nversion: v%d\nsubjects: [ka2perf]\nvalid_from: 2020-01-01\n---\nChange %d.\n", i, i)
	tmp := filepath.Join(dir, ".ka2perf-touch.tmp")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// everyTick calls step every period, with i counting the calls from 0,
// until ctx ends or step returns false; wait returns once it has stopped,
// so what step wrote may be read after it.
func everyTick(ctx context.Context, period time.Duration, step func(i int) bool) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if !step(i) {
				return
			}
		}
	}()
	return func() { <-done }
}

// startCPUProfile writes a CPU profile to path until stop is called; with
// no path it does nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
