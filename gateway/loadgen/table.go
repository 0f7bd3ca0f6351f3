package loadgen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// fastOptions are the options of the generator's tables of game. sabai-sabai's reflex window and
// bots' delays (Rulings R1 and B1) pace a table for people, 800 ms a turn at least; a load test
// measures the service, so its tables set them to 0 and play as fast as the players answer.
func fastOptions(game string) *anypb.Any {
	if game != "sabaisabai" {
		return nil
	}
	zero := durationpb.New(0)
	a, err := anypb.New(&sabaisabaiv1.Options{ThrowWindow: zero, BotReactionMin: zero, BotReactionMax: zero, BotThink: zero})
	if err != nil {
		panic(err) // a fixed message always marshals
	}
	return a
}

// optionalOdds is how seldom a seat plays a list of optional moves only (see optionalOnly): one
// such list in optionalOdds.
const optionalOdds = 8

// optionalOnly reports whether every action of a list of game's is a move the game never waits
// for, which any seat may make at any moment: sabai-sabai's throws and sabai sabai calls. Every
// seat of a sabai-sabai table is listed some at every version; if each played them as soon as
// listed, three of four calls at each version would be overtaken by another seat's move and refused
// (about 1,700 refused calls a second at full load, each a round trip through the gateway and the
// rules service), so a seat plays such a list once in optionalOdds. The seat to act, whose list
// has the move the game waits for, plays as before (a throw or a call among its choices too).
//
// The actions are encoded google.protobuf.Any messages, as a list brings them (see legalList):
// an action that is not a sabai-sabai Action, or not a valid one, makes the list not optional.
func optionalOnly(game string, actions [][]byte) bool {
	if game != "sabaisabai" || len(actions) == 0 {
		return false
	}
	for _, x := range actions {
		if !optionalMove(x) {
			return false
		}
	}
	return true
}

// optionalMove reports whether an encoded Any is a sabai-sabai throw or sabai sabai call.
func optionalMove(action []byte) bool {
	k := sabaiKind(action)
	return k == sabaiThrow || k == sabaiCall
}

// Fields of sabai-sabai's Action, the members of its oneof kind (TestWireFieldNumbers checks
// them).
const (
	sabaiThrow protowire.Number = 4 // Action.throw
	sabaiCall  protowire.Number = 7 // Action.call_sabai_sabai
)

var (
	sabaiAction     = string((&sabaisabaiv1.Action{}).ProtoReflect().Descriptor().FullName())
	sabaiActionSpec = specOf((&sabaisabaiv1.Action{}).ProtoReflect().Descriptor())
)

// sabaiKind is the field number of the oneof member set in an encoded Any holding a sabai-sabai
// Action (the last on the wire, as for the generated code); 0 when it is not a valid Action or has
// none set.
func sabaiKind(anyMsg []byte) protowire.Number {
	var typeURL, value []byte
	var f field
	for b := anyMsg; len(b) > 0; {
		var err error
		if b, err = next(anySpec, b, &f); err != nil {
			return 0
		}
		switch f.num {
		case anyTypeURL:
			typeURL = f.b
		default:
			value = f.b
		}
	}
	if !typeIs(typeURL, sabaiAction) {
		return 0
	}
	var kind protowire.Number
	for b := value; len(b) > 0; {
		var err error
		if b, err = next(sabaiActionSpec, b, &f); err != nil {
			return 0
		}
		if fs, _ := sabaiActionSpec.field(f.num); fs.msg != nil && validate(fs.msg, f.b) != nil {
			return 0
		}
		kind = f.num
	}
	return kind
}

// slot keeps one table in play for the whole run: when its table finishes, it opens the next.
type slot struct {
	r      *runner
	game   gameSeats
	cc     grpc.ClientConnInterface // Watch and Act, with the lean messages of wire.go
	client gatewayv1.GatewayServiceClient
	name   string

	mu  sync.Mutex // rnd is shared by the seats
	rnd *mrand.Rand

	players []*player
}

type player struct {
	auth metadata.MD
	// idPrefix (random, per player) and idSeq (counting its actions) make its action ids.
	idPrefix string
	idSeq    uint64
}

func (p *player) ctx(ctx context.Context) context.Context {
	return metadata.NewOutgoingContext(ctx, p.auth)
}

