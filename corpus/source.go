package corpus

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/strict"
	"github.com/ka2/ka2/internal/textsafe"
)

// Source is one parsed policy file.
type Source struct {
	ID         string   // source_id: lowercase letters, digits, '.', '_', '-'
	Version    string   // the author's version label, e.g. "v2"
	Subjects   []string // what questions the source answers, e.g. "lodging"
	ValidFrom  Date     // first day the source applies
	ValidUntil Date     // first day it no longer applies; zero means open-ended
	Supersedes []string // source_ids this source replaces
	Lang       string   // language tag, e.g. "en"; empty applies to every language
	Unit       string   // unit of the amounts in the body, e.g. "CNY per room-night"
	Cite       []Range  // author-declared short representation
	Role       string   // RoleSupplement, or "" for a primary source

	// body is the body's lines, exactly as written, joined by "\n": one
	// string, of which every line and quote is a piece (of the file's own
	// bytes when it has no CRLF). ends[i] is where line i+1 ends in body.
	// One string and one array per source, not a string per line, are
	// fewer objects to hold and for the collector to mark; the ends are
	// 32-bit since a file is at most inputfile.MaxSize (4 MiB) bytes.
	body string
	ends []uint32
	// heldStrings holds a one-item Subjects and Supersedes (see held).
	heldStrings [2][1]string

	Path string // slash-separated path relative to the corpus root

	// Every field from here on holds no pointer: the collector scans a
	// Source only up to its last pointer, Path.

	BodyLine int // file line number of body line 1
	// Digest is the SHA-256 of the file's bytes. Raw, in the Source,
	// rather than a hex string: 64 bytes and an object fewer a source.
	Digest [sha256.Size]byte

	// Positions of front matter keys, for tools that point at them (the
	// linter).
	Keys KeyPositions

	HasBOM  bool // the file started with a UTF-8 byte order mark
	HasCRLF bool // some line ended with CRLF

	// heldCite and heldEnds hold Cite and ends when they fit (see held).
	heldCite [2]Range
	heldEnds [heldLines]uint32
}

// A parsed source keeps its short lists in the Source itself, each a
// slice of the Source's own storage, instead of one small object each:
// a usual source has one subject, replaces at most one source, cites a
// range or two and has a few dozen lines, and the collector marks every
// object of a loaded corpus in every collection. Measured on 100k
// generated sources (15 lines, one subject, one replaced source, one cite
// range), 2026-12-02, against the lists as objects of their own: the
// loaded corpus holds 307k objects instead of 706k, for 206.7 MB of live
// heap instead of 205.1 MB (a Source of 480 bytes instead of 352 and four
// small arrays); with the index's change below, a collection of the
// loaded corpus and index costs 0.81× the instructions and 0.87× the L1
// read misses (valgrind --tool=cachegrind, 10k sources, a 2 MiB last
// level; see selector's timeline).
//
// heldLines is as many line ends as fill the Source's allocation (the
// 480-byte size class) with the fields above: a longer body's ends are an
// array of their own.
const heldLines = 16

// held returns buf[:0], with its length as capacity, for a list to be
// appended to: appends stay in buf while they fit, and move to an array
// of their own past it. The list is final once clipped (see clip).
func held[T any](buf []T) []T { return buf[:0:len(buf)] }

// clip returns l with its length as capacity, so that an append to a
// Source's list never writes into the Source, or nil when l is empty, as
// without held storage.
func clip[T any](l []T) []T {
	if len(l) == 0 {
		return nil
	}
	return slices.Clip(l)
}

// Pos is a 1-based line and column in a file.
type Pos struct {
	Line, Col int
}

// Validity is the source's interval [ValidFrom, ValidUntil).
func (s *Source) Validity() Span { return Span{From: s.ValidFrom, Until: s.ValidUntil} }

// AppliesOn reports whether d lies in [ValidFrom, ValidUntil).
func (s *Source) AppliesOn(d Date) bool { return s.Validity().Contains(d) }

// HasSubject reports whether subject is one of the source's subjects.
func (s *Source) HasSubject(subject string) bool {
	for _, x := range s.Subjects {
		if x == subject {
			return true
		}
	}
	return false
}

// Body returns the whole body range, or the zero Range for an empty body.
func (s *Source) Body() Range {
	if len(s.ends) == 0 {
		return Range{}
	}
	return Range{Start: 1, End: len(s.ends)}
}

