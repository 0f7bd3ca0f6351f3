package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/balancer/base"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

// affinityReplica is one rules-service replica of these tests. It answers GetView and
// ListLegalActions with its index as the version, and DescribeGame with its index as the game, so
// a caller sees which replica served it.
type affinityReplica struct {
	rulesv1.UnimplementedRulesServiceServer
	index  int
	addr   string
	srv    *grpc.Server
	health *health.Server // the RulesService's readiness, as kit/app reports it
}

func (r *affinityReplica) GetView(context.Context, *rulesv1.GetViewRequest) (*rulesv1.GetViewResponse, error) {
	return &rulesv1.GetViewResponse{Version: uint64(r.index)}, nil
}

func (r *affinityReplica) ListLegalActions(context.Context, *rulesv1.ListLegalActionsRequest) (*rulesv1.ListLegalActionsResponse, error) {
	return &rulesv1.ListLegalActionsResponse{Version: uint64(r.index)}, nil
}

func (r *affinityReplica) DescribeGame(context.Context, *rulesv1.DescribeGameRequest) (*rulesv1.DescribeGameResponse, error) {
	return &rulesv1.DescribeGameResponse{Game: strconv.Itoa(r.index)}, nil
}

// startAffinityReplicas starts n replicas on loopback ports, stopped when the test ends.
func startAffinityReplicas(t *testing.T, n int) []*affinityReplica {
	t.Helper()
	replicas := make([]*affinityReplica, n)
	for i := range replicas {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		r := &affinityReplica{index: i, addr: lis.Addr().String(), srv: grpc.NewServer(), health: health.NewServer()}
		rulesv1.RegisterRulesServiceServer(r.srv, r)
		healthpb.RegisterHealthServer(r.srv, r.health)
		r.health.SetServingStatus(rulesv1.RulesService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
		go func() { _ = r.srv.Serve(lis) }()
		t.Cleanup(r.srv.Stop)
		replicas[i] = r
	}
	return replicas
}

// resolverState lists the replicas' addresses, as the dns resolver would.
func resolverState(replicas []*affinityReplica) resolver.State {
	var s resolver.State
	for _, r := range replicas {
		a := resolver.Address{Addr: r.addr}
		s.Addresses = append(s.Addresses, a)
		s.Endpoints = append(s.Endpoints, resolver.Endpoint{Addresses: []resolver.Address{a}})
	}
	return s
}

// dialAffinity connects to the replicas with Dial's options through a manual resolver, and waits
// until every one of them serves.
func dialAffinity(t *testing.T, replicas []*affinityReplica) (rulesv1.RulesServiceClient, *manual.Resolver) {
	t.Helper()
	r := manual.NewBuilderWithScheme("affinity")
	r.InitialState(resolverState(replicas))
	cc, err := grpc.NewClient(r.Scheme()+":///rules", append(dialOptions(""), grpc.WithResolvers(r))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	c := rulesv1.NewRulesServiceClient(cc)
	waitServing(t, c, replicas)
	return c, r
}

// waitServing calls DescribeGame until every replica of want has answered: calls without a table
// go round-robin over the READY replicas, so they are then all READY.
func waitServing(t *testing.T, c rulesv1.RulesServiceClient, want []*affinityReplica) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	missing := map[string]bool{}
	for _, r := range want {
		missing[strconv.Itoa(r.index)] = true
	}
	for len(missing) > 0 {
		d, err := c.DescribeGame(ctx, &rulesv1.DescribeGameRequest{})
		if ctx.Err() != nil {
			t.Fatalf("replicas %v never served: %v", missing, err)
		}
		if err == nil {
			delete(missing, d.GetGame())
		}
	}
}

// servedBy returns the index of the replica that answered GetView for the table.
func servedBy(ctx context.Context, c rulesv1.RulesServiceClient, table string) (int, error) {
	v, err := c.GetView(ctx, &rulesv1.GetViewRequest{TableId: table})
	if err != nil {
		return 0, fmt.Errorf("GetView %s: %w", table, err)
	}
	return int(v.GetVersion()), nil
}

// owners returns the index of the replica serving each table.
func owners(t *testing.T, c rulesv1.RulesServiceClient, tables []string) map[string]int {
	t.Helper()
	out := make(map[string]int, len(tables))
	for _, table := range tables {
		i, err := servedBy(t.Context(), c, table)
		if err != nil {
			t.Fatal(err)
		}
		out[table] = i
	}
	return out
}

// tableIDs returns n table ids.
func tableIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("table-%d", i)
	}
	return ids
}

// expectedOwner is the replica the rendezvous hash gives the table among replicas, computed
// without gRPC: what every gateway process computes alike.
func expectedOwner(table string, replicas []*affinityReplica) int {
	conns := make([]affinityConn, len(replicas))
	byAddr := map[string]int{}
	for i, r := range replicas {
		conns[i] = affinityConn{addr: r.addr, addrHash: fnv1a64(r.addr)}
		byAddr[r.addr] = r.index
	}
	p := newAffinityPicker(conns)
	return byAddr[p.conns[p.owner(table)].addr]
}

