// Package timeline decides how a corpus's validity intervals are laid out
// for a person to look at: one lane per subject and language, each source
// a bar over its half-open interval [valid_from, valid_until), with the
// dates where sources overlap (a conflict, as the selector reports it,
// unless a supersedes link or role: supplement says why), the dates no
// source covers (gaps), the supersedes links and today's date.
//
// Build turns a corpus index and Options into a Model, a plain value that
// holds every decision (which bars, in which row, clipped how, which
// overlap, which gap); the renderers only draw it: WriteText for a
// terminal (Unicode blocks), WriteSVG for a standalone, deterministic SVG
// (no scripts, no external fonts, presentation attributes only, so a page
// whose Content-Security-Policy forbids inline styles can embed it), and
// WriteHTML for an offline page that wraps the SVG with a legend and a
// table of the same facts for screen readers. Both are produced through
// html/template, so every value is escaped for where it lands. A lane's
// name is never cut: where it does not fit its column it wraps.
//
// The package never reads the clock: today's date is an Option.
package timeline
