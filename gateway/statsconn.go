package gateway

import (
	"context"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"google.golang.org/grpc"
)

// StatsInProcess is a client of a stats service in the same process (`cardroom serve`): calls are
// method calls, without a connection.
func StatsInProcess(srv statsv1.StatsServiceServer) statsv1.StatsServiceClient {
	return statsDirect{srv}
}

type statsDirect struct{ srv statsv1.StatsServiceServer }

func (c statsDirect) ListGames(ctx context.Context, in *statsv1.ListGamesRequest, _ ...grpc.CallOption) (*statsv1.ListGamesResponse, error) {
	return c.srv.ListGames(ctx, in)
}

func (c statsDirect) GetGameStats(ctx context.Context, in *statsv1.GetGameStatsRequest, _ ...grpc.CallOption) (*statsv1.GetGameStatsResponse, error) {
	return c.srv.GetGameStats(ctx, in)
}

func (c statsDirect) GetPlayerStats(ctx context.Context, in *statsv1.GetPlayerStatsRequest, _ ...grpc.CallOption) (*statsv1.GetPlayerStatsResponse, error) {
	return c.srv.GetPlayerStats(ctx, in)
}

func (c statsDirect) GetLeaderboard(ctx context.Context, in *statsv1.GetLeaderboardRequest, _ ...grpc.CallOption) (*statsv1.GetLeaderboardResponse, error) {
	return c.srv.GetLeaderboard(ctx, in)
}

func (c statsDirect) GetLiveStats(ctx context.Context, in *statsv1.GetLiveStatsRequest, _ ...grpc.CallOption) (*statsv1.GetLiveStatsResponse, error) {
	return c.srv.GetLiveStats(ctx, in)
}

func (c statsDirect) GetIngestStats(ctx context.Context, in *statsv1.GetIngestStatsRequest, _ ...grpc.CallOption) (*statsv1.GetIngestStatsResponse, error) {
	return c.srv.GetIngestStats(ctx, in)
}
