// Package lsp decides what an editor shows an author of policy files: it is
// ka2's language server (Language Server Protocol 3.17 over a byte stream,
// JSON-RPC 2.0 with Content-Length framing). It reuses the linter's rules,
// severities and configuration: diagnostics are lint findings, with the
// other file of a cross-file finding as related information, and code
// actions are the findings' Fixes. Hover, completion and go to definition
// read the corpus as it is in the editor: open buffers over the files on
// disk.
//
// Settings (the corpus folder, the case files, the exclusions) come from
// the project file found from the workspace folder, under the client's
// initializationOptions; resolveSettings is the one place they are
// decided.
//
// Impact (impact.go) is golden.Impact run on the saved corpus and on the
// saved corpus with one buffer over it, cached per buffer revision, built
// after the debounce delay and on demand; hover and code lens answer off
// the read loop, so $/cancelRequest stops a build.
//
// What the server reads from disk (watch.go) — the project file (and
// where another would be found first), the case files and the contract
// files they name, the corpus and its lint configuration — is read again
// when it changes, a save once: the client watches
// it when it can be asked to (workspace/didChangeWatchedFiles), else each
// hover, code lens and references request compares sizes and
// modification times with what was read. Case files are read one way,
// golden.Load, cached until they change.
//
// Positions: LSP counts columns in UTF-16 code units, ka2 in code points;
// the conversion is in position.go. The package reads no clock of its own:
// Options.Now and Options.AfterFunc are injected, so tests never sleep.
package lsp