// NumLines returns the number of body lines.
func (s *Source) NumLines() int { return len(s.ends) }

// Line returns body line n (from 1, as in a Range), exactly as written,
// without its terminator. It panics unless 1 ≤ n ≤ NumLines.
func (s *Source) Line(n int) string { return s.body[s.lineStart(n):s.ends[n-1]] }

// Lines yields each body line with its number, from 1.
func (s *Source) Lines() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		start := uint32(0)
		for i, end := range s.ends {
			if !yield(i+1, s.body[start:end]) {
				return
			}
			start = end + 1
		}
	}
}

// Text returns the whole body: its lines joined by "\n", as Quote(Body())
// does for a body that is not empty.
func (s *Source) Text() string { return s.body }

// SetLines sets the body to lines, for a Source built rather than parsed;
// a line holding "\n" counts as the lines it separates.
func (s *Source) SetLines(lines ...string) {
	if len(lines) == 0 {
		s.body, s.ends = "", nil
		return
	}
	s.setBody(strings.Join(lines, "\n"))
}

// setBody sets the body to text, lines joined by "\n" (at least one line).
// A parsed body is at most inputfile.MaxSize bytes; a built one (SetLines)
// of 4 GiB or more would not fit the 32-bit line ends.
func (s *Source) setBody(text string) {
	if uint64(len(text)) > math.MaxUint32 {
		panic("corpus: a body of 4 GiB or more")
	}
	s.body = text
	if n := strings.Count(text, "\n") + 1; n <= len(s.heldEnds) {
		s.ends = s.heldEnds[:0:n]
	} else {
		s.ends = make([]uint32, 0, n)
	}
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		s.ends = append(s.ends, uint32(i+j))
		i += j + 1
	}
	s.ends = append(s.ends, uint32(len(text)))
}

// lineStart is where body line n starts in s.body.
func (s *Source) lineStart(n int) uint32 {
	if n == 1 {
		return 0
	}
	return s.ends[n-2] + 1
}

// Quote returns the lines of r joined by "\n", exactly as in the file: a
// piece of the body, not a copy.
func (s *Source) Quote(r Range) (string, error) {
	n := len(s.ends)
	if n == 0 {
		return "", &diag.Diagnostic{Pos: diag.Pos{Path: s.Path}, Code: CodeRangeOutsideBody, Message: fmt.Sprintf("source %s has an empty body, so there are no lines to quote", s.ID), Hint: diag.Fix("add the policy text below the closing '---'")}
	}
	if r.Start < 1 || r.End > n || r.Start > r.End {
		return "", &diag.Diagnostic{Pos: diag.Pos{Path: s.Path}, Code: CodeRangeOutsideBody, Message: fmt.Sprintf("lines %s are outside the body of %s, which has %s", r, s.ID, countLines(n)), Hint: diag.Fix(fmt.Sprintf("cite lines between 1 and %d", n))}
	}
	return s.body[s.lineStart(r.Start):s.ends[r.End-1]], nil
}

// Known front matter keys, in the order docs/corpus.md documents them.
var knownKeys = knownKeyArray[:]

var knownKeyArray = [...]string{"source_id", "version", "subjects", "subject", "valid_from", "valid_until", "supersedes", "lang", "unit", "cite", "role"}

// KeyPositions holds where each known front matter key (see KnownKeys) is
// written in a source's file, in the order of KnownKeys, as a line and a
// column; zero means the key is not set. It is an array, not a map, since
// every source has one: a map of the few keys cost about half a kilobyte
// per source. Its numbers are 32-bit (a file is at most 4 MiB), 88 bytes
// a source instead of 176.
type KeyPositions [len(knownKeyArray)][2]int32

