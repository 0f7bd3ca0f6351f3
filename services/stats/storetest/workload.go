// Package storetest holds what the stats tests share: the conformance suite every aggregate store
// passes, a generator of realistic event streams, and a direct computation of the figures those
// streams should produce.
package storetest

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/stats"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Table is one generated table.
type Table struct {
	ID, Game string
	Seats    []*gamev1.Seat
	Options  *anypb.Any
	Created  time.Time
	// Finished is nil for a table still in play at the end of the stream.
	Finished *eventsv1.TableFinished
}

// Workload is a generated stream: the messages in publication order and what they mean.
type Workload struct {
	Msgs   []bus.Message
	Tables []*Table
	// Lifecycle lists the TableCreated/TableFinished messages on public subjects in order (table,
	// finished), duplicates and late ones included.
	Lifecycle []Lifecycle
	// Ignored counts the games' own public events; Rejected the malformed ones by reason.
	Ignored  int
	Rejected map[string]int
}

// Lifecycle is one TableCreated or TableFinished message.
type Lifecycle struct {
	Table    *Table
	Finished bool
}

// WorkloadOptions shape a workload.
type WorkloadOptions struct {
	Games int
	// Players is the size of the human player pool (default 400).
	Players int
	// Faults adds malformed and unknown events, duplicated (republished) events and a TableCreated
	// arriving after its TableFinished.
	Faults bool
	// GameEvents adds about that many public game events per table (a real game publishes one or more
	// per action), which the consumer reads and skips.
	GameEvents int
}

type gameSpec struct {
	name           string
	minSeats, maxS int
	scoreMax       int
	scoreMin       int
	actions        [2]int
	options        func(r *rand.Rand) *anypb.Any
}

var specs = []gameSpec{
	{"sapotagem", 3, 6, 60, 0, [2]int{40, 220}, func(r *rand.Rand) *anypb.Any {
		switch r.IntN(4) {
		case 0:
			return mustAny(&sapotagemv1.Options{UnderArrest: true})
		case 1:
			return mustAny(&sapotagemv1.Options{FrogsOnDuty: true, UnderArrest: r.IntN(2) == 0})
		}
		return nil
	}},
	{"sponsio", 3, 5, 40, -10, [2]int{60, 300}, func(*rand.Rand) *anypb.Any { return nil }},
	{"sabaisabai", 2, 6, 150, 0, [2]int{30, 400}, func(r *rand.Rand) *anypb.Any {
		if r.IntN(3) == 0 {
			return mustAny(&sabaisabaiv1.Options{Rounds: uint32(1 + r.IntN(3)), PeekAtStart: uint32(r.IntN(3))})
		}
		return nil
	}},
	{"saboteur", 3, 10, 12, 0, [2]int{50, 250}, func(*rand.Rand) *anypb.Any { return nil }},
}

func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err)
	}
	return a
}

type inPlay struct {
	t   *Table
	seq uint64
}