// signIn signs the slot's players in, once for all its tables.
func (s *slot) signIn(ctx context.Context) error {
	for i := range s.game.seats {
		var in *gatewayv1.SignInResponse
		// Sign-ins are rate-limited per client address: a large run waits its turn (or runs
		// against a gateway with a higher CARDROOM_RATE_LIMIT).
		err := s.patient(ctx, func() (err error) {
			in, err = s.client.SignIn(ctx, &gatewayv1.SignInRequest{DisplayName: fmt.Sprintf("%s.%d", s.name, i)})
			return err
		})
		if err != nil {
			return fmt.Errorf("sign in: %w", err)
		}
		s.players = append(s.players, &player{auth: metadata.Pairs("authorization", "Bearer "+in.GetSessionToken()), idPrefix: idPrefix()})
	}
	return nil
}

// patient calls fn until it is not refused by the rate limit.
func (s *slot) patient(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if !throttled(err) {
			return err
		}
		s.r.rec.throttled.Add(1)
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *slot) intn(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rnd.IntN(n)
}

// run plays tables one after another until ctx ends, starting with first (set up before the
// clock started; nil: none).
func (s *slot) run(ctx context.Context, first *opened) {
	o := first
	for ctx.Err() == nil {
		if o == nil {
			var err error
			if o, err = s.open(ctx); err != nil {
				if ctx.Err() == nil {
					s.r.rec.fail(err)
				}
				// A table that cannot be opened: try a new one after a pause.
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
				}
				continue
			}
		}
		s.play(ctx, o)
		o = nil
	}
	if o != nil {
		o.close()
	}
}

// table is one table's shared state while its seats play.
type table struct {
	id string
	// finished closes when the table is over for its seats: it finished, or it was left.
	finished chan struct{}
	once     sync.Once
	left     atomic.Bool
	// watches are the seats' (set before any stream starts): finish wakes them.
	watches []*seatWatch
}

// finish ends the table for its seats, waking those that wait for a list.
func (t *table) finish() {
	t.once.Do(func() {
		close(t.finished)
		for _, w := range t.watches {
			w.signal()
		}
	})
}

// over reports whether the table finished or was left.
func (t *table) over() bool {
	select {
	case <-t.finished:
		return true
	default:
		return false
	}
}

// leave gives the table up (it failed too often): the slot opens another.
func (t *table) leave() {
	t.left.Store(true)
	t.finish()
}

// opened is a slot's table once it is set up: created, every place taken, every seat's stream
// open, dealt.
type opened struct {
	t       *table
	players []*player
	watches []*seatWatch
	streams sync.WaitGroup
	stop    context.CancelFunc
}

// close ends the table's streams and waits for their readers.
func (o *opened) close() {
	o.stop()
	o.streams.Wait()
}

