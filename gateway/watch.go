package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// gapRepairAfter is how long an event may be missing, with later ones already here, before the
// hub reads the table's log: out-of-order arrival from two rules replicas heals faster than this.
const gapRepairAfter = 150 * time.Millisecond

// hubs holds this replica's hub of each table it streams or drives. Each hub watches its table's
// live updates (events of all audiences and every seat's legal actions: the gateway is trusted and
// filters per client) through the replica's bus.Feed, so NATS sends a replica only those tables,
// however many replicas there are, and one goroutine (deliverAll) hands every update to its
// table's hub: no goroutine per table. What the feed may miss (while the connection is down, or
// dropped when its buffer is full) the hub reads from the rules service's log, which is the record.
type hubs struct {
	s      *Server
	mu     sync.Mutex
	m      map[string]*hub
	feed   *bus.Feed // read by deliverAll, which Run runs
	tracer trace.Tracer
}

func newHubs(s *Server) *hubs {
	return &hubs{s: s, m: map[string]*hub{}, feed: s.bus.NewFeed(feedBuffer), tracer: otel.Tracer("cardroom.dev/gateway")}
}

// feedBuffer bounds the live updates received and not yet handed to their hubs; past it NATS
// drops (counted per table) and the hubs concerned repair from the logs.
const feedBuffer = 1 << 16

// subscribe makes the feed watch h's table and waits until NATS has the subscription, so that
// every update published after the hub's first read of the log reaches it. While the connection
// is down the subscription is made when it comes back, and watchFeed then refills every hub from
// the logs.
func (hs *hubs) subscribe(h *hub) error {
	w, err := hs.feed.Watch(h.table)
	if err != nil {
		return fmt.Errorf("subscribe to table events: %w", err)
	}
	h.sub = w
	return nil
}

// deliverAll hands every live update received to its table's hub until ctx ends.
func (hs *hubs) deliverAll(ctx context.Context) {
	hs.feed.Run(ctx, hs.deliver)
}

// deliver hands one live update to its table's hub, in a span of the trace of the action that
// caused it; an update that arrives after its hub ended is dropped before decoding.
func (hs *hubs) deliver(m bus.Update) {
	hs.mu.Lock()
	h := hs.m[m.Table]
	hs.mu.Unlock()
	if h == nil {
		return
	}
	_, span := hs.tracer.Start(m.Context, "watch.deliver")
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("table", m.Table))
	}
	if u, err := decodeUpdate(m.Data); err == nil && u.table == m.Table {
		h.update(u)
	}
}

// watchFeed refills hubs from the logs when their subscriptions may have missed events: every hub
// after the connection to NATS came back, a hub whose subscription dropped updates (the feed's
// buffer was full) on its own. It looks at each hub's drops only when the connection reported a
// subscription dropping (bus.SlowEpisodes), for feedArmed after it or as long as the last look
// found drops, and every feedFullCheck in any case: a replica streaming thousands of tables
// does not look at each one four times a second for drops that NATS reports.
func (hs *hubs) watchFeed(ctx context.Context) {
	tick := time.NewTicker(feedCheck)
	defer tick.Stop()
	reconnects := hs.s.bus.Reconnects()
	episodes, _ := hs.s.bus.SlowEpisodes()
	var armedUntil, lookedAll time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		r := hs.s.bus.Reconnects()
		all := r != reconnects
		reconnects = r
		if n, tells := hs.s.bus.SlowEpisodes(); !tells || n != episodes {
			episodes = n
			armedUntil = now.Add(feedArmed)
		}
		if !all && now.After(armedUntil) && now.Sub(lookedAll) < feedFullCheck {
			continue
		}
		lookedAll = now
		hs.mu.Lock()
		refill := make([]*hub, 0, len(hs.m))
		dropped := false
		for _, h := range hs.m {
			select {
			case <-h.ready:
			default:
				continue // still starting: its own read of the log comes after this
			}
			if h.err != nil {
				continue
			}
			d := h.sub.Dropped()
			if d > h.dropped {
				dropped = true
			}
			if all || d > h.dropped {
				h.dropped = d
				refill = append(refill, h)
			}
		}
		hs.mu.Unlock()
		if dropped {
			// A subscription dropping again before it delivered is not reported again.
			armedUntil = now.Add(feedArmed)
		}
		if len(refill) > 0 {
			hs.s.metrics.gapRepairs.Add(ctx, 1)
		}
		for _, h := range refill {
			if err := h.fill(ctx); err != nil && ctx.Err() == nil {
				hs.s.log.WarnContext(ctx, "refilling a table's events after a bus interruption failed", "table", h.table, "error", err)
			}
		}
	}
}