// TestAffinityOneTableOneReplica: concurrent calls of several methods for one table all go to the
// replica its id hashes to.
func TestAffinityOneTableOneReplica(t *testing.T) {
	replicas := startAffinityReplicas(t, 3)
	c, _ := dialAffinity(t, replicas)
	const table = "01JAFFINITY"
	want := expectedOwner(table, replicas)
	var wg sync.WaitGroup
	errs := make(chan error, 8*50)
	for range 8 {
		wg.Go(func() {
			for i := range 50 {
				var got uint64
				if i%2 == 0 {
					v, err := c.GetView(t.Context(), &rulesv1.GetViewRequest{TableId: table})
					if err != nil {
						errs <- err
						continue
					}
					got = v.GetVersion()
				} else {
					l, err := c.ListLegalActions(t.Context(), &rulesv1.ListLegalActionsRequest{TableId: table})
					if err != nil {
						errs <- err
						continue
					}
					got = l.GetVersion()
				}
				if int(got) != want {
					errs <- fmt.Errorf("call %d served by replica %d, want %d", i, got, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestAffinitySpreadsTables: many tables spread over every replica, and a second connection (another
// gateway process) sends each table where the first does.
func TestAffinitySpreadsTables(t *testing.T) {
	replicas := startAffinityReplicas(t, 3)
	c, _ := dialAffinity(t, replicas)
	other, _ := dialAffinity(t, replicas)
	tables := tableIDs(300)
	first, second := owners(t, c, tables), owners(t, other, tables)
	counts := make([]int, len(replicas))
	for _, table := range tables {
		counts[first[table]]++
		if second[table] != first[table] {
			t.Errorf("%s: replica %d on one connection, %d on another", table, first[table], second[table])
		}
		if want := expectedOwner(table, replicas); first[table] != want {
			t.Errorf("%s: replica %d, want %d", table, first[table], want)
		}
	}
	for i, n := range counts {
		if n < 50 {
			t.Errorf("replica %d serves %d of 300 tables: %v", i, n, counts)
		}
	}
}

// TestAffinityReplicaLeaves: when the replica owning a table stops, its tables move to the others by
// hash, and the tables of the others stay where they were.
func TestAffinityReplicaLeaves(t *testing.T) {
	replicas := startAffinityReplicas(t, 3)
	c, _ := dialAffinity(t, replicas)
	tables := tableIDs(300)
	before := owners(t, c, tables)
	victim := replicas[before[tables[0]]]
	victim.srv.Stop()
	waitMoved(t, c, tables[0], victim.index)

	var rest []*affinityReplica
	for _, r := range replicas {
		if r != victim {
			rest = append(rest, r)
		}
	}
	after := owners(t, c, tables)
	moved := 0
	for _, table := range tables {
		switch {
		case before[table] != victim.index && after[table] != before[table]:
			t.Errorf("%s moved from replica %d to %d though its replica stayed", table, before[table], after[table])
		case before[table] == victim.index:
			moved++
			if want := expectedOwner(table, rest); after[table] != want {
				t.Errorf("%s moved to replica %d, want %d", table, after[table], want)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no table moved")
	}
}

// TestAffinityReplicaNotServing: a replica that reports NOT_SERVING (it cannot reach Redis or
// NATS) loses its tables to the next replica by hash, connected all the while, and takes them back
// once it reports SERVING again; the other replicas' tables stay where they are.
func TestAffinityReplicaNotServing(t *testing.T) {
	replicas := startAffinityReplicas(t, 3)
	c, _ := dialAffinity(t, replicas)
	tables := tableIDs(300)
	before := owners(t, c, tables)
	victim := replicas[before[tables[0]]]
	victim.health.SetServingStatus(rulesv1.RulesService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
	waitMoved(t, c, tables[0], victim.index)

	var rest []*affinityReplica
	for _, r := range replicas {
		if r != victim {
			rest = append(rest, r)
		}
	}
	during := owners(t, c, tables)
	for _, table := range tables {
		switch {
		case before[table] != victim.index && during[table] != before[table]:
			t.Errorf("%s moved from replica %d to %d though its replica served", table, before[table], during[table])
		case before[table] == victim.index:
			if want := expectedOwner(table, rest); during[table] != want {
				t.Errorf("%s went to replica %d while its own did not serve, want %d", table, during[table], want)
			}
		}
	}

	victim.health.SetServingStatus(rulesv1.RulesService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	waitBack(t, c, tables[0], victim.index)
	if after := owners(t, c, tables); !maps.Equal(after, before) {
		t.Errorf("after the replica served again the tables are not where they were")
	}
}

// waitMoved calls GetView for the table until a replica other than from answers (calls may fail
// while the connection learns that from stopped or stopped serving).
func waitMoved(t *testing.T, c rulesv1.RulesServiceClient, table string, from int) {
	t.Helper()
	waitServedBy(t, c, table, func(i int) bool { return i != from }, fmt.Sprintf("still on replica %d", from))
}

// waitBack calls GetView for the table until replica to answers.
func waitBack(t *testing.T, c rulesv1.RulesServiceClient, table string, to int) {
	t.Helper()
	waitServedBy(t, c, table, func(i int) bool { return i == to }, fmt.Sprintf("never back on replica %d", to))
}

// waitServedBy calls GetView for the table until a replica that ok accepts answers, for up to 10 s.
func waitServedBy(t *testing.T, c rulesv1.RulesServiceClient, table string, ok func(int) bool, failure string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		i, err := servedBy(ctx, c, table)
		if err == nil && ok(i) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s %s: %v", table, failure, err)
		}
	}
}

// TestAffinityReplicaJoins: a replica that joins takes its share of the tables from the others, and
// no table moves between the replicas that were there.
func TestAffinityReplicaJoins(t *testing.T) {
	replicas := startAffinityReplicas(t, 4)
	c, r := dialAffinity(t, replicas[:3])
	tables := tableIDs(300)
	before := owners(t, c, tables)
	r.UpdateState(resolverState(replicas))
	waitServing(t, c, replicas[3:])

	after := owners(t, c, tables)
	moved := 0
	for _, table := range tables {
		if after[table] == before[table] {
			continue
		}
		moved++
		if after[table] != 3 {
			t.Errorf("%s moved from replica %d to %d, not to the new one", table, before[table], after[table])
		}
		if want := expectedOwner(table, replicas); after[table] != want {
			t.Errorf("%s moved to replica %d, want %d", table, after[table], want)
		}
	}
	if moved < 50 {
		t.Errorf("the new replica took %d of 300 tables", moved)
	}
}

// TestAffinityRoundRobinWithoutTable: calls without a table id (DescribeGame, or an empty id) cycle
// over the replicas.
func TestAffinityRoundRobinWithoutTable(t *testing.T) {
	replicas := startAffinityReplicas(t, 3)
	c, _ := dialAffinity(t, replicas)
	var served []int
	for i := range 30 {
		if i%2 == 0 {
			d, err := c.DescribeGame(t.Context(), &rulesv1.DescribeGameRequest{})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := strconv.Atoi(d.GetGame())
			served = append(served, n)
		} else {
			n, err := servedBy(t.Context(), c, "")
			if err != nil {
				t.Fatal(err)
			}
			served = append(served, n)
		}
	}
	for i := range served {
		if i >= 3 && served[i] != served[i-3] {
			t.Fatalf("not round-robin: %v", served)
		}
		if i >= 1 && served[i] == served[i-1] {
			t.Fatalf("not round-robin: %v", served)
		}
	}
}

// TestAffinityNoReadyReplica: without a READY replica the picker makes calls wait for one, as
// round_robin's does.
func TestAffinityNoReadyReplica(t *testing.T) {
	p := affinityPickerBuilder{}.Build(base.PickerBuildInfo{})
	_, err := p.Pick(balancer.PickInfo{Ctx: context.Background()})
	if !errors.Is(err, balancer.ErrNoSubConnAvailable) {
		t.Fatalf("%v, want ErrNoSubConnAvailable", err)
	}
}

// fakeSubConn stands for a subconn the picker only hands back.
type fakeSubConn struct {
	balancer.SubConn
	addr string
}

// fakePicker builds the picker over n fake READY subconns.
func fakePicker(n int) balancer.Picker {
	info := base.PickerBuildInfo{ReadySCs: map[balancer.SubConn]base.SubConnInfo{}}
	for i := range n {
		addr := fmt.Sprintf("10.0.0.%d:7070", i+1)
		info.ReadySCs[&fakeSubConn{addr: addr}] = base.SubConnInfo{Address: resolver.Address{Addr: addr}}
	}
	return affinityPickerBuilder{}.Build(info)
}

// TestAffinityPickIgnoresBuildOrder: the picker's choice depends on the addresses, not on the order
// it was given the subconns in (a map's).
func TestAffinityPickIgnoresBuildOrder(t *testing.T) {
	ctx := context.WithValue(context.Background(), tableKey{}, &rulesv1.GetViewRequest{TableId: "t"})
	want := ""
	for range 20 {
		res, err := fakePicker(5).Pick(balancer.PickInfo{Ctx: ctx})
		if err != nil {
			t.Fatal(err)
		}
		got := res.SubConn.(*fakeSubConn).addr
		if want == "" {
			want = got
		}
		if got != want {
			t.Fatalf("picked %s, then %s", want, got)
		}
	}
}

func BenchmarkAffinityPick(b *testing.B) {
	for _, n := range []int{3, 10} {
		p := fakePicker(n)
		table := context.WithValue(context.Background(), tableKey{}, &rulesv1.GetViewRequest{TableId: "01J9Z3K7Q8W2X4V6N8M0P2R4T6"})
		b.Run(fmt.Sprintf("table/%d", n), func(b *testing.B) {
			benchmarkPick(b, p, table)
		})
		b.Run(fmt.Sprintf("no-table/%d", n), func(b *testing.B) {
			benchmarkPick(b, p, context.Background())
		})
	}
}

func benchmarkPick(b *testing.B, p balancer.Picker, ctx context.Context) {
	info := balancer.PickInfo{FullMethodName: "/cardroom.rules.v1.RulesService/Act", Ctx: ctx}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Pick(info); err != nil {
			b.Fatal(err)
		}
	}
}
