package serve

import "context"

// SetBuildHook makes f run just before each contract build, with the
// build's context.
func SetBuildHook(s *Server, f func(ctx context.Context)) { s.testHookBuild = f }
