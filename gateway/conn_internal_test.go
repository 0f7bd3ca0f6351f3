package gateway

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// panickingRules panics in DescribeGame and answers GetView with the number its table id is as
// the version.
type panickingRules struct {
	rulesv1.UnimplementedRulesServiceServer
}

func (panickingRules) DescribeGame(context.Context, *rulesv1.DescribeGameRequest) (*rulesv1.DescribeGameResponse, error) {
	panic("rules broke")
}

func (panickingRules) GetView(_ context.Context, r *rulesv1.GetViewRequest) (*rulesv1.GetViewResponse, error) {
	v, err := strconv.ParseUint(r.GetTableId(), 10, 64)
	return &rulesv1.GetViewResponse{Version: v}, err
}

// TestInProcessWorkers: in-process calls run on kept goroutines, more at once than there are
// workers (the rest on their callers' goroutines), each with its own answer, and a handler's panic
// is raised on the caller's goroutine, where the gRPC server's recovery sees it.
func TestInProcessWorkers(t *testing.T) {
	c := rulesv1.NewRulesServiceClient(InProcess(panickingRules{}))
	var wg sync.WaitGroup
	errs := make(chan string, 2*maxCallWorkers)
	for i := range 2 * maxCallWorkers {
		wg.Go(func() {
			id := strconv.Itoa(i)
			r, err := c.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: id})
			if err != nil || r.GetVersion() != uint64(i) {
				errs <- id
			}
		})
	}
	wg.Wait()
	close(errs)
	for id := range errs {
		t.Errorf("GetView(%s): wrong answer", id)
	}
	if n := callWorkers.n.Load(); n < 1 || n > maxCallWorkers {
		t.Errorf("%d call workers, want 1..%d", n, maxCallWorkers)
	}
	func() {
		defer func() {
			if p := recover(); p != "rules broke" {
				t.Errorf("recovered %v, want the handler's panic", p)
			}
		}()
		_, _ = c.DescribeGame(t.Context(), &rulesv1.DescribeGameRequest{})
		t.Error("DescribeGame returned")
	}()
}

// actRules answers Act with resp.
type actRules struct {
	rulesv1.UnimplementedRulesServiceServer
	resp *rulesv1.ActResponse
}

func (r actRules) Act(context.Context, *rulesv1.ActRequest) (*rulesv1.ActResponse, error) {
	return r.resp, nil
}

// TestInProcessActHandedOver: Act's in-process reply is the server's, every field of it (the fixture
// sets them all, unknown fields too), handed over without a copy.
func TestInProcessActHandedOver(t *testing.T) {
	payload, _ := anypb.New(wrapperspb.String("dealt"))
	legal, _ := anypb.New(wrapperspb.String("reveal"))
	want := &rulesv1.ActResponse{
		Version: 7, Finished: true, Replayed: true,
		Events: []*eventsv1.Event{{TableId: "t", Game: "g", Sequence: 3, Version: 7, Payload: payload, Label: "{seat:0} is dealt",
			Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Seat{Seat: 1}}, Time: timestamppb.New(time.UnixMilli(1234))}},
		LegalActions: []*anypb.Any{legal}, LegalLabels: []string{"reveal"},
	}
	want.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 5))
	fields := want.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		if !want.ProtoReflect().Has(fields.Get(i)) {
			t.Fatalf("the fixture does not set %s", fields.Get(i).Name())
		}
	}
	c := rulesv1.NewRulesServiceClient(InProcess(actRules{resp: want}))
	got, err := c.Act(t.Context(), &rulesv1.ActRequest{TableId: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) || string(got.ProtoReflect().GetUnknown()) != string(want.ProtoReflect().GetUnknown()) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got.GetEvents()[0] != want.GetEvents()[0] || got.GetLegalActions()[0] != want.GetLegalActions()[0] {
		t.Error("the reply's events and actions are copies")
	}
}
