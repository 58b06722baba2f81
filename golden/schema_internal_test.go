package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/sebdah/goldie/v2"
)

// reportSchemaFile is the JSON Schema of the JSON report, kept beside the
// code and generated from the Report type: its keys, which are required
// (those without omitempty), their JSON types, and the known sets of
// values ReadReport checks. GOLDIE_UPDATE=1 rewrites it.
const reportSchemaFile = "ka2-regress-report-v1.schema.json"

// schemaOf is the JSON Schema of Go type t as encoding/json writes it.
func schemaOf(t reflect.Type, enum []string, defs map[string]any) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), enum, defs)
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), enum, defs)}
	case reflect.String:
		s := map[string]any{"type": "string"}
		if enum != nil {
			s["enum"] = enum
		}
		return s
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Struct:
		name := t.Name()
		if _, ok := defs[name]; !ok {
			defs[name] = nil // taken: a type that holds itself stops here
			props := map[string]any{}
			var required []string
			jsonFields(t, func(owner reflect.Type, f reflect.StructField, key, opts string) {
				props[key] = schemaOf(f.Type, reportEnums[owner][key], defs)
				if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
					required = append(required, key)
				}
			})
			d := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if required != nil {
				d["required"] = required
			}
			defs[name] = d
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	panic("no schema for " + t.String())
}

func reportSchema(t *testing.T) []byte {
	defs := map[string]any{}
	root := schemaOf(reflect.TypeFor[Report](), nil, defs)
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/ka2/ka2/golden/" + reportSchemaFile,
		"title":       "ka2 regress JSON report (" + ReportFormat + ")",
		"description": "What ka2 regress --report json=FILE writes and ka2 report merge reads. run says when and on what the run ran (started and finished in UTC, to the millisecond; the ka2 build; the host unless --no-host; the repository's commit; each corpus's digest; each case file's SHA-256).",
		"$ref":        root["$ref"],
		"$defs":       defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReportSchema keeps the committed schema the one the Report type
// gives, and checks that the pinned JSON report is valid under it, and
// that a report with a bad run is not.
func TestReportSchema(t *testing.T) {
	got := reportSchema(t)
	g := goldie.New(t, goldie.WithFixtureDir("."), goldie.WithNameSuffix(""))
	g.Assert(t, reportSchemaFile, got)

	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatalf("compile the report schema: %v", err)
	}
	data, err := os.ReadFile("testdata/golden/report/json.golden")
	if err != nil {
		t.Fatal(err)
	}
	valid := func(data []byte) error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Validate(inst)
	}
	if err := valid(data); err != nil {
		t.Errorf("the pinned JSON report is not valid under the schema: %v", err)
	}
	for _, bad := range []struct{ old, new string }{
		{`"duration_ms": 2250`, `"duration_ms": "2.25s"`},
		{`"host": "ci-runner-7"`, `"hostname": "ci-runner-7"`},
		{`"sha256": "7b23`, `"sha": "7b23`},
		{`"status": "fail"`, `"status": "broken"`},
	} {
		if !bytes.Contains(data, []byte(bad.old)) {
			t.Fatalf("the pinned report has no %s", bad.old)
		}
		if valid(bytes.Replace(data, []byte(bad.old), []byte(bad.new), 1)) == nil {
			t.Errorf("with %s the report is still valid", bad.new)
		}
	}
}
