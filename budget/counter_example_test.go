package budget_test

import (
	"fmt"
	"strings"

	"github.com/ka2/ka2/budget"
)

func Example() {
	text := `{"question":"北京住宿标准是多少？"}`
	for _, name := range budget.Names() {
		c, err := budget.Lookup(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(name, c.Count(text))
	}
	// Output:
	// codepoint 25
	// cl100k_base 16
	// o200k_base 9
}

func ExampleCounter_Split() {
	// The parts of a serialized input add up to the count of the whole,
	// even where a token runs across a boundary between parts.
	text := `{"instruction":"cite lines","question":"how much?"}`
	// Cut where the question field starts and where the closing brace is.
	cuts := []int{strings.Index(text, `,"question"`), len(text) - 1}
	c, _ := budget.Lookup("cl100k_base")
	parts := c.Split(text, cuts)
	fmt.Println(parts, parts[0]+parts[1]+parts[2] == c.Count(text))
	// Output:
	// [6 5 1] true
}

func ExampleLookup() {
	_, err := budget.Lookup("gpt2")
	fmt.Println(err)
	// Output:
	// unknown counter "gpt2": use one of codepoint, cl100k_base, o200k_base
}
