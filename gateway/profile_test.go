package gateway_test

import (
	"context"
	"strings"
	"testing"

	"cardroom.dev/gateway"
	. "cardroom.dev/gateway/gatewaytest"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// fakeStats answers as the stats service would for one player with a record in the test game.
type fakeStats struct {
	statsv1.StatsServiceClient
	player string
}

func (f *fakeStats) GetPlayerStats(_ context.Context, in *statsv1.GetPlayerStatsRequest, _ ...grpc.CallOption) (*statsv1.GetPlayerStatsResponse, error) {
	if in.GetPlayerId() != f.player {
		return nil, status.Error(codes.NotFound, "no games")
	}
	return &statsv1.GetPlayerStatsResponse{PlayerId: f.player, DisplayName: "Ann", Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN,
		Games: 3, Wins: 2, Aborted: 1, Abandoned: 1,
		Records: []*statsv1.PlayerGameRecord{{Game: TestGame, Games: 3, Wins: 2, Aborted: 1, Abandoned: 1, ScoreSum: 777, RankSum: 4,
			Rating: &statsv1.Rating{Mu: 27, Sigma: 7, Display: 6, RatedGames: 3}, LastTableId: "t-last", DisplayName: "Ann"}},
		Recent: []*statsv1.RecentGame{{TableId: "t-1", Game: TestGame, FinishedAt: timestamppb.Now(), Seat: 1, PlayerCount: 2,
			Score: 555, Rank: 1, Winner: true, RatingAfter: 6, Abandoned: true}}}, nil
}

func (f *fakeStats) GetLeaderboard(_ context.Context, in *statsv1.GetLeaderboardRequest, _ ...grpc.CallOption) (*statsv1.GetLeaderboardResponse, error) {
	all := []*statsv1.LeaderboardEntry{
		{Rank: 1, PlayerId: f.player, DisplayName: "Ann", Rating: &statsv1.Rating{Mu: 27, Sigma: 7, Display: 6}, Games: 3, Wins: 2},
		{Rank: 2, PlayerId: "p-other", DisplayName: "Bob", Rating: &statsv1.Rating{Mu: 25, Sigma: 8, Display: 1}, Games: 1},
		{Rank: 3, PlayerId: "p-third", DisplayName: "Cid", Rating: &statsv1.Rating{Mu: 20, Sigma: 8, Display: 0}, Games: 1},
	}
	lo := min(int(in.GetOffset()), len(all))
	hi := min(lo+int(in.GetLimit()), len(all))
	return &statsv1.GetLeaderboardResponse{Game: in.GetGame(), Total: uint64(len(all)), Entries: all[lo:hi]}, nil
}

// TestPlayerProfile: a profile shows what its player's visibility allows (by default the name,
// ratings, games and recent games; never scores, abandoned games or the stats service's other
// fields); the player sees their own in full; leaderboards follow the same setting.
func TestPlayerProfile(t *testing.T) {
	fake := &fakeStats{}
	e := NewEnv(t, EnvOptions{Opt: gateway.Options{Stats: fake}})
	ann, bob := e.SignIn(0, "Ann"), e.SignIn(0, "Bob")
	fake.player = ann.ID

	p, err := bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	g := p.GetGames()[0]
	if p.GetDisplayName() != "Ann" || g.GetRating().GetOrdinal() != 6 || g.GetRating().GetMu() != 27 || g.GetGames() != 3 || g.GetWins() != 2 ||
		len(p.GetRecent()) != 1 || p.GetRecent()[0].GetTableId() != "t-1" || p.GetVisibility() != gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_UNSPECIFIED {
		t.Fatalf("Ann's public profile: %v", p)
	}
	// Nothing else than the documented fields: no score, no abandoned game, no last table.
	if text := prototext.Format(p); strings.Contains(text, "777") || strings.Contains(text, "555") || strings.Contains(text, "t-last") {
		t.Fatalf("the profile carries more than it may: %s", text)
	}

	if _, err := ann.C.SetProfileVisibility(ann.Ctx(), &gatewayv1.SetProfileVisibilityRequest{Visibility: gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_NAME_ONLY}); err != nil {
		t.Fatal(err)
	}
	p, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: ann.ID})
	if err != nil || p.GetDisplayName() != "Ann" || len(p.GetGames()) != 0 || len(p.GetRecent()) != 0 {
		t.Fatalf("Ann's name-only profile as Bob sees it: %v, %v", p, err)
	}
	own, err := ann.C.GetPlayerProfile(ann.Ctx(), &gatewayv1.GetPlayerProfileRequest{})
	if err != nil || len(own.GetGames()) != 1 || len(own.GetRecent()) != 1 || own.GetVisibility() != gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_NAME_ONLY {
		t.Fatalf("Ann's own profile: %v, %v", own, err)
	}
	lb, err := bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{Game: TestGame, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e := lb.GetEntries()[0]; e.GetRank() != 1 || e.GetPlayerId() != "" || e.GetDisplayName() != "" || e.GetRating().GetOrdinal() != 6 {
		t.Fatalf("a name-only player on the leaderboard: %v", e)
	}
	if lb.GetEntries()[1].GetDisplayName() != "Bob" || lb.GetNextPageToken() == "" || lb.GetTotal() != 3 {
		t.Fatalf("leaderboard page: %v", lb)
	}
	lb2, err := bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{Game: TestGame, PageSize: 2, PageToken: lb.GetNextPageToken()})
	if err != nil || len(lb2.GetEntries()) != 1 || lb2.GetEntries()[0].GetRank() != 3 || lb2.GetNextPageToken() != "" {
		t.Fatalf("leaderboard's second page: %v, %v", lb2, err)
	}

	if _, err := ann.C.SetProfileVisibility(ann.Ctx(), &gatewayv1.SetProfileVisibilityRequest{Visibility: gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_RATINGS_ONLY}); err != nil {
		t.Fatal(err)
	}
	p, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: ann.ID})
	if err != nil || len(p.GetGames()) != 1 || p.GetGames()[0].GetRating().GetOrdinal() != 6 || p.GetGames()[0].GetGames() != 0 || len(p.GetRecent()) != 0 {
		t.Fatalf("Ann's ratings-only profile: %v, %v", p, err)
	}

	// Refusals, which change nothing.
	_, err = ann.C.SetProfileVisibility(ann.Ctx(), &gatewayv1.SetProfileVisibilityRequest{Visibility: 42})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	_, err = ann.C.SetProfileVisibility(ann.Ctx(), &gatewayv1.SetProfileVisibilityRequest{})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	if own, _ := ann.C.GetPlayerProfile(ann.Ctx(), &gatewayv1.GetPlayerProfileRequest{}); own.GetVisibility() != gatewayv1.ProfileVisibility_PROFILE_VISIBILITY_RATINGS_ONLY {
		t.Fatalf("visibility after refused changes: %v", own.GetVisibility())
	}
	_, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: ann.ID, RecentLimit: 51})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	_, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: "p.>"})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	_, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{PlayerId: "p-nobody"})
	wantCode(t, err, codes.NotFound, refusal.PlayerNotFound)
	_, err = bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{})
	wantCode(t, err, codes.InvalidArgument, refusal.MissingField)
	_, err = bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{Game: "chess"})
	wantCode(t, err, codes.InvalidArgument, refusal.UnknownGame)
	_, err = bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{Game: TestGame, PageSize: 500})
	wantCode(t, err, codes.InvalidArgument, refusal.InvalidField)
	_, err = bob.C.GetLeaderboard(bob.Ctx(), &gatewayv1.GetLeaderboardRequest{Game: TestGame, PageToken: "other.2"})
	wantCode(t, err, codes.InvalidArgument, refusal.BadPageToken)
	// A player without games: their name, from the caller's own session.
	own, err = bob.C.GetPlayerProfile(bob.Ctx(), &gatewayv1.GetPlayerProfileRequest{})
	if err != nil || own.GetDisplayName() != "Bob" || len(own.GetGames()) != 0 {
		t.Fatalf("Bob's empty profile: %v, %v", own, err)
	}
}

