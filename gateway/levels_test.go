package gateway_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"cardroom.dev/gateway"
	. "cardroom.dev/gateway/gatewaytest"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"
)

const (
	easy        = gamev1.BotLevel_BOT_LEVEL_EASY
	normal      = gamev1.BotLevel_BOT_LEVEL_NORMAL
	strong      = gamev1.BotLevel_BOT_LEVEL_STRONG
	unspecified = gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED
)

// suggestions records the levels the rules replicas are asked SuggestAction at, by table and seat.
type suggestions struct {
	mu sync.Mutex
	m  map[seatOf]map[gamev1.BotLevel]int
}

type seatOf struct {
	table string
	seat  uint32
}

func newSuggestions() *suggestions { return &suggestions{m: map[seatOf]map[gamev1.BotLevel]int{}} }

// intercept is a rules server interceptor that records each SuggestAction's level.
func (s *suggestions) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if r, ok := req.(*rulesv1.SuggestActionRequest); ok {
		s.mu.Lock()
		k := seatOf{r.GetTableId(), r.GetSeat()}
		if s.m[k] == nil {
			s.m[k] = map[gamev1.BotLevel]int{}
		}
		s.m[k][r.GetLevel()]++
		s.mu.Unlock()
	}
	return h(ctx, req)
}

// levels are the levels seat of table was asked at, with how many times.
func (s *suggestions) levels(table string, seat uint32) map[gamev1.BotLevel]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[gamev1.BotLevel]int{}
	for l, n := range s.m[seatOf{table, seat}] {
		out[l] = n
	}
	return out
}

// onlyAt fails unless seat of table was asked for moves, and only at level.
func (s *suggestions) onlyAt(t *testing.T, table string, seat uint32, level gamev1.BotLevel) {
	t.Helper()
	got := s.levels(table, seat)
	if got[level] == 0 || len(got) != 1 {
		t.Errorf("seat %d was asked SuggestAction at %v, want only %v", seat, got, level)
	}
}

// botLevels are the levels of the bots among players, in order, and whether people have none.
func botLevels(t *testing.T, players []*gamev1.PlayerRef) []gamev1.BotLevel {
	t.Helper()
	var out []gamev1.BotLevel
	for _, p := range players {
		if p.GetKind() != gamev1.PlayerKind_PLAYER_KIND_BOT {
			if p.GetBotLevel() != unspecified {
				t.Errorf("person %s has bot level %v", p.GetDisplayName(), p.GetBotLevel())
			}
			continue
		}
		out = append(out, p.GetBotLevel())
	}
	return out
}

// TestAddBotsLevels: AddBots at each level (unspecified meaning normal) stores the level with the
// bot, every call that lists the table shows it, and the driver asks each bot's moves at its level.
func TestAddBotsLevels(t *testing.T) {
	sug := newSuggestions()
	e := NewEnv(t, EnvOptions{RulesUnary: sug.intercept, Gateways: 2, Opt: noAbsence})
	ann := e.SignIn(0, "Ann")
	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 5, Options: rounds(3)})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.GetTableId()
	if got := cr.GetTable().GetTakeoverLevel(); got != normal {
		t.Errorf("a table created without a take-over level takes over at %v, want normal", got)
	}
	for i, l := range []gamev1.BotLevel{easy, normal, strong, unspecified} {
		r, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1, Level: l, RequestId: "bots-" + itoa(uint32(i))})
		if err != nil {
			t.Fatal(err)
		}
		ps := r.GetTable().GetPlayers()
		if got, want := ps[len(ps)-1].GetBotLevel(), map[bool]gamev1.BotLevel{true: normal, false: l}[l == unspecified]; got != want {
			t.Errorf("a bot added at %v shows level %v, want %v", l, got, want)
		}
	}
	// The same request id with another level is another request.
	_, err = ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1, Level: strong, RequestId: "bots-0"})
	wantCode(t, err, codes.InvalidArgument, refusal.RequestIDReused)
	// A retry of the unspecified request is the normal one's twin: applied once.
	if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: id, Count: 1, Level: normal, RequestId: "bots-3"}); err != nil {
		t.Fatalf("the retry of a request at the default level with the level named: %v", err)
	}
	// Another replica reads the levels from the lobby record.
	gr, err := e.Dial(1).GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	want := []gamev1.BotLevel{easy, normal, strong, normal}
	if got := botLevels(t, gr.GetTable().GetPlayers()); !equal(got, want) {
		t.Fatalf("GetTable lists the bots at %v, want %v", got, want)
	}

	w := ann.Watch(id, 0)
	defer w.Cancel()
	sr, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	seats := sr.GetTable().GetSeats()
	if got := botLevels(t, refsOf(seats)); len(got) != 4 {
		t.Fatalf("the started table's seats show bots at %v", got)
	}
	// The view's table summary (what a client draws the seats from) shows them too.
	v, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range v.GetTable().GetConfig().GetSeats() {
		if s.GetPlayer().GetBotLevel() != seats[i].GetPlayer().GetBotLevel() {
			t.Errorf("GetView's seat %d shows level %v, the table %v", i, s.GetPlayer().GetBotLevel(), seats[i].GetPlayer().GetBotLevel())
		}
	}
	if ann.Play(id, w, first) == nil {
		t.FailNow()
	}
	for i, s := range seats {
		if s.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT {
			sug.onlyAt(t, id, uint32(i), s.GetPlayer().GetBotLevel())
		}
	}
}

