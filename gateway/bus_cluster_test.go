package gateway_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	. "cardroom.dev/gateway/gatewaytest"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/testenv"
	"google.golang.org/protobuf/proto"
)

// TestWatchAcrossNATSLeaderLoss runs cardroom on a three-server JetStream cluster, its stream
// kept by all three, and kills (SIGKILL) the server leading the stream in the middle of several
// games; the first gateway replica is connected to that server, the rest wherever the client
// library put them. Every connection moves to a surviving server; the games finish; every
// player's Watch stream carries every event its seat may see, once and in order; and once the
// rules services have confirmed every publication, the stream holds each table's public events
// exactly once: none lost with the leader, none doubled by the republications.
func TestWatchAcrossNATSLeaderLoss(t *testing.T) {
	cl := testenv.StartNATSCluster(t, 3)
	e := NewEnv(t, EnvOptions{NATSURL: cl.URLs(), NATSReplicas: 3, FileBus: true, Gateways: 2, Rules: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	stream := e.Bus.Stream()
	victim := cl.Index(e.GatewayBuses[0].Server())
	if err := cl.MoveStreamLeader(ctx, stream, victim); err != nil {
		t.Fatal(err)
	}
	for i, b := range append([]*bus.Bus{e.Bus}, e.GatewayBuses...) {
		t.Logf("bus %d on %s", i, b.Server())
	}

	// Tables of two players, one on each gateway replica, all playing at once.
	const tables = 3
	type player struct {
		c *Client
		w *Watcher
	}
	ids := make([]string, tables)
	players := make([][]player, tables)
	var wg sync.WaitGroup
	for i := range tables {
		a, b := e.SignIn(0, fmt.Sprint("A", i)), e.SignIn(1, fmt.Sprint("B", i))
		ids[i] = privateTable(t, a, []*Client{b}, 0, rounds(40), 0).GetTableId()
		for _, c := range []*Client{a, b} {
			p := player{c, c.Watch(ids[i], 0)}
			defer p.w.Cancel()
			players[i] = append(players[i], p)
			wg.Go(func() { p.c.Play(ids[i], p.w, first) })
		}
	}

	// Kill the leader once every game is under way.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < tables; {
		c := players[i][0].c
		v, err := c.C.GetView(c.Ctx(), &gatewayv1.GetViewRequest{TableId: ids[i]})
		if err != nil {
			t.Fatal(err)
		}
		if v.GetVersion() >= 10 {
			i++
			continue
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("table %s did not get under way", ids[i])
		}
	}
	cl.Kill(victim)
	t.Logf("killed %s, the stream's leader", cl.Name(victim))
	wg.Wait()
	if t.Failed() {
		return
	}
	leader, err := cl.StreamLeader(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stream leader now %s; gateway replica 0 on %s", cl.Name(leader), e.GatewayBuses[0].Server())

	// Every Watch stream: the events its seat may see, once and in order.
	want := map[string][]uint64{} // each table's public events
	total := 0
	for i, id := range ids {
		c := players[i][0].c
		replay, err := c.C.GetReplay(c.Ctx(), &gatewayv1.GetReplayRequest{TableId: id})
		if err != nil {
			t.Fatal(err)
		}
		all := ReplayEvents(replay)
		for _, p := range players[i] {
			v, err := p.c.C.GetView(p.c.Ctx(), &gatewayv1.GetViewRequest{TableId: id})
			if err != nil {
				t.Fatal(err)
			}
			checkStream(t, p.c, all, []*gatewayv1.GetViewResponse{v})
		}
		for _, ev := range all {
			if _, ok := ev.GetVisibility().GetAudience().(*eventsv1.Visibility_Public); ok {
				want[id] = append(want[id], ev.GetSequence())
			}
		}
		total += len(want[id])
	}

	// The stream, once every publication is confirmed (the outbox is empty).
	for {
		left, err := e.Tables.Unpublished(ctx, time.Now().Add(time.Hour), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("table %s's publications never confirmed", left[0])
		}
	}
	data, err := cl.StreamData(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != total {
		t.Errorf("the stream holds %d messages, want %d (the tables' public events, once each)", len(data), total)
	}
	have := map[string][]uint64{}
	for _, d := range data {
		ev := &eventsv1.Event{}
		if err := proto.Unmarshal(d, ev); err != nil {
			t.Fatal(err)
		}
		have[ev.GetTableId()] = append(have[ev.GetTableId()], ev.GetSequence())
	}
	// Once each; in order by sequence, not by arrival (docs/events.md): a publication that failed
	// with the leader is republished after later ones.
	for _, id := range ids {
		got := slices.Clone(have[id])
		slices.Sort(got)
		if !slices.Equal(got, want[id]) {
			t.Errorf("table %s: the stream holds events %v, want each of %v once", id, have[id], want[id])
		}
	}
}
