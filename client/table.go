package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// Table is a handle on one table: its lobby steps, its Watch stream, the seat's choices and view,
// and Act. What the handle knows (the cursor, the version, the choices) is kept from its Watch.
type Table struct {
	c  *Client
	id string

	mu       sync.Mutex
	game     string
	seat     int // -1: not known, or none
	invite   string
	cursor   uint64 // the last sequence delivered
	version  uint64 // the newest table version seen
	choices  Choices
	finished *eventsv1.TableFinished

	viewMu sync.Mutex // one GetView at a time
	view   *gatewayv1.GetViewResponse

	watching atomic.Bool
}

// Table is a handle on the table id (one the player holds a seat at, one to watch, …).
func (c *Client) Table(id string) *Table { return &Table{c: c, id: id, seat: -1} }

// ID is the table's id.
func (t *Table) ID() string { return t.id }

// Game is the table's game, once known (from the lobby, a view or the stream).
func (t *Table) Game() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.game
}

// Seat is the caller's seat, or -1 when it is not known yet or the caller has none.
func (t *Table) Seat() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seat
}

// InviteCode is the private table's code, when the lobby gave it (CreateTable, Info).
func (t *Table) InviteCode() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.invite
}

// Cursor is the sequence of the last event Watch delivered: a Watch resumes after it.
func (t *Table) Cursor() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cursor
}

// Version is the newest table version the handle has seen (events, choices, its own moves).
func (t *Table) Version() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version
}

// Finished is the table's outcome once Watch delivered its TableFinished event, else nil.
func (t *Table) Finished() *eventsv1.TableFinished {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.finished
}

func (t *Table) setSeat(s int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seat = s
}

func (t *Table) setInfo(tb *gatewayv1.Table) {
	if tb == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb.GetGame() != "" {
		t.game = tb.GetGame()
	}
	if tb.GetInviteCode() != "" {
		t.invite = tb.GetInviteCode()
	}
	if tb.YourSeat != nil {
		t.seat = int(tb.GetYourSeat())
	}
}

// Info describes the table as the lobby has it (GetTable).
func (t *Table) Info(ctx context.Context) (*gatewayv1.Table, error) {
	var r *gatewayv1.GetTableResponse
	err := t.c.retry(ctx, "GetTable", func(ctx context.Context) (err error) {
		r, err = t.c.api.GetTable(ctx, &gatewayv1.GetTableRequest{TableId: t.id})
		return err
	})
	if err != nil {
		return nil, err
	}
	t.setInfo(r.GetTable())
	return r.GetTable(), nil
}