// open sets up the slot's next table. Its streams last until ctx ends or the table is closed.
func (s *slot) open(ctx context.Context) (*opened, error) {
	t0 := time.Now()
	owner := s.players[0]
	var cr *gatewayv1.CreateTableResponse
	// One request id for every try: a retry after a lost answer gets the same table.
	create := &gatewayv1.CreateTableRequest{Game: s.game.name, Seats: uint32(s.game.seats), Options: fastOptions(s.game.name), RequestId: rand.Text()}
	err := s.patient(ctx, func() (err error) {
		cr, err = s.client.CreateTable(owner.ctx(ctx), create)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	t := &table{id: cr.GetTableId(), finished: make(chan struct{})}
	for _, p := range s.players[1:] {
		if err := s.patient(ctx, func() error {
			_, err := s.client.JoinTable(p.ctx(ctx), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()})
			return err
		}); err != nil {
			return nil, fmt.Errorf("join table: %w", err)
		}
	}
	tctx, stop := context.WithCancel(ctx)
	o := &opened{t: t, players: s.players, watches: make([]*seatWatch, len(s.players)), stop: stop}
	for i := range o.watches {
		o.watches[i] = &seatWatch{wake: make(chan struct{}, 1)}
	}
	t.watches = o.watches
	// Each seat follows the table on its own stream, opened before the deal so that it sees
	// every event.
	for i, p := range s.players {
		var w grpc.ClientStream
		if err := s.patient(ctx, func() (err error) {
			w, err = s.watch(p.ctx(tctx), t.id, 0)
			return err
		}); err != nil {
			o.close()
			return nil, fmt.Errorf("watch: %w", err)
		}
		o.streams.Add(1)
		go func() {
			defer o.streams.Done()
			s.follow(tctx, p, t, w, o.watches[i])
		}()
	}
	if err := s.patient(ctx, func() error {
		_, err := s.client.StartTable(owner.ctx(ctx), &gatewayv1.StartTableRequest{TableId: t.id})
		return err
	}); err != nil {
		o.close()
		return nil, fmt.Errorf("start table: %w", err)
	}
	s.r.rec.setup(time.Since(t0))
	return o, nil
}

// play plays an opened table until it finishes or ctx ends, then closes it.
func (s *slot) play(ctx context.Context, o *opened) {
	var seats sync.WaitGroup
	for i, p := range o.players {
		seats.Add(1)
		go func() {
			defer seats.Done()
			s.playSeat(ctx, p, o.t, o.watches[i])
		}()
	}
	seats.Wait()
	o.close()
	// Every applied action raises the table's version by one, whoever made it: the seats' moves,
	// and the timeouts the game applies when a seat lets its time run out.
	var version uint64
	for _, w := range o.watches {
		version = max(version, w.version.Load())
	}
	s.r.rec.tableActions.Add(int64(version))
	select {
	case <-o.t.finished:
		if !o.t.left.Load() {
			s.r.rec.tableFinished()
		}
	default:
	}
}

// seatWatch is what a seat's stream tells its player: the latest table version an event showed,
// when the stream last brought news, the newest legal-action list to play, and a wake-up
// (coalesced) when such a list comes, the table is over, the run ends or the poll is due.
//
// The seat waits on wake alone, its own channel: a select over the table's and the run's done
// channels too had every waiting seat of the run queue on the run's one channel and lock it, at
// every list (a tenth of the load generator's CPU went to select). News the seat has nothing to
// play for (a new version without a list, a list it would drop) does not wake it; the poll's
// clock reads news instead.
type seatWatch struct {
	version atomic.Uint64
	// news is when the stream last raised the version or brought a list
	// (time.Now().UnixNano()): the poll counts its wait from there.
	news atomic.Int64
	wake chan struct{}

	mu    sync.Mutex
	legal *legalList // nil: none to play
}

// saw raises the version the seat knows the table reached (from its stream or its own move's
// answer); true when it grew.
func (sw *seatWatch) saw(v uint64) bool {
	for {
		cur := sw.version.Load()
		if v <= cur {
			return false
		}
		if sw.version.CompareAndSwap(cur, v) {
			return true
		}
	}
}

// sawNews notes that the stream raised the version or brought a list at now.
func (sw *seatWatch) sawNews(now time.Time) { sw.news.Store(now.UnixNano()) }

// offer hands the seat a list from its stream; play is whether the seat plays it if it is still
// current (see worth). The newest list wins, as the seat would play only that one: l replaces an
// older list held, and a list the seat would drop (not to play, or older than a version the
// stream showed) leaves none held, without waking the seat to drop it (half the lists a stream
// brings are empty: the seat's turn has passed).
func (sw *seatWatch) offer(l *legalList, play bool) {
	sw.mu.Lock()
	if sw.legal != nil && l.version < sw.legal.version {
		sw.mu.Unlock()
		return // the seat holds a newer one
	}
	play = play && l.version >= sw.version.Load()
	sw.legal = nil
	if play {
		sw.legal = l
	}
	sw.mu.Unlock()
	if play {
		sw.signal()
	}
}

// worth reports whether the seat plays list l (when still current), decided once per list as it
// comes, from the stream or a poll: not a list without actions, and a list of optional moves only
// (see optionalOnly) once in optionalOdds.
func (s *slot) worth(l *legalList) bool {
	return l.n > 0 && (!l.optional || s.intn(optionalOdds) == 0)
}

// take returns the list to play and forgets it (nil: none).
func (sw *seatWatch) take() *legalList {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	l := sw.legal
	sw.legal = nil
	return l
}

func (sw *seatWatch) signal() {
	select {
	case sw.wake <- struct{}{}:
	default:
	}
}

// follow reads one seat's Watch stream, batched (each message brings the events ready and the list
// due after them): each event raises the version the seat has seen, each legal-action list is
// offered to the seat, the table's end ends the table, and a broken stream resumes after the last
// sequence it delivered.
func (s *slot) follow(ctx context.Context, p *player, t *table, w grpc.ClientStream, sw *seatWatch) {
	var last uint64
	// Reused: its legal list is new whenever it has one, with the action to play chosen.
	m := watchMsg{pick: s.intn, sabai: s.game.name == "sabaisabai"}
	for {
		err := w.RecvMsg(&m)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			select {
			case <-t.finished: // the stream ends with the table
				return
			default:
			}
			switch {
			case throttled(err):
				s.r.rec.throttled.Add(1)
			case !errors.Is(err, io.EOF):
				s.r.rec.fail(fmt.Errorf("watch: %w", err))
			}
			// Resume on the same gateway after what we saw: no gap, no duplicate.
			for {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
					return
				}
				w, err = s.watch(p.ctx(ctx), t.id, last)
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					return
				}
				if throttled(err) {
					s.r.rec.throttled.Add(1)
					continue
				}
				s.r.rec.fail(fmt.Errorf("watch resume: %w", err))
			}
			continue
		}
		seen := false
		for _, e := range m.events {
			if e.sequence <= last {
				s.r.rec.fail(fmt.Errorf("watch: event %d after %d (repeated or out of order)", e.sequence, last))
			}
			last = e.sequence
			if e.finished {
				t.finish()
			}
			seen = sw.saw(e.version) || seen
		}
		s.r.rec.eventsSeen(len(m.events))
		if seen || m.legal != nil {
			sw.sawNews(time.Now())
		}
		if l := m.legal; l != nil {
			s.r.rec.legalPushed()
			sw.offer(l, s.worth(l))
		}
	}
}

