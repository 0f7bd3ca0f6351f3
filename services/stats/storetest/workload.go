// Package storetest holds what the stats tests share: the conformance suite every aggregate store
// passes, a generator of event streams of real tables (played by game engines, published by the
// kit's rules service), and a direct computation of the figures those streams should produce. Its
// own workloads play the kit's test game; the end-to-end module (cmd/cardroom) runs the same
// checks on the four games with a Pool of them, so that this module needs no game module.
package storetest

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
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
	// optionKeys are the options the table set, as "option=value" (none: the defaults).
	optionKeys []string
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
	// Moves counts the moves of the complete games' playouts, per game (a pool game played at
	// several tables counts at each).
	Moves map[string]int
	// agg is the aggregation of the pool's games (Aggregator).
	agg stats.Aggregator
}

// Aggregator is the aggregation the stats service runs for the workload's games: it decodes their
// options.
func (w *Workload) Aggregator() stats.Aggregator { return w.agg }

// Lifecycle is one TableCreated or TableFinished message.
type Lifecycle struct {
	Table    *Table
	Finished bool
}

// WorkloadOptions shape a workload.
type WorkloadOptions struct {
	// Games is the number of games played to their end. About one table in 33 more is aborted
	// part-way, and a few more are left in play.
	Games int
	// Players is the size of the human player pool (default 400).
	Players int
	// Faults adds malformed and unknown events, duplicated (republished) events and a TableCreated
	// arriving after its TableFinished.
	Faults bool
	// GameEvents adds up to that many public events of each table's moves (a real game publishes one
	// or more per action), which the consumer reads and skips. The deal's and the last move's events
	// are there for one table in four.
	GameEvents int
	// Reuse, when above 1, has that many tables in a row play the same pool game (with other
	// players): the workload plays Reuse times fewer distinct games. For the race detector, which
	// slows the playouts most.
	Reuse int
}

type workloadKey struct {
	seed uint64
	opts WorkloadOptions
}

// A Pool is the set of games workloads draw their tables from, with the games already played: see
// poolGame. Workloads of one pool are kept for the process: tests and benchmarks asking for the
// same one again share it, and must not change it.
type Pool struct {
	games []*Game

	mu    sync.Mutex
	r     *rand.Rand
	clock time.Time
	drawn []*poolGame

	workloadsMu sync.Mutex
	workloads   map[workloadKey]*Workload
}

// NewPool returns a pool of games, drawn among in this order.
func NewPool(games ...*Game) *Pool {
	return &Pool{games: games, workloads: map[workloadKey]*Workload{}}
}

// testPool is the pool of the package's own workloads (testGames).
var testPool = NewPool(testGames...)

// NewWorkload is testPool's NewWorkload: the kit's test game under two names.
func NewWorkload(seed uint64, opts WorkloadOptions) *Workload {
	return testPool.NewWorkload(seed, opts)
}

// StreamWorkload is testPool's StreamWorkload.
func StreamWorkload(seed uint64, opts WorkloadOptions, send func([]bus.Message)) *Workload {
	return testPool.StreamWorkload(seed, opts, send)
}

// NewWorkload generates a stream of opts.Games finished games (and a few aborted or left in play),
// seeded: the same seed and options give the same stream. Every table is a real one: a game of one
// of the pool's engines, with a seat count and options the engine accepts, played by the engine's
// random playout, dealt and finished by the kit's rules service (see poolGame and service).
// Outcomes, scores, numbers of actions and durations are the games' own.
func (p *Pool) NewWorkload(seed uint64, opts WorkloadOptions) *Workload {
	return p.StreamWorkload(seed, opts, nil)
}

// StreamWorkload is NewWorkload handing the messages to send (when not nil) as they are generated,
// in publication order, in chunks, so that they can be published while later games are still
// being played. It returns when all are sent.
func (p *Pool) StreamWorkload(seed uint64, opts WorkloadOptions, send func([]bus.Message)) *Workload {
	if opts.Players == 0 {
		opts.Players = 400
	}
	k := workloadKey{seed, opts}
	p.workloadsMu.Lock()
	defer p.workloadsMu.Unlock()
	w := p.workloads[k]
	if w == nil {
		w = p.newWorkload(seed, opts, send)
		p.workloads[k] = w
	} else if send != nil {
		for i := 0; i < len(w.Msgs); i += 1000 {
			send(w.Msgs[i:min(i+1000, len(w.Msgs))])
		}
	}
	return w
}

