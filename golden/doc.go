// Package golden decides whether the evidence a question receives has
// changed: it runs regression case files against golden files holding the
// exact bytes `ka2 build` prints, and reports every difference.
//
// # Case files
//
// A case file is YAML (*.yaml) with optional defaults and a list of cases:
//
//	defaults:
//	  corpus: ../policies     # relative to this file; omitted = the embedded sample
//	  subject: lodging
//	  lang: en                # the default, as for ka2 build
//	cases:
//	  - name: current-cap     # names the golden file
//	    question: What is the Beijing hotel cap in September 2026?
//	    dates: [2026-09-14]
//	    expect:
//	      sources: [travel-v2]  # exact selected source IDs, in order
//
// The settings — corpus, contract, content, subject (one or a list), lang, counter,
// capacity, reserve, wrapper, short and require_evidence — may be set under
// defaults or in a case, where they override the defaults; they mean what
// the ka2 build flags of the same names mean. The embedded sample corpus is
// named by leaving corpus out, or as corpus: embedded:sample. expect.error
// names the error the build must end in: budget_exceeded, no_evidence,
// bad_input or context_type (the provenance policy refused an item or a
// promotion). A case also takes a request document's items and promote
// (see contract.RequestFile), read by the same decoder, so the
// typed-context rules are pinned like the rest. Unknown keys, repeated case
// names (compared ignoring case), missing fields and corpora or contracts
// that cannot be loaded are errors with file:line:col (ErrorList, matched by
// ErrBadCases), and then no case runs.
//
// # Goldens
//
// The golden of case NAME in DIR/FILE.yaml is
// DIR/testdata/golden/FILE/NAME.golden (Path), the layout goldie uses
// for Go tests. It holds exactly what `ka2 build` prints for the case: the
// contract and a newline, or for a failed build the error as
// `ka2 build --error-format json` prints it (kind, message, and for
// budget_exceeded the accounting). Goldens are compared byte for byte and
// written with internal/atomicfile, so a crash never leaves half a golden.
//
// A contract golden is stored indented, and each text of it that spans
// lines (an evidence record's quote above all, the policy's body lines) as
// the JSON array of its lines, so that a policy edit changes only the
// golden lines it touched (Outcome.Stored; lines.go says why the form is
// exact). Pins joins the arrays back; compacted, that is what ka2 build
// printed. Goldens older ka2 wrote (each text one string, indented or
// compact) read and compare as before, and --update rewrites them.
//
// Goldens live inside the case tree (the folder named to Load, or a named
// case file's folder) and are read, written and deleted only through an
// os.Root opened on it: a case tree comes from a pull request, and its
// links must not lead ka2 to the runner's files. Load refuses, before
// any golden is read, a golden, pending golden or golden folder that is
// not a regular file (folder) inside the tree or a link inside it to one
// (CodeGoldenNotFile).
//
// # Reports
//
// A JSON report read back (ReadReport, for Merge) is checked with the
// strict decoder against the Report type: exact keys, each once, values
// of their JSON types and of their fields' known sets. The HTML report is
// drawn by html/template.
//
// # Runs
//
// Load reads and checks case files, Run builds every case (in parallel;
// the report is in case order whatever the number of workers), compares
// and optionally updates goldens or writes pending ones (NAME.golden.new,
// accepted or rejected one by one through Suite.Pending). A Report prints
// as text, JSON or JUnit XML; Shard selects a stable slice of the cases by
// hash; Merge puts the JSON reports of all shards back together; Impact
// rebuilds every case against two versions of a corpus.
//
// The package never reads the environment or the clock: whether the run is
// on CI (which stops Update) and whether a terminal wants a progress line
// are Options the caller sets.
package golden