// feedCheck is how often the subscription's health is looked at; feedArmed how long every hub's
// drops are looked at after a report of drops, and feedFullCheck the longest between two looks.
const (
	feedCheck     = 250 * time.Millisecond
	feedArmed     = 2 * time.Second
	feedFullCheck = 5 * time.Second
)

// hub is one table's events in sequence order, without gap, shared by every stream of the table on
// this replica: it receives the table's events from the replica's subscription, reads what came
// before from the rules service's log, and repairs gaps.
type hub struct {
	s     *Server
	table string
	rules rulesv1.RulesServiceClient

	ready   chan struct{}
	err     error
	refs    int             // guarded by hubs.mu
	sub     *bus.TableWatch // the table's live updates; set before ready closes
	dropped int             // what sub had dropped at the last refill; guarded by hubs.mu

	base   context.Context // the starting call's values, never canceled
	cancel context.CancelFunc

	mu       sync.Mutex
	events   []hubEvent // events[i].seq == i+1; never changed once here (streams read them unlocked)
	pending  map[uint64]hubEvent
	gapSince time.Time
	finished bool
	changed  chan struct{} // closed and replaced at every change
	over     chan struct{} // closed once the table is finished
	gap      chan struct{} // signalled when a gap opens: repair wakes only then

	// legal is every seat's legal actions at legalVersion, from the newest live update (nil before
	// the first: the log does not hold them).
	legal        []seatLegal // replaced, never changed
	legalVersion uint64
	legalKnown   bool
}

func newHub(s *Server, table string, rules rulesv1.RulesServiceClient) *hub {
	return &hub{s: s, table: table, rules: rules, ready: make(chan struct{}), refs: 1,
		pending: map[uint64]hubEvent{}, changed: make(chan struct{}), over: make(chan struct{}), gap: make(chan struct{}, 1)}
}

// acquire returns the table's hub, started; release when done with it.
func (hs *hubs) acquire(ctx context.Context, t *lobby.Table) (*hub, func(), error) {
	hs.mu.Lock()
	h, ok := hs.m[t.ID]
	if ok {
		h.refs++
		hs.mu.Unlock()
		select {
		case <-h.ready:
		case <-ctx.Done():
			hs.release(h)
			return nil, nil, ctx.Err()
		}
		if h.err != nil {
			hs.release(h)
			return nil, nil, h.err
		}
		return h, func() { hs.release(h) }, nil
	}
	c, err := hs.s.rulesOf(t.Game)
	if err != nil {
		hs.mu.Unlock()
		return nil, nil, err
	}
	h = newHub(hs.s, t.ID, c)
	hs.m[t.ID] = h
	hs.mu.Unlock()
	h.err = hs.subscribe(h)
	if h.err == nil {
		h.err = h.start(ctx)
	}
	close(h.ready)
	if h.err == nil {
		hs.s.metrics.hubs.Add(ctx, 1)
	}
	if h.err != nil {
		hs.release(h)
		return nil, nil, h.err
	}
	return h, func() { hs.release(h) }, nil
}

func (hs *hubs) release(h *hub) {
	hs.mu.Lock()
	h.refs--
	last := h.refs == 0
	if last && hs.m[h.table] == h {
		delete(hs.m, h.table)
	}
	hs.mu.Unlock()
	if last {
		if h.sub != nil {
			h.sub.Stop()
		}
		if h.err == nil {
			hs.s.metrics.hubs.Add(h.base, -1)
		}
		if h.cancel != nil {
			h.cancel()
		}
	}
}

func (h *hub) start(ctx context.Context) error {
	// The hub outlives the call that started it; it ends with its last release.
	h.base = context.WithoutCancel(ctx)
	hctx, cancel := context.WithCancel(h.base)
	h.cancel = cancel
	// The hub's subscription hands it its table's events from now on (NATS has it, and the hub
	// was in the map before it); then read the log: every event committed after the read is
	// published after it, so it reaches the hub through the subscription.
	// NOT_FOUND: not dealt yet (a driver or a player waiting for the deal): the deal's events
	// come through the subscription.
	if err := h.fill(ctx); err != nil && status.Code(err) != codes.NotFound {
		return err
	}
	go h.repair(hctx)
	return nil
}

