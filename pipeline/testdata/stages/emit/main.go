// Command emit is a scriptable pipeline stage for ka2's tests. It reads
// and discards its stage context, then writes -out verbatim on stdout,
// -stderr on stderr, sleeps -sleep, and exits with -exit. -flood-stdout
// and -flood-stderr first write that many numbered lines (-1: without
// end) to the stream.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	out := flag.String("out", `{"output_text":"ok"}`, "what to write on stdout")
	stderr := flag.String("stderr", "", "what to write on stderr")
	sleep := flag.Duration("sleep", 0, "how long to wait before answering")
	exit := flag.Int("exit", 0, "exit status")
	floodOut := flag.Int("flood-stdout", 0, "lines to write on stdout first; -1 for no end")
	floodErr := flag.Int("flood-stderr", 0, "lines to write on stderr first; -1 for no end")
	flag.Parse()
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "emit:", err)
		os.Exit(2)
	}
	flood(os.Stderr, *floodErr)
	flood(os.Stdout, *floodOut)
	time.Sleep(*sleep)
	fmt.Fprint(os.Stderr, *stderr)
	fmt.Fprint(os.Stdout, *out)
	os.Exit(*exit)
}

// flood writes n numbered lines to w, or lines without end for n < 0; it
// exits quietly when w is closed.
func flood(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	for i := 0; n < 0 || i < n; i++ {
		if _, err := fmt.Fprintf(bw, "line %d\n", i); err != nil {
			os.Exit(3)
		}
	}
	if err := bw.Flush(); err != nil {
		os.Exit(3)
	}
}
