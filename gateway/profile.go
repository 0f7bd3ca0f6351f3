package gateway

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"cardroom.dev/gateway/accounts"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Profiles, leaderboards and game figures: the stats service's answers, through the gateway's port
// (one origin for a browser), cut to what each player's profile visibility lets others see.

// maxRecentGames bounds a profile's recent games (the stats service's own bound).
const maxRecentGames = 50

func (s *Server) statsClient() (statsv1.StatsServiceClient, error) {
	if s.opt.Stats == nil {
		return nil, refusal.New(codes.Unavailable, refusal.StatsUnavailable, "this cardroom keeps no player statistics")
	}
	return s.opt.Stats, nil
}

func (s *Server) GetPlayerProfile(ctx context.Context, req *gatewayv1.GetPlayerProfileRequest) (*gatewayv1.GetPlayerProfileResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.playerProfile(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) playerProfile(ctx context.Context, sess Session, req *gatewayv1.GetPlayerProfileRequest) (*gatewayv1.GetPlayerProfileResponse, error) {
	player := req.GetPlayerId()
	if player == "" {
		player = sess.Player
	} else if err := checkID("player_id", player); err != nil {
		return nil, err
	}
	limit := int(req.GetRecentLimit())
	switch {
	case limit == 0:
		limit = 20
	case limit > maxRecentGames:
		return nil, refusal.Invalid("recent_limit", refusal.InvalidField, "recent_limit must be at most %d", maxRecentGames)
	}
	stats, err := s.statsClient()
	if err != nil {
		return nil, err
	}
	vis, err := s.opt.Accounts.Visibilities(ctx, []string{player})
	if err != nil {
		return nil, err
	}
	own := player == sess.Player
	shown := visibility(vis[0])
	resp := &gatewayv1.GetPlayerProfileResponse{PlayerId: player}
	if own {
		resp.Visibility, shown = shown, gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_PUBLIC
	}
	ps, err := stats.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{PlayerId: player, RecentLimit: uint32(limit)})
	if status.Code(err) == codes.NotFound {
		// No game finished yet: the name from the accounts (a guest without games is unknown).
		if own {
			resp.DisplayName = sess.Name
			return resp, nil
		}
		p, err := s.opt.Accounts.Player(ctx, player)
		if errors.Is(err, accounts.ErrNotFound) {
			return nil, refusal.New(codes.NotFound, refusal.PlayerNotFound, "no such player")
		}
		if err != nil {
			return nil, err
		}
		resp.DisplayName = p.DisplayName
		return resp, nil
	}
	if err != nil {
		return nil, err
	}
	resp.DisplayName = ps.GetDisplayName()
	ratings := shown != gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_NAME_ONLY
	games := shown == gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_PUBLIC
	if !ratings {
		return resp, nil
	}
	for _, r := range ps.GetRecords() {
		g := &gatewayv1.PlayerGame{Game: r.GetGame(), Rating: playerRating(r.GetRating())}
		if games {
			g.Games, g.Wins = r.GetGames(), r.GetWins()
		}
		resp.Games = append(resp.Games, g)
	}
	if !games {
		return resp, nil
	}
	for _, g := range ps.GetRecent() {
		resp.Recent = append(resp.Recent, &gatewayv1.ProfileGame{TableId: g.GetTableId(), Game: g.GetGame(),
			FinishedAt: g.GetFinishedAt(), PlayerCount: g.GetPlayerCount(), Rank: g.GetRank(), Winner: g.GetWinner(),
			RatingAfter: g.GetRatingAfter(), Aborted: g.GetAborted()})
	}
	return resp, nil
}

// visibility is a stored visibility as the API names it (unset: public).
func visibility(v accounts.Visibility) gatewayv1.ProfileVisibility {
	switch pv := gatewayv1.ProfileVisibility(v); pv {
	case gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_RATINGS_ONLY, gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_NAME_ONLY:
		return pv
	}
	return gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_PUBLIC
}

func playerRating(r *statsv1.Rating) *gatewayv1.PlayerRating {
	if r == nil {
		return nil
	}
	return &gatewayv1.PlayerRating{Mu: r.GetMu(), Sigma: r.GetSigma(), Ordinal: r.GetDisplay(), RatedGames: r.GetRatedGames()}
}