// AddBots gives n free places to bots of level (the owner only); applied once however often it is
// retried (a request id).
func (t *Table) AddBots(ctx context.Context, n uint32, level gamev1.BotLevel) (*gatewayv1.Table, error) {
	req := &gatewayv1.AddBotsRequest{TableId: t.id, Count: n, Level: level, RequestId: newID("b-")}
	var r *gatewayv1.AddBotsResponse
	if err := t.c.retry(ctx, "AddBots", func(ctx context.Context) (err error) {
		r, err = t.c.api.AddBots(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	t.setInfo(r.GetTable())
	return r.GetTable(), nil
}

// Start deals the table (the owner only); a retry of a start that was applied answers the table.
func (t *Table) Start(ctx context.Context) (*gatewayv1.Table, error) {
	var r *gatewayv1.StartTableResponse
	if err := t.c.retry(ctx, "StartTable", func(ctx context.Context) (err error) {
		r, err = t.c.api.StartTable(ctx, &gatewayv1.StartTableRequest{TableId: t.id})
		return err
	}); err != nil {
		return nil, err
	}
	t.setInfo(r.GetTable())
	return r.GetTable(), nil
}

// Leave gives up the caller's place before the start (the owner leaving closes the table).
func (t *Table) Leave(ctx context.Context) error {
	_, err := t.c.api.LeaveTable(ctx, &gatewayv1.LeaveTableRequest{TableId: t.id})
	return err
}

// Choices are the seat's legal actions at a table version, each with its label in words
// (Labels[i] names Actions[i], all different): what a client shows a person, or a bot picks from.
type Choices struct {
	Version uint64
	Actions []*anypb.Any
	Labels  []string
}

// Len is the number of choices (0: the seat may not act).
func (c Choices) Len() int { return len(c.Actions) }

// Find is the index of the choice labelled label, or -1.
func (c Choices) Find(label string) int { return slices.Index(c.Labels, label) }

// Choices are the seat's current choices (none when it may not act, or the table has moved past
// the last list the stream brought).
func (t *Table) Choices() Choices {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.choices
}

// saw notes that the table reached version v: choices of an older version are past.
func (t *Table) saw(v uint64) {
	t.version = max(t.version, v)
	if t.choices.Actions != nil && t.choices.Version < t.version {
		t.choices = Choices{}
	}
}

// View is the caller's view of the table (GetView: the seat's, or a spectator's): the one held
// while no event or move of a later version has been seen, else fetched again.
func (t *Table) View(ctx context.Context) (*gatewayv1.GetViewResponse, error) {
	t.viewMu.Lock()
	defer t.viewMu.Unlock()
	if t.view != nil && t.view.GetVersion() >= t.Version() {
		return t.view, nil
	}
	var r *gatewayv1.GetViewResponse
	if err := t.c.retry(ctx, "GetView", func(ctx context.Context) (err error) {
		r, err = t.c.api.GetView(ctx, &gatewayv1.GetViewRequest{TableId: t.id})
		return err
	}); err != nil {
		return nil, err
	}
	t.mu.Lock()
	if r.Seat != nil {
		t.seat = int(r.GetSeat())
	}
	if g := r.GetTable().GetConfig().GetGame(); g != "" {
		t.game = g
	}
	t.saw(r.GetVersion())
	t.mu.Unlock()
	t.view = r
	return r, nil
}

// ActOption changes one Act.
type ActOption func(*gatewayv1.ActRequest)

// AtVersion refuses the action (ABORTED, STALE_VERSION: see IsStale) unless the table is at
// version v: for an action chosen from what the table was at v.
func AtVersion(v uint64) ActOption { return func(r *gatewayv1.ActRequest) { r.ExpectedVersion = &v } }

// WithActionID sends the action under id instead of a generated one (a client that keeps its ids
// across restarts). An id names one action at the table: never reuse it for another.
func WithActionID(id string) ActOption { return func(r *gatewayv1.ActRequest) { r.ActionId = id } }

// Act plays action (the game's action message, or an *anypb.Any holding one) for the caller's
// seat, under a new action id. A call whose answer was lost (UNAVAILABLE, or none within the
// client's call timeout) is sent again with the same id, and the gateway applies it once: the
// answer to a retry of an applied action says Replayed. Refusals are gRPC statuses with a
// RuleViolation (ViolationCode); a stale one (IsStale) changed nothing.
func (t *Table) Act(ctx context.Context, action proto.Message, opts ...ActOption) (*gatewayv1.ActResponse, error) {
	a, ok := action.(*anypb.Any)
	if !ok {
		var err error
		if a, err = anypb.New(action); err != nil {
			return nil, fmt.Errorf("action: %w", err)
		}
	}
	req := &gatewayv1.ActRequest{TableId: t.id, Action: a, ActionId: newID("a-")}
	for _, o := range opts {
		o(req)
	}
	var r *gatewayv1.ActResponse
	err := t.c.retry(ctx, "Act", func(ctx context.Context) (err error) {
		r, err = t.c.api.Act(ctx, req, waitForReady)
		return err
	})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.saw(r.GetVersion())
	t.mu.Unlock()
	return r, nil
}

// Choose plays choice i of c at c's version (AtVersion): if another move came first it is refused
// as stale (IsStale) and the stream brings the new choices.
func (t *Table) Choose(ctx context.Context, c Choices, i int) (*gatewayv1.ActResponse, error) {
	if i < 0 || i >= len(c.Actions) {
		return nil, fmt.Errorf("choice %d of %d", i, len(c.Actions))
	}
	return t.Act(ctx, c.Actions[i], AtVersion(c.Version))
}

// Update is what one message of the Watch stream brought.
type Update struct {
	// Events are new events, in sequence order, each delivered once.
	Events []*eventsv1.Event
	// Choices is set when the stream brought the seat's choices (Len 0: the seat may no longer act).
	Choices *Choices
	// Finished is the TableFinished event's payload, with the last update.
	Finished *eventsv1.TableFinished
	// Resumed marks the first update yielded from a stream opened again after a drop.
	Resumed bool
}

// WatchOption changes a Watch.
type WatchOption func(*watchOptions)

type watchOptions struct {
	onDrop   func(error)
	onResume func()
}

// OnDrop is told of each drop of the stream (the error it ended with) before Watch opens it again.
func OnDrop(f func(err error)) WatchOption { return func(o *watchOptions) { o.onDrop = f } }

// OnResume is told when a stream opened again after a drop brings its first message.
func OnResume(f func()) WatchOption { return func(o *watchOptions) { o.onResume = f } }

// ErrWatching is Watch's error when the handle is being watched already.
var ErrWatching = errors.New("client: the table is watched already")

var waitForReady = grpc.WaitForReady(true)

// Watch follows the table from after its cursor (the first event for a new handle) to its end,
// yielding each update of the stream once and in order. When the stream or the connection drops it
// opens the stream again after the last sequence delivered, pausing with exponential backoff
// between failed tries, and waiting for the connection to be back: nothing is missed and nothing
// repeated. It ends after the TableFinished update, or with an error: ctx's when it ends, or the
// gateway's refusal (NOT_FOUND, PERMISSION_DENIED, …, or UNAUTHENTICATED when the session cannot be
// renewed). The seat's choices come with the updates (the stream's include_legal_actions) and are
// kept in Choices.
func (t *Table) Watch(ctx context.Context, opts ...WatchOption) iter.Seq2[Update, error] {
	var o watchOptions
	for _, f := range opts {
		f(&o)
	}
	return func(yield func(Update, error) bool) {
		if !t.watching.CompareAndSwap(false, true) {
			yield(Update{}, ErrWatching)
			return
		}
		defer t.watching.Store(false)
		p := t.c.opt.retry.start()
		resumed := false
		for {
			if t.Finished() != nil {
				return
			}
			err, done := t.stream(ctx, resumed, &o, p, yield)
			if done {
				return
			}
			if ctx.Err() != nil {
				yield(Update{}, ctx.Err())
				return
			}
			switch c := status.Code(err); {
			case c == codes.Unauthenticated:
				if rerr := t.c.renewForStream(ctx); rerr != nil {
					yield(Update{}, err)
					return
				}
			case permanent(c):
				yield(Update{}, err)
				return
			}
			t.c.opt.log.InfoContext(ctx, "watch dropped, resuming", "table", t.id, "after", t.Cursor(), "error", err)
			if o.onDrop != nil {
				o.onDrop(err)
			}
			resumed = true
			if werr := p.wait(ctx); werr != nil {
				yield(Update{}, werr)
				return
			}
		}
	}
}

// permanent tells the codes a Watch opened again would get again.
func permanent(c codes.Code) bool {
	switch c {
	case codes.InvalidArgument, codes.NotFound, codes.PermissionDenied, codes.FailedPrecondition,
		codes.Unimplemented, codes.OutOfRange, codes.AlreadyExists:
		return true
	}
	return false
}

// stream follows one Watch stream from the cursor; done when the table finished or the consumer
// stopped, else the error that ended it.
func (t *Table) stream(ctx context.Context, resumed bool, o *watchOptions, p *pauses, yield func(Update, error) bool) (error, bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := t.c.api.Watch(ctx, &gatewayv1.WatchRequest{TableId: t.id, AfterSequence: t.Cursor(),
		IncludeLegalActions: true, Batch: true}, waitForReady)
	if err != nil {
		return err, false
	}
	marked := !resumed // the first update yielded is marked Resumed
	for first := true; ; first = false {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return status.Error(codes.Unavailable, "the stream ended before the table finished"), false
		}
		if err != nil {
			return err, false
		}
		p.reset()
		u := t.take(r)
		if first && resumed && o.onResume != nil {
			o.onResume()
		}
		if len(u.Events) == 0 && u.Choices == nil {
			continue
		}
		u.Resumed, marked = !marked, true
		if !yield(u, nil) || u.Finished != nil {
			return nil, true
		}
	}
}

// take keeps what a stream message brought and returns it as an update: events after the cursor
// (any at or before it are dropped), then the choices.
func (t *Table) take(r *gatewayv1.WatchResponse) Update {
	t.mu.Lock()
	defer t.mu.Unlock()
	var u Update
	evs := r.GetEvents()
	if e := r.GetEvent(); e != nil {
		evs = append(evs, e)
	}
	for _, e := range evs {
		if e.GetSequence() <= t.cursor {
			continue
		}
		t.cursor = e.GetSequence()
		t.saw(e.GetVersion())
		if t.game == "" {
			t.game = e.GetGame()
		}
		switch {
		case e.GetPayload().MessageIs(&eventsv1.TableCreated{}):
			c := &eventsv1.TableCreated{}
			if e.GetPayload().UnmarshalTo(c) == nil && t.seat < 0 {
				me := t.c.PlayerID()
				for _, s := range c.GetConfig().GetSeats() {
					if me != "" && s.GetPlayer().GetPlayerId() == me {
						t.seat = int(s.GetIndex())
					}
				}
			}
		case e.GetPayload().MessageIs(&eventsv1.TableFinished{}):
			f := &eventsv1.TableFinished{}
			_ = e.GetPayload().UnmarshalTo(f)
			t.finished, u.Finished = f, f
			t.choices = Choices{}
		}
		u.Events = append(u.Events, e)
	}
	if l := r.GetLegalActions(); l != nil && t.finished == nil && l.GetVersion() >= t.version {
		t.version = l.GetVersion()
		t.choices = Choices{Version: l.GetVersion(), Actions: l.GetActions(), Labels: l.GetLabels()}
		if len(t.choices.Actions) == 0 {
			t.choices = Choices{Version: l.GetVersion()}
		}
		c := t.choices
		u.Choices = &c
	}
	return u
}

func newID(prefix string) string { return prefix + randomHex(12) }