// NewWorkload generates a stream of opts.Games finished games (and a few left in play), seeded.
// Outcomes are synthetic but shaped like real ones: hidden skills, a first-seat advantage, ties,
// aborted tables, bots, per-game options.
func NewWorkload(seed uint64, opts WorkloadOptions) *Workload {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	if opts.Players == 0 {
		opts.Players = 400
	}
	skill := make([]float64, opts.Players)
	for i := range skill {
		skill[i] = r.NormFloat64()
	}
	w := &Workload{Rejected: map[string]int{}}
	clock := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var open []*inPlay
	finished := 0
	tableN := 0
	var late []*Table // tables whose TableCreated is held back until after their TableFinished
	for finished < opts.Games {
		clock = clock.Add(time.Duration(1+r.IntN(3000)) * time.Millisecond)
		if len(open) < 40 && (len(open) < 5 || r.IntN(2) == 0) {
			tableN++
			spec := specs[r.IntN(len(specs))]
			n := spec.minSeats + r.IntN(spec.maxS-spec.minSeats+1)
			t := &Table{ID: fmt.Sprintf("t%06d", tableN), Game: spec.name, Options: spec.options(r), Created: clock}
			used, usedBot := map[int]bool{}, map[int]bool{}
			for i := range n {
				p := &gamev1.PlayerRef{Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}
				if r.IntN(10) == 0 {
					b := 1 + r.IntN(12)
					for usedBot[b] {
						b = 1 + r.IntN(12)
					}
					usedBot[b] = true
					p.PlayerId, p.DisplayName, p.Kind = "bot-"+spec.name+"-"+strconv.Itoa(b), "Bot "+strconv.Itoa(b), gamev1.PlayerKind_PLAYER_KIND_BOT
				} else {
					k := r.IntN(opts.Players)
					for used[k] {
						k = r.IntN(opts.Players)
					}
					used[k] = true
					p.PlayerId, p.DisplayName = fmt.Sprintf("p%04d", k), fmt.Sprintf("Player %d", k)
				}
				t.Seats = append(t.Seats, &gamev1.Seat{Index: uint32(i), Player: p})
			}
			w.Tables = append(w.Tables, t)
			ip := &inPlay{t: t, seq: 1}
			if opts.Faults && tableN%997 == 500 {
				late = append(late, t)
			} else {
				w.lifecycle(t, false, 1, clock, "")
			}
			open = append(open, ip)
			continue
		}
		i := r.IntN(len(open))
		ip := open[i]
		// A few public game events and a private one.
		for range r.IntN(3) {
			ip.seq++
			w.event(ip.t, ip.seq, clock, &anypb.Any{TypeUrl: "type.googleapis.com/cardroom." + ip.t.Game + ".v1.CardPlayed"}, -1)
			w.Ignored++
		}
		for range opts.GameEvents {
			ip.seq++
			w.event(ip.t, ip.seq, clock, &anypb.Any{TypeUrl: "type.googleapis.com/cardroom." + ip.t.Game + ".v1.CardPlayed"}, -1)
			w.Ignored++
		}
		if r.IntN(5) == 0 {
			ip.seq++
			w.event(ip.t, ip.seq, clock, &anypb.Any{TypeUrl: "type.googleapis.com/cardroom." + ip.t.Game + ".v1.HandDealt"}, 0)
		}
		if r.IntN(6) == 0 {
			continue // still playing
		}
		open = append(open[:i], open[i+1:]...)
		t := ip.t
		spec := specOf(t.Game)
		t.Finished = finish(r, spec, t, skill, clock)
		ip.seq++
		w.lifecycle(t, true, ip.seq, clock, "")
		finished++
		if opts.Faults && finished%1000 == 10 {
			w.lifecycle(t, true, ip.seq, clock, ":republished") // a republication past the dedupe window
		}
		if opts.Faults && finished%1500 == 20 {
			w.lifecycle(t, false, 1, clock, ":republished")
		}
		for j := 0; j < len(late); j++ {
			if late[j] == t {
				w.lifecycle(t, false, 1, clock, "")
				late = append(late[:j], late[j+1:]...)
				j--
			}
		}
		if opts.Faults && finished%2000 == 7 {
			w.faults(t, clock)
		}
	}
	for _, t := range late {
		w.lifecycle(t, false, 1, clock, "")
	}
	return w
}

func specOf(game string) gameSpec {
	for _, s := range specs {
		if s.name == game {
			return s
		}
	}
	panic(game)
}

func finish(r *rand.Rand, spec gameSpec, t *Table, skill []float64, clock time.Time) *eventsv1.TableFinished {
	n := len(t.Seats)
	f := &eventsv1.TableFinished{
		Config:    &gamev1.TableConfig{Game: t.Game, Seats: t.Seats, Options: t.Options, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_RANDOM, Seed: r.Uint64()},
		StartedAt: timestamppb.New(t.Created), FinishedAt: timestamppb.New(clock),
	}
	if r.IntN(33) == 0 {
		f.Outcome = &gamev1.Outcome{Aborted: true, Summary: "aborted"}
		f.Actions = uint64(r.IntN(spec.actions[0]))
		return f
	}
	f.Actions = uint64(spec.actions[0] + r.IntN(spec.actions[1]-spec.actions[0]))
	scores := make([]int64, n)
	span := float64(spec.scoreMax - spec.scoreMin)
	for i, s := range t.Seats {
		k := 0.0
		if id := s.GetPlayer().GetPlayerId(); len(id) == 5 && id[0] == 'p' {
			x, _ := strconv.Atoi(id[1:])
			k = skill[x]
		}
		v := 0.5 + 0.15*k + 0.12*r.NormFloat64()
		if i == 0 {
			v += 0.04 // first-seat advantage
		}
		sc := int64(float64(spec.scoreMin) + v*span)
		scores[i] = min(max(sc, int64(spec.scoreMin)), int64(spec.scoreMax))
	}
	res := make([]*gamev1.SeatResult, n)
	for i := range n {
		rank := uint32(1)
		for j := range n {
			if scores[j] > scores[i] {
				rank++
			}
		}
		res[i] = &gamev1.SeatResult{Seat: uint32(i), Score: scores[i], Rank: rank, Winner: rank == 1}
	}
	// Results in rank order, as engines tend to report them.
	sort.SliceStable(res, func(a, b int) bool { return res[a].Rank < res[b].Rank })
	f.Outcome = &gamev1.Outcome{Results: res, Summary: "done"}
	return f
}

