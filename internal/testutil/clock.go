package testutil

import "time"

// Passed stands in for time.After where a time limit is injected (as
// procrun.Spec.After, eval.Exec.After, pipeline.RunOptions.After): the
// limit has always passed, so the time-out path runs at once, without a
// wait and without a sleep.
func Passed(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}
