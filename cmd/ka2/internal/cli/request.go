package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/provenance"
)

// typedFlags are the typed-context inputs of build and budget: a JSON
// request and the provenance policy.
type typedFlags struct {
	Request string
	Policy  string
}

func (t *typedFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.Request, "request", "", "JSON request file (- for standard input); its keys replace the matching flags and add typed items")
	fs.StringVar(&t.Policy, "policy", "", "provenance policy YAML file (default: the embedded policy)")
}

// readRequest reads and parses the --request file, or returns nil.
func (t *typedFlags) readRequest(in io.Reader) (*contract.RequestFile, error) {
	if t.Request == "" {
		return nil, nil
	}
	var data []byte
	var err error
	name := t.Request
	if name == "-" {
		data, err = io.ReadAll(in)
		name = "<stdin>"
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("read request: %w; check the --request path, or pass - to read standard input", err)
	}
	return contract.ParseRequestFile(name, data)
}

// policy reads the --policy file, or returns nil for the default.
func (t *typedFlags) policy() (*provenance.Policy, error) {
	if t.Policy == "" {
		return nil, nil
	}
	data, err := os.ReadFile(t.Policy)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w; check the --policy path", err)
	}
	return provenance.ParsePolicy(t.Policy, data)
}

// applyRequest replaces the build options the request sets.
func (o *BuildOptions) applyRequest(rf *contract.RequestFile) {
	if rf == nil {
		return
	}
	if s := rf.SubjectList(); len(s) > 0 {
		o.Subjects = s
	}
	if len(rf.Dates) > 0 {
		o.Dates = rf.Dates
	}
	if rf.Question != "" {
		o.Question = rf.Question
	}
	if rf.Lang != "" {
		o.Lang = rf.Lang
	}
	if rf.Short != nil {
		o.Short = *rf.Short
	}
	if rf.RequireEvidence != nil {
		o.RequireEvidence = *rf.RequireEvidence
	}
}
