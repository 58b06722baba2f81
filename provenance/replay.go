package provenance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ka2/ka2/internal/diag"
	"github.com/ka2/ka2/internal/jsontext"
)

// Replay reads a history that WriteHistory wrote (name is used in error
// messages) and performs every Add and Transform again, in order, on a new
// store under policy p (nil means DefaultPolicy), with each event's time
// as the clock. It returns the new store when every event ends as the
// history says: the same outcome, the same item key and the same error
// code. Otherwise it returns an *Error with CodeReplay naming the line of
// the first event that ends differently. Replaying under another policy
// shows which recorded decisions that policy would change.
//
// A refusal of an item the store did not hold (CodeNotHeld) is checked for
// its key only: the item the caller passed is not in the history.
func Replay(name string, r io.Reader, p *Policy) (*Store, error) {
	var clock time.Time
	s := NewStore(p, WithClock(func() time.Time { return clock }))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	line := 0
	fail := func(format string, args ...any) error {
		return &Error{Diagnostic: diag.Diagnostic{Pos: diag.Pos{Path: name, Line: line}, Code: CodeReplay, Message: fmt.Sprintf(format, args...), Hint: diag.Fix("the history was changed, or the policy decides differently")}, Op: "replay"}
	}
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if e := jsontext.Check(sc.Bytes()); e != nil {
			return nil, fail("not a history event: column %d: %s: invalid text: %s", e.Col, e.Describe(), e.Msg)
		}
		var ev Event
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			return nil, fail("not a history event: %v", err)
		}
		if want := s.seq(); ev.Seq != want {
			return nil, fail("event seq %d, want %d: an event is missing or out of order", ev.Seq, want)
		}
		if ev.ContentID != ContentID(ev.Text) || ev.ExactSHA256 != ExactDigest(ev.Text) {
			return nil, fail("event %d: content_id or exact_sha256 does not match its text", ev.Seq)
		}
		clock = ev.Created
		var got Item
		var err error
		switch ev.Op {
		case OpAdd:
			c := Item{Kind: ev.Type, Source: ev.Source, Text: ev.Text, Created: ev.Created}
			if ev.Example != nil {
				c.Example = *ev.Example
			}
			if ev.Ref != nil {
				c.Ref = *ev.Ref
			}
			got, err = s.Add(c)
		case OpTransform:
			held, ok := s.Item(ev.From)
			if ev.Error != nil && ev.Error.Code == CodeNotHeld {
				s.mu.Lock()
				e := *ev.Error
				s.history = append(s.history, Event{Seq: ev.Seq, Op: OpTransform, Outcome: OutcomeRefused, Type: ev.Type, Source: ev.Source,
					From: ev.From, ContentID: ev.ContentID, ExactSHA256: ev.ExactSHA256, Text: ev.Text, Created: ev.Created, Error: &e})
				s.mu.Unlock()
				continue
			}
			if !ok {
				held = Item{Key: ev.From, Source: ev.Source, Text: ev.Text}
			}
			got, err = s.Transform(held, ev.Type)
		default:
			return nil, fail("event %d: unknown op %q", ev.Seq, ev.Op)
		}
		s.mu.RLock()
		last := s.history[len(s.history)-1]
		s.mu.RUnlock()
		switch {
		case last.Outcome != ev.Outcome:
			return nil, fail("event %d (%s %s from %s): the history says %s, the replay %s%s", ev.Seq, ev.Op, ev.Type, ev.Source, ev.Outcome, last.Outcome, because(err))
		case err != nil && ev.Error != nil && err.(*Error).Code != ev.Error.Code:
			return nil, fail("event %d: the history refused it as %s, the replay as %s", ev.Seq, ev.Error.Code, err.(*Error).Code)
		case err == nil && got.Key != ev.Item:
			return nil, fail("event %d: the history made item %s, the replay %s", ev.Seq, ShortID(ev.Item), ShortID(got.Key))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail("read history: %v", err)
	}
	return s, nil
}

func because(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}
