package rules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// MaxActionIDBytes bounds an action id (ActRequest.action_id): room for the 128 bytes a gateway's
// client may choose (cardroom.gateway.v1.ActRequest) and the prefix the gateway adds to keep them
// apart from its bots' ids.
const MaxActionIDBytes = 160

// Request-level violation codes (games add their own rule codes).
const (
	CodeMissingField  = "MISSING_FIELD"
	CodeInvalidField  = "INVALID_FIELD"
	CodeWrongGame     = "WRONG_GAME"
	CodeStaleVersion  = "STALE_VERSION"
	CodeContention    = "CONTENTION"
	CodeTableNotFound = "TABLE_NOT_FOUND"
	CodeTableExists   = "TABLE_EXISTS"
	CodeActionIDReuse = "ACTION_ID_REUSED"
)

func violationStatus(c codes.Code, v *gamev1.RuleViolation) error {
	st := status.New(c, v.GetMessage())
	if d, err := st.WithDetails(v); err == nil {
		return d.Err()
	}
	return st.Err()
}

func invalid(field, code, format string, args ...any) error {
	return violationStatus(codes.InvalidArgument, &gamev1.RuleViolation{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

func failed(c codes.Code, code, format string, args ...any) error {
	return violationStatus(c, &gamev1.RuleViolation{Code: code, Message: fmt.Sprintf(format, args...)})
}

// toStatus converts an error of the core into a gRPC status at the edge. Violations keep their code
// and sentence; unknown errors are logged in full and masked.
func (s *Server) toStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var v *engine.Violation
	switch {
	case errors.As(err, &v):
		c := codes.FailedPrecondition
		switch v.Kind {
		case engine.Malformed:
			c = codes.InvalidArgument
		case engine.Stale:
			c = codes.Aborted
		}
		return violationStatus(c, &gamev1.RuleViolation{Code: v.Code, Message: v.Message, Field: v.Field})
	case errors.Is(err, store.ErrNotFound):
		return failed(codes.NotFound, CodeTableNotFound, "no such table")
	case errors.Is(err, store.ErrExists):
		return failed(codes.AlreadyExists, CodeTableExists, "a table with this id already exists")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "request deadline exceeded")
	case store.Unavailable(err):
		// The store restarting or out of reach: a retry with the same action id soon succeeds, or
		// is answered from the log if the commit landed before its answer was lost.
		s.log.WarnContext(ctx, "store unavailable", slog.Any("error", err))
		return status.Error(codes.Unavailable, "briefly unavailable; try again")
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	s.log.ErrorContext(ctx, "internal error", slog.Any("error", err))
	return status.Error(codes.Internal, "internal error")
}
