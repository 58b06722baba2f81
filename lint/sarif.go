package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ka2/ka2/internal/diag"
)

// The SARIF 2.1.0 objects WriteSARIF emits: typed, so that field order and
// content are fixed.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool          `json:"tool"`
	OriginalURIBaseIDs sarifOriginalBases `json:"originalUriBaseIds"`
	ColumnKind         string             `json:"columnKind"`
	Results            []sarifResult      `json:"results"`
}

// sarifOriginalBases declares the one base URIs are relative to. Its
// location is left out: it would be a machine's path, and code-scanning
// tools put the checkout there themselves.
type sarifOriginalBases struct {
	SrcRoot sarifBase `json:"%SRCROOT%"`
}

type sarifBase struct {
	Description sarifText `json:"description"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string                `json:"name"`
	Version        string                `json:"version,omitempty"`
	InformationURI string                `json:"informationUri"`
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
	// PartialFingerprints keep an alert the same alert across runs.
	PartialFingerprints sarifFingerprints `json:"partialFingerprints"`
}

type sarifFingerprints struct {
	Finding string `json:"ka2FindingHash/v1"`
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
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifSchema is the schema URI SARIF 2.1.0 logs declare.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// srcRoot is the base ID of every artifact URI: the repository root (or
// the corpus root outside a repository), as code-scanning tools expect.
const srcRoot = "%SRCROOT%"

// InformationURI is where ka2 lint's documentation lives; SARIF logs name
// it as the tool's informationUri.
const InformationURI = "https://github.com/ka2/ka2#ka2-lint"

// SARIFOptions are the settings of WriteSARIFWith.
type SARIFOptions struct {
	// Root is the folder artifact URIs are relative to (%SRCROOT%): the
	// repository root, or the corpus root outside a repository. It is a
	// path in the same terms as the findings' paths, best both absolute
	// (a relative Root above the current folder cannot be compared with
	// relative paths). Empty means the paths are already relative to it.
	Root string
	// ToolVersion is written as tool.driver.version.
	ToolVersion string
}

func sarifLevel(s diag.Severity) string {
	switch s {
	case diag.SeverityError:
		return "error"
	case diag.SeverityWarning:
		return "warning"
	}
	return "note"
}

// sarifURI writes a slash path as a relative URI reference, escaping what a
// URI cannot hold (spaces, non-ASCII letters).
func sarifURI(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

// relToRoot makes a finding's path relative to root; a path outside root
// cannot be written relative to %SRCROOT% and is an error.
func relToRoot(root, p string) (string, error) {
	if root == "" {
		return p, nil
	}
	rel, err := filepath.Rel(filepath.FromSlash(root), filepath.FromSlash(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is not inside %s, the root that SARIF paths are relative to", p, root)
	}
	return filepath.ToSlash(rel), nil
}

func sarifLoc(root string, l Location, id *int) (sarifLocation, error) {
	rel, err := relToRoot(root, l.Path)
	if err != nil {
		return sarifLocation{}, err
	}
	loc := sarifLocation{ID: id, PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: sarifURI(rel), URIBaseID: srcRoot}}}
	if l.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Col}
	}
	return loc, nil
}

// fingerprint identifies a finding across runs by its rule, its path
// relative to the root and its message, not its line: an edit above it
// does not make it a new alert. The nth finding with the same three gets
// ":n" (from 1, in report order), as code scanning's own line hashes do.
func fingerprint(rule, rel, message string, seen map[string]int) string {
	h := sha256.Sum256([]byte(rule + "\x00" + rel + "\x00" + message))
	key := hex.EncodeToString(h[:16])
	seen[key]++
	return key + ":" + strconv.Itoa(seen[key])
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with the zero
// SARIFOptions: paths taken as relative to the root already.
func WriteSARIF(w io.Writer, r Report) error { return WriteSARIFWith(w, r, SARIFOptions{}) }

// WriteSARIFWith writes the report as a SARIF 2.1.0 log with one run,
// which code-scanning tools (GitHub code scanning among them) accept. The
// driver lists every rule, sorted by ID, with its default level and Doc;
// results refer to rules by ID and index. Columns count Unicode code
// points (columnKind unicodeCodePoints). Artifact URIs are relative to
// o.Root with uriBaseId %SRCROOT%, declared in originalUriBaseIds; each
// result has a partial fingerprint that survives edits to other lines.
func WriteSARIFWith(w io.Writer, r Report, o SARIFOptions) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "ka2 lint", Version: o.ToolVersion, InformationURI: InformationURI}},
		OriginalURIBaseIDs: sarifOriginalBases{SrcRoot: sarifBase{Description: sarifText{
			Text: "The root of the repository (or of the corpus, outside a repository) that ka2 lint ran in."}}},
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
	seen := map[string]int{}
	for _, f := range sorted(r) {
		loc, err := sarifLoc(o.Root, Location{Path: f.Path, Line: f.Line, Col: f.Col}, nil)
		if err != nil {
			return err
		}
		rel, _ := relToRoot(o.Root, f.Path)
		res := sarifResult{RuleID: f.Rule(), RuleIndex: index[f.Rule()], Level: sarifLevel(f.Severity),
			Message: sarifText{Text: f.text()}, Locations: []sarifLocation{loc},
			PartialFingerprints: sarifFingerprints{Finding: fingerprint(f.Rule(), rel, f.Message, seen)}}
		for i, rl := range f.Related {
			id := i + 1
			loc, err := sarifLoc(o.Root, rl, &id)
			if err != nil {
				return err
			}
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifRuleName turns a rule ID such as "coverage_gap" into the PascalCase
// name SARIF viewers show, "CoverageGap".
func sarifRuleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// unwrap joins the hard-wrapped lines of each paragraph of a Doc, so that
// viewers can wrap the text themselves. Paragraphs stay separated by a blank
// line. A paragraph indented with a tab is an example and keeps its lines,
// without the tab.
func unwrap(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		if strings.HasPrefix(p, "\t") {
			paras[i] = strings.ReplaceAll(strings.TrimPrefix(p, "\t"), "\n\t", "\n")
			continue
		}
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

func firstParagraph(text string) string {
	p, _, _ := strings.Cut(text, "\n\n")
	return p
}
