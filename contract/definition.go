package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ka2/ka2"
	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/internal/yamlerr"
	"github.com/ka2/ka2/provenance"
)

// Definition is a contract template read from its definition file (such
// as ka2-context-contract-v1.json) and its content file.
type Definition struct {
	Template    string          `json:"template"`
	Description string          `json:"description"`
	ContentFile string          `json:"content"`
	Fields      []Field         `json:"fields"`
	Rules       json.RawMessage `json:"rules"`
	Budget      BudgetDefaults  `json:"budget"`
	Schema      json.RawMessage `json:"output_schema"`

	// Content is the instruction and example per language, from the
	// content file.
	Content map[string]Content `json:"-"`

	schemaCache
}

// Field is one top-level field of the serialized contract, in order.
type Field struct {
	Name string `json:"name"`
	// ContextType is "constant" for the template id, or an item Kind.
	ContextType string `json:"context_type"`
	// Required fields are always written; optional ones only when they
	// have items.
	Required bool `json:"required"`
}

// BudgetDefaults are the default counter and limits per counter.
type BudgetDefaults struct {
	DefaultCounter string                   `json:"default_counter"`
	Counters       map[string]budget.Limits `json:"counters"`
}

// Content is the instruction and worked example in one language.
type Content struct {
	Instruction string             `yaml:"instruction"`
	Example     provenance.Example `yaml:"example"`
	// Refusals are phrases that make an answer a refusal (ka2 grade
	// matches them case-insensitively as substrings). Optional: a
	// definition without them cannot tell a refusal.
	Refusals []string `yaml:"refusals,omitempty"`
}

// constantType is the context type of the template field.
const constantType = "constant"

// itemKinds are the context types a field may declare, and whether the
// field holds a list of items (serialized as a JSON array).
var itemKinds = map[provenance.Kind]bool{
	provenance.KindInstruction: false, provenance.KindExample: false, provenance.KindQuestion: false, provenance.KindScope: false,
	provenance.KindEvidence: true, provenance.KindMemory: true, provenance.KindToolOutput: true,
}

// Default returns the contract definition embedded in the binary.
func Default() *Definition {
	d, err := ParseDefinition(ka2.ContractJSON, ka2.ContentYAML)
	if err != nil {
		panic("embedded contract definition: " + err.Error())
	}
	return d
}

// ParseDefinition reads a definition file and its content file, and checks
// that they describe a contract ka2 can assemble.
func ParseDefinition(defJSON, contentYAML []byte) (*Definition, error) {
	var d Definition
	dec := json.NewDecoder(bytes.NewReader(defJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("contract definition: %w", err)
	}
	doc, err := yamlerr.Decode(contentYAML)
	if err == nil && doc.Kind != 0 {
		err = doc.Decode(&d.Content)
	}
	if err != nil {
		return nil, fmt.Errorf("contract content: %w", err)
	}
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("contract definition: %w", err)
	}
	return &d, nil
}

func (d *Definition) check() error {
	if d.Template == "" {
		return fmt.Errorf("template is empty")
	}
	seen := map[string]bool{}
	for i, f := range d.Fields {
		if seen[f.Name] || f.Name == "" {
			return fmt.Errorf("field %d: name %q is empty or repeated", i, f.Name)
		}
		seen[f.Name] = true
		if f.ContextType == constantType {
			if f.Name != "template" {
				return fmt.Errorf("field %s: only the template field is constant", f.Name)
			}
			continue
		}
		if _, ok := itemKinds[provenance.Kind(f.ContextType)]; !ok {
			return fmt.Errorf("field %s: unknown context_type %q", f.Name, f.ContextType)
		}
	}
	for _, k := range []provenance.Kind{provenance.KindInstruction, provenance.KindExample, provenance.KindEvidence, provenance.KindQuestion} {
		if d.field(k) == nil {
			return fmt.Errorf("no field has context_type %s", k)
		}
	}
	if _, ok := d.Budget.Counters[d.Budget.DefaultCounter]; !ok {
		return fmt.Errorf("budget: default_counter %q has no limits", d.Budget.DefaultCounter)
	}
	// Sorted, so that a definition with several problems always reports
	// the same one.
	for _, name := range slices.Sorted(maps.Keys(d.Budget.Counters)) {
		if _, err := budget.Lookup(name); err != nil {
			return fmt.Errorf("budget: %w", err)
		}
		if err := d.Budget.Counters[name].Validate(); err != nil {
			return fmt.Errorf("budget.counters.%s: %w", name, err)
		}
	}
	if len(d.Content) == 0 {
		return fmt.Errorf("content: no language")
	}
	for _, lang := range d.Langs() {
		c := d.Content[lang]
		if c.Instruction == "" || c.Example.Question == "" || c.Example.Answer == "" {
			return fmt.Errorf("content %s: instruction, example.question and example.answer are all required", lang)
		}
	}
	return nil
}

// field returns the field holding items of kind k, or nil.
func (d *Definition) field(k provenance.Kind) *Field {
	for i := range d.Fields {
		if d.Fields[i].ContextType == string(k) {
			return &d.Fields[i]
		}
	}
	return nil
}

// Langs lists the content languages, sorted.
func (d *Definition) Langs() []string {
	langs := make([]string, 0, len(d.Content))
	for l := range d.Content {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return langs
}

// ContentFor returns the instruction and example for lang, or an error that
// lists the languages there are.
func (d *Definition) ContentFor(lang string) (Content, error) {
	c, ok := d.Content[lang]
	if !ok {
		return Content{}, fmt.Errorf("no instruction text for lang %q: use one of %s", lang, strings.Join(d.Langs(), ", "))
	}
	return c, nil
}

// Limits returns the default limits of a counter.
func (d *Definition) Limits(counter string) (budget.Limits, error) {
	l, ok := d.Budget.Counters[counter]
	if !ok {
		names := slices.Sorted(maps.Keys(d.Budget.Counters))
		return budget.Limits{}, fmt.Errorf("the contract sets no budget for counter %q: use one of %s", counter, strings.Join(names, ", "))
	}
	return l, nil
}

// ContentFileOf returns the content file a definition names, a path
// relative to the definition file.
func ContentFileOf(defJSON []byte) (string, error) {
	var d struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(defJSON, &d); err != nil {
		return "", fmt.Errorf("contract definition: %w", err)
	}
	if d.Content == "" {
		return "", fmt.Errorf("contract definition: no content file named in \"content\"")
	}
	return d.Content, nil
}
