package gateway

import (
	"context"
	"strconv"
	"sync"
	"testing"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
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
