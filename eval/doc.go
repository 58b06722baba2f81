// Package eval decides how well a generator uses the evidence it is given:
// for each case and condition it builds the contract, varies one thing
// (where the evidence stands among distractors, the example removed, a
// hostile record added, the applicable evidence repeated or removed),
// hands it to the generator, grades the answer with package grade, and
// reports pass rates per condition and per case. Spec.Run is the whole
// of it as a front end asks for it (case files, a generator, Options);
// Evaluate runs cases already loaded.
//
// A pass means a check ran: every variant is assembled and counted by the
// case's builder, as a build is, and one over the budget is not sent; a
// variant that does not differ from its base as its condition says is
// degenerate, not sent and not a pass; a condition with no variant sent
// is not OK; an answer with no text is a failed run; a case that gives no
// contract (it expects a build error, or its build fails) is skipped and
// listed. The report keeps each contract sent, so any answer can be
// graded again.
//
// Results are deterministic given the generator's answers: the variant
// contracts, the order of runs in the report and the rates never depend on
// timing or on the number of workers. ka2 never calls a model by itself:
// the generator is a program or an endpoint the caller names.
package eval
