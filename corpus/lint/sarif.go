package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"strings"
)

// The SARIF 2.1.0 objects WriteSARIF emits: typed, so that field order and
// content are fixed.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string                `json:"name"`
	InformationURI string                `json:"informationUri,omitempty"`
	Rules          []sarifRuleDescriptor `json:"rules"`
}

type sarifRuleDescriptor struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifText          `json:"shortDescription"`
	FullDescription      sarifText          `json:"fullDescription"`
	Help                 sarifText          `json:"help"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifSchema is the schema URI SARIF 2.1.0 logs declare.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifURI writes a slash path as a relative URI reference, escaping what a
// URI cannot hold (spaces, non-ASCII letters).
func sarifURI(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

func sarifLoc(l Location, id *int) sarifLocation {
	loc := sarifLocation{ID: id, PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sarifURI(l.Path)}}}
	if l.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Col}
	}
	return loc
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run, which
// code-scanning tools (GitHub code scanning among them) accept. The driver
// lists every rule, sorted by ID, with its default level and Doc; results
// refer to rules by ID and index. Columns count Unicode code points
// (columnKind unicodeCodePoints). Artifact URIs are the findings' paths,
// relative: see Report.Rebase to make them relative to the repository root.
func WriteSARIF(w io.Writer, r Report) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "ka2 lint"}},
		ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	index := map[string]int{}
	for i, rule := range allRules {
		index[rule.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleDescriptor{
			ID:                   rule.ID,
			Name:                 sarifRuleName(rule.ID),
			ShortDescription:     sarifText{Text: rule.Summary},
			FullDescription:      sarifText{Text: firstParagraph(unwrap(rule.Doc))},
			Help:                 sarifText{Text: unwrap(rule.Doc)},
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
		})
	}
	for _, f := range sorted(r) {
		res := sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message:   sarifText{Text: f.text()},
			Locations: []sarifLocation{sarifLoc(Location{Path: f.Path, Line: f.Line, Col: f.Col}, nil)}}
		for i, rel := range f.Related {
			id := i + 1
			res.RelatedLocations = append(res.RelatedLocations, sarifLoc(rel, &id))
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifRuleName turns a rule ID such as "coverage-gap" into the PascalCase
// name SARIF viewers show, "CoverageGap".
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// unwrap joins the hard-wrapped lines of each paragraph of a Doc, so that
// viewers can wrap the text themselves. Paragraphs stay separated by a blank
// line.
func unwrap(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

func firstParagraph(text string) string {
	p, _, _ := strings.Cut(text, "\n\n")
	return p
}
