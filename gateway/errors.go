package gateway

import (
	"context"
	"errors"

	"cardroom.dev/gateway/lobby"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
)

func tableNotFound() error {
	return refusal.New(codes.NotFound, refusal.TableNotFound, "no such table")
}

// toStatus turns an error into what the client sees: statuses (ours and the rules services',
// with their details) pass through; anything else is logged and masked (refusal.ToStatus).
func (s *Server) toStatus(ctx context.Context, err error) error {
	if errors.Is(err, lobby.ErrConflict) {
		return refusal.New(codes.Aborted, refusal.Contention, "the record changed too often; try again")
	}
	// Redis restarting or out of reach, or NATS not confirming a subscription, is UNAVAILABLE: a
	// retry soon succeeds.
	return refusal.ToStatus(ctx, s.log, err, unavailable)
}

// unavailable reports whether err says that the lobby's Redis or the event bus cannot serve right
// now, rather than that something is wrong.
func unavailable(err error) bool {
	return store.Unavailable(err) || errors.Is(err, bus.ErrUnavailable)
}
