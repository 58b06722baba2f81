package lint

// InstructionMatch is one instruction-like stretch of a line.
type InstructionMatch struct {
	// Name is what the text does, as a finding words it, e.g. "tells the
	// assistant which value is current".
	Name string
	// Text is the matched text; Col its 1-based column in code points.
	Text string
	Col  int
}

// MatchInstructions runs the instruction_text detector along one line of
// text and returns every match, left to right: after each match the rest
// of the line is searched again, so a line that addresses the assistant
// and then tells it which value is current gives both. Other checkers
// (ka2 grade) use it so that what counts as an instruction-like line is
// decided in one place.
func MatchInstructions(line string) []InstructionMatch {
	var out []InstructionMatch
	col := 0
	for line != "" {
		p, text, c := matchInstruction(line)
		if p == nil {
			break
		}
		out = append(out, InstructionMatch{Name: p.Name, Text: text, Col: col + c})
		// Continue after the match, counting columns in code points.
		cut := indexAfter(line, c, text)
		col += len([]rune(line[:cut]))
		line = line[cut:]
	}
	return out
}

// indexAfter is the byte offset just after text, which starts at the
// 1-based code-point column col of line.
func indexAfter(line string, col int, text string) int {
	n := 0
	for i := range line {
		n++
		if n == col {
			return i + len(text)
		}
	}
	return len(line)
}
