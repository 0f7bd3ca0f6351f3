// Package rulestest runs a game's rules service in process for the game's own tests: a whole game
// through gRPC (bufconn) played by the game's bot, and refused actions checked to change nothing.
package rulestest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// Harness is one rules service on an in-memory store (unless given another) and an embedded NATS,
// with a clock the test moves.
type Harness struct {
	Client rulesv1.RulesServiceClient
	Server *rules.Server
	Store  store.Store
	Bus    *bus.Bus

	mu  sync.Mutex
	now time.Time
}

// Start runs eng's rules service for the test; st may be nil (memory store).
func Start(t testing.TB, eng engine.Engine, st store.Store) *Harness {
	t.Helper()
	if st == nil {
		st = store.NewMemory()
	}
	ns, err := natsembed.Start(0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	b, err := bus.Connect(context.Background(), ns.URL(), "rulestest", bus.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	h := &Harness{Store: st, Bus: b, now: time.UnixMilli(1_800_000_000_000)}
	h.Server = rules.New(eng, st, b, rules.Options{Now: h.Now, Retain: time.Hour})
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	rulesv1.RegisterRulesServiceServer(gs, h.Server)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	h.Client = rulesv1.NewRulesServiceClient(cc)
	return h
}

// Now is the harness clock.
func (h *Harness) Now() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// Advance moves the clock.
func (h *Harness) Advance(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = h.now.Add(d)
}

// Config is a table config of game for n seats with a fixed seed and the given options (nil: defaults).
func Config(game string, n int, seed uint64, options proto.Message) *gamev1.TableConfig {
	cfg := &gamev1.TableConfig{Game: game, SeedPolicy: gamev1.SeedPolicy_SEED_POLICY_FIXED, Seed: seed}
	for i := range n {
		cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{
			PlayerId: fmt.Sprint("player-", i), DisplayName: fmt.Sprint("Player ", i), Kind: gamev1.PlayerKind_PLAYER_KIND_BOT}})
	}
	if options != nil {
		cfg.Options, _ = anypb.New(options)
	}
	return cfg
}

// PlayToEnd creates a table and plays it to its end through gRPC: at each step a seat among those
// with legal actions plays the move its bot suggests (SuggestAction), checked to be among
// ListLegalActions; when no seat can act the clock passes the deadline and the timeout fires. It
// checks that each action moves the version by one, and returns the game's log (the replay).
func (h *Harness) PlayToEnd(t testing.TB, tableID string, cfg *gamev1.TableConfig, maxSteps int) *rulesv1.GetLogResponse {
	t.Helper()
	ctx := context.Background()
	if _, err := h.Client.CreateTable(ctx, &rulesv1.CreateTableRequest{TableId: tableID, Config: cfg}); err != nil {
		t.Fatalf("create table: %v", err)
	}
	r := rand.New(rand.NewPCG(cfg.GetSeed(), 99))
	version := uint64(0)
	for step := 0; ; step++ {
		if step == maxSteps {
			t.Fatalf("table %s not finished after %d steps", tableID, maxSteps)
		}
		view, err := h.Client.GetView(ctx, &rulesv1.GetViewRequest{TableId: tableID, Viewer: &rulesv1.Viewer{Who: &rulesv1.Viewer_Spectator{Spectator: true}}})
		if err != nil {
			t.Fatalf("view: %v", err)
		}
		if view.GetTable().GetFinished() {
			break
		}
		version = view.GetVersion()
		var actors []uint32
		legal := map[uint32][]*anypb.Any{}
		for seat := range uint32(len(cfg.GetSeats())) {
			l, err := h.Client.ListLegalActions(ctx, &rulesv1.ListLegalActionsRequest{TableId: tableID, Seat: seat})
			if err != nil {
				t.Fatalf("legal actions of seat %d: %v", seat, err)
			}
			if len(l.GetActions()) > 0 {
				actors = append(actors, seat)
				legal[seat] = l.GetActions()
			}
		}
		if len(actors) == 0 {
			dl := view.GetDeadline()
			if dl == nil {
				t.Fatalf("step %d: nobody can act and nothing waits on time", step)
			}
			if d := dl.AsTime().Sub(h.Now()); d > 0 {
				h.Advance(d)
			}
			if h.Server.FireDue(ctx) != 1 {
				t.Fatalf("step %d: the due timeout did not fire", step)
			}
			continue
		}
		// Ask the seats' bots in random order; a bot may decline to act out of turn (a Waiter). If
		// every bot declines, a random seat plays a random legal action.
		r.Shuffle(len(actors), func(i, j int) { actors[i], actors[j] = actors[j], actors[i] })
		seat, action := actors[0], legal[actors[0]][r.IntN(len(legal[actors[0]]))]
		for _, s := range actors {
			sug, err := h.Client.SuggestAction(ctx, &rulesv1.SuggestActionRequest{TableId: tableID, Seat: s})
			if status.Code(err) == codes.FailedPrecondition {
				continue
			}
			if err != nil {
				t.Fatalf("suggest for seat %d: %v", s, err)
			}
			found := false
			for _, a := range legal[s] {
				found = found || proto.Equal(a, sug.GetAction())
			}
			if !found {
				t.Fatalf("step %d: the bot suggested %v, not among seat %d's legal actions", step, sug.GetAction(), s)
			}
			seat, action = s, sug.GetAction()
			break
		}
		h.Advance(time.Second)
		resp, err := h.Client.Act(ctx, &rulesv1.ActRequest{TableId: tableID, Seat: seat, Action: action,
			ActionId: fmt.Sprint("step-", step), ExpectedVersion: proto.Uint64(version)})
		if err != nil {
			if status.Code(err) == codes.Aborted {
				continue // a deadline passed first; the table moved on
			}
			t.Fatalf("step %d: seat %d's legal action refused: %v", step, seat, err)
		}
		if resp.GetVersion() != version+1 {
			t.Fatalf("step %d: version %d after %d", step, resp.GetVersion(), version)
		}
	}
	return h.Log(t, tableID)
}