// TestProfileWithoutStats: a gateway without a stats service says so.
func TestProfileWithoutStats(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	ann := e.SignIn(0, "Ann")
	_, err := ann.C.GetPlayerProfile(ann.Ctx(), &gatewayv1.GetPlayerProfileRequest{})
	wantCode(t, err, codes.Unavailable, refusal.StatsUnavailable)
	_, err = ann.C.GetGameFigures(ann.Ctx(), &gatewayv1.GetGameFiguresRequest{Game: TestGame})
	wantCode(t, err, codes.Unavailable, refusal.StatsUnavailable)
}

// TestUniqueAccountNames: a registration under another password account's display name is
// refused (ALREADY_EXISTS, NAME_TAKEN) and makes no account; a guest may go by it.
func TestUniqueAccountNames(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	c := e.Dial(0)
	reg := func(user, name string) error {
		_, err := c.SignIn(t.Context(), &gatewayv1.SignInRequest{DisplayName: name,
			Credential: &gatewayv1.SignInRequest_Password{Password: &gatewayv1.PasswordCredential{UserName: user, Password: "correct horse", Register: true}}})
		return err
	}
	if err := reg("ann", "Ann"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, reg("ann2", "ANN"), codes.AlreadyExists, refusal.NameTaken)
	_, err := c.SignIn(t.Context(), &gatewayv1.SignInRequest{
		Credential: &gatewayv1.SignInRequest_Password{Password: &gatewayv1.PasswordCredential{UserName: "ann2", Password: "correct horse"}}})
	wantCode(t, err, codes.Unauthenticated, refusal.BadCredential)
	// The user name is the display name when none is given: taken too.
	if err := reg("bob", "Cid"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, reg("cid", ""), codes.AlreadyExists, refusal.NameTaken)
	if err := reg("ann3", "Ann Three"); err != nil {
		t.Fatal(err)
	}
	// A retried registration signs in; a guest may be called Ann.
	if err := reg("ann", "Ann"); err != nil {
		t.Fatalf("a retried registration: %v", err)
	}
	if g := e.SignIn(0, "Ann"); g.ID == "" {
		t.Fatal("a guest named Ann")
	}
}
