package gateway_test

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"

	. "cardroom.dev/gateway/gatewaytest"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestMatchmadeGame: four players on two gateway replicas queue, are matched at one table served by
// two rules replicas (Redis stores, one NATS), play it to the end, and all see the same result.
// Over the whole game no client receives another seat's private event, and no view shows a card
// its seat may not know. Two players and the spectator take their events batched.
func TestMatchmadeGame(t *testing.T) {
	e := NewEnv(t, EnvOptions{Redis: true, Gateways: 2, Rules: 2})
	clients := make([]*Client, 4)
	tickets := make([]string, 4)
	for i := range clients {
		clients[i] = e.SignIn(i%2, fmt.Sprint("player ", i))
		clients[i].Batch = i >= 2
		r, err := clients[i].C.EnqueueTicket(clients[i].Ctx(), &gatewayv1.EnqueueTicketRequest{
			Game: TestGame, MinSeats: 4, MaxSeats: 4, Options: rounds(4)})
		if err != nil {
			t.Fatal(err)
		}
		tickets[i] = r.GetTicketId()
	}
	var table string
	seats := map[uint32]bool{}
	seatOf := make([]uint32, len(clients))
	for i, c := range clients {
		m := c.WaitMatched(tickets[i])
		if table == "" {
			table = m.GetTableId()
		}
		if m.GetTableId() != table || m.Seat == nil || seats[m.GetSeat()] {
			t.Fatalf("client %d matched to %s seat %v; want %s and a seat of its own", i, m.GetTableId(), m.Seat, table)
		}
		seats[m.GetSeat()] = true
		seatOf[i] = m.GetSeat()
	}
	// A spectator (signed in, no seat) watches from the start on the other replica.
	spy := e.SignIn(1, "spectator")
	spy.Batch = true
	sw := spy.Watch(table, 0)
	defer sw.Cancel()
	results := make([]*eventsv1.TableFinished, 4)
	views := make([][]*gatewayv1.GetViewResponse, 4)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := c.Watch(table, 0)
			defer w.Cancel()
			results[i] = c.Play(table, w, func(a []*anypb.Any) *anypb.Any {
				v, err := c.C.GetView(c.Ctx(), &gatewayv1.GetViewRequest{TableId: table})
				if err != nil {
					t.Errorf("view: %v", err)
				} else {
					views[i] = append(views[i], v)
				}
				return a[0]
			})
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i := 1; i < 4; i++ {
		if !proto.Equal(results[i].GetOutcome(), results[0].GetOutcome()) {
			t.Fatalf("client %d saw %v, client 0 saw %v", i, results[i].GetOutcome(), results[0].GetOutcome())
		}
	}
	replay, err := clients[0].C.GetReplay(clients[0].Ctx(), &gatewayv1.GetReplayRequest{TableId: table})
	if err != nil {
		t.Fatal(err)
	}
	all := ReplayEvents(replay)
	for i, c := range clients {
		checkStream(t, c, all, views[i])
	}
	for e := range sw.C {
		spy.Events = append(spy.Events, e)
	}
	checkStream(t, spy, all, nil)
	// Each player's replay names the action ids of its own seat's moves, and only those.
	for i, c := range append(clients, spy) {
		r, err := c.C.GetReplay(c.Ctx(), &gatewayv1.GetReplayRequest{TableId: table})
		if err != nil {
			t.Fatal(err)
		}
		mine := 0
		for _, en := range r.GetEntries() {
			by, moved := en.GetBy().(*gatewayv1.ReplayEntry_Seat)
			own := i < len(clients) && moved && by.Seat == seatOf[i]
			if own != (en.GetActionId() != "") {
				t.Fatalf("client %d (seat %d) sees action id %q on version %d, by %v", i, seatOf[min(i, len(clients)-1)], en.GetActionId(), en.GetVersion(), en.GetBy())
			}
			// As the client sent it (nextActionID), not as the gateway stores it.
			if own && !regexp.MustCompile(`^a\d+$`).MatchString(en.GetActionId()) {
				t.Fatalf("client %d sees action id %q on its move at version %d: not one it sent", i, en.GetActionId(), en.GetVersion())
			}
			if own {
				mine++
			}
		}
		if i < len(clients) && mine == 0 {
			t.Fatalf("client %d's replay names no move of its own", i)
		}
	}
}

var revealRE = regexp.MustCompile(`^seat (\d+) reveals`)
var cardRE = regexp.MustCompile(`(\d+):(\d+|\?)`)

// checkStream asserts that c received exactly the events its seat may see, each once and in order,
// and that each view shows another seat's card only after that seat revealed it publicly.
func checkStream(t *testing.T, c *Client, all []*eventsv1.Event, views []*gatewayv1.GetViewResponse) {
	t.Helper()
	seat := Spectator
	if len(views) > 0 && views[0].Seat != nil {
		seat = int(views[0].GetSeat())
	}
	CheckStream(t, c, seat, all)
	for _, v := range views {
		s := &wrapperspb.StringValue{}
		_ = v.GetView().UnmarshalTo(s)
		// Cards of the current round revealed publicly up to the view.
		revealed := map[int]bool{}
		for _, ev := range all {
			if ev.GetSequence() > v.GetLastSequence() {
				break
			}
			p := &wrapperspb.StringValue{}
			if ev.GetPayload().UnmarshalTo(p) != nil {
				continue
			}
			if m := revealRE.FindStringSubmatch(p.GetValue()); m != nil {
				n, _ := strconv.Atoi(m[1])
				revealed[n] = true
			}
			if regexp.MustCompile(`^round \d+ dealt`).MatchString(p.GetValue()) {
				revealed = map[int]bool{}
			}
		}
		for _, m := range cardRE.FindAllStringSubmatch(s.GetValue(), -1) {
			other, _ := strconv.Atoi(m[1])
			if other != seat && m[2] != "?" && !revealed[other] {
				t.Fatalf("seat %d's view %q shows seat %d's hidden card", seat, s.GetValue(), other)
			}
		}
	}
}