// Log returns a table's log after checking it: versions 1, 2, 3… and event sequences 1, 2, 3…
// with neither gap nor repeat, and no action id twice.
func (h *Harness) Log(t testing.TB, tableID string) *rulesv1.GetLogResponse {
	t.Helper()
	logResp, err := h.Client.GetLog(context.Background(), &rulesv1.GetLogRequest{TableId: tableID})
	if err != nil {
		t.Fatalf("log: %v", err)
	}
	seq := uint64(0)
	for _, evs := range append([][]*eventsv1.Event{logResp.GetCreatedEvents()}, entriesEvents(logResp)...) {
		for _, e := range evs {
			if seq++; e.GetSequence() != seq {
				t.Fatalf("event sequence %d where %d was due", e.GetSequence(), seq)
			}
		}
	}
	ids := map[string]bool{}
	for i, e := range logResp.GetEntries() {
		if e.GetVersion() != uint64(i+1) {
			t.Fatalf("log entry %d has version %d", i, e.GetVersion())
		}
		if id := e.GetActionId(); id != "" {
			if ids[id] {
				t.Fatalf("action id %q applied twice", id)
			}
			ids[id] = true
		}
	}
	return logResp
}

func entriesEvents(l *rulesv1.GetLogResponse) [][]*eventsv1.Event {
	out := make([][]*eventsv1.Event, len(l.GetEntries()))
	for i, e := range l.GetEntries() {
		out[i] = e.GetEvents()
	}
	return out
}

// Refused sends an action that must be refused with code and rule, and checks that the table's
// version, log and published events did not change.
func (h *Harness) Refused(t testing.TB, tableID string, seat uint32, action proto.Message, code codes.Code, rule string) {
	t.Helper()
	ctx := context.Background()
	before, _, err := h.Store.Load(ctx, tableID, "")
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := h.Bus.LastSequence(ctx)
	a, err := anypb.New(action)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Client.Act(ctx, &rulesv1.ActRequest{TableId: tableID, Seat: seat, Action: a, ActionId: fmt.Sprint("refused-", rand.Uint64())})
	st, got := status.Convert(err), refusal.Code(err)
	if err == nil || st.Code() != code || got != rule {
		t.Fatalf("action %v: got %v %q (%v), want %v %q", action, st.Code(), got, err, code, rule)
	}
	after, _, err := h.Store.Load(ctx, tableID, "")
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || string(after.State) != string(before.State) || after.Sequence != before.Sequence {
		t.Fatalf("a refused action changed the table (version %d → %d)", before.Version, after.Version)
	}
	if seq2, _ := h.Bus.LastSequence(ctx); seq2 != seq {
		t.Fatalf("a refused action published %d events", seq2-seq)
	}
}

// OutOfTurn finds, at a table, a seat that may act and one that may not, and returns the latter
// with one of the former's legal actions: a move the rules must refuse.
func (h *Harness) OutOfTurn(t testing.TB, tableID string, seats int) (uint32, proto.Message) {
	t.Helper()
	var idle []uint32
	var action *anypb.Any
	for seat := range uint32(seats) {
		l, err := h.Client.ListLegalActions(context.Background(), &rulesv1.ListLegalActionsRequest{TableId: tableID, Seat: seat})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.GetActions()) == 0 {
			idle = append(idle, seat)
		} else if action == nil {
			action = l.GetActions()[0]
		}
	}
	if len(idle) == 0 || action == nil {
		t.Fatalf("table %s: no idle seat beside an acting one", tableID)
	}
	m, err := action.UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	return idle[0], m
}

// CreateRequest is a CreateTable request for id and cfg.
func CreateRequest(id string, cfg *gamev1.TableConfig) *rulesv1.CreateTableRequest {
	return &rulesv1.CreateTableRequest{TableId: id, Config: cfg}
}

// Stores runs fn once against the memory store and once against a Redis store (RedisStore).
func Stores(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Helper()
	t.Run("memory", func(t *testing.T) { fn(t, store.NewMemory()) })
	t.Run("redis", func(t *testing.T) { fn(t, RedisStore(t)) })
}

// RedisStore is a table store on the test Redis, with keys under a prefix of the test's own that is
// cleared when it ends. A missing Redis skips the test, or fails it under CARDROOM_REQUIRE_SERVICES=1.
func RedisStore(t testing.TB) store.Store {
	t.Helper()
	rdb := testenv.Redis(t)
	st, err := store.NewRedis(context.Background(), rdb, testenv.Prefix(t, rdb))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
