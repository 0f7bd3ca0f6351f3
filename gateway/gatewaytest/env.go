// Package gatewaytest runs a whole cardroom in a test process: an embedded NATS, the stores, rules
// replicas of any engines and gateway replicas, served over TCP, with clients to drive them. The
// gateway's own tests run it with the kit's test game; the end-to-end module (cmd/cardroom) runs it
// with the four games, which the gateway module does not depend on.
package gatewaytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway"
	"cardroom.dev/gateway/accounts"
	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/natsembed"
	"cardroom.dev/services/kit/rules"
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestGame is the name of the kit's test game (highcard), which Env plays unless told other engines.
const TestGame = "highcard"

// TestArgon2 makes password hashes cheap in tests (the defaults take 64 MiB and three passes each).
var TestArgon2 = gateway.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}

var schemes atomic.Int64

type EnvOptions struct {
	Redis    bool // Redis table and lobby stores (else memory)
	Gateways int
	Rules    int
	Opt      gateway.Options
	Games    []engine.Engine // default: the test game
	FileBus  bool            // the stream on disk, so that it survives restartNATS
	// NATSURL, when set, is an external NATS (a cluster's servers, comma-separated) in place of
	// the embedded one; NATSReplicas the stream's replicas there. RestartNATS is then nil.
	NATSURL      string
	NATSReplicas int
	// GatewayUnary, when set, sees every unary call the gateway replicas serve.
	GatewayUnary grpc.UnaryServerInterceptor
	// RulesUnary, when set, sees every unary call the rules replicas serve (the gateway's calls,
	// its driver's SuggestAction among them).
	RulesUnary grpc.UnaryServerInterceptor
	// PerGateway, when set, changes the options of replica i.
	PerGateway func(i int, o *gateway.Options)
}

// Env is a whole cardroom in the test process: an embedded NATS, the stores, rules replicas of the
// test game served over TCP, gateway replicas served over TCP.
type Env struct {
	T           testing.TB
	GWs         []*gateway.Server
	Addrs       []string
	RulesClient rulesv1.RulesServiceClient // a direct client of the rules replicas
	Lobby       lobby.Store
	Accounts    gateway.Accounts
	Tables      store.Store
	RDB         *redis.Client // with redis: the test Redis, keys under prefix
	Prefix      string
	BusURL      string
	Bus         *bus.Bus
	// GatewayBuses are the gateway replicas' buses, by replica.
	GatewayBuses []*bus.Bus
	// RestartNATS stops the embedded NATS and starts it again on the same port and directory.
	RestartNATS func()
	// kills stop gateway replicas: their background work ends and their server stops, as if the
	// process died (their leases in the lobby run out).
	kills []func()
	// restarts stop gateway replicas and start them again on the same address.
	restarts []func() *gateway.Server
}

// Kill stops gateway replica gw as if it died.
func (e *Env) Kill(gw int) { e.kills[gw]() }

// Restart stops gateway replica gw as if it died (Kill; nothing more if it was killed already) and,
// once its server has stopped, starts a new replica with the same options on the same address, over
// the same stores and bus, as a restarted process would be. It returns when the new replica serves.
func (e *Env) Restart(gw int) {
	e.GWs[gw] = e.restarts[gw]()
}

