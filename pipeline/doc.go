// Package pipeline decides whether the stages of a knowledge-assistant
// pipeline can hand their context to each other, before anything runs, and
// then runs them, handing each stage exactly the context its declaration
// asks for.
//
// # Pipeline files
//
// A pipeline file is YAML with three keys:
//
//	protocols:                  # named schemas: field name → type
//	  Answer:
//	    answer: string
//	    amount: number
//	    citation: string
//	    note?: string           # a trailing ? makes a field optional
//	stages:
//	  build:
//	    uses: ka2.build         # ka2's contract builder, in process
//	  answer:
//	    exec: [./stages/answer] # a program: context on stdin, output on stdout
//	    timeout: 30s
//	    system: Answer from the contract only.
//	    context:
//	      input_schema: ka2-context-v1
//	      output_schema: Answer
//	      inherit: [artifacts]
//	flow: build >> answer
//
// Types are string, integer, number, boolean, date (a YYYY-MM-DD string),
// list<T>, and protocol names. Built-in protocols are generated, never
// retyped: ka2-context-v1 (and ka2-context-v1.example,
// ka2-context-v1.evidence) from the output schema of the contract
// definition, and ka2-request-v1, the run input (see ParseInput).
//
// A stage's optional context block declares source (upstream, the default;
// fresh; shared:NAME), sink (downstream, the default; discard;
// shared:NAME), input_schema, output_schema, max_history_turns and inherit
// (any of messages, artifacts, tool_results). A stage without a context
// block hands off plain text; handing it to a stage that declares an
// input schema is a C-004, since the run would refuse it there. A
// ka2.build stage
// always reads ka2-request-v1 and writes ka2-context-v1.
//
// # The check
//
// Parse checks a file and reports Diagnostics with a stable Code and a
// file:line:col each. A stage's output schema is compatible with the next
// stage's input schema when it has every field that one requires, with
// the same type (or integer where number is wanted), recursively through
// nested protocols and lists; extra
// fields are allowed and names of protocols do not matter. Every
// incompatible hand-off gives exactly one CodeIncompatible (C-004)
// diagnostic naming the pair, both schemas and every missing or mistyped
// field.
//
// Who hands a stage its context: for source upstream, the stage before
// it (the run input, named "input", for the first stage); for fresh, the
// run input; for shared:NAME, the last earlier stage with sink
// shared:NAME. A stage sends its context to exactly one place, so a stage
// reading upstream after one whose sink is discard or shared:NAME is an
// error (C-008).
//
// # The run
//
// Pipeline.Run starts from the run input's snapshot and, for each stage in
// the flow, builds its StageContext from the snapshot it reads:
//
//   - its own system message first, if it declares one;
//   - with inherit messages, the upstream messages without their system
//     messages; otherwise the upstream output text as one user message;
//   - max_history_turns N keeps the last N user turns and everything after
//     the first of them;
//   - with inherit artifacts, the upstream artifacts, which win over the
//     stage's own on a clash (the clash is recorded), except over a
//     checker's own "grade" or "verification"; no other stage or hook
//     may write an artifact of those names (ErrCheckerArtifact);
//   - with inherit tool_results, the upstream tool results, the stage's own
//     appended after them;
//   - with an input schema, the upstream output text as JSON in Input,
//     validated first.
//
// The stage's output is validated against its output schema; a violation,
// a non-zero exit or a timeout stops the run, naming the stage, and
// nothing after it runs. Every stage leaves a Snapshot (messages,
// tool_results, artifacts, output_text, output_schema, stderr, exit code),
// which together replay the run.
//
// Hooks (a stage's before and after, the pipeline's before_stage and
// after_stage) run under the same rules as exec programs; a non-zero exit
// vetoes the stage (ErrVetoed), and {"artifacts": {…}} on stdout adds
// artifacts to its snapshot. A ka2.verify stage verifies the contract it
// is handed (contract.Builder.Verify) and passes it on with a
// "verification" artifact. A ka2.grade stage grades the answer it is
// handed (the upstream output text) against the "contract" artifact it
// inherits — ka2.build passes the contract on as one, so every stage in
// between inherits artifacts — and passes the answer on with a "grade"
// artifact; the check requires it to inherit artifacts and treats it as
// passing on what its upstream wrote. Both stop the run on a failure
// unless on_fail: continue. max_output_bytes and max_output_tokens limit a
// stage's output text (ErrOutputLimit).
//
// The run input is what RunInputSchema says: a request for a flow that
// starts with ka2.build, else the declared top-level input_schema (a
// protocol, or string for plain text), else any JSON value or text.
//
// Each stage's snapshot records its StageDefinition and the Digests of
// the definition and of its input; RunOptions.Resume reuses a completed
// snapshot with equal digests instead of running the stage. The digests
// do not cover the outcome, so a snapshot is evidence, not fact: before
// one stands for its stage, its definition and context must be the ones
// its digests name, its hooks must have exited 0, it must hand on what it
// inherited and its output must keep to the stage's schema and limits,
// and a ka2.build, ka2.verify or ka2.grade runner runs again on the
// context it records and must give what it records (a contradiction is a
// *SnapshotError). Replay
// runs a stage again from its snapshot, with its hooks in the places
// Snapshot.HookKinds records, through the same step as a run.
//
// An exec stage's program runs in its own process group (on Unix). When
// the program exits, times out, is cancelled or writes more than 32 MiB on
// stdout, the whole group is ended, so nothing it started outlives the
// stage and no child left holding its stdout can hang the run. Stderr over
// 1 MiB keeps its last 1 MiB after a line saying how much was cut.
package pipeline