// poll bounds the wait for a legal-action list: when the stream brought none for this long (it
// lists a seat's actions after every version at which it may act), the seat asks for them. It is
// a safety net, not a pace: with thousands of idle seats, a short one would be most of the load.
const poll = 30 * time.Second

// pollFor is the runner's poll: poll, or at a pace slow enough that a seat's turn comes less often
// than that (a table acts every Tables/Rate seconds; a seat of four waits about four of those), eight
// times a table's wait between actions, so that seats waiting for their turn do not ask for lists
// they cannot have (at 1 action/s across 500 tables, every 30 s they would be 67 calls a second:
// more than the load measured).
func pollFor(o Options) time.Duration {
	if o.Rate <= 0 || o.Tables <= 0 {
		return poll
	}
	perTable := time.Duration(float64(o.Tables) / o.Rate * float64(time.Second))
	return max(poll, 8*perTable)
}

// playSeat plays one seat until the table finishes or ctx ends: whenever its stream lists legal
// actions at the version the seat last saw, it waits for the pace and plays a random one at that
// version; lists made stale by a later event are dropped (the stream lists again if the seat still
// may act).
func (s *slot) playSeat(ctx context.Context, p *player, t *table, sw *seatWatch) {
	// The seat's own context: gRPC derives one for each call, registered with its parent until
	// the call ends, and waits on its parent's done channel. Under the run's context, shared by
	// every seat, those were a lock and a map all the seats' calls contended for.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A seat waits for a list on its wake channel alone (see await): the run's end wakes it too,
	// once this context has ended.
	defer context.AfterFunc(ctx, sw.signal)()
	rec := s.r.rec
	failures := 0
	pc := p.ctx(ctx)
	// One request and one answer, reused for every action of the seat.
	req := actRequest{tableID: t.id, idPrefix: p.idPrefix}
	var res actAnswer
	timer := time.AfterFunc(s.r.poll, sw.signal) // armed by await only
	timer.Stop()
	for {
		l := sw.take()
		if l == nil {
			var ok bool
			if l, ok = s.await(ctx, pc, t, sw, timer); !ok {
				return
			}
			if l == nil {
				continue
			}
		}
		// Lists come worth playing (see offer and await); one may have gone stale since.
		version := l.version
		if version < sw.version.Load() {
			continue
		}
		if err := s.r.pace(ctx); err != nil {
			return
		}
		if version < sw.version.Load() {
			continue // the table moved on while the seat waited for the pace: a newer list follows
		}
		req.action, req.idSeq, req.expectedVersion = l.action, p.idSeq, version
		p.idSeq++
		t0 := time.Now()
		err := s.cc.Invoke(pc, gatewayv1.GatewayService_Act_FullMethodName, &req, &res)
		d := time.Since(t0)
		switch {
		case err == nil:
			failures = 0
			rec.act(d)
			sw.saw(res.version)
			if res.finished {
				t.finish()
				return
			}
		case ctx.Err() != nil:
			return
		case expected(err):
			failures = 0
			rec.refused(d)
		default:
			if s.giveUp(ctx, t, err, &failures) {
				return
			}
		}
	}
}

