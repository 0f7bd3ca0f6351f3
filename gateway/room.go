package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
)

// The room: the public lists of tables and each player's own (the lobby store keeps them as
// indexes written with the tables, so a list costs nothing until someone reads a page of it).

const (
	defaultPageSize = 20
	maxPageSize     = 100
	// myTablesLimit bounds ListMyTables: the newest of the caller's tables.
	myTablesLimit = 50
)

func (s *Server) ListTables(ctx context.Context, req *gatewayv1.ListTablesRequest) (*gatewayv1.ListTablesResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	q, err := s.tableQuery(req)
	if err != nil {
		return nil, err
	}
	resp, err := listTables(ctx, s.lobby, q, sess.Player)
	return resp, s.toStatus(ctx, err)
}

// pageSize is a request's page size: 0 is the default; more than maxPageSize is refused.
func pageSize(field string, n uint32) (int, error) {
	switch {
	case n == 0:
		return defaultPageSize, nil
	case n > maxPageSize:
		return 0, refusal.Invalid(field, refusal.InvalidField, "%s must be at most %d", field, maxPageSize)
	}
	return int(n), nil
}

// tableQuery checks a ListTables request. A page token carries the list it was given for, so that
// one given with other filters is refused rather than answered with a page of another list.
func (s *Server) tableQuery(req *gatewayv1.ListTablesRequest) (lobby.TableQuery, error) {
	var q lobby.TableQuery
	switch req.GetState() {
	case gatewayv1.TableState_TABLE_STATE_OPEN:
		q.Listing = lobby.ListOpen
	case gatewayv1.TableState_TABLE_STATE_PLAYING:
		q.Listing = lobby.ListLive
	case gatewayv1.TableState_TABLE_STATE_FINISHED:
		q.Listing = lobby.ListFinished
	case gatewayv1.TableState_TABLE_STATE_UNSPECIFIED:
		return q, refusal.Invalid("state", refusal.MissingField, "state is required: OPEN, PLAYING or FINISHED")
	default:
		return q, refusal.Invalid("state", refusal.InvalidField, "only OPEN, PLAYING and FINISHED tables are listed")
	}
	if g := req.GetGame(); g != "" {
		if _, err := s.rulesOf(g); err != nil {
			return q, err
		}
		q.Game = g
	}
	var err error
	if q.Limit, err = pageSize("page_size", req.GetPageSize()); err != nil {
		return q, err
	}
	if tok := req.GetPageToken(); tok != "" {
		list, rest, ok := strings.Cut(tok, ".")
		c, err := lobby.ParseCursor(rest)
		if !ok || err != nil || list != listTag(q) {
			return q, refusal.Invalid("page_token", refusal.BadPageToken, "page_token is not one this listing gave (the same state and game)")
		}
		q.After = c
	}
	return q, nil
}

// listTag names a list in its page tokens.
func listTag(q lobby.TableQuery) string { return fmt.Sprintf("%d-%s", q.Listing, q.Game) }

// listTables is a page of a public list as player sees it.
func listTables(ctx context.Context, st lobby.Store, q lobby.TableQuery, player string) (*gatewayv1.ListTablesResponse, error) {
	page, err := st.ListTables(ctx, q)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListTablesResponse{Tables: make([]*gatewayv1.Table, 0, len(page.Tables))}
	for i := range page.Tables {
		resp.Tables = append(resp.Tables, tableProto(&page.Tables[i], player))
	}
	if !page.Next.IsZero() {
		resp.NextPageToken = listTag(q) + "." + page.Next.Token()
	}
	return resp, nil
}

func (s *Server) ListMyTables(ctx context.Context, req *gatewayv1.ListMyTablesRequest) (*gatewayv1.ListMyTablesResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := listMyTables(ctx, s.lobby, sess.Player)
	return resp, s.toStatus(ctx, err)
}

func listMyTables(ctx context.Context, st lobby.Store, player string) (*gatewayv1.ListMyTablesResponse, error) {
	tables, err := st.TablesOf(ctx, player, myTablesLimit)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListMyTablesResponse{}
	for i := range tables {
		t := &tables[i]
		if !t.Has(player) {
			continue // left before the start
		}
		switch t.State {
		case lobby.TableOpen, lobby.TableStarting, lobby.TableDealt:
			resp.InProgress = append(resp.InProgress, tableProto(t, player))
		case lobby.TableFinished:
			resp.Finished = append(resp.Finished, tableProto(t, player))
		}
	}
	// Finished ones by their end, newest first (the index is by creation).
	slices.SortStableFunc(resp.Finished, func(a, b *gatewayv1.Table) int {
		return b.GetFinishedAt().AsTime().Compare(a.GetFinishedAt().AsTime())
	})
	return resp, nil
}

// publicTable is the id of the open public table a JoinTable names by id: a private table is not
// found, whether it exists or not.
func publicTable(ctx context.Context, st lobby.Store, id string) (string, error) {
	if err := checkTableID(id); err != nil {
		return "", err
	}
	t, err := st.LoadTable(ctx, id)
	if errors.Is(err, lobby.ErrNotFound) || err == nil && !t.Public {
		return "", tableNotFound()
	}
	if err != nil {
		return "", err
	}
	return id, nil
}

// distinctName is name, or "name (2)", "name (3)"…, whichever no one of others goes by (compared
// without case), so that two people called Ann at one table are told apart.
func distinctName(name string, others []lobby.Player) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(others, func(p lobby.Player) bool { return strings.EqualFold(p.Name, n) })
	}
	out := name
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s (%d)", name, i)
	}
	return out
}

// distinctNames renames, in order, each player whose name an earlier one has.
func distinctNames(players []lobby.Player) []lobby.Player {
	out := make([]lobby.Player, 0, len(players))
	for _, p := range players {
		p.Name = distinctName(p.Name, out)
		out = append(out, p)
	}
	return out
}

func (s *Server) CheckTableOptions(ctx context.Context, req *gatewayv1.CheckTableOptionsRequest) (*gatewayv1.CheckTableOptionsResponse, error) {
	if _, err := s.begin(ctx, req); err != nil {
		return nil, err
	}
	resp, err := s.checkTableOptions(ctx, req)
	return resp, s.toStatus(ctx, err)
}

// checkTableOptions asks the game's rules service, which asks its engine: the gateway knows no
// game's rules.
func (s *Server) checkTableOptions(ctx context.Context, req *gatewayv1.CheckTableOptionsRequest) (*gatewayv1.CheckTableOptionsResponse, error) {
	d, err := s.describe(ctx, req.GetGame())
	if err != nil {
		return nil, err
	}
	if _, err := checkOptions(d, req.GetOptions()); err != nil {
		return nil, err
	}
	seats := req.GetSeats()
	if seats == 0 {
		seats = cmp.Or(d.GetUsualSeats(), d.GetMaxSeats())
	}
	c, err := s.rulesOf(req.GetGame())
	if err != nil {
		return nil, err
	}
	r, err := c.CheckOptions(ctx, &rulesv1.CheckOptionsRequest{Seats: seats, Options: req.GetOptions()})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CheckTableOptionsResponse{Accepted: r.GetAccepted(), Refusal: r.GetRefusal()}, nil
}
