package grade_test

import (
	"testing"

	"github.com/ka2/ka2/contract"
)

// parse reads a contract as every ka2 reader does.
func parse(t *testing.T, doc []byte) *contract.Document {
	t.Helper()
	c, err := contract.ReadContract("contract.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
