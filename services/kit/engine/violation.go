package engine

import (
	"fmt"

	"cardroom.dev/services/kit/refusal"
)

// Kind says how a refused action or table was wrong; the gRPC edge maps it to a status code
// (refusal.Kind.Status).
type Kind = refusal.Kind

const (
	// Illegal: well-formed, but the rules do not allow it now (FAILED_PRECONDITION).
	Illegal = refusal.Illegal
	// Malformed: it can never be valid, e.g. an unknown card or a refused option (INVALID_ARGUMENT).
	Malformed = refusal.Malformed
	// Stale: aimed at a state that has already moved on, e.g. a throw at a top card that changed
	// (ABORTED). Nothing happens and nobody is penalised.
	Stale = refusal.Stale
)

// Codes every game shares, defined with the other stable codes in kit/refusal. Games add their own
// (e.g. "MUST_FOLLOW_COLOUR"); codes are stable API.
const (
	CodeNotYourTurn   = refusal.NotYourTurn
	CodeGameOver      = refusal.GameOver
	CodeBadSeat       = refusal.BadSeat
	CodeBadAction     = refusal.BadAction
	CodeBadOptions    = refusal.BadOptions
	CodeBadSeatCount  = refusal.BadSeatCount
	CodeNoDeadline    = refusal.NoDeadline
	CodeTooEarly      = refusal.TooEarly
	CodeNothingToDo   = refusal.NothingToDo
	CodeTableAborted  = refusal.TableAborted
	CodeUnknownAction = refusal.UnknownAction
)

// Violation is a refusal by the rules: a stable code, a sentence for people, and for malformed input
// the field at fault. It is the only error a game returns for bad input.
type Violation struct {
	Kind    Kind
	Code    string
	Message string
	Field   string
}

func (v *Violation) Error() string { return v.Code + ": " + v.Message }

// Refuse makes an Illegal violation.
func Refuse(code, format string, args ...any) *Violation {
	return &Violation{Kind: Illegal, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid makes a Malformed violation naming the field at fault.
func Invalid(field, code, format string, args ...any) *Violation {
	return &Violation{Kind: Malformed, Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Outdated makes a Stale violation.
func Outdated(code, format string, args ...any) *Violation {
	return &Violation{Kind: Stale, Code: code, Message: fmt.Sprintf(format, args...)}
}
