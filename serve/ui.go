package serve

import (
	"bytes"
	"embed"
	"net/http"
	"strconv"

	"github.com/ka2/ka2/corpus"
	"github.com/ka2/ka2/errkind"
	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/selector"
	"github.com/ka2/ka2/timeline"
)

// uiFiles are the preview page: one HTML page, its style sheet and its
// script, written by hand (no build step, no framework) and embedded.
//
//go:embed ui/index.html ui/app.css ui/app.js
var uiFiles embed.FS

// ContentSecurityPolicy is the policy of the preview page and its assets:
// nothing from elsewhere, no inline script or style, no frames, no form
// posts; the script may only call this server.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// uiRoutes are GET /v1/timeline and, when Config.UI is set, the preview
// page (GET /) and its assets.
func (s *Server) uiRoutes() []*route {
	routes := []*route{{name: "timeline", method: http.MethodGet, path: "/v1/timeline", serve: s.serveTimeline, limited: true}}
	if !s.cfg.UI {
		return routes
	}
	for _, file := range []struct{ path, name, ctype string }{
		{"/", "ui/index.html", "text/html; charset=utf-8"},
		{"/ui/app.css", "ui/app.css", "text/css; charset=utf-8"},
		{"/ui/app.js", "ui/app.js", "text/javascript; charset=utf-8"},
	} {
		body, err := uiFiles.ReadFile(file.name)
		if err != nil {
			panic(err) // embedded at build time
		}
		ctype := file.ctype
		routes = append(routes, &route{name: "ui", method: http.MethodGet, path: file.path, serve: func(w http.ResponseWriter, _ *http.Request, snap *Snapshot) int {
			setPageHeaders(w.Header())
			writeBody(w, snap, http.StatusOK, ctype, body)
			return http.StatusOK
		}})
	}
	return routes
}

// setPageHeaders sets the headers of everything a browser shows.
func setPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}

// timelineJSON is GET /v1/timeline?format=json's body: the lanes and
// bars of the model, for a client to list subjects and languages.
type timelineJSON struct {
	From  corpus.Date    `json:"from"`
	Until corpus.Date    `json:"until"`
	Today corpus.Date    `json:"today"`
	Lanes []timelineLane `json:"lanes"`
}

type timelineLane struct {
	Subject string        `json:"subject"`
	Lang    string        `json:"lang"`
	Bars    []timelineBar `json:"bars"`
}

type timelineBar struct {
	SourceID   string `json:"source_id"`
	Version    string `json:"version"`
	Lang       string `json:"lang,omitempty"`
	ValidFrom  string `json:"valid_from"`
	ValidUntil string `json:"valid_until,omitempty"`
	Selected   bool   `json:"selected"`
	Conflict   bool   `json:"conflict"`
	Supplement bool   `json:"supplement,omitempty"`
}

// serveTimeline answers GET /v1/timeline[?subject=…][&lang=…][&date=…]
// [&from=…][&until=…][&width=…][&format=svg|json]: the timeline of the
// serving corpus as `ka2 timeline --format svg` draws it, today's line
// from the server's clock, and the sources a question about the subjects
// and dates would select highlighted.
func (s *Server) serveTimeline(w http.ResponseWriter, r *http.Request, snap *Snapshot) int {
	v := r.URL.Query()
	today, _ := corpus.ParseDate(s.now().Format("2006-01-02")) // a clock's date always parses
	opts := timeline.Options{Subjects: v["subject"], Lang: v.Get("lang"), Today: today}
	for _, p := range []struct {
		name string
		to   *corpus.Date
	}{{"from", &opts.From}, {"until", &opts.Until}} {
		if text := v.Get(p.name); text != "" {
			d, err := corpus.ParseDate(text)
			if err != nil {
				return badRequest(w, snap, p.name+" "+err.Error())
			}
			*p.to = d
		}
	}
	width := timeline.DefaultSVGWidth
	if text := v.Get("width"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < timeline.MinSVGWidth || n > timeline.MaxSVGWidth {
			return badRequest(w, snap, "width "+strconv.Quote(text)+": want "+strconv.Itoa(timeline.MinSVGWidth)+".."+strconv.Itoa(timeline.MaxSVGWidth)+" pixels")
		}
		width = n
	}
	ix := snap.Builder.Index
	if dates := v["date"]; len(dates) > 0 {
		q := selector.Query{Subjects: opts.Subjects, Lang: opts.Lang}
		if len(q.Subjects) == 0 {
			q.Subjects = ix.Subjects()
		}
		for _, text := range dates {
			d, err := corpus.ParseDate(text)
			if err != nil {
				return badRequest(w, snap, "date "+err.Error())
			}
			q.Dates = append(q.Dates, d)
		}
		sel, err := ix.Select(q)
		if err != nil {
			status, d := classify(err)
			return writeError(w, snap, status, d)
		}
		opts.Selected = sel.Sources
	}
	m, err := timeline.Build(ix, opts)
	if err != nil {
		// Every problem Build reports is in the query.
		return badRequest(w, snap, diag.Phrase(err, queryParam))
	}
	switch v.Get("format") {
	case "json":
		out := timelineJSON{From: m.From, Until: m.Until, Today: m.Today, Lanes: []timelineLane{}}
		for _, l := range m.Lanes {
			tl := timelineLane{Subject: l.Subject, Lang: l.Lang, Bars: []timelineBar{}}
			for _, b := range l.Bars {
				tb := timelineBar{SourceID: b.SourceID, Version: b.Version, Lang: b.Lang, ValidFrom: b.ValidFrom.String(),
					Selected: b.Selected, Conflict: b.Conflict, Supplement: b.Supplement}
				if !b.ValidUntil.IsZero() {
					tb.ValidUntil = b.ValidUntil.String()
				}
				tl.Bars = append(tl.Bars, tb)
			}
			out.Lanes = append(out.Lanes, tl)
		}
		return writeJSON(w, snap, http.StatusOK, out)
	case "", "svg":
		var buf bytes.Buffer
		if err := m.WriteSVG(&buf, width); err != nil {
			return writeError(w, snap, http.StatusInternalServerError, errkind.Detail{Kind: string(errkind.Internal), Message: err.Error()})
		}
		setPageHeaders(w.Header())
		writeBody(w, snap, http.StatusOK, "image/svg+xml; charset=utf-8", buf.Bytes())
		return http.StatusOK
	}
	return badRequest(w, snap, "format "+strconv.Quote(v.Get("format"))+": want svg or json")
}
