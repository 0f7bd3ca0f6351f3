package gateway_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	. "cardroom.dev/gateway/gatewaytest"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"cardroom.dev/services/kit/refusal"
	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

func list(t *testing.T, c *Client, st gatewayv1.TableState, game string, size uint32, token string) *gatewayv1.ListTablesResponse {
	t.Helper()
	r, err := c.C.ListTables(c.Ctx(), &gatewayv1.ListTablesRequest{State: st, Game: game, PageSize: size, PageToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// listIDs reads a whole list, size tables a page.
func listIDs(t *testing.T, c *Client, st gatewayv1.TableState, size uint32) []string {
	t.Helper()
	var ids []string
	token := ""
	for range 100 {
		r := list(t, c, st, "", size, token)
		if len(r.GetTables()) > int(size) {
			t.Fatalf("%d tables in a page of %d", len(r.GetTables()), size)
		}
		for _, tb := range r.GetTables() {
			ids = append(ids, tb.GetTableId())
		}
		if token = r.GetNextPageToken(); token == "" {
			return ids
		}
	}
	t.Fatal("the list does not end")
	return nil
}

func createTable(t *testing.T, c *Client, public bool) *gatewayv1.CreateTableResponse {
	t.Helper()
	r, err := c.C.CreateTable(c.Ctx(), &gatewayv1.CreateTableRequest{Game: TestGame, Seats: 2, Options: rounds(1), Public: public})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestListTables: the public lists hold the public tables of each state, newest first, page by
// page; a private table is in none (nor can it be joined by its id); a listing shows no invite code
// of another's table; bad requests are refused with their code and change nothing.
func TestListTables(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")

	var open []string // newest first
	for range 5 {
		open = append([]string{createTable(t, ann, true).GetTableId()}, open...)
	}
	private := createTable(t, ann, false)
	// A public table played to its end, and a private one being played.
	done := createTable(t, ann, true)
	if _, err := ann.C.AddBots(ann.Ctx(), &gatewayv1.AddBotsRequest{TableId: done.GetTableId(), Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := ann.C.StartTable(ann.Ctx(), &gatewayv1.StartTableRequest{TableId: done.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	privateLive := privateTable(t, ann, nil, 1, rounds(50), 0)

	for _, size := range []uint32{1, 2, 3, 20} {
		if got := listIDs(t, bob, gatewayv1.TableState_TABLE_STATE_OPEN, size); !sameSet(got, open) {
			t.Fatalf("open tables, %d a page: %v, want %v", size, got, open)
		}
	}
	newestFirst(t, list(t, bob, gatewayv1.TableState_TABLE_STATE_OPEN, "", 20, "").GetTables())
	for _, tb := range list(t, bob, gatewayv1.TableState_TABLE_STATE_OPEN, TestGame, 20, "").GetTables() {
		if tb.GetInviteCode() != "" || !tb.GetPublic() || tb.GetCreatedAt() == nil || len(tb.GetPlayers()) != 1 {
			t.Fatalf("an open table as another player sees it: %v", tb)
		}
	}
	if mine := list(t, ann, gatewayv1.TableState_TABLE_STATE_OPEN, "", 1, "").GetTables()[0]; mine.GetInviteCode() == "" {
		t.Fatalf("the owner's own open table without its code: %v", mine)
	}
	live := list(t, bob, gatewayv1.TableState_TABLE_STATE_PLAYING, "", 20, "").GetTables()
	if len(live) != 1 || live[0].GetTableId() != done.GetTableId() || live[0].GetStartedAt() == nil || len(live[0].GetSeats()) != 2 || live[0].YourSeat != nil {
		t.Fatalf("live tables: %v (want only %s, not the private %s)", live, done.GetTableId(), privateLive.GetTableId())
	}
	if !slices.ContainsFunc(live[0].GetSeats(), func(s *gamev1.Seat) bool {
		return s.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT && s.GetPlayer().GetBotLevel() == gamev1.BotLevel_BOT_LEVEL_NORMAL
	}) {
		t.Fatalf("a live table's seats do not show its bot and level: %v", live[0].GetSeats())
	}

	// Bob joins an open public table by its id; not a private one, whose id he learned somehow.
	jr, err := bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{TableId: open[0]})
	if err != nil || len(jr.GetTable().GetPlayers()) != 2 {
		t.Fatalf("join a public table by id: %v, %v", jr, err)
	}
	_, err = bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{TableId: private.GetTableId()})
	wantCode(t, err, codes.NotFound, refusal.TableNotFound)
	_, err = bob.C.JoinTable(bob.Ctx(), &gatewayv1.JoinTableRequest{TableId: private.GetTableId(), InviteCode: private.GetInviteCode()})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	if g, err := ann.C.GetTable(ann.Ctx(), &gatewayv1.GetTableRequest{TableId: private.GetTableId()}); err != nil || len(g.GetTable().GetPlayers()) != 1 {
		t.Fatalf("the private table after refused joins: %v, %v", g, err)
	}

	// Played out: the table moves to the finished list.
	w := ann.Watch(done.GetTableId(), 0)
	ann.Play(done.GetTableId(), w, first)
	w.Cancel()
	waitList(t, bob, gatewayv1.TableState_TABLE_STATE_FINISHED, done.GetTableId())
	if got := listIDs(t, bob, gatewayv1.TableState_TABLE_STATE_PLAYING, 5); len(got) != 0 {
		t.Fatalf("live after the end: %v", got)
	}
	fin := list(t, bob, gatewayv1.TableState_TABLE_STATE_FINISHED, TestGame, 5, "").GetTables()[0]
	if fin.GetFinishedAt() == nil || fin.GetState() != gatewayv1.TableState_TABLE_STATE_FINISHED {
		t.Fatalf("a finished table: %v", fin)
	}
	if _, err := bob.C.GetReplay(bob.Ctx(), &gatewayv1.GetReplayRequest{TableId: fin.GetTableId()}); err != nil {
		t.Fatalf("the replay of a listed finished table: %v", err)
	}

	// Refusals.
	other := list(t, bob, gatewayv1.TableState_TABLE_STATE_OPEN, "", 1, "").GetNextPageToken()
	for _, c := range []struct {
		req       *gatewayv1.ListTablesRequest
		code      codes.Code
		violation string
	}{
		{&gatewayv1.ListTablesRequest{}, codes.InvalidArgument, refusal.MissingField},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_CLOSED}, codes.InvalidArgument, refusal.InvalidField},
		{&gatewayv1.ListTablesRequest{State: 42}, codes.InvalidArgument, refusal.InvalidField},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, Game: "chess"}, codes.InvalidArgument, refusal.UnknownGame},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, PageSize: 101}, codes.InvalidArgument, refusal.InvalidField},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, PageToken: "nonsense"}, codes.InvalidArgument, refusal.BadPageToken},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_PLAYING, PageToken: other}, codes.InvalidArgument, refusal.BadPageToken},
		{&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, Game: TestGame, PageToken: other}, codes.InvalidArgument, refusal.BadPageToken},
	} {
		_, err := bob.C.ListTables(bob.Ctx(), c.req)
		wantCode(t, err, c.code, c.violation)
	}
	_, err = e.Dial(0).ListTables(t.Context(), &gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN})
	wantCode(t, err, codes.Unauthenticated, "")
}

