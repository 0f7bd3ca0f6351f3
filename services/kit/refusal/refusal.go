// Package refusal is what a refused request is, the same at every edge: the stable codes
// (cardroom.game.v1.RuleViolation.code) that are not one game's own, and the gRPC status that
// carries a refusal. The gateway and the rules services' harness (kit/rules) both answer with it,
// and kit/engine's shared codes are these. Codes are API (docs/api.md lists them): a code's
// string never changes.
package refusal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Codes of malformed or misdirected requests, at the gateway and the rules services.
const (
	MissingField    = "MISSING_FIELD"
	InvalidField    = "INVALID_FIELD"
	WrongGame       = "WRONG_GAME"   // an Any of another game's type
	UnknownGame     = "UNKNOWN_GAME" // no such game behind the gateway
	TooLarge        = "REQUEST_TOO_LARGE"
	MalformedBody   = "MALFORMED_REQUEST" // a body that is no message of the call's type (bad JSON, bad protobuf, no message at all)
	ActionIDReused  = "ACTION_ID_REUSED"  // an action id already used at the table for another action
	RequestIDReused = "REQUEST_ID_REUSED" // a request id already used at the table with other arguments
	UnknownBotLevel = "UNKNOWN_BOT_LEVEL" // a bot level that is not a cardroom.game.v1.BotLevel
	WeakSecret      = "WEAK_SECRET"       // a device secret too regular to be random
	BadPageToken    = "BAD_PAGE_TOKEN"    // a page token no listing gave, or given with other filters
)

// StatsUnavailable: the gateway has no stats service to ask (UNAVAILABLE).
const StatsUnavailable = "STATS_UNAVAILABLE"

// Codes of requests that met a state that moved on or was busy (ABORTED): try again.
const (
	StaleVersion = "STALE_VERSION"
	Contention   = "CONTENTION"
)

// Codes of tables and tickets, at the gateway and the rules services.
const (
	TableNotFound   = "TABLE_NOT_FOUND"
	TableExists     = "TABLE_EXISTS"
	TicketNotFound  = "TICKET_NOT_FOUND"
	NotOwner        = "NOT_OWNER"
	TableFull       = "TABLE_FULL"
	TableStarted    = "TABLE_STARTED"
	TableNotStarted = "TABLE_NOT_STARTED"
	TableInPlay     = "TABLE_IN_PLAY"
	TooFewPlayers   = "TOO_FEW_PLAYERS"
	NotThere        = "NOT_THERE"
	TicketClosed    = "TICKET_CLOSED"
	TicketRefused   = "TICKET_REFUSED"
	PlayerNotFound  = "PLAYER_NOT_FOUND"
)

// Codes of who is asking, at the gateway.
const (
	Unauthenticated = "UNAUTHENTICATED"
	// SessionRevoked: the session was signed out (UNAUTHENTICATED).
	SessionRevoked = "SESSION_REVOKED"
	// BadCredential: the device's secret or the user's password is wrong, or the user name is
	// unknown (UNAUTHENTICATED).
	BadCredential = "BAD_CREDENTIAL"
	// NameTaken: a registration's user name belongs to another player (ALREADY_EXISTS).
	NameTaken   = "NAME_TAKEN"
	NotYourSeat = "NOT_YOUR_SEAT"
	RateLimited = "RATE_LIMITED"
	// SignInThrottled: too many failed password sign-ins from the caller's address, for the user
	// name or in all; or other sign-ins from the address are being checked (RESOURCE_EXHAUSTED,
	// with a google.rpc.RetryInfo saying how long to wait).
	SignInThrottled = "SIGN_IN_THROTTLED"
)

// Codes every game shares (kit/engine names them for the games). Games add their own, e.g.
// "MUST_FOLLOW_COLOUR".
const (
	NotYourTurn   = "NOT_YOUR_TURN"
	GameOver      = "GAME_OVER"
	BadSeat       = "BAD_SEAT"
	BadAction     = "BAD_ACTION"
	BadOptions    = "BAD_OPTIONS"
	BadSeatCount  = "BAD_SEAT_COUNT"
	NoDeadline    = "NO_DEADLINE"
	TooEarly      = "DEADLINE_NOT_REACHED"
	NothingToDo   = "NOTHING_TO_DO"
	TableAborted  = "TABLE_ABORTED"
	UnknownAction = "UNKNOWN_ACTION"
)

// Kind says how a refused action or table was wrong; it decides the gRPC status code.
type Kind uint8

const (
	// Illegal: well-formed, but the rules do not allow it now (FAILED_PRECONDITION).
	Illegal Kind = iota
	// Malformed: it can never be valid, e.g. an unknown card or a refused option (INVALID_ARGUMENT).
	Malformed
	// Stale: aimed at a state that has already moved on, e.g. a throw at a top card that changed
	// (ABORTED). Nothing happens and nobody is penalised.
	Stale
)

// Status is the gRPC status code of a refusal of kind k.
func (k Kind) Status() codes.Code {
	switch k {
	case Malformed:
		return codes.InvalidArgument
	case Stale:
		return codes.Aborted
	}
	return codes.FailedPrecondition
}

// Error is the gRPC status error of refusal v: status code c, v's sentence as the message and v
// itself as the detail.
func Error(c codes.Code, v *gamev1.RuleViolation) error {
	st := status.New(c, v.GetMessage())
	if d, err := st.WithDetails(v); err == nil {
		return d.Err()
	}
	return st.Err()
}

// New is a refusal with status code c, a stable code and a sentence.
func New(c codes.Code, code, format string, args ...any) error {
	return Error(c, &gamev1.RuleViolation{Code: code, Message: fmt.Sprintf(format, args...)})
}

// Invalid is a refusal of malformed input (INVALID_ARGUMENT) naming the field at fault.
func Invalid(field, code, format string, args ...any) error {
	return Error(codes.InvalidArgument, &gamev1.RuleViolation{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

// CheckBotLevel refuses (INVALID_ARGUMENT, UNKNOWN_BOT_LEVEL, naming field) a bot level that is
// not one of cardroom.game.v1.BotLevel's values; unspecified is the default level and passes.
func CheckBotLevel(field string, l gamev1.BotLevel) error {
	if _, ok := gamev1.BotLevel_name[int32(l)]; !ok {
		return Invalid(field, UnknownBotLevel, "%s %d is not a bot level (easy, normal or strong)", field, int32(l))
	}
	return nil
}

// Code is the stable code of a refusal err, or "" if err carries none.
func Code(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return ""
	}
	for _, d := range st.Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			return v.GetCode()
		}
	}
	return ""
}

// ToStatus turns an error into what a client sees, after the caller has mapped the errors of its
// own domain: nil stays nil; a canceled or expired request says so; an error unavailable reports
// (a store or the event bus out of reach: kit/store.Unavailable, kit/bus.ErrUnavailable) is
// UNAVAILABLE, which a retry soon gets past, and is logged as a warning; a gRPC status (a refusal,
// or a status from a service behind) passes through with its details; anything else is logged in
// full on log and masked as INTERNAL.
func ToStatus(ctx context.Context, log *slog.Logger, err error, unavailable func(error) bool) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "request deadline exceeded")
	case unavailable != nil && unavailable(err):
		log.WarnContext(ctx, "dependency unavailable", slog.Any("error", err))
		return status.Error(codes.Unavailable, "briefly unavailable; try again")
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	log.ErrorContext(ctx, "internal error", slog.Any("error", err))
	return status.Error(codes.Internal, "internal error")
}