func NewEnv(t testing.TB, o EnvOptions) *Env {
	t.Helper()
	if o.Gateways == 0 {
		o.Gateways = 1
	}
	if o.Rules == 0 {
		o.Rules = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	e := &Env{T: t, BusURL: o.NATSURL}
	var err error
	if o.NATSURL == "" {
		natsDir := t.TempDir()
		ns, err := natsembed.Start(0, natsDir)
		if err != nil {
			t.Fatal(err)
		}
		e.BusURL = ns.URL()
		t.Cleanup(func() { ns.Shutdown() })
		e.RestartNATS = func() {
			u, err := url.Parse(ns.URL())
			if err != nil {
				t.Fatal(err)
			}
			port, _ := strconv.Atoi(u.Port())
			ns.Shutdown()
			if ns, err = natsembed.Start(port, natsDir); err != nil {
				t.Fatal(err)
			}
		}
	}
	connectBus := func(name string) *bus.Bus {
		b, err := bus.Connect(ctx, e.BusURL, name, bus.Options{Memory: !o.FileBus, Replicas: o.NATSReplicas})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	e.Bus = connectBus("test")
	if o.Redis {
		rdb := testenv.Redis(t)
		prefix := testenv.Prefix(t, rdb)
		if e.Tables, err = store.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		if e.Lobby, err = lobby.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		if e.Accounts, err = accounts.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		e.RDB, e.Prefix = rdb, prefix
		if o.Opt.Redis == nil {
			// As Host does: rate limits and sign-outs shared by the replicas.
			o.Opt.Redis, o.Opt.RedisPrefix = rdb, prefix
		}
	} else {
		e.Tables, e.Lobby, e.Accounts = store.NewMemory(), lobby.NewMemory(), accounts.NewMemory()
	}
	// Registered after the stores' clients: cleanups run last-in first-out, so the background
	// loops stop before the clients close.
	t.Cleanup(func() { cancel(); wg.Wait() })
	serveOn := func(register func(*grpc.Server), opts ...grpc.ServerOption) (string, *grpc.Server) {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(1 << 20)}, opts...)...)
		register(gs)
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		return lis.Addr().String(), gs
	}
	serve := func(register func(*grpc.Server), opts ...grpc.ServerOption) string {
		addr, _ := serveOn(register, opts...)
		return addr
	}
	engines := o.Games
	if len(engines) == 0 {
		engines = []engine.Engine{highcard.Engine(TestGame)}
	}
	targets := map[string]string{}
	for _, eng := range engines {
		name := eng.Info().Name
		var addrs []string
		for i := range o.Rules {
			srv := rules.New(eng, e.Tables, connectBus(fmt.Sprint("rules-", name, i)), rules.Options{SweepInterval: 20 * time.Millisecond})
			wg.Add(1)
			go func() { defer wg.Done(); _ = srv.Run(ctx) }()
			var opts []grpc.ServerOption
			if o.RulesUnary != nil {
				opts = append(opts, grpc.UnaryInterceptor(o.RulesUnary))
			}
			addrs = append(addrs, serve(func(gs *grpc.Server) { rulesv1.RegisterRulesServiceServer(gs, srv) }, opts...))
		}
		// One target naming every replica (as DNS would): the gateway balances over them by table.
		scheme := fmt.Sprintf("rules%d", schemes.Add(1))
		rb := manual.NewBuilderWithScheme(scheme)
		var state resolver.State
		for _, a := range addrs {
			state.Addresses = append(state.Addresses, resolver.Address{Addr: a})
		}
		rb.InitialState(state)
		resolver.Register(rb)
		targets[name] = scheme + ":///" + name
	}
	conns, closeConns, err := gateway.Dial(targets, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeConns() })
	if c, ok := conns[engines[0].Info().Name]; ok {
		e.RulesClient = rulesv1.NewRulesServiceClient(c)
	}
	if len(o.Opt.SessionKey) == 0 {
		o.Opt.SessionKey = []byte("test key shared by every replica")
	}
	if o.Opt.DriveInterval == 0 {
		o.Opt.DriveInterval = 50 * time.Millisecond
	}
	if o.Opt.MatchInterval == 0 {
		o.Opt.MatchInterval = 50 * time.Millisecond
	}
	if o.Opt.RateLimit == 0 {
		o.Opt.RateLimit = -1
	}
	if o.Opt.Accounts == nil {
		o.Opt.Accounts = e.Accounts // shared by the replicas
	}
	if o.Opt.Argon2 == (gateway.Argon2Params{}) {
		o.Opt.Argon2 = TestArgon2
	}
	for i := range o.Gateways {
		opt := o.Opt
		opt.Replica = fmt.Sprint("gw-", i)
		if o.PerGateway != nil {
			o.PerGateway(i, &opt)
		}
		gb := connectBus(opt.Replica)
		e.GatewayBuses = append(e.GatewayBuses, gb)
		// start runs replica i on lis until it is killed.
		var start func(lis net.Listener) *gateway.Server
		start = func(lis net.Listener) *gateway.Server {
			gw, err := gateway.New(opt, e.Lobby, gb, conns)
			if err != nil {
				t.Fatal(err)
			}
			gctx, stop := context.WithCancel(ctx)
			wg.Add(1)
			go func() { defer wg.Done(); _ = gw.Run(gctx) }()
			opts := gateway.ServerOptions(opt)
			if o.GatewayUnary != nil {
				opts = append(opts, grpc.UnaryInterceptor(o.GatewayUnary))
			}
			gs := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(1 << 20)}, opts...)...)
			gw.Register(gs, nil)
			served := make(chan struct{})
			go func() { defer close(served); _ = gs.Serve(lis) }()
			t.Cleanup(gs.Stop)
			var once sync.Once
			kill := func() {
				once.Do(func() {
					stop()
					// Not waited for: the caller may be one of the server's own calls.
					go gs.Stop()
				})
			}
			if i < len(e.kills) {
				e.kills[i] = kill
			} else {
				e.kills = append(e.kills, kill)
			}
			if i < len(e.restarts) {
				e.restarts[i] = func() *gateway.Server {
					kill()
					<-served
					// The same address again (listeners reuse a port whose connections are closing).
					lis, err := net.Listen("tcp", lis.Addr().String())
					if err != nil {
						t.Fatal(err)
					}
					return start(lis)
				}
			}
			return gw
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		e.Addrs = append(e.Addrs, lis.Addr().String())
		e.restarts = append(e.restarts, nil)
		e.GWs = append(e.GWs, start(lis))
	}
	return e
}

