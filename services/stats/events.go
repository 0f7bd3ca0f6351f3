package stats

import (
	"context"
	"errors"
	"fmt"
	"strings"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	"cardroom.dev/services/kit/bus"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Rejection reasons: stable codes, counted per reason in the ingest counters.
const (
	ReasonUndecodable        = "undecodable_envelope"
	ReasonMissingField       = "missing_field"
	ReasonSubjectMismatch    = "subject_mismatch"
	ReasonUnknownPayload     = "unknown_payload"
	ReasonUndecodablePayload = "undecodable_payload"
	ReasonInvalidEvent       = "invalid_event"
)

// Message is one message read from the stream.
type Message struct {
	Subject string
	Data    []byte
	// Seq is the stream sequence.
	Seq uint64
	// trace, when set, gives the publisher's trace context (read only for the messages traced).
	trace func(context.Context) context.Context
}

type eventKind int

const (
	kindRejected eventKind = iota
	kindIgnored
	kindCreated
	kindFinished
)

// event is a decoded message.
type event struct {
	seq      uint64
	kind     eventKind
	reason   string
	err      error
	subject  string
	env      *eventsv1.Event
	created  *eventsv1.TableCreated
	finished *eventsv1.TableFinished
	trace    func(context.Context) context.Context
}

var (
	createdName  = (&eventsv1.TableCreated{}).ProtoReflect().Descriptor().FullName()
	finishedName = (&eventsv1.TableFinished{}).ProtoReflect().Descriptor().FullName()
)

func reject(e *event, reason string, err error) *event {
	e.kind, e.reason, e.err = kindRejected, reason, err
	return e
}

// decode classifies one message: TableCreated and TableFinished are aggregated; a game's own
// public events (payload in package cardroom.<game>.v1) are ignored; anything else is rejected.
func decode(m Message, subj bus.Subjects) *event {
	e := &event{seq: m.Seq, subject: m.Subject, trace: m.trace}
	env := &eventsv1.Event{}
	if err := proto.Unmarshal(m.Data, env); err != nil {
		return reject(e, ReasonUndecodable, err)
	}
	e.env = env
	switch {
	case env.GetTableId() == "":
		return reject(e, ReasonMissingField, errors.New("no table_id"))
	case env.GetGame() == "":
		return reject(e, ReasonMissingField, errors.New("no game"))
	case env.GetPayload() == nil:
		return reject(e, ReasonMissingField, errors.New("no payload"))
	case m.Subject != subj.Public(env.GetTableId()):
		return reject(e, ReasonSubjectMismatch, fmt.Errorf("table %q published on %q", env.GetTableId(), m.Subject))
	}
	name := env.GetPayload().MessageName()
	switch name {
	case createdName:
		c := &eventsv1.TableCreated{}
		if err := env.GetPayload().UnmarshalTo(c); err != nil {
			return reject(e, ReasonUndecodablePayload, err)
		}
		if err := checkCreated(env, c); err != nil {
			return reject(e, ReasonInvalidEvent, err)
		}
		e.kind, e.created = kindCreated, c
		return e
	case finishedName:
		f := &eventsv1.TableFinished{}
		if err := env.GetPayload().UnmarshalTo(f); err != nil {
			return reject(e, ReasonUndecodablePayload, err)
		}
		if err := checkFinished(env, f); err != nil {
			return reject(e, ReasonInvalidEvent, err)
		}
		e.kind, e.finished = kindFinished, f
		return e
	}
	if isGameEvent(env.GetGame(), name) {
		e.kind = kindIgnored
		return e
	}
	return reject(e, ReasonUnknownPayload, fmt.Errorf("payload %q", env.GetPayload().GetTypeUrl()))
}

func isGameEvent(game string, name protoreflect.FullName) bool {
	pkg := "cardroom." + game + ".v1."
	return strings.HasPrefix(string(name), pkg) && !strings.Contains(string(name)[len(pkg):], ".")
}

func checkCreated(env *eventsv1.Event, c *eventsv1.TableCreated) error {
	cfg := c.GetConfig()
	if cfg.GetGame() != env.GetGame() {
		return fmt.Errorf("config game %q in a %q event", cfg.GetGame(), env.GetGame())
	}
	if len(cfg.GetSeats()) == 0 {
		return errors.New("no seats")
	}
	return nil
}

func checkFinished(env *eventsv1.Event, f *eventsv1.TableFinished) error {
	cfg := f.GetConfig()
	if cfg.GetGame() != env.GetGame() {
		return fmt.Errorf("config game %q in a %q event", cfg.GetGame(), env.GetGame())
	}
	n := len(cfg.GetSeats())
	if n == 0 {
		return errors.New("no seats")
	}
	if f.GetOutcome() == nil {
		return errors.New("no outcome")
	}
	if f.GetStartedAt() == nil || f.GetFinishedAt() == nil {
		return errors.New("no start or finish time")
	}
	if f.GetFinishedAt().AsTime().Before(f.GetStartedAt().AsTime()) {
		return errors.New("finished before it started")
	}
	if f.GetOutcome().GetAborted() {
		return nil
	}
	res := f.GetOutcome().GetResults()
	if len(res) != n {
		return fmt.Errorf("%d results for %d seats", len(res), n)
	}
	seen := make([]bool, n)
	for _, r := range res {
		if int(r.GetSeat()) >= n || seen[r.GetSeat()] {
			return fmt.Errorf("result for seat %d", r.GetSeat())
		}
		seen[r.GetSeat()] = true
		if r.GetRank() == 0 || int(r.GetRank()) > n {
			return fmt.Errorf("rank %d", r.GetRank())
		}
	}
	return nil
}
