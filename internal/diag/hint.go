package diag

import "strings"

// HintKind says what a hint asks for, so a front end can offer it as an
// action (a code action in an editor, a field to fill in a form).
type HintKind string

// The hint kinds.
const (
	// HintFix is advice in words: edit the file, delete the golden.
	HintFix HintKind = ""
	// HintSetting asks to change the settings named in Text, within
	// Allowed or Min..Max when they are given.
	HintSetting HintKind = "setting"
	// HintDidYouMean offers Suggestion, the nearest valid name.
	HintDidYouMean HintKind = "did_you_mean"
)

// Hint says how to fix a problem, as data each front end words for its
// user: the CLI names flags, the HTTP service request fields or query
// parameters. Libraries never name a front end's flags.
type Hint struct {
	Kind HintKind
	// Text is the advice. In a HintSetting, a setting the fix changes is
	// named in braces,
	// "raise {capacity}, lower {reserve}, or ask about fewer dates"; a
	// front end replaces each with its own name for the setting (a flag, a
	// request field), and String with "the capacity setting".
	Text string
	// Suggestion is the nearest valid value or name, for HintDidYouMean.
	Suggestion string
	// Allowed lists the values a setting may take; Min and Max bound it.
	// Empty when not known or not a list or range.
	Allowed  []string
	Min, Max string
}

// IsZero reports whether h says nothing.
func (h Hint) IsZero() bool { return h.Text == "" }

// Settings names the settings a HintSetting asks to change, in order.
func (h Hint) Settings() []string {
	var out []string
	if h.Kind != HintSetting {
		return nil
	}
	rest := h.Text
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, rest[i+1:i+j])
		rest = rest[i+j+1:]
	}
}

// Phrase words the hint with name(setting) in place of each setting named
// in braces.
func (h Hint) Phrase(name func(setting string) string) string {
	if h.Kind != HintSetting || !strings.Contains(h.Text, "{") {
		return h.Text
	}
	var b strings.Builder
	rest := h.Text
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		b.WriteString(name(rest[i+1 : i+j]))
		rest = rest[i+j+1:]
	}
}

// String words the hint without a front end: "the capacity setting".
func (h Hint) String() string { return h.Phrase(SettingWords) }

// SettingWords is the front-end-neutral name of a setting.
func SettingWords(setting string) string { return "the " + setting + " setting" }

// Fix returns a hint of advice in words.
func Fix(text string) Hint { return Hint{Text: text} }

// Set returns a hint that asks to change the settings named in braces in
// text.
func Set(text string) Hint { return Hint{Kind: HintSetting, Text: text} }

// Phrase returns err's message with every hint in its tree worded by
// name instead of SettingWords: how a front end words a library's error
// for its user. A hint is found on a *Diagnostic, or on any error with a
// Hint() Hint method.
func Phrase(err error, name func(setting string) string) string {
	return Reword(err.Error(), err, name)
}

// Reword is Phrase on msg, a message a front end built from err.
func Reword(msg string, err error, name func(setting string) string) string {
	seen := map[string]bool{}
	walk(err, func(e error) {
		var h Hint
		switch e := e.(type) {
		case *Diagnostic:
			h = e.Hint
		case interface{ Hint() Hint }:
			h = e.Hint()
		default:
			return
		}
		plain := h.String()
		if h.Kind != HintSetting || seen[plain] {
			return
		}
		seen[plain] = true
		msg = strings.ReplaceAll(msg, plain, h.Phrase(name))
	})
	return msg
}

// Settings names the settings every hint in err's tree asks to change, in
// the order found: what a front end must have a word for.
func Settings(err error) []string {
	var out []string
	walk(err, func(e error) {
		switch e := e.(type) {
		case *Diagnostic:
			out = append(out, e.Hint.Settings()...)
		case interface{ Hint() Hint }:
			out = append(out, e.Hint().Settings()...)
		}
	})
	return out
}
