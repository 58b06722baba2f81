package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// RunInfo says when a report's run ran, with which ka2, on what inputs
// and where, so a report read months later (`ka2 report history`) can
// say what changed between two nights.
type RunInfo struct {
	// Started and Finished are the run's clock readings, RFC 3339 in UTC
	// to the millisecond (TimeFormat); empty when the run had no clock.
	Started  string `json:"started,omitempty"`
	Finished string `json:"finished,omitempty"`
	// DurationMS is Finished less Started, in milliseconds.
	DurationMS int `json:"duration_ms"`
	// Tool is the ka2 that ran the cases.
	Tool Tool `json:"ka2"`
	// Host is the machine's name; empty when the front end leaves it out.
	Host string `json:"host,omitempty"`
	// Repository is the git commit of the case files' repository, when
	// they are in one.
	Repository *Repository `json:"repository,omitempty"`
	// Corpora are the corpora the cases built with, by location, with the
	// digest serve reports for each (corpus.Corpus.Digest).
	Corpora []CorpusDigest `json:"corpora"`
	// CaseFiles are every case file of the suite (of every shard), by
	// path, with the SHA-256 of its bytes.
	CaseFiles []FileDigest `json:"case_files"`
}

// TimeFormat is how RunInfo writes times: fixed width, so that the text
// of two times sorts as the times do.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Tool identifies a ka2 binary.
type Tool struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	Go       string `json:"go,omitempty"`
}

// Repository is the git state of the case files' repository.
type Repository struct {
	Commit string `json:"commit"`
}

// CorpusDigest is one corpus a run read.
type CorpusDigest struct {
	Location string `json:"location"`
	Digest   string `json:"digest"`
	Sources  int    `json:"sources"`
}

// FileDigest is one case file a run read.
type FileDigest struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// fileDigest is the hex SHA-256 of data.
func fileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// stamp records the run's times and inputs in rep.
func stamp(rep *Report, s *Suite, opts Options, started time.Time) {
	info := opts.Info
	info.Corpora = slices.Clone(s.Corpora)
	info.CaseFiles = slices.Clone(s.CaseFiles)
	if info.Corpora == nil {
		info.Corpora = []CorpusDigest{}
	}
	if info.CaseFiles == nil {
		info.CaseFiles = []FileDigest{}
	}
	if opts.Clock != nil {
		finished := opts.Clock()
		info.Started = started.UTC().Format(TimeFormat)
		info.Finished = finished.UTC().Format(TimeFormat)
		info.DurationMS = int(finished.Sub(started).Milliseconds())
	}
	rep.Run = &info
}

// mergeRuns combines the run information of a run's shards: the earliest
// start, the latest finish, and what they all agree on. Shards that read
// different corpora or case files, or ran different ka2 builds, are not
// one run. When any shard has no run information (an older ka2), the
// merged report has none.
func mergeRuns(reports []*Report) (*RunInfo, error) {
	for _, r := range reports {
		if r.Run == nil {
			return nil, nil
		}
	}
	first := reports[0].Run
	out := *first
	for _, r := range reports[1:] {
		ri := r.Run
		switch {
		case ri.Tool != first.Tool:
			return nil, fmt.Errorf("%w: shards ran different ka2 builds (%s and %s)", ErrMerge, toolName(first.Tool), toolName(ri.Tool))
		case !slices.Equal(ri.Corpora, first.Corpora):
			return nil, fmt.Errorf("%w: shards read different corpora (digests %s and %s)", ErrMerge, corporaName(first.Corpora), corporaName(ri.Corpora))
		case !slices.Equal(ri.CaseFiles, first.CaseFiles):
			return nil, fmt.Errorf("%w: shards read different case files", ErrMerge)
		}
		if ri.Started != "" && (out.Started == "" || ri.Started < out.Started) {
			out.Started = ri.Started
		}
		if ri.Finished > out.Finished {
			out.Finished = ri.Finished
		}
		if ri.Host != out.Host {
			out.Host = "" // more than one machine: none names the run
		}
		if out.Repository != nil && (ri.Repository == nil || *ri.Repository != *out.Repository) {
			out.Repository = nil
		}
	}
	out.DurationMS = 0
	if s, err1 := time.Parse(TimeFormat, out.Started); err1 == nil {
		if f, err2 := time.Parse(TimeFormat, out.Finished); err2 == nil {
			out.DurationMS = int(f.Sub(s).Milliseconds())
		}
	}
	return &out, nil
}

func toolName(t Tool) string {
	s := t.Version
	if t.Revision != "" {
		s += " " + shortRev(t.Revision)
	}
	return s
}

func corporaName(c []CorpusDigest) string {
	var parts []string
	for _, d := range c {
		parts = append(parts, d.Location+"@"+shortRev(d.Digest))
	}
	return strings.Join(parts, ", ")
}

// shortRev is the first 12 characters of a commit or digest.
func shortRev(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
