package provenance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ka2/ka2/internal/jsontext"
)

// validator is one check a transition runs on the item it transforms. It
// returns "" to accept, or the reason it refuses.
type validator interface {
	name() string
	check(it Item) string
}

// The validators a policy can name under a transition's validate list.
const (
	// ValidatorToolResultOK refuses a tool result that reports failure: a
	// failure marker matched as whole words (case-folded; markers in Han,
	// Hiragana or Katakana script match as substrings), or, when the text
	// is a JSON object, a status field that is not an OK status (a listed
	// string, true, 0 or a 2xx number), an OK field (ok, success) that is
	// not true, or an error field that is set (not null, false, "", [] or
	// {}); field names match whatever their case ("Status"). JSON that
	// repeats a key at any depth is refused: readers differ on which of
	// the two values counts, so {"status":"failed","status":"ok"} says
	// both. In JSON, markers are looked for in string values, not in
	// keys. Its parameters are markers, status_fields, ok_fields,
	// ok_statuses and error_fields; one left out takes the value the
	// embedded default policy spells out.
	ValidatorToolResultOK = "tool_result_ok"
	// ValidatorNonEmpty refuses text that is empty after canonicalization.
	ValidatorNonEmpty = "non_empty"
	// ValidatorMaxCodepoints refuses text longer than limit code points.
	ValidatorMaxCodepoints = "max_codepoints"
)

// The tool_result_ok defaults, used for every parameter the policy leaves
// out; default_policy.yaml lists the same values.
var (
	defaultFailureMarkers = []string{
		"error", "failed", "failure", "fail", "fatal", "exception", "traceback", "panic",
		"timeout", "timed out", "denied", "forbidden", "unauthorized", "unavailable",
		"aborted", "not found", "invalid",
		"失败", "错误", "异常", "超时", "拒绝", "未找到",
	}
	defaultStatusFields = []string{"status"}
	defaultOKFields     = []string{"ok", "success"}
	defaultOKStatuses   = []string{"ok", "success", "succeeded", "successful", "completed", "done", "found"}
	defaultErrorFields  = []string{"error", "errors", "err", "exception"}
)

// toolResultOK is the tool_result_ok validator.
type toolResultOK struct {
	markers      [][]string // markers split into folded words
	cjkMarkers   []string   // folded markers matched as substrings
	statusFields []string   // folded, as every field list: keys match whatever their case
	okFields     []string
	okStatuses   []string // folded
	errorFields  []string
}

func newToolResultOK(markers, statusFields, okFields, okStatuses, errorFields []string) *toolResultOK {
	fold := func(l []string) []string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = Canonical(s)
		}
		return out
	}
	v := &toolResultOK{statusFields: fold(statusFields), okFields: fold(okFields), errorFields: fold(errorFields)}
	for _, m := range markers {
		f := Canonical(m)
		if hasCJK(f) {
			v.cjkMarkers = append(v.cjkMarkers, f)
		} else if w := words(f); len(w) > 0 {
			v.markers = append(v.markers, w)
		}
	}
	v.okStatuses = fold(okStatuses)
	return v
}

func (v *toolResultOK) name() string { return ValidatorToolResultOK }

func (v *toolResultOK) check(it Item) string {
	text := strings.TrimSpace(it.Text)
	if (strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[")) && json.Valid([]byte(text)) {
		return v.checkJSON(text)
	}
	return v.checkText(it.Text)
}

func (v *toolResultOK) checkText(text string) string {
	f := Canonical(text)
	for _, m := range v.cjkMarkers {
		if strings.Contains(f, m) {
			return fmt.Sprintf("the result reports failure (%q)", m)
		}
	}
	w := words(f)
	for _, m := range v.markers {
		for i := 0; i+len(m) <= len(w); i++ {
			if slices.Equal(w[i:i+len(m)], m) {
				return fmt.Sprintf("the result reports failure (%q)", strings.Join(m, " "))
			}
		}
	}
	return ""
}

func (v *toolResultOK) checkJSON(text string) string {
	if e := jsontext.Exact([]byte(text)); e != nil {
		if e.Repeated {
			return "the result's JSON can be read two ways: " + e.Error()
		}
		return "the result's JSON has invalid text: " + e.Error()
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return v.checkText(text)
	}
	if obj, ok := doc.(map[string]any); ok {
		// Sorted, so that the reason given is the same every time.
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if why := v.checkField(k, obj[k]); why != "" {
				return why
			}
		}
	}
	var why string
	walkStrings(doc, func(s string) bool {
		why = v.checkText(s)
		return why == ""
	})
	return why
}

// checkField checks one field of a JSON object against the status, OK and
// error fields.
func (v *toolResultOK) checkField(f string, val any) string {
	name := Canonical(f)
	if slices.Contains(v.statusFields, name) {
		switch s := val.(type) {
		case string:
			if !slices.Contains(v.okStatuses, Canonical(s)) {
				return fmt.Sprintf("the result's %q is %q, not one of the OK statuses %s", f, s, strings.Join(v.okStatuses, ", "))
			}
		case bool:
			if !s {
				return fmt.Sprintf("the result's %q is false", f)
			}
		case json.Number:
			if n, err := s.Int64(); err != nil || n != 0 && (n < 200 || n > 299) {
				return fmt.Sprintf("the result's %q is %s, not 0 or a 2xx code", f, s)
			}
		default:
			return fmt.Sprintf("the result's %q is %s, not an OK status", f, compactJSON(val))
		}
	}
	// An OK field says success only with true (or an OK status word): 0,
	// null or "no" is no success, whatever a status field says.
	if slices.Contains(v.okFields, name) {
		s, isString := val.(string)
		if val != true && !(isString && (Canonical(s) == "true" || slices.Contains(v.okStatuses, Canonical(s)))) {
			return fmt.Sprintf("the result's %q is %s, not true", f, compactJSON(val))
		}
	}
	if slices.Contains(v.errorFields, name) && isSet(val) {
		return fmt.Sprintf("the result has %q set to %s", f, compactJSON(val))
	}
	return ""
}

// isSet reports whether a JSON value says something: not null, false, "",
// an empty array or an empty object.
func isSet(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// walkStrings calls f on every string value in v, in a fixed order, until
// f returns false.
func walkStrings(v any, f func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for _, e := range x {
			if !walkStrings(e, f) {
				return false
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !walkStrings(x[k], f) {
				return false
			}
		}
	}
	return true
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// words splits canonical text into runs of letters, digits and marks.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// hasCJK reports whether s has a letter of a script written without spaces
// between words.
func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// nonEmpty is the non_empty validator.
type nonEmpty struct{}

func (nonEmpty) name() string { return ValidatorNonEmpty }

func (nonEmpty) check(it Item) string {
	if Canonical(it.Text) == "" {
		return "the text is empty"
	}
	return ""
}

// maxCodepoints is the max_codepoints validator.
type maxCodepoints struct{ limit int }

func (maxCodepoints) name() string { return ValidatorMaxCodepoints }

func (v maxCodepoints) check(it Item) string {
	if n := utf8.RuneCountInString(it.Text); n > v.limit {
		return fmt.Sprintf("the text has %d code points, more than the limit %d", n, v.limit)
	}
	return ""
}
