package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	. "cardroom.dev/gateway/gatewaytest"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// loseFirstReply is a gateway interceptor that runs the first call of each method named in lose
// and answers UNAVAILABLE in place of its reply, as a connection lost after the work was done.
func loseFirstReply(lose ...string) grpc.UnaryServerInterceptor {
	var mu sync.Mutex
	lost := map[string]bool{}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		resp, err := h(ctx, req)
		mu.Lock()
		defer mu.Unlock()
		for _, m := range lose {
			if strings.HasSuffix(info.FullMethod, "/"+m) && err == nil && !lost[m] {
				lost[m] = true
				return nil, status.Error(codes.Unavailable, "reply lost")
			}
		}
		return resp, err
	}
}

// records counts the lobby's records of a kind in Redis ("t" tables, "k" tickets).
func records(t *testing.T, e *Env, kind string) int {
	t.Helper()
	keys, err := e.RDB.Keys(t.Context(), e.Prefix+"gw:*:"+kind+":*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// TestCreateRequestIDs: CreateTable and EnqueueTicket with a request id are applied once, on any
// replica: a retry after a lost reply answers the same table or ticket and creates nothing; the
// same id with other fields is REQUEST_ID_REUSED; the same id from another player is theirs.
func TestCreateRequestIDs(t *testing.T) {
	for _, redis := range []bool{false, true} {
		t.Run(fmt.Sprintf("redis=%v", redis), func(t *testing.T) {
			gws := 1
			if redis {
				gws = 2
			}
			e := NewEnv(t, EnvOptions{Redis: redis, Gateways: gws, GatewayUnary: loseFirstReply("CreateTable", "EnqueueTicket")})
			ann, bob := e.SignIn(0, "Ann"), e.SignIn(gws-1, "Bob")
			annOn := func(gw int) gatewayv1.GatewayServiceClient { return e.Dial(gw % gws) }
			ctx := ann.Ctx()

			// Tables.
			create := &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(1), RequestId: "create-1"}
			_, err := annOn(0).CreateTable(ctx, create)
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("first CreateTable: %v, want its reply lost", err)
			}
			first, err := annOn(1).CreateTable(ctx, create)
			if err != nil {
				t.Fatal(err)
			}
			again, err := annOn(0).CreateTable(ctx, create)
			if err != nil {
				t.Fatal(err)
			}
			if again.GetTableId() != first.GetTableId() || again.GetInviteCode() != first.GetInviteCode() || first.GetInviteCode() == "" {
				t.Fatalf("retries answered %s/%s and %s/%s", first.GetTableId(), first.GetInviteCode(), again.GetTableId(), again.GetInviteCode())
			}
			if got := again.GetTable().GetPlayers(); len(got) != 1 || got[0].GetPlayerId() != ann.ID {
				t.Fatalf("the table's players: %v", got)
			}
			// The table as it is now: after Bob joins, a retry shows him.
			if _, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{InviteCode: first.GetInviteCode()}); err != nil {
				t.Fatal(err)
			}
			now, err := annOn(1).CreateTable(ctx, create)
			if err != nil {
				t.Fatal(err)
			}
			if now.GetTableId() != first.GetTableId() || len(now.GetTable().GetPlayers()) != 2 {
				t.Fatalf("a retry after a join: %v", now.GetTable())
			}
			other := &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(2), RequestId: "create-1"}
			_, err = annOn(0).CreateTable(ctx, other)
			wantCode(t, err, codes.InvalidArgument, refusal.RequestIDReused)
			// Bob's request ids are his own.
			bobs, err := bob.C.CreateTable(bob.Ctx(), create)
			if err != nil {
				t.Fatal(err)
			}
			if bobs.GetTableId() == first.GetTableId() {
				t.Fatal("Bob's request id answered Ann's table")
			}
			// Concurrent copies of one request make one table.
			concurrent := &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(1), RequestId: "create-2"}
			ids := make([]string, 8)
			var wg sync.WaitGroup
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := annOn(i).CreateTable(ctx, concurrent)
					if err != nil {
						t.Error(err)
						return
					}
					ids[i] = r.GetTableId()
				}()
			}
			wg.Wait()
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("concurrent copies answered tables %v", ids)
				}
			}
			_, err = annOn(0).CreateTable(ctx, &gatewayv1.CreateTableRequest{Game: TestGame, RequestId: strings.Repeat("r", 129)})
			wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
			if redis {
				// Ann's two requests and Bob's: three tables.
				if n := records(t, e, "t"); n != 3 {
					t.Fatalf("%d tables recorded, want 3", n)
				}
			}

			// Tickets.
			enqueue := &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 2, MaxSeats: 2, PartySize: 2, Options: rounds(1), RequestId: "ticket-1"}
			_, err = annOn(0).EnqueueTicket(ctx, enqueue)
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("first EnqueueTicket: %v, want its reply lost", err)
			}
			var tickets atomic.Value
			var twg sync.WaitGroup
			for i := range 8 {
				twg.Add(1)
				go func() {
					defer twg.Done()
					r, err := annOn(i).EnqueueTicket(ctx, enqueue)
					if err != nil {
						t.Error(err)
						return
					}
					if prev := tickets.Swap(r.GetTicketId()); prev != nil && prev != r.GetTicketId() {
						t.Errorf("retries answered tickets %s and %s", prev, r.GetTicketId())
					}
				}()
			}
			twg.Wait()
			ticket, _ := tickets.Load().(string)
			if ticket == "" {
				t.Fatal("no ticket answered")
			}
			// The ticket is the first call's: Bob can join the party it is waiting for.
			if _, err := bob.C.JoinTicket(bob.Ctx(), &gatewayv1.JoinTicketRequest{TicketId: ticket}); err != nil {
				t.Fatal(err)
			}
			changed := &gatewayv1.EnqueueTicketRequest{Game: TestGame, MinSeats: 2, MaxSeats: 2, PartySize: 1, Options: rounds(1), RequestId: "ticket-1"}
			_, err = annOn(1).EnqueueTicket(ctx, changed)
			wantCode(t, err, codes.InvalidArgument, refusal.RequestIDReused)
			// A table's request id and a ticket's are one player's ids alike.
			_, err = annOn(0).EnqueueTicket(ctx, &gatewayv1.EnqueueTicketRequest{Game: TestGame, Options: rounds(1), RequestId: "create-1"})
			wantCode(t, err, codes.InvalidArgument, refusal.RequestIDReused)
			if redis {
				if n := records(t, e, "k"); n != 1 {
					t.Fatalf("%d tickets recorded, want 1", n)
				}
			}
		})
	}
}