func (s *Server) SetProfileVisibility(ctx context.Context, req *gatewayv1.SetProfileVisibilityRequest) (*gatewayv1.SetProfileVisibilityResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	v := req.GetVisibility()
	if _, ok := gatewayv1.ProfileVisibility_name[int32(v)]; !ok || v == gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_UNSPECIFIED {
		return nil, refusal.Invalid("visibility", refusal.InvalidField, "visibility must be PUBLIC, RATINGS_ONLY or NAME_ONLY")
	}
	if err := s.opt.Accounts.SetVisibility(ctx, sess.Player, accounts.Visibility(v)); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.SetProfileVisibilityResponse{}, nil
}

func (s *Server) GetLeaderboard(ctx context.Context, req *gatewayv1.GetLeaderboardRequest) (*gatewayv1.GetLeaderboardResponse, error) {
	if _, err := s.begin(ctx, req); err != nil {
		return nil, err
	}
	resp, err := s.leaderboard(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) leaderboard(ctx context.Context, req *gatewayv1.GetLeaderboardRequest) (*gatewayv1.GetLeaderboardResponse, error) {
	if req.GetGame() == "" {
		return nil, refusal.Invalid("game", refusal.MissingField, "game is required")
	}
	if _, err := s.rulesOf(req.GetGame()); err != nil {
		return nil, err
	}
	size, err := pageSize("page_size", req.GetPageSize())
	if err != nil {
		return nil, err
	}
	offset := 0
	if tok := req.GetPageToken(); tok != "" {
		game, n, ok := strings.Cut(tok, ".")
		offset, err = strconv.Atoi(n)
		if !ok || err != nil || game != req.GetGame() || offset <= 0 {
			return nil, refusal.Invalid("page_token", refusal.BadPageToken, "page_token is not one this game's leaderboard gave")
		}
	}
	stats, err := s.statsClient()
	if err != nil {
		return nil, err
	}
	lb, err := stats.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: req.GetGame(), Limit: uint32(size), Offset: uint32(offset)})
	if err != nil {
		return nil, err
	}
	players := make([]string, len(lb.GetEntries()))
	for i, e := range lb.GetEntries() {
		players[i] = e.GetPlayerId()
	}
	vis, err := s.opt.Accounts.Visibilities(ctx, players)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.GetLeaderboardResponse{Game: lb.GetGame(), Total: lb.GetTotal()}
	for i, e := range lb.GetEntries() {
		out := &gatewayv1.LeaderboardEntry{Rank: e.GetRank(), PlayerId: e.GetPlayerId(), DisplayName: e.GetDisplayName(),
			Rating: playerRating(e.GetRating()), Games: e.GetGames(), Wins: e.GetWins()}
		switch visibility(vis[i]) {
		case gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_NAME_ONLY:
			// Ranked without a name: the rating is not tied to the player.
			out.PlayerId, out.DisplayName, out.Games, out.Wins = "", "", 0, 0
		case gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_RATINGS_ONLY:
			out.Games, out.Wins = 0, 0
		}
		resp.Entries = append(resp.Entries, out)
	}
	if next := offset + len(lb.GetEntries()); len(lb.GetEntries()) == size && uint64(next) < lb.GetTotal() {
		resp.NextPageToken = req.GetGame() + "." + strconv.Itoa(next)
	}
	return resp, nil
}

func (s *Server) GetGameFigures(ctx context.Context, req *gatewayv1.GetGameFiguresRequest) (*gatewayv1.GetGameFiguresResponse, error) {
	if _, err := s.begin(ctx, req); err != nil {
		return nil, err
	}
	resp, err := s.gameFigures(ctx, req.GetGame())
	return resp, s.toStatus(ctx, err)
}

func (s *Server) gameFigures(ctx context.Context, game string) (*gatewayv1.GetGameFiguresResponse, error) {
	if game == "" {
		return nil, refusal.Invalid("game", refusal.MissingField, "game is required")
	}
	if _, err := s.rulesOf(game); err != nil {
		return nil, err
	}
	stats, err := s.statsClient()
	if err != nil {
		return nil, err
	}
	gs, err := stats.GetGameStats(ctx, &statsv1.GetGameStatsRequest{Game: game})
	if status.Code(err) == codes.NotFound {
		gs, err = &statsv1.GetGameStatsResponse{Stats: &statsv1.GameStats{Game: game}}, nil
	}
	if err != nil {
		return nil, err
	}
	live, err := stats.GetLiveStats(ctx, &statsv1.GetLiveStatsRequest{Game: game})
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.GetGameFiguresResponse{Stats: gs.GetStats(), Live: &statsv1.LiveGame{Game: game}}
	for _, l := range live.GetGames() {
		if l.GetGame() == game {
			resp.Live = l
		}
	}
	return resp, nil
}
