package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/ka2/ka2/contract"
	"github.com/ka2/ka2/errkind"
)

// The reasons an audited decision is not reproduced (AuditFinding.Reason).
const (
	// ReasonCorpusChanged: the answer differs, and the corpus audited
	// against is not the one the decision was made from.
	ReasonCorpusChanged = "corpus_changed"
	// ReasonUnknownRevision: the decision is to be rebuilt from the git
	// revision it was made from, and it names none or one the repository
	// does not have.
	ReasonUnknownRevision = "unknown_revision"
	// ReasonNotReproducible: the same corpus gives another answer: the
	// audit's settings (definition, counter, limits, policy, lang,
	// short) are not the server's, or ka2's are.
	ReasonNotReproducible = "not_reproducible"
	// ReasonMalformed: a line of the log is not a decision.
	ReasonMalformed = "malformed"
)

// The reasons an audit could not check a decision (AuditFinding.Reason
// in AuditReport.Unchecked).
const (
	// UncheckedNotBuilt: the answer did not come from a build (the
	// server was overloaded, the client went away, the build timed out,
	// the body was never read).
	UncheckedNotBuilt = "not_built"
	// UncheckedRequestNotLogged: the log kept only the request's digest.
	UncheckedRequestNotLogged = "request_not_logged"
	// UncheckedEndpoint: the audit cannot rebuild this endpoint's
	// answers.
	UncheckedEndpoint = "endpoint"
)

// ErrUnknownRevision is wrapped by an AuditConfig.Target error when the
// decision's revision is unknown: the decision is reported with
// ReasonUnknownRevision and the audit goes on.
var ErrUnknownRevision = errors.New("unknown revision")

// AuditConfig is what Audit rebuilds decisions with.
type AuditConfig struct {
	// Settings are the server's (its lang, short and require-evidence
	// flags), applied under each logged request as serve applies them.
	Settings contract.Settings
	// Target returns the builder to rebuild d from: one corpus for all,
	// or the one at the revision d names. An error wrapping
	// ErrUnknownRevision reports d; any other ends the audit.
	Target func(ctx context.Context, d *Decision) (*contract.Builder, error)
}

// AuditReport is what Audit found.
type AuditReport struct {
	// Decisions counts the decision lines read; Reproduced those whose
	// answer was rebuilt the same.
	Decisions  int `json:"decisions"`
	Reproduced int `json:"reproduced"`
	// Differ lists the decisions not reproduced, and lines that are not
	// decisions (ReasonMalformed), in the order of the log.
	Differ []AuditFinding `json:"differ"`
	// Unchecked lists the decisions the audit could not rebuild.
	Unchecked []AuditFinding `json:"unchecked"`
	// Dropped counts the decisions the server answered without a line
	// (its buffer was full), as the log's own lines count them.
	Dropped uint64 `json:"dropped"`
}

// OK reports whether every decision checked was reproduced and every line
// was a decision.
func (r *AuditReport) OK() bool { return len(r.Differ) == 0 }