// keyIndex is the index of key in knownKeys, or -1.
func keyIndex(key string) int {
	for i, k := range knownKeyArray {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the position of key, and whether it is set.
func (k *KeyPositions) Get(key string) (Pos, bool) {
	i := keyIndex(key)
	if i < 0 || k[i] == ([2]int32{}) {
		return Pos{}, false
	}
	return Pos{Line: int(k[i][0]), Col: int(k[i][1])}, true
}

// Set records the position of key, which must be one of KnownKeys and at
// line 1 or after (and within a 32-bit line and column); it reports
// false, and records nothing, otherwise.
func (k *KeyPositions) Set(key string, p Pos) bool {
	i := keyIndex(key)
	if i < 0 || p.Line < 1 || p.Line > math.MaxInt32 || p.Col < 0 || p.Col > math.MaxInt32 {
		return false
	}
	k[i] = [2]int32{int32(p.Line), int32(p.Col)}
	return true
}

// KnownKeys lists the front matter keys a policy file may use.
func KnownKeys() []string { return append([]string(nil), knownKeys...) }

var langPattern = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// firstOtherBreak finds the first character YAML takes for a line break
// but ka2 does not (CR on its own, NEL, LS, PS), as a 1-based line and
// column of text.
func firstOtherBreak(text string) (line, col int, r rune, ok bool) {
	line, col = 1, 1
	for _, r := range text {
		switch r {
		case '\n':
			line, col = line+1, 1
			continue
		case '\r', 0x85, 0x2028, 0x2029:
			return line, col, r, true
		}
		col++
	}
	return 0, 0, 0, false
}

// firstControl finds the first character the YAML reader refuses (yaml.v3's
// readerc.go reports it without a position), as a 1-based line and column
// of text.
func firstControl(text string) (line, col int, ok bool) {
	line, col = 1, 1
	for _, r := range text {
		switch {
		case r == '\n':
			line, col = line+1, 1
			continue
		case r == '\t', r == '\r', r == 0x85,
			0x20 <= r && r <= 0x7E, 0xA0 <= r && r <= 0xD7FF,
			0xE000 <= r && r <= 0xFFFD, 0x10000 <= r && r <= 0x10FFFF:
		default:
			return line, col, true
		}
		col++
	}
	return 0, 0, false
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads one policy file. path is used in errors and kept in the
// Source; it should be slash-separated and relative to the corpus root. On
// failure the error is an diag.List with every problem found in the file.
func Parse(path string, data []byte) (*Source, error) {
	return parse(path, data, false)
}

// parse is Parse; with owned, data belongs to the parser from now on and
// is never changed, so the Source's strings can share its bytes instead
// of a copy.
func parse(path string, data []byte, owned bool) (*Source, error) {
	p := parser{src: &Source{Path: path}, owned: owned}
	p.src.Digest = sha256.Sum256(data)
	p.parse(data)
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return p.src, nil
}

type parser struct {
	src   *Source
	owned bool // the bytes parsed are the parser's (see parse)
	errs  diag.List
}

func (p *parser) errorf(line, col int, code diag.Code, hint, format string, args ...any) {
	p.errs = append(p.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p.src.Path, Line: line, Col: col}, Code: code, Message: fmt.Sprintf(format, args...), Hint: diag.Fix(hint)})
}

func (p *parser) parse(data []byte) {
	if bytes.HasPrefix(data, utf8BOM) {
		data = data[len(utf8BOM):]
		p.src.HasBOM = true
	}
	if !utf8.Valid(data) {
		line, col := firstInvalidUTF8(data)
		p.errorf(line, col, CodeInvalidUTF8, "save the file as UTF-8", "invalid UTF-8")
		return
	}
	text := ""
	if p.owned && len(data) > 0 {
		// The file's bytes, not a copy of them: the body and the front
		// matter's values are pieces of them. Measured with `ka2perf
		// load` on 100,000 generated sources, 8 runs interleaved with a
		// build that copies (string(data)), 2026-12-02: load + index
		// median 9.4 s against 11.3 s (0.83×; single runs spread over
		// 5–14 s on the shared cores), 365 MB of RSS against 399 MB, user
		// CPU 2.4 s against 2.6 s.
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	// A CR before an LF is part of the line's terminator; any other CR
	// is text.
	p.src.HasCRLF = strings.Contains(text, "\r\n")
	first, rest, ok := cutLine(text)
	if !ok || !isDelimiter(first) {
		p.errorf(1, 1, CodeNoFrontMatter, "start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in "+IgnoreFile,
			"missing front matter")
		return
	}
	fmStart, fmEnd := len(text)-len(rest), -1 // the front matter's lines in text
	end := 0                                  // the closing '---' is line end+1
	for rest != "" {
		at := len(text) - len(rest)
		end++
		var l string
		if l, rest, _ = cutLine(rest); isDelimiter(l) {
			fmEnd = at
			break
		}
	}
	if fmEnd < 0 {
		p.errorf(1, 1, CodeNoFrontMatter, "close the front matter with a line '---' before the body",
			"front matter is never closed")
		return
	}
	p.src.BodyLine = end + 2
	if rest != "" {
		p.src.setBody(joinLines(rest))
	}
	p.frontMatter(joinLines(text[fmStart:fmEnd]))
	p.frontMatterInBody(end)
	// A source is there to be quoted: without text, every question on its
	// subject would select it and have nothing to quote.
	if strings.TrimSpace(p.src.body) == "" {
		p.errorf(p.src.BodyLine, 1, CodeEmptyBody, "write the policy text below the closing '---'",
			"the body is empty; it must hold the policy text")
	}
}

// frontMatterInBody reports a body that starts with what belongs to the
// front matter: a '---' in the middle of the front matter ends it, and
// the keys after it would be quoted as policy text while the source lost
// them (open-ended, without a unit). It reports a '---' as the first line
// with text, and a front matter key ("valid_until:") before any policy
// text, past blank lines and '#' lines (YAML comments such as a ka2lint
// directive, or a Markdown heading). Only the keys ka2 knows count,
// written as YAML writes them, so "Scope: lodging on business trips."
// stays policy text. end is the index of the closing '---' among the
// file's lines (from 0).
func (p *parser) frontMatterInBody(end int) {
	blank := true // only blank lines so far
	for n, l := range p.src.Lines() {
		line := end + n + 1 // in the file
		switch {
		case strings.TrimSpace(l) == "":
			continue
		case blank && isDelimiter(l):
			p.errorf(line, 1, CodeFrontMatterInBody,
				fmt.Sprintf("keep one '---' between the keys and the policy text: remove this one, or the one on line %d", end+1),
				"a second '---' starts the body: the front matter ended on line %d", end+1)
			return
		case strings.HasPrefix(l, "#"):
			blank = false
			continue
		}
		if key := bodyKey(l); key != "" {
			p.errorf(line, 1, CodeFrontMatterInBody,
				fmt.Sprintf("if the key belongs to the front matter, move it above the '---' on line %d; policy text must not start with a front matter key", end+1),
				"front matter key %s is in the body: the '---' on line %d ended the front matter", key, end+1)
		}
		return
	}
}

// bodyKey returns the known front matter key line starts with, as
// "key:" followed by a blank or the end of the line, or "".
func bodyKey(line string) string {
	k, rest, ok := strings.Cut(line, ":")
	if !ok || keyIndex(k) < 0 || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return ""
	}
	return k
}

// EmptyBody reports whether a body's lines hold no text: every line is
// empty or blanks only. A source with such a body does not load
// (CodeEmptyBody).
func EmptyBody(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// cutLine returns the first line of s without its terminator, and the
// text after it; ok is false when s holds no line (it is empty). LF and
// CRLF are terminators, and a final one does not start another line. A
// CR that is not followed by LF (a stray one, or one at the very end of
// the file) is not a terminator: it stays part of the line's text.
func cutLine(s string) (line, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, "", true
	}
	return strings.TrimSuffix(s[:i], "\r"), s[i+1:], true
}

// joinLines returns the lines of s, whole lines as cutLine reads them,
// joined by "\n". Without CRLF, that is a piece of s and costs no copy.
func joinLines(s string) string {
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return strings.TrimSuffix(s, "\n")
}

// isDelimiter reports whether line is a front matter delimiter "---",
// allowing trailing blanks.
func isDelimiter(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

func firstInvalidUTF8(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return line, col
}

// frontMatter decodes the YAML between the '---' lines. The document starts
// on file line 2, so a YAML line n is file line n+1.
func (p *parser) frontMatter(text string) {
	// YAML also breaks lines at a lone CR, NEL, LS and PS; ka2 does not, so
	// with one of those every position after it would be wrong. Refuse them.
	if l, c, r, ok := firstOtherBreak(text); ok {
		p.errorf(l+1, c, CodeBadFrontMatter, "end each line with LF or CRLF, and remove other line-break characters",
			"front matter has a line break ka2 does not count (%U)", r)
		return
	}
	var doc yaml.Node
	release, err := decodeFrontMatter(text, &doc)
	defer release()
	if err != nil {
		d := frontMatterYAML.Problem(p.src.Path, []byte(text), err)
		if d.Line == 0 { // yaml.v3 names no line
			d.Line, d.Col = 1, 1
			if l, c, ok := firstControl(text); ok && d.Message == frontMatterYAML.Syntax+"control characters are not allowed" {
				d.Line, d.Col = l+1, c
			}
		}
		p.errs = append(p.errs, d)
		return
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.errorf(1, 1, CodeMissingKey, "add source_id, version, subjects and valid_from", "front matter is empty")
		return
	}
	d := strict.Decoder{Path: p.src.Path, LineOffset: 1, Words: frontMatterWords}
	f := d.Mapping(doc.Content[0], frontMatterMap)
	p.errs = append(p.errs, d.Diags...)
	if f == nil {
		return
	}
	for _, e := range f.All() {
		p.src.Keys.Set(e.Name, Pos{Line: e.Key.Line + 1, Col: e.Key.Column})
	}
	p.fields(f)
}

// frontMatterYAML words front matter that is not one YAML document. The
// document starts on file line 2.
var frontMatterYAML = strict.YAMLWords{Code: CodeBadFrontMatter, LineOffset: 1, Refused: "front matter: ",
	Syntax: "front matter is not valid YAML: ", Hint: diag.Fix("fix the YAML syntax"), LineStart: true}

// frontMatterMap declares the front matter keys. Which of them are
// required depends on one another (subject or subjects), so the parser
// checks that itself.
var frontMatterMap = func() *strict.Map {
	m := &strict.Map{What: "front matter"}
	for _, k := range knownKeys {
		m.Keys = append(m.Keys, strict.Key{Name: k})
	}
	return m
}()

// frontMatterWords words the structural problems of front matter.
func frontMatterWords(is strict.Issue, d *diag.Diagnostic) {
	switch is.Problem {
	case strict.NotMapping:
		d.Code, d.Message, d.Hint = CodeBadFrontMatter, "front matter is not a mapping of keys to values", diag.Fix("write the front matter as 'key: value' lines")
	case strict.KeyNotScalar:
		d.Code, d.Message, d.Hint = CodeBadFrontMatter, "a front matter key is not a plain word", diag.Fix("write the front matter as 'key: value' lines")
	case strict.UnknownKey:
		d.Code, d.Message = CodeUnknownKey, fmt.Sprintf("unknown key %q", is.Key)
		d.Hint = is.DidYouMean("did you mean %s?", diag.Fix("known keys are "+strings.Join(knownKeys, ", ")))
	case strict.DuplicateKey:
		d.Code, d.Message, d.Hint = CodeDuplicateKey, fmt.Sprintf("key %s is already set on line %d", is.Key, is.First.Line+1), diag.Fix("keep one of them")
	}
}

func (p *parser) fields(v *strict.Fields) {
	s := p.src
	s.ID = p.scalar(v, "source_id", true)
	if s.ID != "" && !ValidSourceID(s.ID) {
		n := v.Value("source_id")
		p.errorf(n.Line+1, n.Column, CodeBadValue, "use only lowercase letters, digits, '.', '_' and '-'", "source_id %q is not valid", s.ID)
	}
	s.Version = p.scalar(v, "version", true)
	switch {
	case v.Value("subjects") != nil && v.Value("subject") != nil:
		n := v.Value("subject")
		p.errorf(n.Line+1, n.Column, CodeDuplicateKey, "keep only subjects", "both subject and subjects are set")
	case v.Value("subject") != nil:
		if x := p.scalar(v, "subject", true); x != "" {
			s.Subjects = clip(append(held(s.heldStrings[0][:]), x))
			p.subjects("subject", []*yaml.Node{v.Value("subject")})
		}
	default:
		var nodes []*yaml.Node
		s.Subjects, nodes = p.list(v, "subjects", true, held(s.heldStrings[0][:]))
		p.subjects("subjects", nodes)
	}
	s.ValidFrom = p.date(v, "valid_from", true)
	s.ValidUntil = p.date(v, "valid_until", false)
	if !s.ValidFrom.IsZero() && !s.ValidUntil.IsZero() && !s.ValidFrom.Before(s.ValidUntil) {
		n := v.Value("valid_until")
		p.errorf(n.Line+1, n.Column, CodeEmptyInterval,
			"valid_until is exclusive: set it after valid_from, or remove it for an open-ended source",
			"valid_until %s is not after valid_from %s", s.ValidUntil, s.ValidFrom)
	}
	var nodes []*yaml.Node
	s.Supersedes, nodes = p.list(v, "supersedes", false, held(s.heldStrings[1][:]))
	for i, id := range s.Supersedes {
		if !ValidSourceID(id) {
			n := nodes[i]
			p.errorf(n.Line+1, n.Column, CodeBadValue, "name the source_id of the replaced source", "supersedes %q is not a valid source_id", id)
		}
	}
	s.Lang = p.scalar(v, "lang", false)
	if s.Lang != "" && !langPattern.MatchString(s.Lang) {
		n := v.Value("lang")
		hint := diag.Fix("use a language tag such as en or zh")
		if fixed := fixLang(s.Lang); fixed != "" {
			hint = diag.Hint{Kind: diag.HintDidYouMean, Text: "write it as " + fixed, Suggestion: fixed}
		}
		p.errs = append(p.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p.src.Path, Line: n.Line + 1, Col: n.Column}, Code: CodeBadValue,
			Message: fmt.Sprintf("lang %q is not a language tag", s.Lang), Hint: hint})
	}
	s.Unit = p.scalar(v, "unit", false)
	p.cite(v.Value("cite"))
	s.Role = p.role(v)
}

