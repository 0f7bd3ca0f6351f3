package stats

import (
	"context"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Server implements cardroom.stats.v1.StatsService over a Store.
type Server struct {
	statsv1.UnimplementedStatsServiceServer
	store Store
	log   *slog.Logger
}

// NewServer returns a StatsService reading st.
func NewServer(st Store, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	return &Server{store: st, log: log}
}

// internal logs err in full and answers a bare INTERNAL.
func (s *Server) internal(ctx context.Context, method string, err error) error {
	s.log.ErrorContext(ctx, "stats query failed", slog.String("method", method), slog.Any("error", err))
	return status.Error(codes.Internal, "internal error")
}

// Violation codes of malformed requests, as the rules service uses them.
const (
	codeMissingField = "MISSING_FIELD"
	codeInvalidField = "INVALID_FIELD"
)

func invalid(field, code, msg string) error {
	st, err := status.New(codes.InvalidArgument, msg).WithDetails(&gamev1.RuleViolation{Code: code, Message: msg, Field: field})
	if err != nil {
		return status.Error(codes.InvalidArgument, msg)
	}
	return st.Err()
}

func (s *Server) ListGames(ctx context.Context, _ *statsv1.ListGamesRequest) (*statsv1.ListGamesResponse, error) {
	games, err := s.store.Games(ctx)
	if err != nil {
		return nil, s.internal(ctx, "ListGames", err)
	}
	resp := &statsv1.ListGamesResponse{}
	for _, g := range games {
		c, err := s.store.GameCounters(ctx, g)
		if err != nil {
			return nil, s.internal(ctx, "ListGames", err)
		}
		resp.Games = append(resp.Games, GameStatsOf(g, c, false))
	}
	return resp, nil
}

func (s *Server) GetGameStats(ctx context.Context, req *statsv1.GetGameStatsRequest) (*statsv1.GetGameStatsResponse, error) {
	if req.GetGame() == "" {
		return nil, invalid("game", codeMissingField, "game is required")
	}
	c, err := s.store.GameCounters(ctx, req.GetGame())
	if err != nil {
		return nil, s.internal(ctx, "GetGameStats", err)
	}
	if len(c) == 0 {
		return nil, status.Errorf(codes.NotFound, "no figures for game %q", req.GetGame())
	}
	return &statsv1.GetGameStatsResponse{Stats: GameStatsOf(req.GetGame(), c, true)}, nil
}

// GameStatsOf reads a game's figures from its counters.
func GameStatsOf(game string, c map[string]int64, buckets bool) *statsv1.GameStats {
	u := func(k string) uint64 { return uint64(max(c[k], 0)) }
	gs := &statsv1.GameStats{
		Game: game, TablesCreated: u("tables_created"), GamesFinished: u("finished"), GamesAborted: u("aborted"),
		DurationMs: distribution(c, "duration", buckets), Actions: distribution(c, "actions", buckets),
		Scores: distribution(c, "score", buckets),
	}
	for k, v := range c {
		switch {
		case strings.HasPrefix(k, "seat:") && strings.HasSuffix(k, ":games"):
			parts := strings.Split(k, ":") // seat:<n>:<i>:games
			if len(parts) != 4 {
				continue
			}
			n, err1 := strconv.ParseUint(parts[1], 10, 32)
			i, err2 := strconv.ParseUint(parts[2], 10, 32)
			if err1 != nil || err2 != nil || v <= 0 {
				continue
			}
			base := "seat:" + parts[1] + ":" + parts[2] + ":"
			sp := &statsv1.SeatPositionStats{PlayerCount: uint32(n), Seat: uint32(i), Games: uint64(v), Wins: u(base + "wins")}
			sp.WinRate = float64(sp.Wins) / float64(v)
			sp.MeanRank = float64(c[base+"ranks"]) / float64(v)
			gs.SeatPositions = append(gs.SeatPositions, sp)
		case strings.HasPrefix(k, "players:"):
			n, err := strconv.ParseUint(k[len("players:"):], 10, 32)
			if err == nil && v > 0 {
				gs.PlayerCounts = append(gs.PlayerCounts, &statsv1.PlayerCountUsage{PlayerCount: uint32(n), Games: uint64(v)})
			}
		case strings.HasPrefix(k, "opt:"):
			opt, val, _ := strings.Cut(k[len("opt:"):], "=")
			if v > 0 {
				gs.Options = append(gs.Options, &statsv1.OptionUsage{Option: opt, Value: val, Games: uint64(v)})
			}
		}
	}
	sort.Slice(gs.SeatPositions, func(a, b int) bool {
		x, y := gs.SeatPositions[a], gs.SeatPositions[b]
		if x.PlayerCount != y.PlayerCount {
			return x.PlayerCount < y.PlayerCount
		}
		return x.Seat < y.Seat
	})
	sort.Slice(gs.PlayerCounts, func(a, b int) bool { return gs.PlayerCounts[a].PlayerCount < gs.PlayerCounts[b].PlayerCount })
	sort.Slice(gs.Options, func(a, b int) bool {
		x, y := gs.Options[a], gs.Options[b]
		if x.Option != y.Option {
			return x.Option < y.Option
		}
		return x.Value < y.Value
	})
	return gs
}

const (
	defaultRecent = 10
	maxRecent     = 50
	defaultPage   = 10
	maxPage       = 100
)

func (s *Server) GetPlayerStats(ctx context.Context, req *statsv1.GetPlayerStatsRequest) (*statsv1.GetPlayerStatsResponse, error) {
	if req.GetPlayerId() == "" {
		return nil, invalid("player_id", codeMissingField, "player_id is required")
	}
	if req.GetRecentLimit() > maxRecent {
		return nil, invalid("recent_limit", codeInvalidField, "recent_limit is at most 50")
	}
	recs, err := s.store.PlayerRecords(ctx, req.GetPlayerId())
	if err != nil {
		return nil, s.internal(ctx, "GetPlayerStats", err)
	}
	if len(recs) == 0 {
		return nil, status.Errorf(codes.NotFound, "no games for player %q", req.GetPlayerId())
	}
	n := int(req.GetRecentLimit())
	if n == 0 {
		n = defaultRecent
	}
	recent, err := s.store.Recent(ctx, req.GetPlayerId(), n)
	if err != nil {
		return nil, s.internal(ctx, "GetPlayerStats", err)
	}
	resp := &statsv1.GetPlayerStatsResponse{PlayerId: req.GetPlayerId(), Records: recs, Recent: recent}
	var newest *statsv1.PlayerGameRecord
	for _, r := range recs {
		resp.Games += r.GetGames()
		resp.Wins += r.GetWins()
		resp.Aborted += r.GetAborted()
		resp.Abandoned += r.GetAbandoned()
		if newest == nil || r.GetLastFinishedAt().AsTime().After(newest.GetLastFinishedAt().AsTime()) {
			newest = r
		}
	}
	resp.DisplayName, resp.Kind = newest.GetDisplayName(), newest.GetKind()
	return resp, nil
}

func (s *Server) GetLeaderboard(ctx context.Context, req *statsv1.GetLeaderboardRequest) (*statsv1.GetLeaderboardResponse, error) {
	if req.GetGame() == "" {
		return nil, invalid("game", codeMissingField, "game is required")
	}
	if req.GetLimit() > maxPage {
		return nil, invalid("limit", codeInvalidField, "limit is at most 100")
	}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = defaultPage
	}
	start := int(req.GetOffset())
	if p := req.GetAroundPlayerId(); p != "" {
		rank, ok, err := s.store.Rank(ctx, req.GetGame(), p)
		if err != nil {
			return nil, s.internal(ctx, "GetLeaderboard", err)
		}
		if !ok {
			return nil, status.Errorf(codes.NotFound, "player %q is not on the %q leaderboard", p, req.GetGame())
		}
		start = max(rank-limit/2, 0)
	}
	rows, total, err := s.store.Leaderboard(ctx, req.GetGame(), start, limit)
	if err != nil {
		return nil, s.internal(ctx, "GetLeaderboard", err)
	}
	if req.GetAroundPlayerId() != "" && len(rows) < limit && start > 0 {
		// Near the bottom: slide the page up so it stays full.
		start = max(total-limit, 0)
		if rows, total, err = s.store.Leaderboard(ctx, req.GetGame(), start, limit); err != nil {
			return nil, s.internal(ctx, "GetLeaderboard", err)
		}
	}
	resp := &statsv1.GetLeaderboardResponse{Game: req.GetGame(), Total: uint64(total)}
	for i, r := range rows {
		e := &statsv1.LeaderboardEntry{Rank: uint64(start + i + 1), PlayerId: r.Player, Rating: &statsv1.Rating{Display: r.Rating}}
		recs, err := s.store.PlayerRecords(ctx, r.Player)
		if err != nil {
			return nil, s.internal(ctx, "GetLeaderboard", err)
		}
		for _, rec := range recs {
			if rec.GetGame() == req.GetGame() {
				e.DisplayName, e.Rating, e.Games, e.Wins = rec.GetDisplayName(), rec.GetRating(), rec.GetGames(), rec.GetWins()
			}
		}
		resp.Entries = append(resp.Entries, e)
	}
	return resp, nil
}