// AuditFinding is one decision not reproduced or not checked.
type AuditFinding struct {
	// Line is the line of the log, from 1.
	Line     int    `json:"line"`
	ID       string `json:"id,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	// Logged and Rebuilt are the answers compared: a contract's SHA-256,
	// a verification's outcome, or an error's kind.
	Logged  string `json:"logged,omitempty"`
	Rebuilt string `json:"rebuilt,omitempty"`
	// LoggedDigest is the corpus the decision was made from; Digest the
	// one it was rebuilt from.
	LoggedDigest string `json:"logged_digest,omitempty"`
	Digest       string `json:"digest,omitempty"`
}

// maxDecisionLine bounds one line of a decision log: a request body of
// the largest the server takes, escaped as JSON, and the rest.
const maxDecisionLine = 8 * DefaultMaxBodyBytes

// Audit reads a decision log and rebuilds each decision's answer with
// cfg, reporting every one whose answer differs, with the reason, and
// every one it could not rebuild.
func Audit(ctx context.Context, log io.Reader, cfg AuditConfig) (*AuditReport, error) {
	rep := &AuditReport{Differ: []AuditFinding{}, Unchecked: []AuditFinding{}}
	sc := bufio.NewScanner(log)
	sc.Buffer(make([]byte, 0, 64<<10), maxDecisionLine)
	line := 0
	for sc.Scan() {
		line++
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var d Decision
		if err := json.Unmarshal(text, &d); err != nil || (d.ID == "" && d.Dropped == 0) {
			msg := "not a decision"
			if err != nil {
				msg = "not a decision: " + err.Error()
			}
			rep.Differ = append(rep.Differ, AuditFinding{Line: line, Reason: ReasonMalformed, Message: msg})
			continue
		}
		if d.ID == "" {
			rep.Dropped += d.Dropped
			continue
		}
		rep.Decisions++
		f, err := auditOne(ctx, &d, cfg)
		if err != nil {
			return nil, fmt.Errorf("line %d: decision %s: %w", line, d.ID, err)
		}
		switch {
		case f == nil:
			rep.Reproduced++
		case f.Reason == UncheckedNotBuilt || f.Reason == UncheckedRequestNotLogged || f.Reason == UncheckedEndpoint:
			f.Line = line
			rep.Unchecked = append(rep.Unchecked, *f)
		default:
			f.Line = line
			rep.Differ = append(rep.Differ, *f)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return rep, nil
}

// answer is what a decision answered: its status and the SHA-256 of its
// body, and, for a message, the error kind.
type answer struct {
	status int
	sha    string
	kind   string
}

func (a answer) String() string {
	if a.kind != "" {
		return fmt.Sprintf("%d %s %s", a.status, a.kind, short(a.sha))
	}
	return fmt.Sprintf("%d %s", a.status, short(a.sha))
}

func bodyAnswer(status int, body []byte) answer {
	sum := sha256.Sum256(body)
	return answer{status: status, sha: hex.EncodeToString(sum[:])}
}

// errorAnswer is the answer the handlers give for err.
func errorAnswer(err error) (answer, error) {
	status, d := classify(err)
	body, merr := marshal(errkind.Body{Error: d})
	if merr != nil {
		return answer{}, merr
	}
	a := bodyAnswer(status, body)
	a.kind = d.Kind
	return a, nil
}

// builtKinds are the error kinds a build, a parse or a check answers: the
// ones an audit can rebuild. Others (overloaded, canceled, timeout,
// unavailable, internal, method_not_allowed, not_found) say that no build
// ran to its end.
var builtKinds = map[string]bool{
	string(errkind.BadRequest):     true,
	string(errkind.BudgetExceeded): true,
	string(errkind.NoEvidence):     true,
	string(errkind.ContextType):    true,
}

// auditOne rebuilds d; nil means reproduced.
func auditOne(ctx context.Context, d *Decision, cfg AuditConfig) (*AuditFinding, error) {
	f := &AuditFinding{ID: d.ID, Endpoint: d.Endpoint, LoggedDigest: d.Corpus.Digest}
	rebuild := auditors[d.Endpoint]
	switch {
	case rebuild == nil:
		f.Reason, f.Message = UncheckedEndpoint, fmt.Sprintf("the audit does not rebuild %s answers", d.Endpoint)
		return f, nil
	case d.Outcome == OutcomeError && !builtKinds[d.ErrorKind], d.RequestSHA256 == "":
		f.Reason, f.Message = UncheckedNotBuilt, fmt.Sprintf("the answer (%d %s) did not come from a build", d.Status, d.ErrorKind)
		return f, nil
	case d.Request == nil:
		f.Reason, f.Message = UncheckedRequestNotLogged, "the log kept only the request's SHA-256"
		return f, nil
	}
	if sum := sha256.Sum256([]byte(*d.Request)); hex.EncodeToString(sum[:]) != d.RequestSHA256 {
		f.Reason, f.Message = ReasonMalformed, "the request does not match its request_sha256"
		return f, nil
	}
	b, err := cfg.Target(ctx, d)
	if errors.Is(err, ErrUnknownRevision) {
		f.Reason, f.Message = ReasonUnknownRevision, err.Error()
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	f.Digest = b.Index.Corpus().Digest
	logged := answer{status: d.Status, sha: d.AnswerSHA256, kind: d.ErrorKind}
	got, err := rebuild(ctx, b, cfg.Settings, d)
	if err != nil {
		return nil, err
	}
	if got.status == logged.status && got.sha == logged.sha {
		return nil, nil
	}
	f.Logged, f.Rebuilt = logged.String(), got.String()
	if f.Digest != f.LoggedDigest {
		f.Reason = ReasonCorpusChanged
		f.Message = fmt.Sprintf("the answer differs: the corpus is %s, it was %s when decided", short(f.Digest), short(f.LoggedDigest))
	} else {
		f.Reason = ReasonNotReproducible
		f.Message = "the answer differs from the same corpus: the audit's definition, counter, limits, policy or defaults are not the server's, or ka2 changed"
	}
	return f, nil
}

// short abbreviates a digest for a message.
func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// auditors rebuild one endpoint's answer: the steps of its handler, from
// the logged request.
var auditors = map[string]func(ctx context.Context, b *contract.Builder, set contract.Settings, d *Decision) (answer, error){
	"contract": rebuildContract,
	"verify":   rebuildVerify,
}

// rebuildContract builds the logged request with serveContract's steps.
// The server's budget flags are the builder's own counter and limits (the
// audit is given the same flags), and its bounds the definition's
// counters and budget.MaxCapacity: a request the server refused for a
// bound of its own is rebuilt, and reported as not reproduced.
func rebuildContract(ctx context.Context, b *contract.Builder, set contract.Settings, d *Decision) (answer, error) {
	l := b.Limits
	steps := contractSteps{builder: b, settings: set, base: contract.Config{Counter: b.Counter.Name(),
		Capacity: &l.Capacity, Reserve: &l.Reserve, Wrapper: &l.Wrapper}}
	_, res, err := steps.build(ctx, []byte(*d.Request))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return answer{}, cerr
		}
		return errorAnswer(err)
	}
	return bodyAnswer(http.StatusOK, append(res.JSON, '\n')), nil
}

// rebuildVerify checks the logged contract as serveVerify does.
func rebuildVerify(_ context.Context, b *contract.Builder, _ contract.Settings, d *Decision) (answer, error) {
	body := []byte(*d.Request)
	if err := contract.CheckText("contract", body); err != nil {
		return errorAnswer(err)
	}
	q, _ := url.ParseQuery(d.Query)
	out, err := marshal(verifyAnswer(b.Verify(body, q.Get("lang"))))
	if err != nil {
		return answer{}, err
	}
	return bodyAnswer(http.StatusOK, out), nil
}