// poolGame is one game of the pool every workload of the process draws its tables from, in order:
// the game, seat count, options, seed, time limit, start and fate are drawn once (seeded), and the
// game is played once by its engine's random playout, however many workloads use it. Workloads
// differ in who sits at the tables, in their faults, and in how many games they take; table n of
// every workload is created at pool game n's start (n/Reuse with WorkloadOptions.Reuse). The pool
// starts one game every 3 s on average: 10,000 games span about nine hours.
type poolGame struct {
	g      *Game
	seats  int
	opts   proto.Message
	keys   []string
	seed   uint64
	turn   time.Duration
	start  time.Time
	fate   fate // complete or aborted
	played *playout
}

// poolGames returns the first n games of the pool, playing those not played yet (in parallel; each
// game draws its playout's choices from its own source, so the result does not depend on the
// schedule).
func (pool *Pool) poolGames(n int) []*poolGame {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.r == nil {
		pool.r = rand.New(rand.NewPCG(0x9a3e5, 0x5eed))
		pool.clock = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	}
	from := len(pool.drawn)
	r := pool.r
	for len(pool.drawn) < n {
		pool.clock = pool.clock.Add(time.Duration(1+r.IntN(6000)) * time.Millisecond)
		g := pool.games[r.IntN(len(pool.games))]
		pg := &poolGame{g: g, seats: g.info.MinSeats + r.IntN(g.info.MaxSeats-g.info.MinSeats+1), seed: r.Uint64(), start: pool.clock}
		pg.opts, pg.keys = g.options(r, pg.seats)
		if r.IntN(3) == 0 {
			pg.turn = 30 * time.Second
		}
		if r.IntN(33) == 0 {
			pg.fate = aborted
		}
		pool.drawn = append(pool.drawn, pg)
	}
	var next atomic.Int64
	next.Store(int64(from))
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(pool.drawn) {
					return
				}
				pg := pool.drawn[i]
				po, err := pg.g.playout(pg, rand.New(rand.NewPCG(0x9a3e5, uint64(i))))
				if err != nil {
					errs <- fmt.Errorf("pool game %d (%s, %d seats): %w", i, pg.g.info.Name, pg.seats, err)
					next.Store(int64(len(pool.drawn)))
					return
				}
				pg.played = po
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		panic(err)
	}
	return pool.drawn[:n]
}

// plannedTable is one table of a workload.
type plannedTable struct {
	n    int // the table's number (from 1)
	t    *Table
	pg   *poolGame
	cfg  *gamev1.TableConfig
	fate fate
	p    *played
}

func (p *Pool) newWorkload(seed uint64, opts WorkloadOptions, send func([]bus.Message)) *Workload {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	inPlayTables := 3 + opts.Games/500
	a := &assembler{w: &Workload{Rejected: map[string]int{}, Moves: map[string]int{}, agg: p.aggregator()}, opts: opts, late: map[*Table]bool{}, latePlayed: map[*Table]*played{}}
	// Tables are planned, played and put in the stream a chunk at a time.
	const chunk = 256
	done, left := 0, 0
	reuse := max(opts.Reuse, 1)
	for i := 0; left < inPlayTables; {
		pgs := p.poolGames((i+chunk)/reuse + 1)
		var plan []*plannedTable
		for ; i/reuse < len(pgs) && left < inPlayTables; i++ {
			pg := pgs[i/reuse]
			f := pg.fate
			switch {
			case done == opts.Games:
				f = inPlay
				left++
			case f == complete:
				done++
			}
			plan = append(plan, newTable(r, i+1, pg, f, opts.Players))
		}
		serve(plan, opts.GameEvents)
		for _, pt := range plan {
			a.table(pt)
		}
		if send != nil && a.sent < len(a.w.Msgs) {
			send(a.w.Msgs[a.sent:])
			a.sent = len(a.w.Msgs)
		}
	}
	a.end()
	if send != nil && a.sent < len(a.w.Msgs) {
		send(a.w.Msgs[a.sent:])
	}
	return a.w
}