func (s *Server) GetLiveStats(ctx context.Context, req *statsv1.GetLiveStatsRequest) (*statsv1.GetLiveStatsResponse, error) {
	l, err := s.store.Live(ctx)
	if err != nil {
		return nil, s.internal(ctx, "GetLiveStats", err)
	}
	games, err := s.store.Games(ctx)
	if err != nil {
		return nil, s.internal(ctx, "GetLiveStats", err)
	}
	resp := &statsv1.GetLiveStatsResponse{PlayersOnline: uint64(l.AllPlayers)}
	for _, g := range games {
		if req.GetGame() != "" && g != req.GetGame() {
			continue
		}
		resp.Games = append(resp.Games, &statsv1.LiveGame{Game: g, TablesInPlay: uint64(l.Tables[g]), PlayersOnline: uint64(l.Players[g])})
	}
	if req.GetGame() != "" {
		if len(resp.Games) == 0 {
			resp.Games = []*statsv1.LiveGame{{Game: req.GetGame()}}
		}
		resp.PlayersOnline = resp.Games[0].GetPlayersOnline()
	}
	return resp, nil
}

func (s *Server) GetIngestStats(ctx context.Context, _ *statsv1.GetIngestStatsRequest) (*statsv1.GetIngestStatsResponse, error) {
	pos, err := s.store.Position(ctx)
	if err != nil {
		return nil, s.internal(ctx, "GetIngestStats", err)
	}
	c, err := s.store.Ingest(ctx)
	if err != nil {
		return nil, s.internal(ctx, "GetIngestStats", err)
	}
	u := func(k string) uint64 { return uint64(max(c[k], 0)) }
	resp := &statsv1.GetIngestStatsResponse{
		StreamSequence: pos, Applied: u(CounterApplied), Ignored: u(CounterIgnored), Duplicates: u(CounterDuplicates), Rejected: u(CounterRejected),
	}
	for k, v := range c {
		if r, ok := strings.CutPrefix(k, rejectedPrefix); ok {
			resp.RejectedByReason = append(resp.RejectedByReason, &statsv1.RejectedCount{Reason: r, Count: uint64(v)})
		}
	}
	sort.Slice(resp.RejectedByReason, func(a, b int) bool { return resp.RejectedByReason[a].Reason < resp.RejectedByReason[b].Reason })
	return resp, nil
}