// sameSet reports whether a and b hold the same ids (tables made in the same millisecond may come
// in either order).
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func newestFirst(t *testing.T, tables []*gatewayv1.Table) {
	t.Helper()
	for i := 1; i < len(tables); i++ {
		if tables[i].GetCreatedAt().AsTime().UnixMilli() > tables[i-1].GetCreatedAt().AsTime().UnixMilli() { // ordered to the millisecond
			t.Fatalf("table %d is newer than table %d", i, i-1)
		}
	}
}

// waitList waits until table is in the list of state (the table's owner records its end after
// the TableFinished event).
func waitList(t *testing.T, c *Client, st gatewayv1.TableState, table string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(listIDs(t, c, st, 100), table) {
		if time.Now().After(deadline) {
			t.Fatalf("%s not in the %v list within 10s", table, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListMyTables: a player's tables, public or private, from another sign-in of theirs: the
// ones in progress and the finished ones; a table they left is not theirs.
func TestListMyTables(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	left := createTable(t, bob, true)
	if _, err := ann.C.JoinTable(ann.Ctx(), &gatewayv1.JoinTableRequest{TableId: left.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ann.C.LeaveTable(ann.Ctx(), &gatewayv1.LeaveTableRequest{TableId: left.GetTableId()}); err != nil {
		t.Fatal(err)
	}
	waiting := createTable(t, ann, false)
	playing := privateTable(t, ann, []*Client{bob}, 0, rounds(50), 0)
	over := privateTable(t, ann, nil, 1, rounds(1), 0)
	w := ann.Watch(over.GetTableId(), 0)
	ann.Play(over.GetTableId(), w, first)
	w.Cancel()

	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := ann.C.ListMyTables(ann.Ctx(), &gatewayv1.ListMyTablesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var in, fin []string
		for _, tb := range r.GetInProgress() {
			in = append(in, tb.GetTableId())
		}
		for _, tb := range r.GetFinished() {
			fin = append(fin, tb.GetTableId())
		}
		if slices.Contains(in, left.GetTableId()) {
			t.Fatalf("a table Ann left is among hers: %v", in)
		}
		if len(fin) == 1 {
			if fin[0] != over.GetTableId() || !sameSet(in, []string{playing.GetTableId(), waiting.GetTableId()}) {
				t.Fatalf("Ann's tables: in progress %v, finished %v", in, fin)
			}
			for _, tb := range r.GetInProgress() {
				if tb.GetTableId() == playing.GetTableId() && tb.YourSeat == nil || tb.GetTableId() == waiting.GetTableId() && tb.GetInviteCode() == "" {
					t.Fatalf("Ann's own table without her seat or code: %v", tb)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the finished table not among Ann's within 10s: %v %v", in, fin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSameNames: a second Ann at a table is "Ann (2)", in the lobby's table and in the summary
// every seat's view carries.
func TestSameNames(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann, ann2 := e.SignIn(0, "Ann"), e.SignIn(0, "ann")
	tb := privateTable(t, ann, []*Client{ann2}, 0, rounds(1), 0)
	var names []string
	for _, p := range tb.GetPlayers() {
		names = append(names, p.GetDisplayName())
	}
	if !slices.Equal(names, []string{"Ann", "ann (2)"}) {
		t.Fatalf("names at the table: %v", names)
	}
	v, err := ann.C.GetView(ann.Ctx(), &gatewayv1.GetViewRequest{TableId: tb.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	var seats []string
	for _, s := range v.GetTable().GetConfig().GetSeats() {
		seats = append(seats, s.GetPlayer().GetDisplayName())
	}
	slices.Sort(seats)
	if !slices.Equal(seats, []string{"Ann", "ann (2)"}) {
		t.Fatalf("names in the table summary: %v", seats)
	}
}

// TestListTablesConnect: the lists answer the Connect protocol (JSON, as a browser calls them)
// as they answer gRPC.
func TestListTablesConnect(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	ann := e.SignIn(0, "Ann")
	var ids []string
	for range 3 {
		ids = append([]string{createTable(t, ann, true).GetTableId()}, ids...)
	}
	client := connect.NewClient[gatewayv1.ListTablesRequest, gatewayv1.ListTablesResponse](&http.Client{},
		"http://"+addr+svcPath+"ListTables", connect.WithProtoJSON())
	call := func(req *gatewayv1.ListTablesRequest) (*gatewayv1.ListTablesResponse, error) {
		r := connect.NewRequest(req)
		r.Header().Set("Authorization", bearer(ann.Token))
		resp, err := client.CallUnary(context.Background(), r)
		if err != nil {
			return nil, err
		}
		return resp.Msg, nil
	}
	var got []string
	token := ""
	for {
		r, err := call(&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		native := list(t, ann, gatewayv1.TableState_TABLE_STATE_OPEN, "", 2, token)
		if !proto.Equal(r, native) {
			t.Fatalf("over Connect %v, over gRPC %v", r, native)
		}
		for _, tb := range r.GetTables() {
			got = append(got, tb.GetTableId())
		}
		if token = r.GetNextPageToken(); token == "" {
			break
		}
	}
	if !sameSet(got, ids) {
		t.Fatalf("over Connect: %v, want %v", got, ids)
	}
	_, err := call(&gatewayv1.ListTablesRequest{State: gatewayv1.TableState_TABLE_STATE_OPEN, PageToken: "x"})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("a bad page token over Connect: %v", err)
	}
	my := connect.NewClient[gatewayv1.ListMyTablesRequest, gatewayv1.ListMyTablesResponse](&http.Client{},
		"http://"+addr+svcPath+"ListMyTables", connect.WithProtoJSON())
	r := connect.NewRequest(&gatewayv1.ListMyTablesRequest{})
	r.Header().Set("Authorization", bearer(ann.Token))
	resp, err := my.CallUnary(context.Background(), r)
	if err != nil || len(resp.Msg.GetInProgress()) != 3 {
		t.Fatalf("ListMyTables over Connect: %v, %v", resp, err)
	}
}

// TestCheckTableOptions: the game's engine says whether it would deal a table, and why not; a
// malformed request is refused; nothing is created.
func TestCheckTableOptions(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	check := func(req *gatewayv1.CheckTableOptionsRequest) *gatewayv1.CheckTableOptionsResponse {
		t.Helper()
		r, err := ann.C.CheckTableOptions(ann.Ctx(), req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := check(&gatewayv1.CheckTableOptionsRequest{Game: TestGame, Options: rounds(5)}); !r.GetAccepted() || r.GetRefusal() != nil {
		t.Fatalf("5 rounds: %v", r)
	}
	r := check(&gatewayv1.CheckTableOptionsRequest{Game: TestGame, Seats: 2, Options: rounds(5000)})
	if r.GetAccepted() || r.GetRefusal().GetCode() != refusal.BadOptions || r.GetRefusal().GetMessage() == "" {
		t.Fatalf("5000 rounds: %v", r)
	}
	if r := check(&gatewayv1.CheckTableOptionsRequest{Game: TestGame, Seats: 99}); r.GetAccepted() || r.GetRefusal().GetCode() != refusal.BadSeatCount {
		t.Fatalf("99 seats: %v", r)
	}
	_, err := ann.C.CheckTableOptions(ann.Ctx(), &gatewayv1.CheckTableOptionsRequest{Game: "chess"})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownGame)
	_, err = ann.C.CheckTableOptions(ann.Ctx(), &gatewayv1.CheckTableOptionsRequest{Game: TestGame, Options: action("x")})
	wantCode(t, err, codes.InvalidArgument, refusal.WrongGame)
	if my, err := ann.C.ListMyTables(ann.Ctx(), &gatewayv1.ListMyTablesRequest{}); err != nil || len(my.GetInProgress()) != 0 {
		t.Fatalf("tables after checks: %v, %v", my, err)
	}
}
