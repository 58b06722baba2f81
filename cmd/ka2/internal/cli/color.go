package cli

import "github.com/spf13/pflag"

// colorModes are the values of --color.
var colorModes = []string{"auto", "always", "never"}

// colorVar defines --color, for a command that prints diffs.
func colorVar(fs *pflag.FlagSet, p *string) {
	enumVar(fs, p, "color", "auto", colorModes, "colour diffs: auto (when standard output is a terminal and NO_COLOR is not set), always or never")
}

// color reports whether a command prints in colour for the --color mode:
// always, never, or with auto when standard output is a terminal and the
// NO_COLOR environment variable is not set (no-color.org; the flag
// overrides it).
func (f *Factory) color(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return f.OutTTY && f.getenv("NO_COLOR") == ""
}
