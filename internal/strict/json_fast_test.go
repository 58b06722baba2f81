package strict

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// slowJSON is ParseJSON without its fast path: the token stream of
// encoding/json, the reference fastJSON must agree with.
func slowJSON(data []byte) (*yaml.Node, error) {
	p := newJSONParser(data)
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, errors.New("trailing")
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: v.Line, Column: v.Column, Content: []*yaml.Node{v}}, nil
}

var fastJSONSeeds = []string{
	`{"subject":"lodging","dates":["2026-09-14"],"question":"What is the Beijing lodging limit?"}`,
	"{\n  \"subject\": \"住宿\",\n  \"dates\": [\"2026-09-14\", \"2025-01-01\"],\n  \"short\": true,\n  \"n\": -1.5e+3, \"m\": 0, \"z\": null, \"f\": false\n}\n",
	`{"a":{"b":[1,2,[3,{}],[]]},"a":"dup"}`,
	`[]`, `{}`, `"x"`, `0`, `-0.25`, `12345678901234567890`, `1e5`, `true`, `null`,
	`{"esc":"a\"b"}`, `{"u":"\u00e9"}`, "{\"bad\":\"\xff\"}", "{\"ctl\":\"a\tb\"}",
	`{"a":1,}`, `[1,]`, `01`, `-`, `1.`, `.5`, `1e`, `[1 2]`, `{"a" 1}`, `{"a":1`, `[`, `tru`, `nul`, `truex`,
	"\ufeff{}", `{"a":1} {}`, ` `, ``, `{"😀":"é","k":["日本","한국"]}`, "[\n\n  1,\n\t\"é\"]",
	// More values than one chunk of nodes (fastChunk), and a list longer
	// than one.
	"[" + strings.Repeat(`{"k":[1,"v",true]},`, 60) + "null]",
	"[" + strings.Repeat(`0,`, 300) + "1]",
}

// TestFastJSON: wherever the fast path answers, its tree is the token
// stream's, node for node, positions included; where the text is not
// valid JSON it never answers.
func TestFastJSON(t *testing.T) {
	taken := 0
	for _, s := range fastJSONSeeds {
		if checkFastJSON(t, []byte(s)) {
			taken++
		}
	}
	if taken < 10 {
		t.Errorf("the fast path read %d of the seeds, want at least 10", taken)
	}
	// Deep nesting goes to the slow path, which words the error.
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, ok := fastJSON([]byte(deep)); ok {
		t.Error("fastJSON read 20000 nested arrays; want the slow path")
	}
}

func checkFastJSON(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := fastJSON(data)
	want, err := slowJSON(data)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("fastJSON(%q) read text the token stream refuses: %v", data, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("fastJSON(%q) mismatch (-slow +fast):\n%s", data, diff)
	}
	// The count sizes the arrays the tree is carved from: exact, so that
	// nothing is allocated beside them nor left unused.
	if n, nodes := countValues(data)+1, countNodes(got); n != nodes {
		t.Errorf("countValues(%q)+1 = %d, want the tree's %d nodes", data, n, nodes)
	}
	// A count too small (text the fast path refuses may miscount) still
	// gives the same tree, from nodes allocated one by one.
	for _, n := range []int{0, 1, 2} {
		small, ok := fastJSONIn(data, n)
		if !ok {
			t.Fatalf("fastJSONIn(%q, %d) refused text fastJSON reads", data, n)
		}
		if diff := cmp.Diff(want, small); diff != "" {
			t.Fatalf("fastJSONIn(%q, %d) mismatch (-slow +fast):\n%s", data, n, diff)
		}
	}
	return true
}

func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

func FuzzFastJSON(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastJSON(t, data)
	})
}
