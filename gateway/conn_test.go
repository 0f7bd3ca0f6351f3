package gateway_test

import (
	. "cardroom.dev/gateway/gatewaytest"
	"net"
	"testing"

	"cardroom.dev/gateway"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestParseTargets(t *testing.T) {
	got, err := gateway.ParseTargets(" sapotagem=dns:///sapotagem:7070, sponsio=dns:///sponsio:7070 ,")
	if err != nil || len(got) != 2 || got["sponsio"] != "dns:///sponsio:7070" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"sapotagem", "=x", "g="} {
		if _, err := gateway.ParseTargets(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}

// TestDialDNS: a dns:/// target, as in the distributed mode, and the in-process connection reach
// the rules service alike, statuses included.
func TestDialDNS(t *testing.T) {
	srv := rules.New(highcard.Engine(TestGame), store.NewMemory(), nil, rules.Options{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	rulesv1.RegisterRulesServiceServer(gs, srv)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()
	conns, closeConns, err := gateway.Dial(map[string]string{TestGame: "dns:///" + lis.Addr().String()}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeConns()
	for name, cc := range map[string]grpc.ClientConnInterface{"dns": conns[TestGame], "in-process": gateway.InProcess(srv)} {
		c := rulesv1.NewRulesServiceClient(cc)
		d, err := c.DescribeGame(t.Context(), &rulesv1.DescribeGameRequest{})
		if err != nil || d.GetGame() != TestGame {
			t.Fatalf("%s: %v %v", name, d, err)
		}
		_, err = c.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: "nope"})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("%s: %v, want NOT_FOUND", name, err)
		}
	}
}