// Client is one person's connection to one gateway replica.
type Client struct {
	T      testing.TB
	C      gatewayv1.GatewayServiceClient
	ID     string
	Token  string
	GW     int
	Events []*eventsv1.Event // everything Watch delivered
	Batch  bool              // watch with WatchRequest.batch
}

func (e *Env) Dial(gw int) gatewayv1.GatewayServiceClient {
	return gatewayv1.NewGatewayServiceClient(DialRaw(e.T, e.Addrs[gw]))
}

func DialRaw(t testing.TB, addr string) *grpc.ClientConn {
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func (e *Env) SignIn(gw int, name string) *Client {
	e.T.Helper()
	c := e.Dial(gw)
	r, err := c.SignIn(e.T.Context(), &gatewayv1.SignInRequest{DisplayName: name})
	if err != nil {
		e.T.Fatal(err)
	}
	return &Client{T: e.T, C: c, ID: r.GetPlayerId(), Token: r.GetSessionToken(), GW: gw}
}

func WithToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

func (c *Client) Ctx() context.Context { return WithToken(c.T.Context(), c.Token) }

var actionIDs struct {
	sync.Mutex
	n int
}

func NextActionID() string {
	actionIDs.Lock()
	defer actionIDs.Unlock()
	actionIDs.n++
	return fmt.Sprint("a", actionIDs.n)
}

// Watcher collects a Watch stream's events on a channel.
type Watcher struct {
	Cancel context.CancelFunc
	C      chan *eventsv1.Event
	Done   chan error
}

func (c *Client) Watch(table string, after uint64) *Watcher {
	ctx, cancel := context.WithCancel(c.Ctx())
	s, err := c.C.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: after, Batch: c.Batch})
	if err != nil {
		c.T.Fatal(err)
	}
	w := &Watcher{Cancel: cancel, C: make(chan *eventsv1.Event, 4096), Done: make(chan error, 1)}
	go func() {
		defer close(w.C)
		for {
			r, err := s.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				w.Done <- err
				return
			}
			if !c.Batch {
				w.C <- r.GetEvent()
				continue
			}
			if r.GetEvent() != nil || len(r.GetEvents()) == 0 {
				w.Done <- fmt.Errorf("batched stream sent %v", r)
				return
			}
			for _, e := range r.GetEvents() {
				w.C <- e
			}
		}
	}()
	return w
}

func IsFinished(e *eventsv1.Event) bool { return e.GetPayload().MessageIs(&eventsv1.TableFinished{}) }