// subjects checks each subject, as written, against ValidSubject.
func (p *parser) subjects(key string, nodes []*yaml.Node) {
	for _, n := range nodes {
		if ValidSubject(n.Value) {
			continue
		}
		hint := diag.Fix("use only lowercase letters, digits, '.', '_' and '-', and '/' between the parts of a subject such as travel/lodging")
		switch fixed := FixSubject(n.Value); {
		case strings.Contains(n.Value, ","):
			hint = diag.Fix("write several subjects as a list: subjects: [" + strings.Join(splitSubjects(n.Value), ", ") + "]")
		case fixed != "":
			// A suggestion an editor can apply as it is (a quick fix).
			hint = diag.Hint{Kind: diag.HintDidYouMean, Text: "write it as " + fixed, Suggestion: fixed}
		case slices.ContainsFunc(strings.Split(n.Value, SubjectSep), func(seg string) bool { return seg == "." || seg == ".." }):
			hint = diag.Fix("remove the '.' and '..' parts: a subject is a name, compared whole, not a path")
		}
		p.errs = append(p.errs, &diag.Diagnostic{Pos: diag.Pos{Path: p.src.Path, Line: n.Line + 1, Col: n.Column}, Code: CodeBadValue,
			Message: fmt.Sprintf("%s %q is not a valid subject", key, n.Value), Hint: hint})
	}
}

