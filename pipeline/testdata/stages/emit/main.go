// Command emit is a scriptable pipeline stage for ka2's tests. It reads
// and discards its stage context, then writes -out verbatim on stdout,
// -stderr on stderr, sleeps -sleep, and exits with -exit.
package main

import (
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
	flag.Parse()
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "emit:", err)
		os.Exit(2)
	}
	time.Sleep(*sleep)
	fmt.Fprint(os.Stderr, *stderr)
	fmt.Fprint(os.Stdout, *out)
	os.Exit(*exit)
}
