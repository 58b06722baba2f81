// Package eval decides how well a generator uses the evidence it is given:
// for each case and condition it builds the contract, varies one thing
// (where the evidence stands among distractors, the example removed, a
// hostile record added, the applicable evidence removed), hands it to the
// generator, grades the answer with package grade, and reports pass rates
// per condition and per case.
//
// Results are deterministic given the generator's answers: the variant
// contracts, the order of runs in the report and the rates never depend on
// timing or on the number of workers. ka2 never calls a model by itself:
// the generator is a program or an endpoint the caller names.
package eval