// fixLang returns the language tag lang most likely means, its first
// part lowercased and '_' written '-' (EN, en_GB), or "" when that is not
// a tag either.
func fixLang(lang string) string {
	primary, rest, _ := strings.Cut(strings.ReplaceAll(strings.TrimSpace(lang), "_", "-"), "-")
	fixed := strings.ToLower(primary)
	if rest != "" {
		fixed += "-" + rest
	}
	if fixed == lang || !langPattern.MatchString(fixed) {
		return ""
	}
	return fixed
}

// splitSubjects splits "Lodging, rail" into lowercase, trimmed items.
func splitSubjects(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.ToLower(strings.TrimSpace(x)); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// unsafeValue reports a value with a character textsafe refuses: such a
// value could forge a line of a text report or send an escape sequence to
// a terminal.
func (p *parser) unsafeValue(n *yaml.Node, key string) bool {
	i, r := textsafe.FirstUnsafe(n.Value)
	if i < 0 {
		return false
	}
	p.errorf(n.Line+1, n.Column, CodeBadValue, "remove it: values are one line of printable text",
		"%s %q has a control or direction-changing character (%U)", key, n.Value, r)
	return true
}

// node returns the value of key, reporting a missing required key. A key
// written without a value (or with null) is an error whether or not it is
// required: left out, valid_until means open-ended and lang every
// language, which is not what "valid_until:" with the date still to be
// filled in says.
func (p *parser) node(v *strict.Fields, key string, required bool) *yaml.Node {
	n := v.Value(key)
	if n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		p.emptyValue(n, key, required)
		return nil
	}
	if n == nil && required {
		p.errorf(1, 1, CodeMissingKey, "add '"+key+": …' to the front matter", "missing required key %s", key)
	}
	return n
}

