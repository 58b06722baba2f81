// Package render decides how a contract travels to a model API: which
// message carries which part, and what that costs in the API's own
// accounting. A Provider renders a contract as its request body and counts
// the input exactly as the API frames it, so a contract that fits its
// budget also fits the request that carries it.
//
// ka2 still never calls a model by itself: render only builds the body a
// caller (ka2 eval, or the user's own client) sends.
package render
