package corpus_test

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
)

// doc returns a policy file: the front matter lines between '---' lines,
// then the body. Front matter line i (0-based) is file line i+2.
func doc(frontMatter []string, body string) string {
	return "---\n" + strings.Join(frontMatter, "\n") + "\n---\n" + body
}

// hotel is valid front matter on file lines 2 to 5; tests append to it or
// replace a line of it.
var hotel = []string{
	"source_id: hotel-v1",
	"version: v1",
	"subjects: [lodging]",
	"valid_from: 2026-01-01",
}

// hotelWith returns hotel with extra lines after it (from file line 6).
func hotelWith(extra ...string) []string {
	return append(append([]string(nil), hotel...), extra...)
}

// hotelReplacing returns hotel with line i (0-based; file line i+2) replaced.
func hotelReplacing(i int, line string) []string {
	fm := append([]string(nil), hotel...)
	fm[i] = line
	return fm
}

const threeLines = "Rooms are booked through the travel desk.\nThe limit is 520 CNY per room-night.\nBreakfast is included in the limit.\n"

func sha(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  *corpus.Source
		lines []string // the body, unless want has it
	}{
		{
			name: "every key",
			in: doc([]string{
				"source_id: meals-v2",
				`version: "2"`,
				"subjects: [meals, per-diem]",
				"valid_from: 2026-03-01",
				"valid_until: 2027-03-01",
				"supersedes: [meals-v1, meals-draft]",
				"lang: zh",
				"unit: 元/天",
				`cite: ["1-2", "4"]`,
			}, "适用范围：国内出差的餐费补贴。\n每日餐费补贴为 150 元。\n无需提供票据。\n招待客户的餐费另行报销。\n"),
			want: &corpus.Source{
				ID: "meals-v2", Version: "2", Subjects: []string{"meals", "per-diem"},
				ValidFrom: corpus.MustDate(2026, 3, 1), ValidUntil: corpus.MustDate(2027, 3, 1),
				Supersedes: []string{"meals-v1", "meals-draft"}, Lang: "zh", Unit: "元/天",
				Cite:     []corpus.Range{{Start: 1, End: 2}, {Start: 4, End: 4}},
				BodyLine: 12,
				Keys: keys(map[string]corpus.Pos{
					"source_id": {Line: 2, Col: 1}, "version": {Line: 3, Col: 1}, "subjects": {Line: 4, Col: 1},
					"valid_from": {Line: 5, Col: 1}, "valid_until": {Line: 6, Col: 1}, "supersedes": {Line: 7, Col: 1},
					"lang": {Line: 8, Col: 1}, "unit": {Line: 9, Col: 1}, "cite": {Line: 10, Col: 1},
				}),
			},
			lines: []string{"适用范围：国内出差的餐费补贴。", "每日餐费补贴为 150 元。", "无需提供票据。", "招待客户的餐费另行报销。"},
		},
		{
			name: "single subject and single-value lists",
			in: doc([]string{
				"source_id: parking-v1",
				"version: v1",
				"subject: parking",
				"valid_from: 2025-05-01",
				"supersedes: parking-v0",
				"cite: 2",
			}, "Park in the visitor area only.\nFees are refunded with a receipt.\n"),
			want: &corpus.Source{
				ID: "parking-v1", Version: "v1", Subjects: []string{"parking"},
				ValidFrom: corpus.MustDate(2025, 5, 1), Supersedes: []string{"parking-v0"},
				Cite:     []corpus.Range{{Start: 2, End: 2}},
				BodyLine: 9,
				Keys: keys(map[string]corpus.Pos{
					"source_id": {Line: 2, Col: 1}, "version": {Line: 3, Col: 1}, "subject": {Line: 4, Col: 1},
					"valid_from": {Line: 5, Col: 1}, "supersedes": {Line: 6, Col: 1}, "cite": {Line: 7, Col: 1},
				}),
			},
			lines: []string{"Park in the visitor area only.", "Fees are refunded with a receipt."},
		},
		{
			name: "comments and a block list",
			in: doc([]string{
				"# taxi rules, kept short",
				"source_id: taxi-v1   # the first version",
				"version: 2.10",
				"subjects:",
				"  - taxi",
				`  - "airport-transfer"`,
				"valid_from: '2026-01-01'",
				"lang: en",
			}, "Take a licensed taxi and keep the printed receipt.\n"),
			want: &corpus.Source{
				ID: "taxi-v1", Version: "2.10", Subjects: []string{"taxi", "airport-transfer"},
				ValidFrom: corpus.MustDate(2026, 1, 1), Lang: "en",
				BodyLine: 11,
				Keys: keys(map[string]corpus.Pos{
					"source_id": {Line: 3, Col: 1}, "version": {Line: 4, Col: 1}, "subjects": {Line: 5, Col: 1},
					"valid_from": {Line: 8, Col: 1}, "lang": {Line: 9, Col: 1},
				}),
			},
			lines: []string{"Take a licensed taxi and keep the printed receipt."},
		},
		{
			name: "blank, indented and trailing-space lines are kept exactly",
			in:   doc(hotel, "\n  indented\ttext\nends with spaces  \n\n"),
			want: hotelSource(7, []string{"", "  indented\ttext", "ends with spaces  ", ""}),
		},
		{
			name: "a dash line in the body is body text",
			in:   doc(hotel, "Before the rule.\n\n---\nafter the rule\n"),
			want: hotelSource(7, []string{"Before the rule.", "", "---", "after the rule"}),
		},
		{
			name: "a setext heading is body text",
			in:   doc(hotel, "Scope: lodging on business trips.\n---\nunit: is a word here, below the text\n"),
			want: hotelSource(7, []string{"Scope: lodging on business trips.", "---", "unit: is a word here, below the text"}),
		},
		{
			name: "policy prose like a key is body text",
			in:   doc(hotel, "Scope: lodging on business trips.\nLang: the rule is the same in every language.\n"),
			want: hotelSource(7, []string{"Scope: lodging on business trips.", "Lang: the rule is the same in every language."}),
		},
		{
			name: "a known key inside a word, or without a colon, is body text",
			in:   doc(hotel, "units: rooms are counted per night.\nunit CNY\n"),
			want: hotelSource(7, []string{"units: rooms are counted per night.", "unit CNY"}),
		},
		{
			name: "a heading, then text",
			in:   doc(hotel, "# Lodging\n\nThe limit is 520 CNY.\n"),
			want: hotelSource(7, []string{"# Lodging", "", "The limit is 520 CNY."}),
		},
		{
			name: "delimiters may have trailing blanks",
			in:   "--- \n" + strings.Join(hotel, "\n") + "\n---\t\nbody\n",
			want: hotelSource(7, []string{"body"}),
		},
		{
			name: "a stray carriage return is text, not a terminator",
			in:   doc(hotel, "a\rb\nends with CR\r"),
			want: hotelSource(7, []string{"a\rb", "ends with CR\r"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.Parse("policies/p.md", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse() error: %v", err)
			}
			tt.want.Path = "policies/p.md"
			tt.want.Digest = sha(tt.in)
			if tt.lines != nil {
				tt.want.SetLines(tt.lines...)
			}
			if diff := cmp.Diff(tt.want, got, dateCmp, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// hotelSource is what Parse gives for the hotel front matter.
func hotelSource(bodyLine int, lines []string) *corpus.Source {
	s := &corpus.Source{
		ID: "hotel-v1", Version: "v1", Subjects: []string{"lodging"}, ValidFrom: corpus.MustDate(2026, 1, 1),
		BodyLine: bodyLine,
		Keys: keys(map[string]corpus.Pos{
			"source_id": {Line: 2, Col: 1}, "version": {Line: 3, Col: 1}, "subjects": {Line: 4, Col: 1}, "valid_from": {Line: 5, Col: 1},
		}),
	}
	s.SetLines(lines...)
	return s
}

func TestParseLineEndings(t *testing.T) {
	lf := doc(hotel, "Rooms are booked through the travel desk.\n\nThe limit is 520 CNY.\n")
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	bom := "\ufeff"
	tests := []struct {
		name     string
		in       string
		wantBOM  bool
		wantCRLF bool
	}{
		{name: "LF", in: lf},
		{name: "LF without a final newline", in: strings.TrimSuffix(lf, "\n")},
		{name: "CRLF", in: crlf, wantCRLF: true},
		{name: "CRLF without a final newline", in: strings.TrimSuffix(crlf, "\r\n"), wantCRLF: true},
		{name: "BOM and LF", in: bom + lf, wantBOM: true},
		{name: "BOM and CRLF", in: bom + crlf, wantBOM: true, wantCRLF: true},
		{name: "mixed LF and CRLF", in: strings.Replace(lf, "\n", "\r\n", 3), wantCRLF: true},
	}
	want := []string{"Rooms are booked through the travel desk.", "", "The limit is 520 CNY."}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.Parse("p.md", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse() error: %v", err)
			}
			if diff := cmp.Diff(want, bodyLines(got)); diff != "" {
				t.Errorf("Parse() Lines mismatch (-want +got):\n%s", diff)
			}
			if got.BodyLine != 7 {
				t.Errorf("Parse() BodyLine = %d, want 7", got.BodyLine)
			}
			if got.HasBOM != tt.wantBOM || got.HasCRLF != tt.wantCRLF {
				t.Errorf("Parse() HasBOM, HasCRLF = %t, %t, want %t, %t", got.HasBOM, got.HasCRLF, tt.wantBOM, tt.wantCRLF)
			}
			if got.Digest != sha(tt.in) {
				t.Errorf("Parse() Digest = %x, want the SHA-256 of the file as read, %x", got.Digest, sha(tt.in))
			}
		})
	}
}

// parseErrorTests are broken files and what Parse says about them, for
// path "policies/hotel-v1.md". They also seed FuzzParse.
var parseErrorTests = []struct {
	name string
	in   string
	want []string
}{
	// invalid_utf8
	{
		name: "invalid UTF-8 in the body",
		in:   doc(hotel, "Limit: 520\nbad \xff byte\n"),
		want: []string{"[invalid_utf8] policies/hotel-v1.md:8:5: invalid UTF-8; save the file as UTF-8"},
	},
	{
		name: "invalid UTF-8 in the front matter",
		in:   doc(hotelWith("unit: \xc3(CNY)"), threeLines),
		want: []string{"[invalid_utf8] policies/hotel-v1.md:6:7: invalid UTF-8; save the file as UTF-8"},
	},
	{
		name: "invalid UTF-8 after a BOM",
		in:   "\ufeff-\xff-\n",
		want: []string{"[invalid_utf8] policies/hotel-v1.md:1:2: invalid UTF-8; save the file as UTF-8"},
	},
	// missing_key: a key written without a value, required or not
	{
		name: "empty valid_until",
		in:   doc(hotelWith("valid_until:"), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:6:13: valid_until is empty; give valid_until a value, or remove the key for an open-ended source"},
	},
	{
		name: "null valid_until",
		in:   doc(hotelWith("valid_until: ~"), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:6:14: valid_until is empty; give valid_until a value, or remove the key for an open-ended source"},
	},
	{
		name: "empty lang",
		in:   doc(hotelWith("lang:"), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:6:6: lang is empty; give lang a value, or remove the key for a source that serves every language"},
	},
	{
		name: "quoted empty lang",
		in:   doc(hotelWith(`lang: ""`), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:6:7: lang is empty; give lang a value, or remove the key for a source that serves every language"},
	},
	{
		name: "null unit and blank role",
		in:   doc(hotelWith("unit: null", "role: '  '"), threeLines),
		want: []string{
			"[missing_key] policies/hotel-v1.md:6:7: unit is empty; give unit a value, or remove the key",
			"[missing_key] policies/hotel-v1.md:7:7: role is empty; give role a value, or remove the key",
		},
	},
	{
		name: "empty supersedes and cite",
		in:   doc(hotelWith("supersedes:", "cite:"), threeLines),
		want: []string{
			"[missing_key] policies/hotel-v1.md:6:12: supersedes is empty; give supersedes a value, or remove the key",
			"[missing_key] policies/hotel-v1.md:7:6: cite is empty; give cite a value, or remove the key",
		},
	},
	// front_matter_in_body
	{
		name: "a '---' in the middle of the front matter",
		in:   doc(hotel, "valid_until: 2027-01-01\nunit: CNY per room-night\n---\n"+threeLines),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:7:1: front matter key valid_until is in the body: the '---' on line 6 ended the front matter; if the key belongs to the front matter, move it above the '---' on line 6; policy text must not start with a front matter key"},
	},
	{
		name: "a key after a comment, past the closing '---'",
		in:   doc(hotel, "# ends with the 2027 revision\nvalid_until: 2027-01-01\n---\n"+threeLines),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:8:1: front matter key valid_until is in the body: the '---' on line 6 ended the front matter; if the key belongs to the front matter, move it above the '---' on line 6; policy text must not start with a front matter key"},
	},
	{
		name: "a key and a tab, after blank lines",
		in:   doc(hotel, "\n\nlang:\ten\n"+threeLines),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:9:1: front matter key lang is in the body: the '---' on line 6 ended the front matter; if the key belongs to the front matter, move it above the '---' on line 6; policy text must not start with a front matter key"},
	},
	{
		name: "a block list key in the body",
		in:   doc(hotel, "subjects:\n  - rail\n"+threeLines),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:7:1: front matter key subjects is in the body: the '---' on line 6 ended the front matter; if the key belongs to the front matter, move it above the '---' on line 6; policy text must not start with a front matter key"},
	},
	{
		name: "a second '---' right after the front matter",
		in:   doc(hotel, "---\nvalid_until: 2027-01-01\n---\n"+threeLines),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:7:1: a second '---' starts the body: the front matter ended on line 6; keep one '---' between the keys and the policy text: remove this one, or the one on line 6"},
	},
	{
		name: "a second '---' after blank lines, CRLF",
		in:   strings.ReplaceAll(doc(hotel, "\n---\n"+threeLines), "\n", "\r\n"),
		want: []string{"[front_matter_in_body] policies/hotel-v1.md:8:1: a second '---' starts the body: the front matter ended on line 6; keep one '---' between the keys and the policy text: remove this one, or the one on line 6"},
	},
	// no_front_matter
	{
		name: "empty file",
		in:   "",
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore"},
	},
	{
		name: "body only",
		in:   "The lodging limit is 520 CNY.\n",
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore"},
	},
	{
		name: "blank line before the front matter",
		in:   "\n" + doc(hotel, threeLines),
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore"},
	},
	{
		name: "four dashes",
		in:   "----\n" + strings.Join(hotel, "\n") + "\n----\n",
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: missing front matter; start the file with a line '---', the keys, then another '---'; a file that is not a policy (a README) goes in .ka2ignore"},
	},
	{
		name: "front matter never closed",
		in:   "---\n" + strings.Join(hotel, "\n") + "\n" + threeLines,
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: front matter is never closed; close the front matter with a line '---' before the body"},
	},
	{
		name: "only an opening line",
		in:   "---\n",
		want: []string{"[no_front_matter] policies/hotel-v1.md:1:1: front matter is never closed; close the front matter with a line '---' before the body"},
	},
	// bad_front_matter
	{
		name: "unclosed flow list points at its line",
		in:   doc(hotelReplacing(2, "subjects: [lodging"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:4:1: front matter is not valid YAML: did not find expected ',' or ']'; fix the YAML syntax"},
	},
	{
		name: "missing colon",
		in:   doc(hotelReplacing(1, "version v1"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:3:1: front matter is not valid YAML: could not find expected ':'; fix the YAML syntax"},
	},
	{
		name: "badly indented list item",
		in:   doc(hotelWith("supersedes:", "  - hotel-v0", " - hotel-draft"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:8:1: front matter is not valid YAML: did not find expected key; fix the YAML syntax"},
	},
	{
		name: "indented key",
		in:   doc(hotelReplacing(1, "  version: v1"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:3:1: front matter is not valid YAML: mapping values are not allowed in this context; fix the YAML syntax"},
	},
	{
		name: "control character",
		in:   doc(hotelWith("unit: CNY\x01per night"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:10: front matter is not valid YAML: control characters are not allowed; fix the YAML syntax"},
	},
	{
		name: "a lone carriage return in the front matter",
		in:   doc(hotelWith("unit: CNY\rper night"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:10: front matter has a line break ka2 does not count (U+000D); end each line with LF or CRLF, and remove other line-break characters"},
	},
	{
		name: "a line separator in the front matter",
		in:   doc(hotelReplacing(1, "version: v1\u2028"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:3:12: front matter has a line break ka2 does not count (U+2028); end each line with LF or CRLF, and remove other line-break characters"},
	},
	{
		name: "a document end line would drop the keys after it",
		in:   doc(hotelWith("...", "valid_until: 2027-01-01", "lang: not a tag"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:1: front matter: a YAML document end line '...' ends the reading here, so what follows it would be ignored; remove the '...' line"},
	},
	{
		name: "a document end line with a comment, at the end",
		in:   doc(hotelWith("... # end"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:1: front matter: a YAML document end line '...' ends the reading here, so what follows it would be ignored; remove the '...' line"},
	},
	{
		name: "a second document start with content",
		in:   doc(hotelWith("--- x"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:1: front matter: a second YAML document starts here; keep one YAML document in the file: remove the '---' line, or move what follows to its own file"},
	},
	{
		name: "a str tag",
		in:   doc(hotelReplacing(1, "version: !!str 2"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:3:10: front matter: YAML tag !!str is not allowed; remove the tag and write the value as plain text"},
	},
	{
		name: "a binary tag in a list",
		in:   doc(hotelReplacing(2, "subjects: [lodging, !!binary cmFpbA==]"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:4:21: front matter: YAML tag !!binary is not allowed; remove the tag and write the value as plain text"},
	},
	{
		name: "a custom tag",
		in:   doc(hotelWith("unit: !money CNY"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:7: front matter: YAML tag !money is not allowed; remove the tag and write the value as plain text"},
	},
	{
		name: "a list instead of keys",
		in:   doc([]string{"- source_id", "- version"}, threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:2:1: front matter is not a mapping of keys to values; write the front matter as 'key: value' lines"},
	},
	{
		name: "plain text instead of keys",
		in:   doc([]string{"hotel policy, first version"}, threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:2:1: front matter is not a mapping of keys to values; write the front matter as 'key: value' lines"},
	},
	// unknown_key
	{
		name: "typo of valid_until",
		in:   doc(hotelWith("valid_untill: 2027-01-01"), threeLines),
		want: []string{`[unknown_key] policies/hotel-v1.md:6:1: unknown key "valid_untill"; did you mean valid_until?`},
	},
	{
		name: "capitalised key",
		in:   doc(hotelWith("Lang: en"), threeLines),
		want: []string{`[unknown_key] policies/hotel-v1.md:6:1: unknown key "Lang"; did you mean lang?`},
	},
	{
		name: "key unlike any known one",
		in:   doc(hotelWith("approved_by_the_finance_team: yes"), threeLines),
		want: []string{`[unknown_key] policies/hotel-v1.md:6:1: unknown key "approved_by_the_finance_team"; known keys are source_id, version, subjects, subject, valid_from, valid_until, supersedes, lang, unit, cite, role`},
	},
	{
		name: "role that is not supplement",
		in:   doc(hotelWith("role: primary"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:7: role "primary" is not a known role; write role: supplement for a source that applies together with the others of its subjects, or remove the key`},
	},
	{
		// It used to be reported as `unknown key ""`.
		name: "a key that is a list",
		in:   doc(hotelWith("[lang]: en"), threeLines),
		want: []string{"[bad_front_matter] policies/hotel-v1.md:6:1: a front matter key is not a plain word; write the front matter as 'key: value' lines"},
	},
	// duplicate_key
	{
		name: "key set twice",
		in:   doc(hotelWith("version: v2"), threeLines),
		want: []string{"[duplicate_key] policies/hotel-v1.md:6:1: key version is already set on line 3; keep one of them"},
	},
	{
		name: "subject and subjects",
		in:   doc(hotelWith("subject: lodging"), threeLines),
		want: []string{"[duplicate_key] policies/hotel-v1.md:6:10: both subject and subjects are set; keep only subjects"},
	},
	// missing_key
	{
		name: "every required key missing",
		in:   doc([]string{"lang: en"}, threeLines),
		want: []string{
			"[missing_key] policies/hotel-v1.md:1:1: missing required key source_id; add 'source_id: …' to the front matter",
			"[missing_key] policies/hotel-v1.md:1:1: missing required key subjects; add 'subjects: …' to the front matter",
			"[missing_key] policies/hotel-v1.md:1:1: missing required key valid_from; add 'valid_from: …' to the front matter",
			"[missing_key] policies/hotel-v1.md:1:1: missing required key version; add 'version: …' to the front matter",
		},
	},
	{
		name: "empty front matter",
		in:   "---\n---\n" + threeLines,
		want: []string{"[missing_key] policies/hotel-v1.md:1:1: front matter is empty; add source_id, version, subjects and valid_from"},
	},
	{
		name: "front matter of comments only",
		in:   doc([]string{"# to be written"}, threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:1:1: front matter is empty; add source_id, version, subjects and valid_from"},
	},
	{
		name: "required key without a value",
		in:   doc(hotelReplacing(1, "version:"), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:3:9: version is empty; give version a value"},
	},
	{
		name: "required key with an empty string",
		in:   doc(hotelReplacing(1, `version: " "`), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:3:10: version is empty; give version a value"},
	},
	{
		name: "empty subjects list",
		in:   doc(hotelReplacing(2, "subjects: []"), threeLines),
		want: []string{"[missing_key] policies/hotel-v1.md:4:11: subjects is empty; list at least one"},
	},
	// bad_value
	{
		name: "source_id with capitals and a space",
		in:   doc(hotelReplacing(0, "source_id: Hotel V1"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:2:12: source_id "Hotel V1" is not valid; use only lowercase letters, digits, '.', '_' and '-'`},
	},
	{
		name: "version as a list",
		in:   doc(hotelReplacing(1, "version: [1, 2]"), threeLines),
		want: []string{"[bad_value] policies/hotel-v1.md:3:10: version must be a single value; write a single value"},
	},
	{
		name: "subjects as a mapping",
		in:   doc(hotelReplacing(2, "subjects: {lodging: yes}"), threeLines),
		want: []string{"[bad_value] policies/hotel-v1.md:4:11: subjects must be a list; write a list such as [a, b]"},
	},
	{
		name: "nested subject",
		in:   doc(hotelReplacing(2, "subjects: [lodging, [beijing]]"), threeLines),
		want: []string{"[bad_value] policies/hotel-v1.md:4:21: subjects has an empty or nested item; write each item as plain text"},
	},
	{
		name: "supersedes: each problem at its own item",
		in:   doc(hotelWith(`supersedes: ["", "Hotel-V0"]`), threeLines),
		want: []string{
			"[bad_value] policies/hotel-v1.md:6:14: supersedes has an empty or nested item; write each item as plain text",
			`[bad_value] policies/hotel-v1.md:6:18: supersedes "Hotel-V0" is not a valid source_id; name the source_id of the replaced source`,
		},
	},
	{
		name: "lang that is not a tag",
		in:   doc(hotelWith("lang: English"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:7: lang "English" is not a language tag; use a language tag such as en or zh`},
	},
	{
		name: "lang in capitals, or with an underscore",
		in:   doc(hotelWith("lang: EN"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:7: lang "EN" is not a language tag; write it as en`},
	},
	{
		name: "lang with a region, written with an underscore",
		in:   doc(hotelWith("lang: ZH_cn"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:7: lang "ZH_cn" is not a language tag; write it as zh-cn`},
	},
	{
		name: "an escaped newline and escape sequence in version",
		in:   doc(hotelReplacing(1, `version: "v1\nforged  en  v9  selected\e[2J"`), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:3:10: version "v1\nforged  en  v9  selected\x1b[2J" has a control or direction-changing character (U+000A); remove it: values are one line of printable text`},
	},
	{
		name: "C1 control, line separator and bidi override in values",
		in:   doc(hotelWith(`unit: "CNY\x85"`, `supersedes: ["hotel-v0\u2028"]`, `lang: "en\u202e"`), threeLines),
		want: []string{
			`[bad_value] policies/hotel-v1.md:6:7: unit "CNY\u0085" has a control or direction-changing character (U+0085); remove it: values are one line of printable text`,
			`[bad_value] policies/hotel-v1.md:7:14: supersedes "hotel-v0\u2028" has a control or direction-changing character (U+2028); remove it: values are one line of printable text`,
			`[bad_value] policies/hotel-v1.md:8:7: lang "en\u202e" has a control or direction-changing character (U+202E); remove it: values are one line of printable text`,
		},
	},
	{
		name: "a control character in a block scalar subject",
		in:   doc(hotelReplacing(2, "subjects: |\n  lodging"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:4:11: subjects "lodging\n" has a control or direction-changing character (U+000A); remove it: values are one line of printable text`},
	},
	{
		name: "a tab in a value is allowed, but not in a subject",
		in:   doc(append(hotelReplacing(2, `subjects: ["a\tb"]`), `unit: "CNY\tper night"`), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:4:12: subjects "a\tb" is not a valid subject; use only lowercase letters, digits, '.', '_' and '-', and '/' between the parts of a subject such as travel/lodging`},
	},
	{
		name: "subjects without brackets",
		in:   doc(hotelReplacing(2, "subjects: lodging, rail"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:4:11: subjects "lodging, rail" is not a valid subject; write several subjects as a list: subjects: [lodging, rail]`},
	},
	{
		name: "a capitalised subject with a blank",
		in:   doc(hotelReplacing(2, `subjects: [Lodging, "rail "]`), threeLines),
		want: []string{
			`[bad_value] policies/hotel-v1.md:4:12: subjects "Lodging" is not a valid subject; write it as lodging`,
			`[bad_value] policies/hotel-v1.md:4:21: subjects "rail " is not a valid subject; write it as rail`,
		},
	},
	{
		name: "a single subject that is not valid",
		in:   doc(hotelReplacing(2, "subject: Car rental"), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:4:10: subject "Car rental" is not a valid subject; use only lowercase letters, digits, '.', '_' and '-', and '/' between the parts of a subject such as travel/lodging`},
	},
	{
		name: "cite that is not a range",
		in:   doc(hotelWith(`cite: ["1-3", "first"]`), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:15: cite "first" is not a line range; write each range as "N-M" with 1 ≤ N ≤ M`},
	},
	{
		name: "reversed cite range",
		in:   doc(hotelWith(`cite: "3-1"`), threeLines),
		want: []string{`[bad_value] policies/hotel-v1.md:6:7: cite "3-1" is not a line range; write each range as "N-M" with 1 ≤ N ≤ M`},
	},
	// bad_date
	{
		name: "february 30",
		in:   doc(hotelReplacing(3, "valid_from: 2026-02-30"), threeLines),
		want: []string{`[bad_date] policies/hotel-v1.md:5:13: valid_from "2026-02-30" is not a calendar date; write YYYY-MM-DD, e.g. 2026-01-01`},
	},
	{
		name: "time and zone offset",
		in:   doc(hotelReplacing(3, "valid_from: 2026-01-01T00:00:00+08:00"), threeLines),
		want: []string{`[bad_date] policies/hotel-v1.md:5:13: valid_from "2026-01-01T00:00:00+08:00" is not a calendar date; ka2 compares civil dates: drop the time and zone, e.g. 2026-01-01`},
	},
	{
		name: "valid_until with a time",
		in:   doc(hotelWith("valid_until: 2027-01-01 00:00"), threeLines),
		want: []string{`[bad_date] policies/hotel-v1.md:6:14: valid_until "2027-01-01 00:00" is not a calendar date; ka2 compares civil dates: drop the time and zone, e.g. 2027-01-01`},
	},
	{
		name: "date as a list",
		in:   doc(hotelReplacing(3, "valid_from: [2026-01-01]"), threeLines),
		want: []string{"[bad_date] policies/hotel-v1.md:5:13: valid_from must be a date; write YYYY-MM-DD"},
	},
	{
		name: "day first",
		in:   doc(hotelReplacing(3, "valid_from: 01.01.2026"), threeLines),
		want: []string{`[bad_date] policies/hotel-v1.md:5:13: valid_from "01.01.2026" is not a calendar date; write YYYY-MM-DD, e.g. 2026-01-01`},
	},
	// empty_interval
	{
		name: "valid_until equal to valid_from",
		in:   doc(hotelWith("valid_until: 2026-01-01"), threeLines),
		want: []string{"[empty_interval] policies/hotel-v1.md:6:14: valid_until 2026-01-01 is not after valid_from 2026-01-01; valid_until is exclusive: set it after valid_from, or remove it for an open-ended source"},
	},
	{
		name: "valid_until before valid_from",
		in:   doc(hotelWith("valid_until: 2025-06-30"), threeLines),
		want: []string{"[empty_interval] policies/hotel-v1.md:6:14: valid_until 2025-06-30 is not after valid_from 2026-01-01; valid_until is exclusive: set it after valid_from, or remove it for an open-ended source"},
	},
	// cite_outside_body
	{
		name: "cite past the last line",
		in:   doc(hotelWith(`cite: ["2-5"]`), threeLines),
		want: []string{"[cite_outside_body] policies/hotel-v1.md:6:8: cite 2-5 is outside the body, which has 3 lines; cite lines between 1 and 3"},
	},
	{
		name: "cite into a one-line body",
		in:   doc(hotelWith("cite: [2]"), "One line only.\n"),
		want: []string{"[cite_outside_body] policies/hotel-v1.md:6:8: cite 2-2 is outside the body, which has 1 line; cite lines between 1 and 1"},
	},
	{
		name: "cite on an empty body",
		in:   doc(hotelWith(`cite: ["1"]`), ""),
		want: []string{
			"[cite_outside_body] policies/hotel-v1.md:6:8: cite 1-1 is outside the body, which has 0 lines; the body is empty: write the text below the closing '---', or remove cite",
			"[empty_body] policies/hotel-v1.md:8:1: the body is empty; it must hold the policy text; write the policy text below the closing '---'",
		},
	},
	{
		name: "cite repeats a range",
		in:   doc(hotelWith(`cite: ["1-2", "1-2"]`), threeLines),
		want: []string{"[bad_value] policies/hotel-v1.md:6:15: cite 1-2 repeats 1-2 at line 6, column 8; list each body line in one cite range only: merge or remove the ranges"},
	},
	{
		name: "cite ranges overlap, each reported at its item",
		in:   doc(hotelWith(`cite: ["1-2", "1-2", "2", "1", "3"]`), threeLines),
		want: []string{
			"[bad_value] policies/hotel-v1.md:6:15: cite 1-2 repeats 1-2 at line 6, column 8; list each body line in one cite range only: merge or remove the ranges",
			"[bad_value] policies/hotel-v1.md:6:22: cite 2-2 overlaps 1-2 at line 6, column 8; list each body line in one cite range only: merge or remove the ranges",
			"[bad_value] policies/hotel-v1.md:6:27: cite 1-1 overlaps 1-2 at line 6, column 8; list each body line in one cite range only: merge or remove the ranges",
		},
	},
	{
		name: "cite ranges overlap in block form",
		in:   doc(hotelWith("cite:", "  - 2-3", "  - 1-2"), threeLines),
		want: []string{"[bad_value] policies/hotel-v1.md:8:5: cite 1-2 overlaps 2-3 at line 7, column 5; list each body line in one cite range only: merge or remove the ranges"},
	},
	// empty_body
	{
		name: "empty body",
		in:   doc(hotel, ""),
		want: []string{"[empty_body] policies/hotel-v1.md:7:1: the body is empty; it must hold the policy text; write the policy text below the closing '---'"},
	},
	{
		name: "empty body without a final newline",
		in:   strings.TrimSuffix(doc(hotel, ""), "\n"),
		want: []string{"[empty_body] policies/hotel-v1.md:7:1: the body is empty; it must hold the policy text; write the policy text below the closing '---'"},
	},
	{
		name: "body of blank lines",
		in:   doc(hotel, "\n  \n\t\n"),
		want: []string{"[empty_body] policies/hotel-v1.md:7:1: the body is empty; it must hold the policy text; write the policy text below the closing '---'"},
	},
	// several problems: all reported, in file order
	{
		name: "every problem in one file, in order",
		in: doc([]string{
			"source_id: Hotel",
			"version: v1",
			"subjects: [lodging]",
			"valid_from: 2026-01-01T09:00",
			"valid_untill: 2027-01-01",
			"lang: English",
			`cite: ["9"]`,
		}, threeLines),
		want: []string{
			`[bad_value] policies/hotel-v1.md:2:12: source_id "Hotel" is not valid; use only lowercase letters, digits, '.', '_' and '-'`,
			`[bad_date] policies/hotel-v1.md:5:13: valid_from "2026-01-01T09:00" is not a calendar date; ka2 compares civil dates: drop the time and zone, e.g. 2026-01-01`,
			`[unknown_key] policies/hotel-v1.md:6:1: unknown key "valid_untill"; did you mean valid_until?`,
			`[bad_value] policies/hotel-v1.md:7:7: lang "English" is not a language tag; use a language tag such as en or zh`,
			"[cite_outside_body] policies/hotel-v1.md:8:8: cite 9-9 is outside the body, which has 3 lines; cite lines between 1 and 3",
		},
	},
	{
		name: "positions are the same in a CRLF file with a BOM",
		in:   "\ufeff" + strings.ReplaceAll(doc(hotelWith("valid_untill: 2027-01-01"), threeLines), "\n", "\r\n"),
		want: []string{`[unknown_key] policies/hotel-v1.md:6:1: unknown key "valid_untill"; did you mean valid_until?`},
	},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := corpus.Parse("policies/hotel-v1.md", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse() = %+v, want an error", got)
			}
			if got != nil {
				t.Errorf("Parse() returned a source and an error")
			}
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseErrorCodes checks that TestParseErrors has a case for every
// problem Parse can report.
func TestParseErrorCodes(t *testing.T) {
	covered := map[diag.Code]bool{}
	for _, tt := range parseErrorTests {
		for _, w := range tt.want {
			code, _, _ := strings.Cut(strings.TrimPrefix(w, "["), "]")
			covered[diag.Code(code)] = true
		}
	}
	for _, c := range []diag.Code{
		corpus.CodeInvalidUTF8, corpus.CodeNoFrontMatter, corpus.CodeBadFrontMatter, corpus.CodeUnknownKey,
		corpus.CodeDuplicateKey, corpus.CodeMissingKey, corpus.CodeBadValue, corpus.CodeBadDate,
		corpus.CodeEmptyInterval, corpus.CodeCiteOutsideBody, corpus.CodeEmptyBody, corpus.CodeFrontMatterInBody,
	} {
		if !covered[c] {
			t.Errorf("no TestParseErrors case reports %s", c)
		}
	}
}

func TestQuote(t *testing.T) {
	src, err := corpus.Parse("hotel-v1.md", []byte(doc(hotel, threeLines)))
	if err != nil {
		t.Fatal(err)
	}
	// Parse refuses an empty body; Quote still answers for a Source built
	// by hand.
	empty := &corpus.Source{ID: "stub", Path: "stub.md"}
	tests := []struct {
		name    string
		src     *corpus.Source
		r       corpus.Range
		want    string
		wantErr string
	}{
		{name: "whole body", src: src, r: src.Body(), want: strings.TrimSuffix(threeLines, "\n")},
		{name: "one line", src: src, r: corpus.Range{Start: 2, End: 2}, want: "The limit is 520 CNY per room-night."},
		{name: "last two lines", src: src, r: corpus.Range{Start: 2, End: 3}, want: "The limit is 520 CNY per room-night.\nBreakfast is included in the limit."},
		{name: "past the end", src: src, r: corpus.Range{Start: 2, End: 4},
			wantErr: "hotel-v1.md: lines 2-4 are outside the body of hotel-v1, which has 3 lines; cite lines between 1 and 3"},
		{name: "line zero", src: src, r: corpus.Range{Start: 0, End: 1},
			wantErr: "hotel-v1.md: lines 0-1 are outside the body of hotel-v1, which has 3 lines; cite lines between 1 and 3"},
		{name: "reversed", src: src, r: corpus.Range{Start: 3, End: 2},
			wantErr: "hotel-v1.md: lines 3-2 are outside the body of hotel-v1, which has 3 lines; cite lines between 1 and 3"},
		{name: "empty body", src: empty, r: empty.Body(),
			wantErr: "stub.md: source stub has an empty body, so there are no lines to quote; add the policy text below the closing '---'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.src.Quote(tt.r)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Quote(%v) = %q, want an error", tt.r, got)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Quote(%v) error mismatch (-want +got):\n%s", tt.r, diff)
				}
				assertCode(t, err, corpus.CodeRangeOutsideBody)
				return
			}
			if err != nil {
				t.Fatalf("Quote(%v) error: %v", tt.r, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Quote(%v) mismatch (-want +got):\n%s", tt.r, diff)
			}
		})
	}
}

func TestSourceAppliesOn(t *testing.T) {
	v1 := &corpus.Source{ValidFrom: corpus.MustDate(2025, 1, 1), ValidUntil: corpus.MustDate(2026, 1, 1)}
	v2 := &corpus.Source{ValidFrom: corpus.MustDate(2026, 1, 1)}
	tests := []struct {
		date       string
		wantV1     bool
		wantV2     bool
		annotation string
	}{
		{"2024-12-31", false, false, "before both"},
		{"2025-01-01", true, false, "first day of v1"},
		{"2025-09-14", true, false, "inside v1"},
		{"2025-12-31", true, false, "last day of v1"},
		{"2026-01-01", false, true, "valid_until is exclusive"},
		{"2026-09-14", false, true, "inside v2"},
		{"9999-12-31", false, true, "open-ended"},
	}
	for _, tt := range tests {
		d := corpus.MustParseDate(tt.date)
		if got := v1.AppliesOn(d); got != tt.wantV1 {
			t.Errorf("%s (%s): v1.AppliesOn = %t, want %t", tt.date, tt.annotation, got, tt.wantV1)
		}
		if got := v2.AppliesOn(d); got != tt.wantV2 {
			t.Errorf("%s (%s): v2.AppliesOn = %t, want %t", tt.date, tt.annotation, got, tt.wantV2)
		}
	}
}

func TestSourceHasSubject(t *testing.T) {
	s := &corpus.Source{Subjects: []string{"lodging", "per-diem"}}
	for subject, want := range map[string]bool{"lodging": true, "per-diem": true, "Lodging": false, "lodg": false, "": false} {
		if got := s.HasSubject(subject); got != want {
			t.Errorf("HasSubject(%q) = %t, want %t", subject, got, want)
		}
	}
}

func TestKnownKeysIsACopy(t *testing.T) {
	keys := corpus.KnownKeys()
	keys[0] = "changed"
	if got := corpus.KnownKeys()[0]; got != "source_id" {
		t.Errorf("KnownKeys()[0] = %q after changing a returned slice, want source_id", got)
	}
}
