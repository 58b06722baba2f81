package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/provenance"
)

// A shard's JSON report comes from another machine, so it is evidence to
// check, not a fact: checkReport reads its node tree (strict.ParseJSON)
// against the Report type with the strict decoder, so every object has
// exactly the keys its Go type declares, spelled exactly (encoding/json
// would take "FORMAT" for "format" and keep the last of "format" and
// "FORMAT"), each once, each value of its JSON type; and every field
// with a known set of values holds one of them.

// reportEnums are the fields of a report whose values come from a known
// set, by Go type and JSON key. A value outside its set is refused at
// read, before any report draws it.
var reportEnums = map[reflect.Type]map[string][]string{
	reflect.TypeFor[CaseReport](): {
		"status": {string(StatusPass), string(StatusFail)},
		"state": {string(StateMatch), string(StateDiffers), string(StateMissing), string(StateUpdated),
			string(StateCreated), string(StateUnreadable)},
		// A build's outcome is a contract or the kind of its error.
		"outcome": {"contract", string(errkind.Usage), string(errkind.BadInput), string(errkind.CheckFailed),
			string(errkind.BudgetExceeded), string(errkind.NoEvidence), string(errkind.ContextType),
			string(errkind.StageFailed), string(errkind.Interrupted)},
	},
	reflect.TypeFor[RecordChange](): {
		"change": {RecordSame, RecordAdded, RecordRemoved, RecordChanged},
		"fields": {"lines", "version", "valid_from", "valid_until", "unit", "quote"},
	},
	reflect.TypeFor[PartCost](): {
		"kind": {string(provenance.KindInstruction), string(provenance.KindExample), string(provenance.KindMemory), string(provenance.KindEvidence),
			string(provenance.KindToolOutput), string(provenance.KindScope), string(provenance.KindQuestion), string(budget.KindOverhead)},
	},
	reflect.TypeFor[CaseBudget](): {"counter": budget.Names()},
}

// reportField is one JSON key of a struct: its Go type and its set of
// values, if it has one.
type reportField struct {
	typ  reflect.Type
	enum []string
}

// reportTypes caches reportFields: a shard has the same few types
// hundreds of thousands of times.
var reportTypes sync.Map // reflect.Type → *reportType

type reportType struct {
	m      *strict.Map
	fields map[string]reportField
	// required are the keys of a string of a known set: a report always
	// writes them (only lists are omitempty), and one left out would read
	// as "", which is in no set, so that the report could not be read
	// again once written.
	required []string
}

// typeOf returns the keys of struct type t, worked out once.
func typeOf(t reflect.Type) *reportType {
	if rt, ok := reportTypes.Load(t); ok {
		return rt.(*reportType)
	}
	m, fields := reportFields(t)
	var required []string
	for _, k := range m.Keys {
		if f := fields[k.Name]; f.enum != nil && f.typ.Kind() == reflect.String {
			required = append(required, k.Name)
		}
	}
	rt, _ := reportTypes.LoadOrStore(t, &reportType{m, fields, required})
	return rt.(*reportType)
}

// reportFields lists the JSON keys of struct type t, embedded structs'
// keys included, as encoding/json reads them, and the strict.Map that
// declares them.
func reportFields(t reflect.Type) (*strict.Map, map[string]reportField) {
	m := &strict.Map{What: t.Name()}
	fields := map[string]reportField{}
	jsonFields(t, func(owner reflect.Type, f reflect.StructField, key, _ string) {
		m.Keys = append(m.Keys, strict.Key{Name: key})
		fields[key] = reportField{typ: f.Type, enum: reportEnums[owner][key]}
	})
	return m, fields
}

// jsonFields calls fn for each field encoding/json writes of struct type
// t, the fields of embedded structs included, with the struct that
// declares it, its key and its tag's options: the one walk of a report
// type, for the reader (reportFields) and the schema written from it.
func jsonFields(t reflect.Type, fn func(owner reflect.Type, f reflect.StructField, key, opts string)) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			jsonFields(f.Type, fn)
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		if key == "-" || !f.IsExported() {
			continue
		}
		if key == "" {
			key = f.Name
		}
		fn(t, f, key, opts)
	}
}

// reportChecker walks a report's node tree beside its Go type.
type reportChecker struct {
	d *strict.Decoder
	// at is where the walk is, for messages; worked out only for one.
	at *reportLoc
}

// reportLoc is a place in a report: a key or an index below its parent.
type reportLoc struct {
	parent *reportLoc
	key    string
	index  int // when key is ""
}

// String names the place as "the report.files[0].cases[2]".
func (l *reportLoc) String() string {
	if l == nil {
		return "the report"
	}
	if l.key == "" {
		return l.parent.String() + "[" + strconv.Itoa(l.index) + "]"
	}
	return l.parent.String() + "." + l.key
}

