// Package ka2 holds the files that define the ka2-context-v1 contract, so
// that the binary carries them as defaults. The packages below it do the
// work: corpus reads policy files, selector picks and orders sources, budget
// counts, provenance decides which typed item may take which role, contract
// assembles and verifies, golden runs regression cases.
package ka2

import _ "embed"

// ContractFile is the file name of the embedded contract definition.
const ContractFile = "ka2-context-contract-v1.json"

// ContractJSON is the embedded contract definition: the template, its
// fields and their context types in order, the selection and ordering
// rules, the default budget and the JSON Schema of the serialized output.
//
//go:embed ka2-context-contract-v1.json
var ContractJSON []byte

// ContentFile is the file name of the embedded instruction and example texts.
const ContentFile = "ka2-context-content-v1.yaml"

// ContentYAML holds the instruction and worked example, per language.
//
//go:embed ka2-context-content-v1.yaml
var ContentYAML []byte