func (p *parser) scalar(v *strict.Fields, key string, required bool) string {
	n := p.node(v, key, required)
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(n.Line+1, n.Column, CodeBadValue, "write a single value", "%s must be a single value", key)
		return ""
	}
	if p.unsafeValue(n, key) {
		return ""
	}
	val := strings.TrimSpace(n.Value)
	if val == "" {
		p.emptyValue(n, key, required)
	}
	return val
}

// emptyValue reports key written with no value at n.
func (p *parser) emptyValue(n *yaml.Node, key string, required bool) {
	hint := "give " + key + " a value"
	if !required {
		hint += ", or remove the key"
		switch key {
		case "valid_until":
			hint += " for an open-ended source"
		case "lang":
			hint += " for a source that serves every language"
		}
	}
	p.errorf(n.Line+1, n.Column, CodeMissingKey, hint, "%s is empty", key)
}

// list accepts a YAML sequence of scalars, or a single scalar as a list of one.
// It returns the items, appended to out (nil for none), and, in step with
// them, the nodes they came from.
func (p *parser) list(v *strict.Fields, key string, required bool, out []string) ([]string, []*yaml.Node) {
	n := p.node(v, key, required)
	if n == nil {
		return nil, nil
	}
	var items []*yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{n}
	case yaml.SequenceNode:
		items = n.Content
	default:
		p.errorf(n.Line+1, n.Column, CodeBadValue, "write a list such as [a, b]", "%s must be a list", key)
		return nil, nil
	}
	var nodes []*yaml.Node
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || strings.TrimSpace(it.Value) == "" {
			p.errorf(it.Line+1, it.Column, CodeBadValue, "write each item as plain text", "%s has an empty or nested item", key)
			continue
		}
		if p.unsafeValue(it, key) {
			continue
		}
		out = append(out, strings.TrimSpace(it.Value))
		nodes = append(nodes, it)
	}
	if len(out) == 0 && required && len(items) == 0 {
		p.errorf(n.Line+1, n.Column, CodeMissingKey, "list at least one", "%s is empty", key)
	}
	return clip(out), nodes
}

