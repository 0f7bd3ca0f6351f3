package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"cardroom.dev/services/kit/bus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestToStatusBusUnavailable: a Watch whose table subscription NATS did not confirm (a stalled
// link, as when the gateway is cut from NATS) is answered UNAVAILABLE, which clients retry, not
// INTERNAL.
func TestToStatusBusUnavailable(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	err := fmt.Errorf("subscribe to table events: %w", fmt.Errorf("subscribe x: %w: %w", bus.ErrUnavailable, errors.New("nats: timeout")))
	if got := status.Code(s.toStatus(t.Context(), err)); got != codes.Unavailable {
		t.Fatalf("bus unavailable: %v, want UNAVAILABLE", got)
	}
	if got := status.Code(s.toStatus(t.Context(), errors.New("something else"))); got != codes.Internal {
		t.Fatalf("any other error: %v, want INTERNAL", got)
	}
}