func (w *Workload) envelope(t *Table, seq uint64, at time.Time, payload *anypb.Any, seat int) []byte {
	e := &eventsv1.Event{TableId: t.ID, Game: t.Game, Sequence: seq, Time: timestamppb.New(at), Payload: payload,
		Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}}
	if seat >= 0 {
		e.Visibility.Audience = &eventsv1.Visibility_Seat{Seat: uint32(seat)}
	}
	b, err := proto.Marshal(e)
	if err != nil {
		panic(err)
	}
	return b
}

func (w *Workload) event(t *Table, seq uint64, at time.Time, payload *anypb.Any, seat int) {
	subject := bus.PublicSubject(t.ID)
	if seat >= 0 {
		subject = bus.SeatSubject(t.ID, seat)
	}
	w.Msgs = append(w.Msgs, bus.Message{Subject: subject, ID: t.ID + ":" + strconv.FormatUint(seq, 10), Data: w.envelope(t, seq, at, payload, seat)})
}

func (w *Workload) lifecycle(t *Table, finished bool, seq uint64, at time.Time, idSuffix string) {
	var payload *anypb.Any
	if finished {
		payload = mustAny(t.Finished)
	} else {
		cfg := &gamev1.TableConfig{Game: t.Game, Seats: t.Seats, Options: t.Options, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_RANDOM}
		payload = mustAny(&eventsv1.TableCreated{Config: cfg})
	}
	data := w.envelope(t, seq, at, payload, -1)
	id := t.ID + ":" + strconv.FormatUint(seq, 10) + idSuffix
	w.Msgs = append(w.Msgs, bus.Message{Subject: bus.PublicSubject(t.ID), ID: id, Data: data})
	w.Lifecycle = append(w.Lifecycle, Lifecycle{Table: t, Finished: finished})
	if finished {
		w.Msgs = append(w.Msgs, bus.Message{Subject: bus.FinishedSubject(t.Game), ID: id + ":finished", Data: data})
	}
}

// faults adds one event of each kind the consumer must reject.
func (w *Workload) faults(t *Table, at time.Time) {
	add := func(subject string, data []byte, reason string) {
		w.Msgs = append(w.Msgs, bus.Message{Subject: subject, ID: fmt.Sprintf("fault:%d", len(w.Msgs)), Data: data})
		w.Rejected[reason]++
	}
	pub := bus.PublicSubject(t.ID)
	add(pub, []byte("\xff\xff not a protobuf"), stats.ReasonUndecodable)
	add(pub, w.envelope(t, 99, at, mustAny(durationpb.New(time.Second)), -1), stats.ReasonUnknownPayload)
	add(pub, w.envelope(t, 99, at, mustAny(&eventsv1.Visibility{}), -1), stats.ReasonUnknownPayload)
	add(bus.PublicSubject(t.ID+"x"), w.envelope(t, 99, at, mustAny(&eventsv1.TableCreated{Config: &gamev1.TableConfig{Game: t.Game}}), -1), stats.ReasonSubjectMismatch)
	bad := proto.CloneOf(t.Finished)
	bad.Outcome = &gamev1.Outcome{Results: []*gamev1.SeatResult{{Seat: 0, Rank: 1, Winner: true}}}
	add(pub, w.envelope(t, 99, at, mustAny(bad), -1), stats.ReasonInvalidEvent)
	noTable := &eventsv1.Event{Game: t.Game, Payload: mustAny(bad)}
	b, _ := proto.Marshal(noTable)
	add(pub, b, stats.ReasonMissingField)
	add(pub, w.envelope(t, 99, at, &anypb.Any{TypeUrl: "type.googleapis.com/cardroom.events.v1.TableFinished", Value: []byte{0xff}}, -1), stats.ReasonUndecodablePayload)
}

// Public returns the messages the stats consumer reads (public subjects), numbered with the stream
// sequences they get when w.Msgs are published in order on an empty stream.
func (w *Workload) Public() []stats.Message {
	var out []stats.Message
	for i, m := range w.Msgs {
		if isPublic(m.Subject) {
			out = append(out, stats.Message{Subject: m.Subject, Data: m.Data, Seq: uint64(i + 1)})
		}
	}
	return out
}

func isPublic(subject string) bool {
	const suffix = ".public"
	return len(subject) > len(suffix) && subject[len(subject)-len(suffix):] == suffix && subject[:15] == "cardroom.table."
}

// LastPublicSeq is the stream sequence of the last message the consumer reads.
func (w *Workload) LastPublicSeq() uint64 {
	p := w.Public()
	return p[len(p)-1].Seq
}