// fill adds the events of the table's log after those the hub has.
func (h *hub) fill(ctx context.Context) error {
	h.mu.Lock()
	from := uint64(0)
	if n := len(h.events); n > 0 {
		from = h.events[n-1].version
	}
	h.mu.Unlock()
	l, err := h.rules.GetLog(ctx, &rulesv1.GetLogRequest{TableId: h.table, FromVersion: from})
	if err != nil {
		return err
	}
	for _, e := range l.GetCreatedEvents() {
		if err := h.addDecoded(e); err != nil {
			return err
		}
	}
	for _, le := range l.GetEntries() {
		for _, e := range le.GetEvents() {
			if err := h.addDecoded(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// repair reads the log when a gap has stayed open for gapRepairAfter. It sleeps while there is
// none: a replica streaming thousands of tables pays nothing for the ones without gaps.
func (h *hub) repair(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.gap:
		}
		for {
			h.mu.Lock()
			since := h.gapSince
			h.mu.Unlock()
			if since.IsZero() {
				break
			}
			wait := gapRepairAfter - h.s.now().Sub(since)
			if wait <= 0 {
				h.s.metrics.gapRepairs.Add(ctx, 1)
				if err := h.fill(ctx); err != nil && ctx.Err() == nil {
					h.s.log.WarnContext(ctx, "repairing a gap in a table's events failed", "table", h.table, "error", err)
				}
				// Not again at once if the log did not close it (a failed read, an event not
				// committed yet).
				wait = gapRepairAfter / 3
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// addDecoded adds an event read from the log, encoded once here for every stream.
func (h *hub) addDecoded(e *eventsv1.Event) error {
	he, err := encodeHubEvent(e)
	if err != nil {
		return err
	}
	h.add(he)
	return nil
}

// add puts one event in place; duplicates are dropped, early ones wait for the gap to close.
func (h *hub) add(e hubEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.addLocked(e) {
		h.changedLocked()
	}
}

// update adds a live update's events and keeps its legal actions if it is the newest (a
// republication carries none: streams past the newest known list ask the rules service).
func (h *hub) update(u *liveUpdate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := false
	for _, e := range u.events {
		changed = h.addLocked(e) || changed
	}
	if !u.omitted && (!h.legalKnown || u.version > h.legalVersion) {
		h.legal, h.legalVersion, h.legalKnown = u.legal, u.version, true
		changed = true
	}
	if changed {
		h.changedLocked()
	}
}

// addLocked is add with h.mu held; true when the events in order grew.
func (h *hub) addLocked(e hubEvent) bool {
	seq := e.seq
	next := uint64(len(h.events)) + 1
	switch {
	case seq < next:
		return false
	case seq > next:
		h.pending[seq] = e
		if h.gapSince.IsZero() {
			h.gapSince = h.s.now()
			select {
			case h.gap <- struct{}{}:
			default:
			}
		}
		return false
	}
	h.append(e)
	for {
		p, ok := h.pending[uint64(len(h.events))+1]
		if !ok {
			break
		}
		delete(h.pending, p.seq)
		h.append(p)
	}
	for s := range h.pending {
		if s <= uint64(len(h.events)) {
			delete(h.pending, s)
		}
	}
	if len(h.pending) == 0 {
		h.gapSince = time.Time{}
	} else {
		h.gapSince = h.s.now()
	}
	return true
}

// changedLocked wakes every stream waiting for a change; h.mu is held.
func (h *hub) changedLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// versionAt is the version of the event with sequence seq (0 for seq 0: before the table's
// first event); ok is false when that event is not here yet.
func (h *hub) versionAt(seq uint64) (version uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq > uint64(len(h.events)) {
		return 0, false
	}
	if seq == 0 {
		return 0, true
	}
	return h.events[seq-1].version, true
}

// legalOf returns seat's legal actions (nil: none) at the newest version a live update told, and
// whether one did. The list is shared: it must not change.
func (h *hub) legalOf(seat int) (version uint64, list *seatLegal, known bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.legalKnown {
		return 0, nil, false
	}
	for i := range h.legal {
		if h.legal[i].seat == seat {
			return h.legalVersion, &h.legal[i], true
		}
	}
	return h.legalVersion, nil, true
}

func (h *hub) append(e hubEvent) {
	h.events = append(h.events, e)
	if e.finished && !h.finished {
		h.finished = true
		close(h.over)
	}
}

// ended is closed once the table is finished: what a waiter that needs no other change waits on.
func (h *hub) ended() <-chan struct{} { return h.over }

// since returns the events after seq, a channel closed at the next change, and whether the table
// is finished.
func (h *hub) since(seq uint64) ([]hubEvent, <-chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hubEvent
	if seq < uint64(len(h.events)) {
		out = h.events[seq:]
	}
	return out, h.changed, h.finished
}

// visible reports whether seat (-1: a spectator) may see e.
func visible(e *hubEvent, seat int) bool {
	switch {
	case e.audience == publicAudience:
		return true
	case e.audience >= 0:
		return seat >= 0 && e.audience == seat
	}
	return false
}

func (s *Server) Watch(req *gatewayv1.WatchRequest, stream grpc.ServerStreamingServer[gatewayv1.WatchResponse]) error {
	// Over HTTP the stream ends at its maximum age (BrowserHandler), UNAVAILABLE: the client
	// resumes after the last sequence it saw, as when a native connection reaches its age.
	ctx, cancel := streamDeadline(stream.Context())
	defer cancel()
	sess, err := s.begin(ctx, req)
	if err != nil {
		return err
	}
	err = s.watch(ctx, sess, req, stream)
	if err != nil && errors.Is(context.Cause(ctx), errStreamAge) {
		return status.Error(codes.Unavailable, "the stream reached its maximum age: resume after the last sequence received")
	}
	return s.toStatus(ctx, err)
}

func (s *Server) watch(ctx context.Context, sess Session, req *gatewayv1.WatchRequest, stream grpc.ServerStreamingServer[gatewayv1.WatchResponse]) error {
	t, err := s.table(ctx, req.GetTableId())
	if status.Code(err) == codes.FailedPrecondition {
		// A player at an open table waits on the stream for the deal.
		t, err = s.awaitStart(ctx, sess, req.GetTableId())
	}
	if err != nil {
		return err
	}
	seat := t.SeatOf(sess.Player)
	names := seatNames(t, seat)
	h, release, err := s.hubs.acquire(ctx, t)
	if err != nil {
		return err
	}
	defer release()
	s.metrics.watchStreams.Add(ctx, 1)
	defer s.metrics.watchStreams.Add(context.WithoutCancel(ctx), -1)
	if seat >= 0 {
		go s.present(ctx, t.ID, seat)
	}
	return streamHub(ctx, h, seat, names, req, stream)
}

// streamHub sends h's events visible to seat (-1: a spectator) after req's cursor, and with
// req.include_legal_actions the seat's legal actions, until the table's end or ctx's.
func streamHub(ctx context.Context, h *hub, seat int, names engine.SeatName, req *gatewayv1.WatchRequest, stream grpc.ServerStreamingServer[gatewayv1.WatchResponse]) error {
	cursor := req.GetAfterSequence()
	var legal *legalFeed
	if req.GetIncludeLegalActions() && seat >= 0 {
		legal = &legalFeed{h: h, seat: seat}
	}
	batch := req.GetBatch()
	w := &watchWriter{names: names}
	defer w.release()
	for {
		w.acquire()
		evs, changed, finished := h.since(cursor)
		if legal != nil && !legal.placed {
			// A resumed stream has seen the table up to its cursor's version: known once this hub
			// has the cursor's event. A client back from another replica may be ahead of this
			// one's hub; taken as version 0, its cursor would leave the stream waiting for the
			// events of the hub's newest list, which it had seen already, and never sending it.
			legal.seen, legal.placed = h.versionAt(cursor)
		}
		w.events = w.events[:0]
		for i := range evs {
			e := &evs[i]
			cursor = e.seq
			if legal != nil {
				legal.seen = e.version
			}
			if !visible(e, seat) {
				continue
			}
			if batch {
				w.events = w.appendEvent(w.events, watchEvents, e)
				continue
			}
			w.msg = w.appendEvent(w.msg[:0], watchEvent, e)
			if err := w.send(stream, w.msg); err != nil {
				return fmt.Errorf("send: %w", err)
			}
		}
		// No list after the table's end: nobody may act, and the stream ends with TableFinished.
		w.msg = w.msg[:0]
		if legal != nil && legal.placed && cursor > 0 && !finished {
			version, list, send, err := legal.next(ctx)
			if err != nil {
				return err
			}
			if send {
				w.msg = w.appendLegal(w.msg, version, list)
			}
		}
		// A batch's events follow its list, in the order of their field numbers as proto.Marshal
		// writes them.
		w.msg = append(w.msg, w.events...)
		if len(w.msg) > 0 {
			if err := w.send(stream, w.msg); err != nil {
				return fmt.Errorf("send: %w", err)
			}
		}
		if finished && len(evs) == 0 {
			return nil
		}
		if len(evs) > 0 {
			continue
		}
		w.release()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// legalFeed sends a watching seat its legal actions: after the events of each version it saw,
// the list the live update of that version carried, or, when no update told it (the events came
// from the log), the list the rules service gives.
type legalFeed struct {
	h    *hub
	seat int
	// seen is the version of the last event the stream passed (sent or not), or of its cursor's
	// once placed.
	seen uint64
	// placed: seen is known (the hub has the event of the stream's cursor).
	placed bool
	// sent is the version of the last list sent (valid when any); nonEmpty: that list had actions.
	sent     uint64
	any      bool
	nonEmpty bool
}

// next returns the list to send now, if any (send), at version; list nil: no action.
func (f *legalFeed) next(ctx context.Context) (version uint64, list *seatLegal, send bool, err error) {
	if f.any && f.sent >= f.seen {
		return 0, nil, false, nil
	}
	version, list, known := f.h.legalOf(f.seat)
	switch {
	case known && version > f.seen:
		return 0, nil, false, nil // its events are on the way: the list follows them
	case !known || version < f.seen:
		r, err := f.h.rules.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: f.h.table, Seat: uint32(f.seat)})
		if err != nil {
			return 0, nil, false, err
		}
		l, err := legalOf(f.seat, r.GetActions(), r.GetLabels())
		if err != nil {
			return 0, nil, false, err
		}
		version, list = r.GetVersion(), &l
	}
	if f.any && version <= f.sent {
		return 0, nil, false, nil
	}
	f.sent, f.any = max(version, f.seen), true
	n := 0
	if list != nil {
		n = list.count
	}
	if n == 0 && !f.nonEmpty {
		return 0, nil, false, nil
	}
	f.nonEmpty = n > 0
	if list == nil {
		list = &noLegal
	}
	return version, list, true, nil
}

// noLegal is the list of a seat without actions (never changed).
var noLegal seatLegal

// awaitStartPoll is how often a Watch waiting for its table's start reads the table again besides
// each table notification (which a gateway cut from NATS does not hear): slower than StartTable's
// poll, since a private table may wait long for its players.
const awaitStartPoll = 2 * time.Second

// awaitStart waits until the open or starting table id, where the caller has a place, is dealt.
func (s *Server) awaitStart(ctx context.Context, sess Session, id string) (*lobby.Table, error) {
	wake, stop, err := s.subscribe(s.bus.Subjects().TableNotice(id))
	if err != nil {
		return nil, err
	}
	defer stop()
	poll := time.NewTicker(awaitStartPoll)
	defer poll.Stop()
	for {
		t, err := s.lobby.LoadTable(ctx, id)
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, tableNotFound()
		}
		if err != nil {
			return nil, err
		}
		switch t.State {
		case lobby.TableDealt, lobby.TableFinished:
			// The lobby says dealt once the rules service has the table.
			return s.table(ctx, id)
		case lobby.TableClosing, lobby.TableClosed:
			return nil, refusal.New(codes.FailedPrecondition, refusal.TableStarted, "the table was closed before the start")
		}
		if !slices.ContainsFunc(t.Players, func(p lobby.Player) bool { return p.ID == sess.Player }) {
			return nil, refusal.New(codes.FailedPrecondition, refusal.TableNotStarted, "the table has not started")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-poll.C:
		}
	}
}

// present marks the seat's player present while their stream is open.
func (s *Server) present(ctx context.Context, table string, seat int) {
	every := max(s.opt.AbsenceGrace/3, 10*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := s.lobby.Touch(ctx, table, seat, s.now()); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "recording presence failed", "table", table, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
