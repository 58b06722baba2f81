package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // "" for no problem
	}{
		// The pointer is checked in TestCheckPointer.
		{"plain", `{"question": "What is the limit?"}`, ""},
		{"valid pair", `{"q": "\ud83d\ude00"}`, ""},
		{"escaped backslash before u", `{"q": "\\ud800"}`, ""},
		{"BMP escape", `{"q": "\u00e9\uFFFD"}`, ""},
		{"lone high surrogate", `{"question": "\ud800"}`, `1:15: question: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"lone low surrogate, upper case", `{"q": "ab\uDC00"}`, `1:10: q: lone UTF-16 surrogate escape \uDC00 (a low surrogate without its high half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"high then not low", `{"q": "\ud800\u0041"}`, `1:8: q: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"nested field", "{\n  \"items\": [\n    {\"type\": \"memory\", \"text\": \"ok\"},\n    {\"type\": \"memory\", \"text\": \"x\\udfff\"}\n  ]\n}", `4:34: items[1].text: lone UTF-16 surrogate escape \udfff (a low surrogate without its high half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"in a key", `{"a": 1, "b\ud800": 2}`, `1:12: a key: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"in a nested key", `{"a": {"\udc00": 2}}`, `1:9: a key of a: lone UTF-16 surrogate escape \udc00 (a low surrogate without its high half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"array of strings", `{"dates": ["2026-01-01", "\ud800"]}`, `1:27: dates[1]: lone UTF-16 surrogate escape \ud800 (a high surrogate without its low half); write the character itself, or a character outside the Basic Multilingual Plane as a surrogate pair such as \ud83d\ude00`},
		{"invalid UTF-8", "{\"question\": \"caf\xe9\"}", `1:18: question: invalid UTF-8 byte 0xe9; encode the text as UTF-8`},
		{"invalid UTF-8 after multibyte", "{\"q\": \"住宿\xff\"}", `1:10: q: invalid UTF-8 byte 0xff; encode the text as UTF-8`},
		{"invalid UTF-8 outside strings", "{\"q\": 1\xff}", `1:8: q: invalid UTF-8 byte 0xff; encode the text as UTF-8`},
		{"truncated escape is left to the decoder", `{"q": "\ud8`, ""},
		{"unterminated string is left to the decoder", `{"q": "abc`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if e := Check([]byte(tt.data)); e != nil {
				got = e.Error()
			}
			if got != tt.want {
				t.Errorf("Check(%q) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}

// TestExact: what Check refuses, and an object that repeats a key, at the
// repeat, naming the object; the same key in two objects is no repeat.
func TestExact(t *testing.T) {
	tests := []struct {
		name, data string
		want       string // "" for no problem
		repeated   bool
	}{
		{"plain", `{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`, "", false},
		{"empty key repeated", `{"": 1, "": 2}`, `1:9: a key: key "" repeats the one at 1:2; keep one: JSON readers differ on which of the two values a repeated key means`, true},
		{"repeated at the top", `{"output_text": "a", "output_text": "b"}`, `1:22: a key: key "output_text" repeats the one at 1:2; keep one: JSON readers differ on which of the two values a repeated key means`, true},
		{"repeated through an escape", `{"a": 1, "a": 2}`, `1:10: a key: key "a" repeats the one at 1:2; keep one: JSON readers differ on which of the two values a repeated key means`, true},
		{"repeated in a nested object", "{\"artifacts\": {\n  \"x\": 1,\n  \"x\": 2}}", `3:3: a key of artifacts: key "x" repeats the one at 2:3; keep one: JSON readers differ on which of the two values a repeated key means`, true},
		{"repeated in an array element", `[{}, {"k": 1, "k": 1}]`, `1:15: a key of [1]: key "k" repeats the one at 1:7; keep one: JSON readers differ on which of the two values a repeated key means`, true},
		// encoding/json reads keys that differ only in case as one field
		// (the last wins), so they repeat a key.
		{"case differs", `{"evidence": [], "Evidence": [999]}`, `1:18: a key: key "Evidence" differs only in case from "evidence" at 1:2; keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two`, true},
		{"case differs, upper first", `{"A": 1, "a": 2}`, `1:10: a key: key "a" differs only in case from "A" at 1:2; keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two`, true},
		{"case differs by the Kelvin sign", `{"k": 1, "\u212a": 2}`, "1:10: a key: key \"\u212a\" differs only in case from \"k\" at 1:2; keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two", true},
		{"case differs in a nested object", `{"x": {"Quote": "a", "quote": "b"}}`, `1:22: a key of x: key "quote" differs only in case from "Quote" at 1:8; keep one: encoding/json reads keys that differ only in case as one field, other JSON readers as two`, true},
		{"different keys of one fold length", `{"ab": 1, "ba": 2}`, "", false},
		{"invalid text still refused", "{\"q\": \"caf\xe9\"}", `1:11: q: invalid UTF-8 byte 0xe9; encode the text as UTF-8`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, repeated := "", false
			if e := Exact([]byte(tt.data)); e != nil {
				got, repeated = e.Error(), e.Repeated
			}
			if got != tt.want || repeated != tt.repeated {
				t.Errorf("Exact(%q) = %q (repeated %v), want %q (repeated %v)", tt.data, got, repeated, tt.want, tt.repeated)
			}
			if Check([]byte(tt.data)) != nil && tt.repeated {
				t.Errorf("Check(%q) refused it; only Exact refuses repeated keys", tt.data)
			}
		})
	}
}

// TestDeepNesting: past encoding/json's nesting limit the scan stops and
// leaves the document to the decoder, which refuses it; it keeps no frame
// per level of a long run of brackets.
func TestDeepNesting(t *testing.T) {
	deep := []byte(strings.Repeat("[", 1<<20) + `{"a": 1, "a": 2}` + "\xff")
	if e := Exact(deep); e != nil {
		t.Errorf("Exact(1 MiB of [) = %v, want nil: the decoder refuses the depth", e)
	}
	var v any
	if err := json.Unmarshal(deep, &v); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("json.Unmarshal(1 MiB of [) = %v, want the depth error the scan relies on", err)
	}
	allocs := testing.AllocsPerRun(1, func() { Exact(deep) })
	if allocs > 2*maxDepth {
		t.Errorf("Exact(1 MiB of [) made %.0f allocations, want at most %d", allocs, 2*maxDepth)
	}
	shallow := strings.Repeat("[", 100) + `{"a": 1, "a": 2}` + strings.Repeat("]", 100)
	if e := Exact([]byte(shallow)); e == nil || !e.Repeated {
		t.Errorf("Exact(100 levels) = %v, want the repeated key", e)
	}
}

func TestCheckPointer(t *testing.T) {
	tests := []struct{ data, field, pointer string }{
		{`{"items": [{}, {"text": "\ud800"}]}`, "items[1].text", "/items/1/text"},
		{`{"a/b": {"c~d": "\ud800"}}`, "a/b.c~d", "/a~1b/c~0d"},
		{`["\ud800"]`, "[0]", "/0"},
		{`"\ud800"`, "", ""},
	}
	for _, tt := range tests {
		e := Check([]byte(tt.data))
		if e == nil || e.Field != tt.field || e.Pointer != tt.pointer {
			t.Errorf("Check(%s) = %+v, want field %q, pointer %q", tt.data, e, tt.field, tt.pointer)
		}
	}
}

// FuzzCheck checks Check against encoding/json: whatever Check passes,
// json.Unmarshal reads without replacing anything, so re-encoding the
// decoded strings gives back valid text; and Check never panics.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"question": "\ud800"}`, `{"q": "\ud83d\ude00"}`, "{\"q\": \"caf\xe9\"}", `["\\ud800", {"a\udc00": 1}]`, `{"a": [1, {"b": "\u00e9"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := Check(data)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		if e == nil && containsReplacement(v) && !containsLiteralReplacement(data) {
			t.Fatalf("Check passed %q, but decoding replaced text", data)
		}
	})
}

// FuzzExact checks Exact against a count of keys through encoding/json's
// token stream: a document Exact passes has no object with a key twice,
// and Exact refuses nothing Check passes except a repeated key.
func FuzzExact(f *testing.F) {
	for _, s := range []string{`{"a": 1, "a": 2}`, `{"a": {"b": 1}, "b": {"b": 2}}`, `[{"k": 1}, {"k": 1}]`, `{"\u0061": 1, "a": 2}`, `{"a": "\"a\": 1"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := Exact(data)
		if c := Check(data); c != nil {
			if e == nil || e.Offset != c.Offset && !e.Repeated {
				t.Fatalf("Check(%q) = %v but Exact = %v", data, c, e)
			}
			return
		}
		if !json.Valid(data) {
			return
		}
		dup := hasRepeatedKey(json.NewDecoder(strings.NewReader(string(data))))
		if (e != nil) != dup || e != nil && !e.Repeated {
			t.Fatalf("Exact(%q) = %v; repeated key by the decoder: %v", data, e, dup)
		}
	})
}

// hasRepeatedKey reads one JSON value from dec and reports an object in it
// with a key twice.
func hasRepeatedKey(dec *json.Decoder) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		dup := false
		for dec.More() {
			k, _ := dec.Token()
			if seen[k.(string)] {
				dup = true
			}
			seen[k.(string)] = true
			dup = hasRepeatedKey(dec) || dup
		}
		dec.Token()
		return dup
	case json.Delim('['):
		dup := false
		for dec.More() {
			dup = hasRepeatedKey(dec) || dup
		}
		dec.Token()
		return dup
	}
	return false
}

func containsReplacement(v any) bool {
	switch v := v.(type) {
	case string:
		for _, r := range v {
			if r == '\uFFFD' {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if containsReplacement(x) {
				return true
			}
		}
	case map[string]any:
		for k, x := range v {
			if containsReplacement(k) || containsReplacement(x) {
				return true
			}
		}
	}
	return false
}

// containsLiteralReplacement reports U+FFFD written in the input itself,
// which decoding rightly keeps.
func containsLiteralReplacement(data []byte) bool {
	s := string(data)
	return strings.Contains(s, "\uFFFD") || strings.Contains(strings.ToLower(s), `\ufffd`)
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]string{"q": "A >> B & <c>"})
	if err != nil || string(got) != `{"q":"A >> B & <c>"}` {
		t.Errorf("Marshal() = %s, %v; want the text unescaped and no newline", got, err)
	}
	if _, err := Marshal(make(chan int)); err == nil {
		t.Error("Marshal(chan) did not fail")
	}
}
