package gateway

import (
	"cardroom.dev/services/kit/app"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // client-side health checking (serviceConfig's healthCheckConfig)
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// serviceConfig connects to every address a target resolves to (dns:/// re-resolves them) and
// balances with the table-affinity policy (affinity.go): a call about a table goes to the replica
// its table id hashes to among the READY ones, where the table's decoded state is likely cached;
// DescribeGame goes round-robin. A replica is READY while its RulesService health status is
// SERVING (client-side health checking): a replica that cannot reach Redis reports NOT_SERVING
// (kit/app's readiness; NATS it tolerates), so its tables go to their next replica by hash until
// it is back, rather than failing there for as long as the fault lasts; when every replica is
// NOT_SERVING, calls fail at once with UNAVAILABLE (a replica without a health service counts as
// SERVING). It retries the calls that are safe to repeat when one was UNAVAILABLE (a replica
// stopping or killed mid-call): reads, suggestions, and Act, which the rules service applies at
// most once per action id. A retry is picked again, so it goes to the same replica if that one is
// still READY and to the table's next replica by hash if not. CreateTable and AbortTable are left
// to their callers.
const serviceConfig = `{
  "loadBalancingConfig": [{"cardroom_table_affinity": {}}],
  "healthCheckConfig": {"serviceName": "cardroom.rules.v1.RulesService"},
  "methodConfig": [{
    "name": [
      {"service": "cardroom.rules.v1.RulesService", "method": "Act"},
      {"service": "cardroom.rules.v1.RulesService", "method": "GetView"},
      {"service": "cardroom.rules.v1.RulesService", "method": "ListLegalActions"},
      {"service": "cardroom.rules.v1.RulesService", "method": "GetLog"},
      {"service": "cardroom.rules.v1.RulesService", "method": "SuggestAction"},
      {"service": "cardroom.rules.v1.RulesService", "method": "DescribeGame"},
      {"service": "cardroom.rules.v1.RulesService", "method": "CheckOptions"}
    ],
    "retryPolicy": {
      "maxAttempts": 4,
      "initialBackoff": "0.05s",
      "maxBackoff": "0.5s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
}`

// ParseTargets reads "game=target,game=target".
func ParseTargets(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		game, target, ok := strings.Cut(pair, "=")
		if !ok || game == "" || target == "" {
			return nil, fmt.Errorf("rules target %q: want game=target", pair)
		}
		out[game] = target
	}
	return out, nil
}

// Dial opens one client connection per game, balanced over the target's addresses by table
// (see serviceConfig), each call carrying the service token when one is set (the rules services
// refuse calls without it: app.NewInternalGRPCServer). close closes them all.
func Dial(targets map[string]string, serviceToken string) (conns map[string]grpc.ClientConnInterface, close func() error, err error) {
	conns = map[string]grpc.ClientConnInterface{}
	var opened []*grpc.ClientConn
	close = func() error {
		for _, cc := range opened {
			_ = cc.Close()
		}
		return nil
	}
	games := make([]string, 0, len(targets))
	for g := range targets {
		games = append(games, g)
	}
	sort.Strings(games)
	for _, g := range games {
		cc, err := grpc.NewClient(targets[g], dialOptions(serviceToken)...)
		if err != nil {
			_ = close()
			return nil, nil, fmt.Errorf("rules service of %s at %s: %w", g, targets[g], err)
		}
		opened = append(opened, cc)
		conns[g] = cc
	}
	return conns, close, nil
}

// dialOptions are the options of every connection Dial opens.
func dialOptions(serviceToken string) []grpc.DialOption {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(serviceConfig),
		// The balancer sees the call's context, not its request: this leaves the table id there.
		grpc.WithChainUnaryInterceptor(withTableAffinity),
		// Traces cross to the rules service; the call's metrics are the rules service's own
		// (rpc_server_*), not measured twice.
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()))),
	}
	if serviceToken != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(app.ServiceCredentials(serviceToken)))
	}
	return opts
}

