package refusal_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestKindStatus(t *testing.T) {
	for k, want := range map[refusal.Kind]codes.Code{
		refusal.Illegal: codes.FailedPrecondition, refusal.Malformed: codes.InvalidArgument, refusal.Stale: codes.Aborted,
	} {
		if got := k.Status(); got != want {
			t.Errorf("kind %d: %v, want %v", k, got, want)
		}
	}
}

func TestRefusalCarriesItsDetail(t *testing.T) {
	err := refusal.Invalid("table_id", refusal.MissingField, "%s is required", "table_id")
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || st.Message() != "table_id is required" {
		t.Fatalf("status %v", st)
	}
	v, ok := st.Details()[0].(*gamev1.RuleViolation)
	if !ok || v.GetCode() != "MISSING_FIELD" || v.GetField() != "table_id" || v.GetMessage() != "table_id is required" {
		t.Fatalf("detail %v", st.Details())
	}
	if got := refusal.Code(fmt.Errorf("wrapped: %w", refusal.New(codes.Aborted, refusal.StaleVersion, "moved on"))); got != "STALE_VERSION" {
		t.Fatalf("code of a wrapped refusal %q", got)
	}
	if got := refusal.Code(errors.New("plain")); got != "" {
		t.Fatalf("code of a plain error %q", got)
	}
}

func TestToStatus(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	down := errors.New("connection refused")
	unavailable := func(err error) bool { return errors.Is(err, down) }
	ctx := context.Background()
	for _, c := range []struct {
		err  error
		want codes.Code
		code string
	}{
		{nil, codes.OK, ""},
		{fmt.Errorf("load: %w", context.Canceled), codes.Canceled, ""},
		{context.DeadlineExceeded, codes.DeadlineExceeded, ""},
		{fmt.Errorf("load: %w", down), codes.Unavailable, ""},
		{fmt.Errorf("act: %w", refusal.New(codes.FailedPrecondition, refusal.NotYourTurn, "not yours")), codes.FailedPrecondition, "NOT_YOUR_TURN"},
		{errors.New("secret detail"), codes.Internal, ""},
	} {
		got := refusal.ToStatus(ctx, log, c.err, unavailable)
		if status.Code(got) != c.want || refusal.Code(got) != c.code {
			t.Errorf("%v: got %v (%q), want %v (%q)", c.err, got, refusal.Code(got), c.want, c.code)
		}
	}
	if got := refusal.ToStatus(ctx, log, errors.New("secret detail"), nil); status.Convert(got).Message() != "internal error" {
		t.Errorf("an unknown error is not masked: %v", got)
	}
	if !bytes.Contains(logs.Bytes(), []byte("secret detail")) || !bytes.Contains(logs.Bytes(), []byte("connection refused")) {
		t.Errorf("logs %s", logs.String())
	}
}
