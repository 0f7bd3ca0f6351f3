package rules

import (
	"context"
	"errors"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/refusal"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
)

// MaxActionIDBytes bounds an action id (ActRequest.action_id): room for the 128 bytes a gateway's
// client may choose (cardroom.gateway.v1.ActRequest) and the prefix the gateway adds to keep them
// apart from its bots' ids.
const MaxActionIDBytes = 160

// toStatus converts an error of the core into a gRPC status at the edge. Violations keep their code
// and sentence; unknown errors are logged in full and masked (refusal.ToStatus).
func (s *Server) toStatus(ctx context.Context, err error) error {
	var v *engine.Violation
	switch {
	case errors.As(err, &v):
		return refusal.Error(v.Kind.Status(), &gamev1.RuleViolation{Code: v.Code, Message: v.Message, Field: v.Field})
	case errors.Is(err, store.ErrNotFound):
		return refusal.New(codes.NotFound, refusal.TableNotFound, "no such table")
	case errors.Is(err, store.ErrExists):
		return refusal.New(codes.AlreadyExists, refusal.TableExists, "a table with this id already exists")
	}
	// The store restarting or out of reach is UNAVAILABLE: a retry with the same action id soon
	// succeeds, or is answered from the log if the commit landed before its answer was lost.
	return refusal.ToStatus(ctx, s.log, err, store.Unavailable)
}
