package rules

import (
	"context"
	"fmt"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/grpc/status"
)

// CheckOptions deals a table of the request's seats and options in memory, with a fixed seed, and
// answers whether the engine accepted it; the engine's refusal is the answer, not an error.
func (s *Server) CheckOptions(ctx context.Context, req *rulesv1.CheckOptionsRequest) (*rulesv1.CheckOptionsResponse, error) {
	resp, err := s.checkOptions(ctx, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) checkOptions(ctx context.Context, req *rulesv1.CheckOptionsRequest) (*rulesv1.CheckOptionsResponse, error) {
	n := int(req.GetSeats())
	if n < s.info.MinSeats || n > s.info.MaxSeats {
		return &rulesv1.CheckOptionsResponse{Refusal: &gamev1.RuleViolation{Code: engine.CodeBadSeatCount, Field: "seats",
			Message: fmt.Sprintf("%s is played by %d to %d players, not %d", s.info.Name, s.info.MinSeats, s.info.MaxSeats, n)}}, nil
	}
	opts, err := decodeAny("options", req.GetOptions(), s.info.Options, s.optionsURL)
	if err != nil {
		return nil, err
	}
	_, _, err = s.eng.Setup(engine.Config{Seats: n, Seed: 1, Options: opts, Start: s.now(), Kinds: make([]gamev1.PlayerKind, n)})
	if err == nil {
		return &rulesv1.CheckOptionsResponse{Accepted: true}, nil
	}
	for _, d := range status.Convert(s.toStatus(ctx, err)).Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok {
			return &rulesv1.CheckOptionsResponse{Refusal: v}, nil
		}
	}
	return nil, err
}
