package strict

import (
	"errors"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/yamlerr"
)

// YAMLWords is how a format words text that is not one YAML document ka2
// accepts. The positions are yamlerr's; the words are the format's, so
// that each format's messages stay as its users and goldens know them.
type YAMLWords struct {
	// Code is every problem's code.
	Code diag.Code
	// LineOffset is added to every line: a document embedded in a file
	// (front matter after its '---' line) starts below line 1.
	LineOffset int
	// Refused starts the message of a problem yamlerr.Decode finds in
	// YAML that yaml.v3 accepts ("front matter: "); the hint is Decode's.
	Refused string
	// Syntax starts the message of a syntax error, text yaml.v3 refuses
	// ("not valid YAML: "); yaml.v3's message follows it.
	Syntax string
	// Hint says how to fix a syntax error. Block, when not zero, replaces
	// it for a problem of structure, such as unbalanced brackets or
	// indentation (yamlerr.IsParserProblem).
	Hint, Block diag.Hint
	// LineStart places a syntax error at column 1 of its line: yaml.v3
	// names a line only.
	LineStart bool
}

// ParseYAML reads data, the text of the file path, as one YAML document
// (yamlerr.Decode) and returns its top node, or nil when the text holds
// no document (it is empty, or only comments). When it is not one
// document ka2 accepts, it returns the problem, worded by w (see
// YAMLWords.Problem).
func ParseYAML(path string, data []byte, w YAMLWords) (*yaml.Node, *diag.Diagnostic) {
	doc, err := yamlerr.Decode(data)
	if err != nil {
		return nil, w.Problem(path, data, err)
	}
	return Root(doc), nil
}

// Problem words err, an error of yamlerr.Decode reading src, as a problem
// in the file path. A *yamlerr.Error keeps its line, column and hint; a
// syntax error gets the line yamlerr.Locate finds in yaml.v3's message,
// or none (Line 0) when the message names none.
func (w YAMLWords) Problem(path string, src []byte, err error) *diag.Diagnostic {
	d := &diag.Diagnostic{Pos: diag.Pos{Path: path}, Code: w.Code}
	var ye *yamlerr.Error
	if errors.As(err, &ye) {
		d.Line, d.Col = ye.Line+w.LineOffset, ye.Col
		d.Message, d.Hint = w.Refused+ye.Msg, diag.Fix(ye.Hint)
		return d
	}
	line, msg := yamlerr.Locate(err, src)
	d.Message, d.Hint = w.Syntax+msg, w.Hint
	if !w.Block.IsZero() && yamlerr.IsParserProblem(msg) {
		d.Hint = w.Block
	}
	if line > 0 {
		d.Line = line + w.LineOffset
		if w.LineStart {
			d.Col = 1
		}
	}
	return d
}
