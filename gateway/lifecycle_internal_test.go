package gateway

import (
	"context"
	"testing"

	"cardroom.dev/gateway/lobby"
)

// TestAwaitDealWithoutNotice: StartTable's wait learns of the deal from the lobby even when no
// table notification arrives (a gateway cut from NATS while another replica deals).
func TestAwaitDealWithoutNotice(t *testing.T) {
	st := lobby.NewMemory()
	s := &Server{lobby: st}
	ctx := t.Context()
	tbl := lobby.Table{ID: "t-1", Game: "g", State: lobby.TableStarting, Capacity: 2}
	if err := st.CreateTable(ctx, tbl, 0); err != nil {
		t.Fatal(err)
	}
	stored, err := st.LoadTable(ctx, "t-1")
	if err != nil {
		t.Fatal(err)
	}
	dealt := stored
	dealt.State = lobby.TableDealt
	if err := st.UpdateTable(ctx, dealt, 0); err != nil { // dealt by another replica, unannounced
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, startWait/2)
	defer cancel()
	got, err := s.awaitDeal(wctx, &stored, make(chan struct{}))
	if err != nil {
		t.Fatalf("the wait did not see the deal: %v", err)
	}
	if got.State != lobby.TableDealt {
		t.Fatalf("the wait answered a table %v", got.State)
	}
}
