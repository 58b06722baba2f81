package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/internal/inputfile"
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
func (t *typedFlags) readRequest(f *Factory) (*contract.RequestFile, error) {
	if t.Request == "" {
		return nil, nil
	}
	data, err := readInput(f, t.Request)
	if err != nil {
		return nil, fmt.Errorf("read request: %w; check the --request path, or pass - to read standard input", err)
	}
	name := t.Request
	if name == "-" {
		name = "<stdin>"
	}
	return contract.ParseRequestFile(name, data)
}

// policy reads the --policy file, or returns nil for the default.
func (t *typedFlags) policy() (*provenance.Policy, error) {
	if t.Policy == "" {
		return nil, nil
	}
	data, err := inputfile.ReadFile(t.Policy, inputfile.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w; check the --policy path", err)
	}
	return provenance.ParsePolicy(t.Policy, data)
}

// settings are the build flags as contract.Settings.
func (o *BuildOptions) settings() contract.Settings {
	return contract.Settings{Subjects: o.Subjects, Dates: o.Dates, Question: o.Question, Lang: o.Lang,
		Short: o.Short, RequireEvidence: o.RequireEvidence}
}

// requestField names a setting the request file rf gave as its key in
// that file, and any other as its flag.
func (t *typedFlags) requestField(rf *contract.RequestFile) func(setting string) string {
	file := t.Request
	if file == "-" {
		file = "the request on standard input"
	}
	given := map[string]bool{
		string(contract.SettingQuestion): rf.Question != "",
		string(contract.SettingDate):     len(rf.Dates) > 0,
		string(contract.SettingSubject):  len(rf.SubjectList()) > 0,
		"lang":                           rf.Lang != "",
	}
	return func(setting string) string {
		if given[setting] {
			key := setting
			switch setting {
			case string(contract.SettingDate):
				key = "dates"
			case string(contract.SettingSubject):
				key = "subject"
			}
			return fmt.Sprintf("%q in %s", key, file)
		}
		return flagName(setting)
	}
}

// applySettings sets the build flags from s, so that the trace and the
// budget report show what the request replaced.
func (o *BuildOptions) applySettings(s contract.Settings) {
	o.Subjects, o.Dates, o.Question, o.Lang = s.Subjects, s.Dates, s.Question, s.Lang
	o.Short, o.RequireEvidence = s.Short, s.RequireEvidence
}

// settingUsage words a contract.SettingError as the flag to fix.
func settingUsage(err error) error {
	var se *contract.SettingError
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case se.Setting == contract.SettingSubject:
		return errNoSubject
	case se.Setting == contract.SettingDate && errors.Is(se.Err, contract.ErrMissing):
		return errNoDate
	case se.Setting == contract.SettingDate:
		return usageError{fmt.Errorf("--date %w", se.Err)}
	}
	return usageError{errors.New("--question is required")}
}