func (p *parser) date(v *strict.Fields, key string, required bool) Date {
	n := p.node(v, key, required)
	if n == nil {
		return Date{}
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(n.Line+1, n.Column, CodeBadDate, "write YYYY-MM-DD", "%s must be a date", key)
		return Date{}
	}
	d, err := ParseDate(n.Value)
	if err != nil {
		hint := "write YYYY-MM-DD, e.g. 2026-01-01"
		if errors.Is(err, ErrNotCivilDate) {
			hint = "ka2 compares civil dates: drop the time and zone, e.g. " + n.Value[:10]
		}
		p.errorf(n.Line+1, n.Column, CodeBadDate, hint, "%s %q is not a calendar date", key, n.Value)
	}
	return d
}

func (p *parser) cite(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		p.emptyValue(n, "cite", false)
		return
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var seen []*yaml.Node // the accepted items, in step with p.src.Cite
	p.src.Cite = held(p.src.heldCite[:])
	defer func() { p.src.Cite = clip(p.src.Cite) }()
	for _, it := range items {
		r, err := ParseRange(strings.TrimSpace(it.Value))
		if it.Kind != yaml.ScalarNode || err != nil {
			p.errorf(it.Line+1, it.Column, CodeBadValue, "write each range as \"N-M\" with 1 ≤ N ≤ M", "cite %q is not a line range", it.Value)
			continue
		}
		if body := p.src.NumLines(); r.End > body {
			hint := fmt.Sprintf("cite lines between 1 and %d", body)
			if body == 0 {
				hint = "the body is empty: write the text below the closing '---', or remove cite"
			}
			p.errorf(it.Line+1, it.Column, CodeCiteOutsideBody, hint,
				"cite %s is outside the body, which has %s", r, countLines(body))
			continue
		}
		// Each range is one evidence record of the short form: a line in
		// two ranges would be quoted twice, which verify refuses.
		if i := slices.IndexFunc(p.src.Cite, r.overlaps); i >= 0 {
			prev := p.src.Cite[i]
			what := "overlaps"
			if prev == r {
				what = "repeats"
			}
			p.errorf(it.Line+1, it.Column, CodeBadValue, "list each body line in one cite range only: merge or remove the ranges",
				"cite %s %s %s at line %d, column %d", r, what, prev, seen[i].Line+1, seen[i].Column)
			continue
		}
		p.src.Cite = append(p.src.Cite, r)
		seen = append(seen, it)
	}
}

// countLines says "1 line" or "N lines".
func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}
