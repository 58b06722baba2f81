package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ka2/ka2/budget"
	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/pipeline"
	"github.com/ka2/ka2/selector"
)

// A stage whose output lacks a field the next stage requires, and has
// another with the wrong type, is reported before anything runs.
func ExampleParse() {
	src := `
protocols:
  ResearchOutput: {title: string, date: string}
  WeatherInput: {summary: string, date: date}
stages:
  A: {exec: [./research], context: {output_schema: ResearchOutput}}
  B: {exec: [./weather], context: {input_schema: WeatherInput}}
flow: A >> B
`
	p, err := pipeline.Parse("weather.yaml", []byte(src), nil)
	if err != nil {
		panic(err)
	}
	for _, d := range p.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// weather.yaml:8:12: C-004: Context incompatible in pipeline 'A >> B': output_schema='ResearchOutput' is not a subtype of input_schema='WeatherInput' (missing field 'summary'; field 'date' is string, want date)
	// 	Suggestion: Align A.context.output_schema with B.context.input_schema
}

// A ka2.build stage runs the contract builder in process; its output text
// and its "contract" artifact are the contract, validated as
// ka2-context-v1.
func ExamplePipeline_Run() {
	p, err := pipeline.Parse("build.yaml", []byte("stages: {build: {uses: ka2.build}}\nflow: build\n"), nil)
	if err != nil || p.Diagnostics.Err() != nil {
		panic(fmt.Sprint(err, p.Diagnostics))
	}
	corp, err := corpus.Load(corpus.Sample())
	if err != nil {
		panic(err)
	}
	def := contract.Default()
	counter, _ := budget.Lookup("codepoint")
	limits, _ := def.Limits("codepoint")
	builder := &contract.Builder{Definition: def, Index: selector.NewIndex(corp), Counter: counter, Limits: limits}

	in, err := pipeline.ParseInput([]byte(`{"question": "What is the Beijing lodging limit?",
		"subjects": ["lodging"], "dates": ["2025-09-14", "2026-09-14"], "short": true}`))
	if err != nil {
		panic(err)
	}
	run, err := p.Run(context.Background(), pipeline.RequestInput(in), pipeline.RunOptions{Builder: builder})
	if err != nil {
		panic(err)
	}
	last := run.Snapshots[len(run.Snapshots)-1]
	var c struct {
		Evidence []struct {
			SourceID string `json:"source_id"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(last.Artifacts["contract"], &c); err != nil {
		panic(err)
	}
	fmt.Println(last.Stage, last.OutputSchema, string(last.Artifacts["contract"]) == run.Output())
	for _, e := range c.Evidence {
		fmt.Println(e.SourceID)
	}
	// Output:
	// build ka2-context-v1 true
	// travel-v2
	// travel-v1
}
