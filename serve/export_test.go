package serve

import "context"

// SetBuildHook makes f run just before each contract build, with the
// build's context.
func SetBuildHook(s *Server, f func(ctx context.Context)) { s.testHookBuild = f }

// Hooks let tests see and steer what happens inside a Server: each is
// called where its name says, when not nil. Set them with SetHooks before
// the server serves, watches or reloads.
type Hooks struct {
	// BeforeLoad runs in a reload's load goroutine once the files
	// settled, before they are read; blocking in it is a read that blocks.
	BeforeLoad func(ctx context.Context, attempt uint64)
	// AfterLoad runs after the load, before the settle check that
	// precedes the swap.
	AfterLoad func(attempt uint64)
	// LateResult runs when the load of an abandoned reload ends.
	LateResult func(attempt uint64)
	// Reloaded runs at the end of every reload with its status.
	Reloaded func(ReloadStatus)
	// Watching runs when Watch has planned its watches: at the start and
	// whenever it plans them anew.
	Watching func()
	// AddWatch runs before Watch watches a folder; an error it returns
	// is the watch's error, as the system's would be.
	AddWatch func(path string) error
	// InHandler runs inside an API request, holding its in-flight slot.
	InHandler func(route string)
	// Queued runs when an API request starts waiting for its turn.
	Queued func()
}

func SetHooks(s *Server, h Hooks) {
	s.hooks = hooks{beforeLoad: h.BeforeLoad, afterLoad: h.AfterLoad, lateResult: h.LateResult,
		reloaded: h.Reloaded, watching: h.Watching, inHandler: h.InHandler, queued: h.Queued, addWatch: h.AddWatch}
}
