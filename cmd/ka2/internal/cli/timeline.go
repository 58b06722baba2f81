package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/timeline"
)

// defaultTextWidth is the text chart's width when standard output is not
// a terminal.
const defaultTextWidth = 100

// TimelineOptions are the inputs of `ka2 timeline`.
type TimelineOptions struct {
	f *Factory
	corpusFlags
	Subjects []string
	Lang     string
	From     string
	Until    string
	Today    string
	Format   string
	Output   string
	Width    int
	widthSet bool
	cmdContext
}

// NewCmdTimeline makes `ka2 timeline`.
func NewCmdTimeline(f *Factory, runF func(*TimelineOptions) error) *cobra.Command {
	opts := &TimelineOptions{f: f}
	cmd := &cobra.Command{
		Use:   "timeline [--subject S...] [--lang L] [--from D] [--until D] [--today D] [--format text|svg|html]",
		Short: "Draw when each source applies: lanes per subject and language, overlaps, gaps, supersedes",
		Long: `Timeline draws the corpus's validity intervals: one lane per subject and
language, each source a bar over [valid_from, valid_until) labelled with its
source_id, version and unit; open-ended sources run to the right edge with an
arrow. Dates on which two sources of a lane both apply are shaded (a conflict,
or an overlap when one supersedes the other), dates between two sources that
none covers are marked as gaps, supersedes are drawn as links, and today's
date as a line.

--format text draws it with Unicode characters, --width columns wide (default:
the terminal's width, or 100), and lists each lane's sources with their exact
dates. svg writes a standalone SVG, --width pixels wide (default 1200), with a
tooltip on every bar; it has no script and no external font, and the same
corpus and flags always give the same bytes. html wraps the SVG in an offline
page with a legend and tables of the same facts for screen readers.

The axis fits the sources and today; --from and --until fix it (until is
the first date not shown). Sources without lang appear in every language's
lane, as the selector selects them for every language.`,
		Example: `  ka2 timeline
  ka2 timeline --subject lodging --lang en --today 2026-09-14
  ka2 timeline --format svg --output timeline.svg
  ka2 timeline --corpus policies --from 2020-01-01 --until 2030-01-01 --format html --output timeline.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.widthSet = cmd.Flags().Changed("width")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runTimeline(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&opts.Subjects, "subject", nil, "show only this subject (repeat for several; default: every subject)")
	fs.StringVar(&opts.Lang, "lang", "", "only sources in this language, and those without one (default: every language)")
	fs.StringVar(&opts.From, "from", "", "first date of the axis, YYYY-MM-DD (default: fitted to the sources)")
	fs.StringVar(&opts.Until, "until", "", "first date after the axis, YYYY-MM-DD (default: fitted to the sources and today)")
	fs.StringVar(&opts.Today, "today", "", "the date of the today line, YYYY-MM-DD (default: today)")
	enumVar(fs, &opts.Format, "format", "text", []string{"text", "svg", "html"}, "output format")
	fs.StringVar(&opts.Output, "output", "", "write the chart to this file (atomically; - for standard output) instead of standard output")
	fs.IntVar(&opts.Width, "width", 0, fmt.Sprintf("columns for text (%d..%d; default: the terminal's, or %d), pixels for svg and html (%d..%d; default %d)",
		timeline.MinTextWidth, timeline.MaxSVGWidth, defaultTextWidth, timeline.MinSVGWidth, timeline.MaxSVGWidth, timeline.DefaultSVGWidth))
	opts.corpusFlags.register(fs)
	return cmd
}

func (o *TimelineOptions) validate() error {
	if !o.widthSet {
		return nil
	}
	lo, hi := timeline.MinSVGWidth, timeline.MaxSVGWidth
	unit := "pixels"
	if o.Format == "text" {
		lo, unit = timeline.MinTextWidth, "columns"
	}
	if o.Width < lo || o.Width > hi {
		return usageError{fmt.Errorf("invalid value \"%d\" for --width: want %d..%d %s for --format %s", o.Width, lo, hi, unit, o.Format)}
	}
	return nil
}

// dateFlag parses an optional date flag; "" is the zero date.
func dateFlag(name, value string) (corpus.Date, error) {
	if value == "" {
		return corpus.Date{}, nil
	}
	d, err := corpus.ParseDate(value)
	if err != nil {
		return corpus.Date{}, usageError{fmt.Errorf("--%s %w", name, err)}
	}
	return d, nil
}

func runTimeline(o *TimelineOptions) error {
	from, err := dateFlag("from", o.From)
	if err != nil {
		return err
	}
	until, err := dateFlag("until", o.Until)
	if err != nil {
		return err
	}
	today := o.Today
	if today == "" {
		today = o.f.now().Format("2006-01-02")
	}
	day, err := dateFlag("today", today)
	if err != nil {
		return err
	}
	corp, err := o.load(o.ctx())
	if err != nil {
		return err
	}
	m, err := timeline.Build(selector.NewIndex(corp), timeline.Options{Subjects: o.Subjects, Lang: o.Lang, From: from, Until: until, Today: day})
	if err != nil {
		// Every problem Build reports is in what the flags asked for.
		return usageError{fmt.Errorf("%s", diag.Phrase(err, flagName))}
	}
	var buf bytes.Buffer
	switch o.Format {
	case "svg":
		err = m.WriteSVG(&buf, o.pixels())
	case "html":
		err = m.WriteHTML(&buf, o.pixels())
	default:
		w := o.Width
		if !o.widthSet {
			w = o.f.columns()
			if w <= 0 {
				w = defaultTextWidth
			}
		}
		err = m.WriteText(&buf, w)
	}
	if err != nil {
		return err
	}
	if o.Output != "" {
		return writeOutput(o.ctx(), o.f.Out, "--output", o.Output, buf.Bytes())
	}
	_, err = o.f.Out.Write(buf.Bytes())
	return err
}

func (o *TimelineOptions) pixels() int {
	if o.widthSet {
		return o.Width
	}
	return timeline.DefaultSVGWidth
}