// InProcess is a connection to a RulesService in the same process: calls go straight to srv,
// requests and responses copied, statuses unchanged (for `cardroom serve` and tests).
func InProcess(srv rulesv1.RulesServiceServer) grpc.ClientConnInterface {
	methods := map[string]grpc.MethodDesc{}
	for _, m := range rulesv1.RulesService_ServiceDesc.Methods {
		methods["/"+rulesv1.RulesService_ServiceDesc.ServiceName+"/"+m.MethodName] = m
	}
	return &inProcess{srv: srv, methods: methods}
}

type inProcess struct {
	srv     rulesv1.RulesServiceServer
	methods map[string]grpc.MethodDesc
}

func (c *inProcess) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	m, ok := c.methods[method]
	if !ok {
		return status.Errorf(codes.Unimplemented, "method %s not implemented", method)
	}
	dec := func(v any) error {
		proto.Merge(v.(proto.Message), args.(proto.Message))
		return nil
	}
	var (
		out      any
		err      error
		panicked any
	)
	done := make(chan struct{})
	onWorker(func() {
		defer func() {
			panicked = recover() // raised again on the caller's goroutine, where the server recovers
			close(done)
		}()
		out, err = m.Handler(c.srv, ctx, dec, nil)
	})
	<-done
	if panicked != nil {
		panic(panicked)
	}
	if err != nil {
		return err
	}
	r := reply.(proto.Message)
	proto.Reset(r)
	if method == rulesv1.RulesService_Act_FullMethodName {
		handOver(r, out.(proto.Message))
	} else {
		proto.Merge(r, out.(proto.Message))
	}
	return nil
}

// handOver sets the fields of dst, a message of src's type, to src's, sharing rather than copying
// what they hold. It is for responses the server builds afresh for each call and keeps nothing of
// once it has returned: Act's (its events are written for the reply alone, its legal actions
// and labels are the answer's own). A deep copy of an action's reply (proto.Merge walks every
// event, its payload, time and visibility by reflection) was a large part of the in-process
// call's cost; the caller may still change the reply as its own.
func handOver(dst, src proto.Message) {
	d, s := dst.ProtoReflect(), src.ProtoReflect()
	s.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		d.Set(fd, v)
		return true
	})
	if u := s.GetUnknown(); len(u) > 0 {
		d.SetUnknown(u)
	}
}

// maxCallWorkers bounds the goroutines kept to run in-process calls (see onWorker): about as
// many as calls in flight at full load (500 tables played flat out keep 400-500 actions in flight),
// at most 32 MiB of kept stacks. 256 left half the actions on new goroutines.
const maxCallWorkers = 1024

// callWorkers are the process's goroutines that run in-process calls: idle ones wait on calls, n
// counts them all.
var callWorkers struct {
	calls chan func()
	n     atomic.Int32
}

func init() { callWorkers.calls = make(chan func()) }

// onWorker runs f on one of the long-lived goroutines kept for in-process calls, starting one if
// none is idle and fewer than maxCallWorkers exist, or else on the caller's goroutine. An
// action's call goes deep (the rules service's commit, its encodings, Redis, the bus) and the
// gRPC server starts a new goroutine for each call it serves, whose stack then grew by copying,
// twice, on every action: 4.5 % of `cardroom serve`'s CPU under load. A kept goroutine keeps its
// grown stack (the rules servers run their calls likewise: grpc.NumStreamWorkers).
func onWorker(f func()) {
	select {
	case callWorkers.calls <- f: // an idle worker took it
		return
	default:
	}
	if callWorkers.n.Add(1) <= maxCallWorkers {
		go callWorker(f)
		return
	}
	callWorkers.n.Add(-1)
	f()
}

// callWorker runs f, then every call handed to it, for the life of the process.
func callWorker(f func()) {
	for {
		f()
		f = <-callWorkers.calls
	}
}

func (c *inProcess) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "streams are not served in process")
}
