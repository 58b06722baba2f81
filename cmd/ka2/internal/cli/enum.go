package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// enumValue is a string flag that takes one of a fixed list of values.
// Every enum-like flag of every command uses it, so that a value outside
// the list is refused while the flags are parsed, the same way and in the
// same words everywhere (see enumError), and so that --help lists the
// values as the flag's type (e.g. "--format text|json").
type enumValue struct {
	p       *string
	name    string
	allowed []string
}

// enumVar defines the flag name with default value, taking only the
// values in allowed. The default need not be one of them: "" often means
// "decided later", as --counter's does.
func enumVar(fs *pflag.FlagSet, p *string, name, value string, allowed []string, usage string) {
	*p = value
	fs.Var(&enumValue{p: p, name: name, allowed: allowed}, name, usage)
}

func (e *enumValue) Set(s string) error {
	if !slices.Contains(e.allowed, s) {
		return &enumError{flag: "--" + e.name, value: s, allowed: e.allowed}
	}
	*e.p = s
	return nil
}

func (e *enumValue) String() string { return *e.p }

func (e *enumValue) Type() string { return strings.Join(e.allowed, "|") }

// enumError is a value outside an enum flag's list.
type enumError struct {
	flag, value string
	allowed     []string
}

func (e *enumError) Error() string {
	return fmt.Sprintf("invalid value %q for %s: want one of %s", e.value, e.flag, strings.Join(e.allowed, ", "))
}

// flagError turns a flag-parsing error into a usage error, keeping an
// enum's own wording rather than pflag's "invalid argument … flag: …".
func flagError(err error) error {
	var ee *enumError
	if errors.As(err, &ee) {
		return usageError{ee}
	}
	return usageError{err}
}

// The values of the enum flags that several commands share (and
// reportFormats, in htmlreport.go).
var (
	textJSON = []string{"text", "json"}
)

// scanErrorFormat finds --error-format in args before the command line is
// parsed, so that an error in an earlier flag (`ka2 build --bogus
// --error-format json`) is still printed in the format asked for: flag
// order never changes how errors look. It stops at "--", and takes only a
// valid value; an invalid one is reported by the parse itself.
func scanErrorFormat(args []string) (string, bool) {
	format, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		v, ok := strings.CutPrefix(a, "--error-format=")
		if !ok && a == "--error-format" && i+1 < len(args) {
			v, ok = args[i+1], true
			i++
		}
		if ok && slices.Contains(textJSON, v) {
			format, found = v, true // the last one wins, as in the parse
		}
	}
	return format, found
}
