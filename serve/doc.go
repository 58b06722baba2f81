// Package serve decides what a long-running ka2 answers over HTTP: the
// contract for a posted request, byte for byte what `ka2 build --request`
// prints for it, from one corpus snapshot that is swapped atomically when
// the corpus changes.
//
// A Server holds the current Snapshot (a loaded, indexed corpus and the
// builder made from it) behind an atomic pointer. Every request reads the
// pointer once and uses only that snapshot, so it sees the old corpus or
// the new one, never a mix; every response names the snapshot's corpus
// digest in the Ka2-Corpus-Digest header. Reload loads and checks the
// corpus beside the one serving and swaps it in only when it loaded
// without a problem, once the files it reads stopped changing (settle); a
// corpus that fails to load, or whose load does not end by the reload
// deadline, is never served, and /readyz reports it (degraded) until the
// next good load. Watch reloads when a file under the corpus folder
// changes, after a quiet period (debounce), reading only the files the
// events name (ReloadChanged); it follows links, so a linked corpus
// folder, a Kubernetes ConfigMap volume and a swapped current link reload
// too, and it watches a folder swapped, renamed or made again anew; while
// it cannot watch the whole corpus it reloads periodically and /readyz
// says degraded. The ka2 command also reloads on SIGHUP, walking the tree, and
// drains on SIGTERM through Serve. At most MaxInFlight API requests are
// answered at once; more wait their turn in a bounded queue for at most
// QueueWait, and one that would wait longer is answered 503 overloaded
// at once.
//
// Endpoints (JSON unless noted):
//
//	POST /v1/contract  the request document of `ka2 build --request`; the contract and a newline
//	GET  /v1/select    ?subject=…&date=…[&date=…][&lang=…]: every source's decision and reason
//	GET  /v1/show      ?address=travel-v2:1-3[&lang=…]: the cited lines
//	POST /v1/verify    a contract [?lang=…]: the problems `ka2 verify` finds
//	POST /v1/grade     {"contract","answer"}: the findings of `ka2 grade --format json`
//	POST /v1/render    {"contract","provider"}: the request body `ka2 render` prints
//	GET  /openapi.json the OpenAPI 3.1 document of every endpoint (see OpenAPI)
//	GET  /healthz      the process is alive
//	GET  /readyz       a corpus is loaded; the last reload and its error, if any
//	GET  /metrics      Prometheus text format
//
// Errors are {"error":{"kind":…,"message":…}} with the budget accounting
// (budget_exceeded) or the refused item's origin (context_type) as the CLI
// prints them under --error-format json. Kinds and statuses: bad_request
// 400 (any problem of the input a question meets, the corpus's included),
// not_found 404, method_not_allowed 405, budget_exceeded, no_evidence and
// context_type 422, overloaded 503 (with Retry-After) and timeout 503
// (unavailable stays a kind, but New serves only once a corpus is
// loaded); a build whose client went away is recorded as 499 (canceled),
// not as an error; internal 500 only for a panic, which is a bug.
//
// A request's counter, capacity, reserve and provider replace the
// server's budget within Config.MaxCapacity and Config.Counters (see
// contract.RequestBudget).
//
// Every answer of POST /v1/contract, /v1/verify, /v1/grade and /v1/render
// is a decision:
// it has an id in DecisionHeader and, with Config.DecisionLog, a line in
// the decision log (Decision) written whole, from a bounded buffer that
// drops and counts rather than make an answer wait. Audit rebuilds each
// logged decision and names those whose answer differs, with the reason.
//
// POST /v1/contract takes from its caller only the item types, sources
// and promotions the policy's remote section grants (see
// contract.RequestFile.CheckRemote): a caller's source is a claim, and the
// server must not let anyone claim to be system. Each build runs under the
// request's context with Config.RequestTimeout as its deadline.
package serve
