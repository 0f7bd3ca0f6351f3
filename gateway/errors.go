package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"cardroom.dev/gateway/lobby"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Codes of the gateway's own refusals (RuleViolation.code); the rules services' codes pass through.
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeSessionRevoked  = "SESSION_REVOKED"
	CodeNotYourSeat     = "NOT_YOUR_SEAT"
	CodeTableNotFound   = "TABLE_NOT_FOUND"
	CodeTicketNotFound  = "TICKET_NOT_FOUND"
	CodeUnknownGame     = "UNKNOWN_GAME"
	CodeMissingField    = "MISSING_FIELD"
	CodeInvalidField    = "INVALID_FIELD"
	CodeTooLarge        = "REQUEST_TOO_LARGE"
	CodeRateLimited     = "RATE_LIMITED"
	CodeNotOwner        = "NOT_OWNER"
	CodeTableFull       = "TABLE_FULL"
	CodeTableStarted    = "TABLE_STARTED"
	CodeTableNotStarted = "TABLE_NOT_STARTED"
	CodeTableInPlay     = "TABLE_IN_PLAY"
	CodeTooFewPlayers   = "TOO_FEW_PLAYERS"
	CodeNotThere        = "NOT_THERE"
	CodeTicketClosed    = "TICKET_CLOSED"
	CodeTicketRefused   = "TICKET_REFUSED"
	CodeContention      = "CONTENTION"
	CodeRequestIDReused = "REQUEST_ID_REUSED"
)

func refusal(c codes.Code, code, format string, args ...any) error {
	v := &gamev1.RuleViolation{Code: code, Message: fmt.Sprintf(format, args...)}
	st := status.New(c, v.GetMessage())
	if d, err := st.WithDetails(v); err == nil {
		return d.Err()
	}
	return st.Err()
}

func invalid(field, code, format string, args ...any) error {
	v := &gamev1.RuleViolation{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
	st := status.New(codes.InvalidArgument, v.GetMessage())
	if d, err := st.WithDetails(v); err == nil {
		return d.Err()
	}
	return st.Err()
}

func tableNotFound() error {
	return refusal(codes.NotFound, CodeTableNotFound, "no such table")
}

// toStatus turns an error into what the client sees: statuses (ours and the rules services',
// with their details) pass through; anything else is logged and masked.
func (s *Server) toStatus(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "request deadline exceeded")
	case errors.Is(err, lobby.ErrConflict):
		return refusal(codes.Aborted, CodeContention, "the record changed too often; try again")
	case store.Unavailable(err):
		// Redis restarting or out of reach: a retry soon succeeds.
		s.log.WarnContext(ctx, "store unavailable", slog.Any("error", err))
		return status.Error(codes.Unavailable, "briefly unavailable; try again")
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	s.log.ErrorContext(ctx, "internal error", slog.Any("error", err))
	return status.Error(codes.Internal, "internal error")
}