// await waits for the seat's stream to offer a list; when neither a list nor a new version
// comes within poll it lists the seat's legal actions itself (pc: the seat's context). ok is false
// when the table or the run is over; l is nil when there is nothing to play yet.
// timer is the seat's (it signals sw), stopped; await leaves it stopped.
func (s *slot) await(ctx, pc context.Context, t *table, sw *seatWatch, timer *time.Timer) (l *legalList, ok bool) {
	since := time.Now().UnixNano()
	timer.Reset(s.r.poll)
	defer timer.Stop()
	for {
		<-sw.wake // a list, the table's end, the run's end or the poll timer
		if t.over() || ctx.Err() != nil {
			return nil, false
		}
		if l := sw.take(); l != nil {
			return l, true
		}
		// The timer, or a wake-up left from before this wait. The poll is due once the stream has
		// been quiet for poll: since the wait began, or its last news if later.
		quiet := time.Duration(time.Now().UnixNano() - max(since, sw.news.Load()))
		if quiet >= s.r.poll {
			break
		}
		timer.Reset(s.r.poll - quiet)
	}
	t0 := time.Now()
	r, err := s.client.ListLegalActions(pc, &gatewayv1.ListLegalActionsRequest{TableId: t.id})
	if err != nil {
		return nil, ctx.Err() == nil
	}
	s.r.rec.legal(time.Since(t0))
	l = &legalList{version: r.GetVersion(), n: len(r.GetActions())}
	if l.n > 0 {
		all := make([][]byte, l.n)
		for i, a := range r.GetActions() {
			var err error
			if all[i], err = proto.Marshal(a); err != nil {
				s.r.rec.fail(fmt.Errorf("list legal actions: %w", err))
				return nil, true
			}
		}
		l.action, l.optional = all[s.intn(l.n)], optionalOnly(s.game.name, all)
	}
	if !s.worth(l) {
		return nil, true
	}
	return l, true
}

// watch opens a seat's Watch stream on table id, after sequence after, with the seat's legal
// actions, batched. The stream's messages are read into a watchMsg (see wire.go).
func (s *slot) watch(ctx context.Context, id string, after uint64) (grpc.ClientStream, error) {
	w, err := s.cc.NewStream(ctx, &watchDesc, gatewayv1.GatewayService_Watch_FullMethodName)
	if err != nil {
		return nil, err
	}
	if err := w.SendMsg(&gatewayv1.WatchRequest{TableId: id, AfterSequence: after, IncludeLegalActions: true, Batch: true}); err != nil {
		return nil, err
	}
	if err := w.CloseSend(); err != nil {
		return nil, err
	}
	return w, nil
}

var watchDesc = grpc.StreamDesc{StreamName: "Watch", ServerStreams: true}

// giveUp counts a failed call and pauses; after many failures in a row the table is left. A
// call refused by the rate limit is counted as throttled and only pauses.
func (s *slot) giveUp(ctx context.Context, t *table, err error, failures *int) bool {
	if throttled(err) {
		s.r.rec.throttled.Add(1)
		select {
		case <-time.After(100 * time.Millisecond):
			return false
		case <-ctx.Done():
			return true
		}
	}
	s.r.rec.fail(err)
	*failures++
	if *failures >= 20 || status.Code(err) == codes.NotFound {
		t.leave()
		return true
	}
	select {
	case <-time.After(time.Duration(*failures) * 20 * time.Millisecond):
	case <-ctx.Done():
		return true
	}
	return false
}

// idPrefix starts a player's action ids: random, so that no two players' ids meet, followed by
// a count of the player's actions (actRequest).
func idPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "-"
}
