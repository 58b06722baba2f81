// Package lint decides whether a policy corpus is safe to select evidence
// from: it reports every problem in every file — files that do not parse,
// sources whose validity overlaps or leaves gaps, broken supersedes chains,
// amounts without a unit, text that reads like an instruction to the
// assistant — so that a content author can fix them before ka2 picks the
// wrong evidence.
//
// Findings are data, not errors: Run returns a Report of Finding values,
// each with a rule ID, a severity, a file position, a message that says what
// is wrong and a hint that says how to fix it. Run returns an error only when
// it could not lint at all (the corpus root cannot be read, or holds no
// policy files).
//
// Unlike corpus.Load, which refuses the whole corpus when any file is
// broken, Run parses each file on its own with corpus.Parse, turns each parse problem
// into a finding of the matching rule, and then runs the rules that compare
// files with each other over every file that did parse. The rules that read
// a body (instructions, amounts, scope and date lines) also check a file
// whose front matter is wrong, as long as it is delimited by '---' lines.
//
// # Rules
//
// Every rule is a value with a stable ID, a default severity and a Doc; see
// Rules. Errors are problems that make corpus.Load refuse the corpus or make
// a supersedes chain meaningless. Warnings are problems that make selection
// pick surprising evidence. Info findings are hygiene.
//
// # Configuration
//
// A .ka2lint.yaml file, found by walking up from the corpus directory (see
// FindConfig and FindConfigOS; the caller of FindConfigOS says which files
// it believes, by their owner), turns rules off or changes their severity,
// for the whole corpus and per path glob:
//
//	rules:
//	  trailing_whitespace: off
//	  coverage_gap: error
//	overrides:
//	  - files: ["archive/**"]
//	    rules:
//	      coverage_gap: off
//
// A file can opt out of a rule with a comment in its front matter, for a
// justified exception:
//
//	# ka2lint:disable instruction_text -- deliberately hostile test fixture
//
// # Output
//
// WriteText, WriteJSON, WriteGitHub and WriteSARIF render a Report; all of
// them are deterministic: findings are sorted by path, line, column and rule.
// WriteSARIFWith takes the root that SARIF paths are relative to (the
// caller finds it: the package runs no git) and the tool's version.
//
// The package never reads the clock or the environment: the date that
// future_source compares against is Options.Today.
package lint