// newTable seats players from a pool of players at table number n, which plays pg.
func newTable(r *rand.Rand, n int, pg *poolGame, f fate, players int) *plannedTable {
	t := &Table{ID: fmt.Sprintf("t%06d", n), Game: pg.g.info.Name, Created: pg.start}
	used, usedBot := map[int]bool{}, map[int]bool{}
	for i := range pg.seats {
		p := &gamev1.PlayerRef{Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}
		if r.IntN(10) == 0 {
			b := 1 + r.IntN(12)
			for usedBot[b] {
				b = 1 + r.IntN(12)
			}
			usedBot[b] = true
			p.PlayerId, p.DisplayName, p.Kind = "bot-"+t.Game+"-"+strconv.Itoa(b), "Bot "+strconv.Itoa(b), gamev1.PlayerKind_PLAYER_KIND_BOT
		} else {
			k := r.IntN(players)
			for used[k] {
				k = r.IntN(players)
			}
			used[k] = true
			p.PlayerId, p.DisplayName = fmt.Sprintf("p%04d", k), fmt.Sprintf("Player %d", k)
		}
		t.Seats = append(t.Seats, &gamev1.Seat{Index: uint32(i), Player: p})
	}
	if pg.opts != nil {
		t.Options, t.optionKeys = mustAny(pg.opts), pg.keys
	}
	cfg := &gamev1.TableConfig{Game: t.Game, Seats: t.Seats, Options: t.Options, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: pg.seed}
	if pg.turn > 0 {
		cfg.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(pg.turn)}
	}
	return &plannedTable{n: n, t: t, pg: pg, cfg: cfg, fate: f}
}

// serve sends the planned tables through the games' rules services, in parallel.
func serve(plan []*plannedTable, middle int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			services := map[*Game]*service{}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(plan) {
					return
				}
				pt := plan[i]
				s := services[pt.pg.g]
				if s == nil {
					s = newService(pt.pg.g)
					services[pt.pg.g] = s
				}
				p, err := s.table(pt.t.ID, pt.cfg, pt.pg, pt.fate, middle)
				if err != nil {
					errs <- err
					next.Store(int64(len(plan)))
					return
				}
				pt.p, pt.t.Finished = p, p.Finished
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		panic(err)
	}
}

// assembler puts the tables' messages in one stream in the order of the games' clocks, as they
// come (tables come in the order they are created), and adds the faults.
type assembler struct {
	w    *Workload
	opts WorkloadOptions
	// pending are the batches of tables already created that are not in the stream yet.
	pending batches
	added   int // batches added, for their order among equal times
	n       int // batches in the stream
	// finished counts the tables finished so far.
	finished int
	// late are the tables whose TableCreated is held back until after their TableFinished.
	late       map[*Table]bool
	latePlayed map[*Table]*played
	// sent is how many messages were handed to send.
	sent int
}

// A batch is the messages of a table at one time: its creation, some of its moves, or its end.
type batch struct {
	at   time.Time
	seq  int
	pt   *plannedTable
	kind int // 0 created, 1 moves in between, 2 ended
}

type batches []batch

func (h batches) Len() int { return len(h) }
func (h batches) Less(i, j int) bool {
	return h[i].at.Before(h[j].at) || h[i].at.Equal(h[j].at) && h[i].seq < h[j].seq
}
func (h batches) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *batches) Push(x any)   { *h = append(*h, x.(batch)) }
func (h *batches) Pop() any {
	old := *h
	b := old[len(old)-1]
	*h = old[:len(old)-1]
	return b
}

// table adds a table: what happened before its creation goes in the stream, then its creation.
func (a *assembler) table(pt *plannedTable) {
	a.w.Tables = append(a.w.Tables, pt.t)
	if pt.fate == complete {
		a.w.Moves[pt.t.Game] += pt.pg.played.moves
	}
	for len(a.pending) > 0 && !a.pending[0].at.After(pt.t.Created) {
		a.emit(heap.Pop(&a.pending).(batch))
	}
	a.added++
	a.emit(batch{at: pt.t.Created, seq: a.added, pt: pt})
	if pt.p.Ended != nil {
		p := pt.p
		heap.Push(&a.pending, batch{at: pt.t.Created.Add(p.End.Sub(pt.t.Created) / 2), seq: a.added + 1, pt: pt, kind: 1})
		heap.Push(&a.pending, batch{at: p.End, seq: a.added + 2, pt: pt, kind: 2})
		a.added += 2
	}
}

// end puts the rest in the stream.
func (a *assembler) end() {
	for len(a.pending) > 0 {
		a.emit(heap.Pop(&a.pending).(batch))
	}
	for _, t := range a.w.Tables {
		if a.late[t] {
			a.w.add(t, a.latePlayed[t].Created[0], true)
		}
	}
}