// play plays table to its end for c: whenever its seat has legal actions it takes the first (or a
// random one), and it waits for events in between. It returns the TableFinished event.
func (c *Client) Play(table string, w *Watcher, pick func([]*anypb.Any) *anypb.Any) *eventsv1.TableFinished {
	c.T.Helper()
	deadline := time.After(60 * time.Second)
	for {
		legal, err := c.C.ListLegalActions(c.Ctx(), &gatewayv1.ListLegalActionsRequest{TableId: table})
		if err != nil {
			c.T.Errorf("legal actions: %v", err)
			return nil
		}
		if len(legal.GetActions()) > 0 {
			v := legal.GetVersion()
			_, err := c.C.Act(c.Ctx(), &gatewayv1.ActRequest{TableId: table, Action: pick(legal.GetActions()), ActionId: NextActionID(), ExpectedVersion: &v})
			if err != nil && !IsRace(err) {
				c.T.Errorf("act: %v", err)
				return nil
			}
		}
		// Wait for something to happen (our move's events, or others').
		select {
		case e, ok := <-w.C:
			if !ok {
				c.T.Errorf("watch ended before the table finished: %v", <-w.Done)
				return nil
			}
			c.Events = append(c.Events, e)
			if IsFinished(e) {
				f := &eventsv1.TableFinished{}
				_ = e.GetPayload().UnmarshalTo(f)
				return f
			}
			// Drain what else is there without blocking.
			for drained := false; !drained; {
				select {
				case e, ok := <-w.C:
					if !ok {
						drained = true
						break
					}
					c.Events = append(c.Events, e)
					if IsFinished(e) {
						f := &eventsv1.TableFinished{}
						_ = e.GetPayload().UnmarshalTo(f)
						return f
					}
				default:
					drained = true
				}
			}
		case <-deadline:
			c.T.Errorf("table %s did not finish in time", table)
			return nil
		}
	}
}

// IsRace tells a move refused because the table moved first (a stale expected version).
func IsRace(err error) bool { return status.Code(err) == codes.Aborted }

// WatchTicket opens c's stream of the ticket's progress, cut after 30 s.
func (c *Client) WatchTicket(ticket string) gatewayv1.GatewayService_WatchTicketClient {
	c.T.Helper()
	ctx, cancel := context.WithTimeout(c.Ctx(), 30*time.Second)
	c.T.Cleanup(cancel)
	s, err := c.C.WatchTicket(ctx, &gatewayv1.WatchTicketRequest{TicketId: ticket})
	if err != nil {
		c.T.Fatal(err)
	}
	return s
}

// WaitMatched follows a ticket to its table.
func (c *Client) WaitMatched(ticket string) *gatewayv1.WatchTicketResponse {
	c.T.Helper()
	s := c.WatchTicket(ticket)
	for {
		r, err := s.Recv()
		if err != nil {
			c.T.Fatalf("ticket stream: %v", err)
		}
		if r.GetState() == gatewayv1.TicketState_TICKET_STATE_MATCHED {
			return r
		}
		if r.GetState() == gatewayv1.TicketState_TICKET_STATE_CANCELLED {
			c.T.Fatalf("ticket cancelled")
		}
	}
}

// ReplayEvents are a replay's events in order: the table's creation and deal, then each entry's.
func ReplayEvents(r *gatewayv1.GetReplayResponse) []*eventsv1.Event {
	all := slices.Clone(r.GetCreatedEvents())
	for _, en := range r.GetEntries() {
		all = append(all, en.GetEvents()...)
	}
	return all
}

// CheckStream asserts that c received exactly the events of all that seat (Spectator: none) may
// see, each once and in order.
func CheckStream(t testing.TB, c *Client, seat int, all []*eventsv1.Event) {
	t.Helper()
	var want []uint64
	for _, ev := range all {
		a, private := ev.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat)
		if !private || int(a.Seat) == seat {
			want = append(want, ev.GetSequence())
		}
	}
	var got []uint64
	for _, ev := range c.Events {
		if a, ok := ev.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat); ok && int(a.Seat) != seat {
			t.Fatalf("seat %d received seat %d's private event %d", seat, a.Seat, ev.GetSequence())
		}
		got = append(got, ev.GetSequence())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("seat %d received sequences %v, want %v", seat, got, want)
	}
}

// Spectator is the seat CheckStream is given for a client without one.
const Spectator = -1