// checkReport checks a report's text and returns its problems, or the
// text's own error (a *strict.JSONError). A node per value takes some
// twenty times the text's size, so the files of a report are checked
// one at a time: the report with each of them blanked to {} first (its
// bytes turned to spaces, its newlines kept, so every position stays),
// then each file's text alone, its positions moved to where it is.
func checkReport(data []byte) (diag.List, error) {
	spans := fileSpans(data)
	top := data
	if len(spans) > 0 {
		top = bytes.Clone(data)
		for _, sp := range spans {
			blank(top[sp.start:sp.end])
		}
	}
	doc, err := strict.ParseJSON(top)
	if err != nil {
		return nil, err
	}
	rc := newReportChecker()
	rc.value(strict.Root(doc), reflect.TypeFor[Report](), nil, nil)
	files := &reportLoc{key: "files"}
	for _, sp := range spans {
		doc, err := strict.ParseJSON(data[sp.start:sp.end])
		if err != nil {
			return nil, err // the whole text parsed: cannot happen
		}
		fc := newReportChecker()
		fc.value(strict.Root(doc), reflect.TypeFor[FileReport](), &reportLoc{parent: files, index: sp.index}, nil)
		if len(fc.d.Diags) == 0 {
			continue
		}
		// Worked out only for a file with problems: LineCol steps over
		// the text from its start.
		line, col := strict.LineCol(data, sp.start)
		for _, d := range fc.d.Diags {
			if d.Line == 1 {
				d.Col += col - 1
			}
			d.Line += line - 1
		}
		rc.d.Diags = append(rc.d.Diags, fc.d.Diags...)
	}
	return rc.d.Diags, nil
}

func newReportChecker() *reportChecker {
	rc := &reportChecker{}
	rc.d = &strict.Decoder{Words: func(is strict.Issue, d *diag.Diagnostic) { reportWords(rc.at.String(), is, d) }}
	return rc
}

// span is where the element index of an array is in a text.
type span struct{ index, start, end int }

// fileSpans returns where each object in the top-level "files" array of
// a report's text is, or nothing when the text is not an object with
// such an array (the whole text is then checked at once). An element
// that is not an object is left to the check of the whole.
func fileSpans(data []byte) []span {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "files" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil
		}
		var spans []span
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			if end := int(dec.InputOffset()); len(raw) >= 2 && raw[0] == '{' {
				spans = append(spans, span{i, end - len(raw), end})
			}
		}
		return spans
	}
	return nil
}

// blank turns b into "{}" and spaces, keeping its newlines.
func blank(b []byte) {
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	b[0], b[len(b)-1] = '{', '}'
}

// reportWords words the structural problems of a report; where names
// the object.
func reportWords(where string, is strict.Issue, d *diag.Diagnostic) {
	d.Code = CodeBadValue
	switch is.Problem {
	case strict.UnknownKey:
		d.Code = CodeUnknownKey
		d.Message = fmt.Sprintf("unknown key %q in %s", is.Key, where)
		for _, k := range is.Known() {
			if strings.EqualFold(k, is.Key) {
				// The same key in another case: encoding/json would
				// have read it as k.
				is.Suggestion = k
			}
		}
		d.Hint = is.DidYouMean("did you mean %s? (keys are written exactly, in lower case)", diag.Fix("the keys are "+strings.Join(is.Known(), ", ")))
	case strict.DuplicateKey:
		d.Code = CodeDuplicateKey
		d.Message = fmt.Sprintf("key %q repeats the one at %d:%d", is.Key, is.First.Line, is.First.Column)
		if is.First.Value != is.Key {
			d.Message = fmt.Sprintf("key %q repeats %q at %d:%d: keys that differ only in case are the same key", is.Key, is.First.Value, is.First.Line, is.First.Column)
		}
	case strict.NotMapping:
		d.Message = fmt.Sprintf("%s: want an object, not a JSON %s", where, strict.JSONKind(is.Node))
	case strict.KeyNotScalar:
		d.Message = "a key that is not a string"
	default:
		d.Message = fmt.Sprintf("%s: not what a report holds", where)
	}
}

func (rc *reportChecker) bad(n *yaml.Node, format string, args ...any) {
	rc.d.Report(n, CodeBadValue, diag.Hint{}, fmt.Sprintf(format, args...))
}

// value checks n against Go type t; at is where it is, and enum its set
// of values, if it has one.
func (rc *reportChecker) value(n *yaml.Node, t reflect.Type, at *reportLoc, enum []string) {
	n = strict.Deref(n)
	if strict.IsNull(n) {
		if enum != nil && t.Kind() == reflect.String {
			// The zero value, "", is in no set: a report writes one of them.
			rc.bad(n, "%s: null is not one of %s", at, strings.Join(enum, ", "))
		}
		return // encoding/json leaves the zero value, which is valid
	}
	switch t.Kind() {
	case reflect.Pointer:
		rc.value(n, t.Elem(), at, enum)
	case reflect.Struct:
		rt := typeOf(t)
		rc.at = at
		fields := rc.d.Mapping(n, rt.m)
		for _, e := range fields.All() {
			f := rt.fields[e.Name]
			rc.value(e.Value, f.typ, &reportLoc{parent: at, key: e.Name}, f.enum)
		}
		for _, k := range rt.required {
			if fields != nil && !fields.Has(k) {
				rc.bad(n, "%s: %q is missing; want one of %s", at, k, strings.Join(rt.fields[k].enum, ", "))
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			rc.bad(n, "%s: want a list, not a JSON %s", at, strict.JSONKind(n))
			return
		}
		for i, c := range n.Content {
			rc.value(c, t.Elem(), &reportLoc{parent: at, index: i}, enum)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			rc.bad(n, "%s: want a string, not a JSON %s", at, strict.JSONKind(n))
			return
		}
		if enum != nil && !slices.Contains(enum, n.Value) {
			rc.bad(n, "%s: %q is not one of %s", at, n.Value, strings.Join(enum, ", "))
		}
	case reflect.Int:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			rc.bad(n, "%s: want a whole number, not a JSON %s", at, strict.JSONKind(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			rc.bad(n, "%s: want true or false, not a JSON %s", at, strict.JSONKind(n))
		}
	}
}
