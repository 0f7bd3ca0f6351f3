package main

import (
	"context"
	"strings"
	"testing"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fakeGateway answers GetReplay with replay, after failing `unavailable` times.
type fakeGateway struct {
	gatewayv1.GatewayServiceClient
	replay      *gatewayv1.GetReplayResponse
	unavailable int
	calls       int
}

func (f *fakeGateway) GetReplay(context.Context, *gatewayv1.GetReplayRequest, ...grpc.CallOption) (*gatewayv1.GetReplayResponse, error) {
	f.calls++
	if f.calls <= f.unavailable {
		return nil, status.Error(codes.Unavailable, "gone")
	}
	return f.replay, nil
}

// GetTable answers that our seat is 0.
func (f *fakeGateway) GetTable(context.Context, *gatewayv1.GetTableRequest, ...grpc.CallOption) (*gatewayv1.GetTableResponse, error) {
	seat := uint32(0)
	return &gatewayv1.GetTableResponse{Table: &gatewayv1.Table{YourSeat: &seat}}, nil
}

var public = &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}

func entry(version uint64, seqs ...uint64) *gatewayv1.ReplayEntry {
	e := &gatewayv1.ReplayEntry{Version: version}
	for _, s := range seqs {
		e.Events = append(e.Events, &eventsv1.Event{Sequence: s, Version: version, Visibility: public})
	}
	return e
}

func TestCheckReplay(t *testing.T) {
	created := []*eventsv1.Event{{Sequence: 1, Visibility: public}, {Sequence: 2, Visibility: public}}
	cases := []struct {
		name    string
		entries []*gatewayv1.ReplayEntry
		last    uint64
		want    string // "" passes
	}{
		{"whole", []*gatewayv1.ReplayEntry{entry(1, 3), entry(2, 4, 5)}, 5, ""},
		{"an action applied twice", []*gatewayv1.ReplayEntry{entry(1, 3), entry(1, 4)}, 4, "applied twice"},
		{"an action lost", []*gatewayv1.ReplayEntry{entry(1, 3), entry(3, 4)}, 4, "lost"},
		{"an event gap", []*gatewayv1.ReplayEntry{entry(1, 3), entry(2, 5)}, 5, "event 5 where 4 was due"},
		{"the stream stopped early", []*gatewayv1.ReplayEntry{entry(1, 3), entry(2, 4)}, 3, "streams ended at event 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := result{answered: map[string]answer{}}
			// The stream carried events 1..last, as the replay has them (from the deal on).
			all := append([]*eventsv1.Event{}, created...)
			for _, en := range tc.entries {
				all = append(all, en.GetEvents()...)
			}
			for _, e := range all {
				if e.GetSequence() <= tc.last && (len(res.stream) == 0 || e.GetSequence() > lastSeq(res.stream)) {
					res.stream = append(res.stream, e)
				}
			}
			dead := &fakeGateway{unavailable: 1 << 30}
			live := &fakeGateway{replay: &gatewayv1.GetReplayResponse{CreatedEvents: created, Entries: tc.entries}, unavailable: 1}
			g := &gateways{clients: []gatewayv1.GatewayServiceClient{dead, live}, res: &res}
			err := checkReplay(t.Context(), g, &res, tc.last, false)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if res.retries == 0 || g.cur != 1 {
				t.Errorf("retries %d, on gateway %d: want a move to the live gateway", res.retries, g.cur)
			}
		})
	}
}