// The consumer aggregates TableCreated and TableFinished and skips the games' other public events
// (the rules services put only public events on the stream). Publishing every event of the deal
// and of the last move would triple the stream: the other public events are kept for one table in
// four, enough to show they are skipped.
func (a *assembler) addAll(pt *plannedTable, msgs []bus.Message) {
	t := pt.t
	for _, m := range msgs {
		if m.Subject == subjects.Public(t.ID) {
			a.w.add(t, m, pt.n%4 == 0)
		}
	}
}

func (a *assembler) emit(b batch) {
	w, opts := a.w, a.opts
	t, p := b.pt.t, b.pt.p
	n := a.n
	a.n++
	switch b.kind {
	case 0:
		msgs := p.Created
		if opts.Faults && n%997 == 500 {
			a.late[t] = true
			a.latePlayed[t] = p
			msgs = msgs[1:]
		}
		a.addAll(b.pt, msgs)
	case 1:
		for _, m := range p.Middle {
			w.add(t, m, true)
		}
	case 2:
		a.addAll(b.pt, p.Ended)
		a.finished++
		if opts.Faults && a.finished%1000 == 10 {
			w.republish(t, p.Ended) // a republication past the dedupe window
		}
		if opts.Faults && a.finished%1500 == 20 {
			w.republish(t, p.Created[:1])
		}
		if a.late[t] {
			w.add(t, p.Created[0], true)
			delete(a.late, t)
		}
		if opts.Faults && a.finished%2000 == 7 {
			w.faults(t, b.at)
		}
	}
}

// add appends a message of table t's public subject, noting what it is; a game's own event only
// when games is set.
func (w *Workload) add(t *Table, m bus.Message, games bool) {
	env := &eventsv1.Event{}
	if err := proto.Unmarshal(m.Data, env); err != nil {
		panic(err)
	}
	switch {
	case env.GetPayload().MessageIs(&eventsv1.TableCreated{}):
		w.Lifecycle = append(w.Lifecycle, Lifecycle{Table: t})
	case env.GetPayload().MessageIs(&eventsv1.TableFinished{}):
		w.Lifecycle = append(w.Lifecycle, Lifecycle{Table: t, Finished: true})
	case games:
		w.Ignored++
	default:
		return
	}
	w.Msgs = append(w.Msgs, m)
}

// republish publishes again the lifecycle messages among msgs under new message ids, as a
// republication after the bus's deduplication window does.
func (w *Workload) republish(t *Table, msgs []bus.Message) {
	for _, m := range msgs {
		m.ID += ":republished"
		if m.Subject == subjects.Public(t.ID) {
			w.add(t, m, false)
		}
	}
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

// faults adds one event of each kind the consumer must reject.
func (w *Workload) faults(t *Table, at time.Time) {
	add := func(subject string, data []byte, reason string) {
		w.Msgs = append(w.Msgs, bus.Message{Subject: subject, ID: fmt.Sprintf("fault:%d", len(w.Msgs)), Data: data})
		w.Rejected[reason]++
	}
	pub := subjects.Public(t.ID)
	add(pub, []byte("\xff\xff not a protobuf"), stats.ReasonUndecodable)
	add(pub, w.envelope(t, 99, at, mustAny(durationpb.New(time.Second)), -1), stats.ReasonUnknownPayload)
	add(pub, w.envelope(t, 99, at, mustAny(&eventsv1.Visibility{}), -1), stats.ReasonUnknownPayload)
	add(subjects.Public(t.ID+"x"), w.envelope(t, 99, at, mustAny(&eventsv1.TableCreated{Config: &gamev1.TableConfig{Game: t.Game}}), -1), stats.ReasonSubjectMismatch)
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
	return strings.HasSuffix(subject, suffix) && strings.HasPrefix(subject, subjects.Prefix()+".table.")
}

// LastPublicSeq is the stream sequence of the last message the consumer reads.
func (w *Workload) LastPublicSeq() uint64 {
	p := w.Public()
	return p[len(p)-1].Seq
}

func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err)
	}
	return a
}

// Aggregator is the aggregation of the package's own workloads (NewWorkload, StreamWorkload): the
// stats service as it runs for the test games.
func Aggregator() stats.Aggregator { return testPool.aggregator() }

// aggregator is the aggregation the stats service runs for the pool's games: it decodes their
// options.
func (p *Pool) aggregator() stats.Aggregator {
	var options []proto.Message
	for _, g := range p.games {
		options = append(options, g.info.Options)
	}
	return stats.NewAggregator(options...)
}