func refsOf(seats []*gamev1.Seat) []*gamev1.PlayerRef {
	out := make([]*gamev1.PlayerRef, len(seats))
	for i, s := range seats {
		out[i] = s.GetPlayer()
	}
	return out
}

func equal(a, b []gamev1.BotLevel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMatchFillLevel: the bots that fill a matched table take the level its ticket asked for, and
// play at it.
func TestMatchFillLevel(t *testing.T) {
	sug := newSuggestions()
	e := NewEnv(t, EnvOptions{RulesUnary: sug.intercept, Opt: noAbsence})
	ann := e.SignIn(0, "Ann")
	r, err := ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 3, MaxSeats: 3,
		BotsMayFill: true, BotLevel: strong, MaxWait: durationpb.New(100 * time.Millisecond), Options: rounds(2)})
	if err != nil {
		t.Fatal(err)
	}
	m := ann.WaitMatched(r.GetTicketId())
	id := m.GetTableId()
	gr, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: id})
	if err != nil {
		t.Fatal(err)
	}
	if got := botLevels(t, refsOf(gr.GetTable().GetSeats())); !equal(got, []gamev1.BotLevel{strong, strong}) {
		t.Fatalf("the matched table's bots are at %v, want two strong", got)
	}
	if got := gr.GetTable().GetTakeoverLevel(); got != normal {
		t.Errorf("a matched table takes over at %v, want normal", got)
	}
	w := ann.Watch(id, 0)
	defer w.Cancel()
	if ann.Play(id, w, first) == nil {
		t.FailNow()
	}
	for i, s := range gr.GetTable().GetSeats() {
		if s.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT {
			sug.onlyAt(t, id, uint32(i), strong)
		}
	}
}

// TestTakeoverLevel: an absent player's seat is played at normal unless the table was created with
// another take-over level.
func TestTakeoverLevel(t *testing.T) {
	for _, c := range []struct {
		name        string
		create, got gamev1.BotLevel
	}{
		{"default", unspecified, normal},
		{"strong", strong, strong},
		{"easy", easy, easy},
	} {
		t.Run(c.name, func(t *testing.T) {
			sug := newSuggestions()
			// Nobody watches: both seats are taken over after the grace, and the table plays out.
			e := NewEnv(t, EnvOptions{RulesUnary: sug.intercept, Opt: gateway.Options{AbsenceGrace: 100 * time.Millisecond}})
			ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
			cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(2), TakeoverLevel: c.create})
			if err != nil {
				t.Fatal(err)
			}
			id := cr.GetTableId()
			if got := cr.GetTable().GetTakeoverLevel(); got != c.got {
				t.Errorf("created with take-over %v, the table says %v", c.create, got)
			}
			if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: cr.GetInviteCode()}); err != nil {
				t.Fatal(err)
			}
			if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: id}); err != nil {
				t.Fatal(err)
			}
			// A spectator waits for the end, which only the take-over bots can bring.
			spy := e.SignIn(0, "Spy")
			sw := spy.Watch(id, 0)
			defer sw.Cancel()
			for ended := false; !ended; {
				select {
				case ev, ok := <-sw.C:
					if !ok {
						t.Fatal("the stream ended before the table")
					}
					ended = IsFinished(ev)
				case <-time.After(30 * time.Second):
					t.Fatal("the absent players' seats were not played to the end")
				}
			}
			sug.onlyAt(t, id, 0, c.got)
			sug.onlyAt(t, id, 1, c.got)
		})
	}
}

// TestUnknownBotLevel: a level that is not one is refused, INVALID_ARGUMENT (UNKNOWN_BOT_LEVEL), at
// every call that takes one, and changes nothing.
func TestUnknownBotLevel(t *testing.T) {
	e := NewEnv(t, EnvOptions{Opt: noAbsence})
	ann := e.SignIn(0, "Ann")
	bad := gamev1.BotLevel(7)
	_, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 3, TakeoverLevel: bad})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownBotLevel)

	cr, err := ann.C.CreateTable(ann.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: 1, Level: bad, RequestId: "r1"})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownBotLevel)
	gr, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: cr.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(gr.GetTable().GetPlayers()); n != 1 {
		t.Fatalf("a refused AddBots left %d players, want 1", n)
	}
	// The refused request's id was not taken: it adds bots now.
	if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: cr.GetTableId(), Count: 1, Level: easy, RequestId: "r1"}); err != nil {
		t.Fatalf("the request id of a refused AddBots: %v", err)
	}

	_, err = ann.C.EnqueueTicket(ann.Ctx(), &gatewayv1.EnqueueTicketRequest{Game: TestGame, BotsMayFill: true, BotLevel: -1})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownBotLevel)

	_, err = e.RulesClient.SuggestAction(t.Context(), &rulesv1.SuggestActionRequest{TableId: cr.GetTableId(), Level: bad})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownBotLevel)
}
