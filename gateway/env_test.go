package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
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
	"google.golang.org/protobuf/types/known/wrapperspb"
)

const game = "highcard"

// testArgon2 makes password hashes cheap in tests (the defaults take 64 MiB and three passes each).
var testArgon2 = gateway.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}

var schemes atomic.Int64

type envOptions struct {
	redis    bool // Redis table and lobby stores (else memory)
	gateways int
	rules    int
	opt      gateway.Options
	games    []engine.Engine // default: the test game
	fileBus  bool            // the stream on disk, so that it survives restartNATS
	// gatewayUnary, when set, sees every unary call the gateway replicas serve.
	gatewayUnary grpc.UnaryServerInterceptor
	// perGateway, when set, changes the options of replica i.
	perGateway func(i int, o *gateway.Options)
}

// env is a whole cardroom in the test process: an embedded NATS, the stores, rules replicas of the
// test game served over TCP, gateway replicas served over TCP.
type env struct {
	t        testing.TB
	gws      []*gateway.Server
	gwAddrs  []string
	rules    rulesv1.RulesServiceClient // a direct client of the rules replicas
	lobby    lobby.Store
	accounts gateway.Accounts
	tables   store.Store
	rdb      *redis.Client // with redis: the test Redis, keys under prefix
	prefix   string
	busURL   string
	natsConn *bus.Bus
	// restartNATS stops the embedded NATS and starts it again on the same port and directory.
	restartNATS func()
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	if o.gateways == 0 {
		o.gateways = 1
	}
	if o.rules == 0 {
		o.rules = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	natsDir := t.TempDir()
	ns, err := natsembed.Start(0, natsDir)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, busURL: ns.URL()}
	t.Cleanup(func() { ns.Shutdown() })
	e.restartNATS = func() {
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
	connectBus := func(name string) *bus.Bus {
		b, err := bus.Connect(ctx, ns.URL(), name, bus.Options{Memory: !o.fileBus})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	e.natsConn = connectBus("test")
	if o.redis {
		rdb := testenv.Redis(t)
		prefix := testenv.Prefix(t, rdb)
		if e.tables, err = store.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		if e.lobby, err = lobby.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		if e.accounts, err = accounts.NewRedis(ctx, rdb, prefix); err != nil {
			t.Fatal(err)
		}
		e.rdb, e.prefix = rdb, prefix
		if o.opt.Redis == nil {
			// As Host does: rate limits and sign-outs shared by the replicas.
			o.opt.Redis, o.opt.RedisPrefix = rdb, prefix
		}
	} else {
		e.tables, e.lobby, e.accounts = store.NewMemory(), lobby.NewMemory(), accounts.NewMemory()
	}
	// Registered after the stores' clients: cleanups run last-in first-out, so the background
	// loops stop before the clients close.
	t.Cleanup(func() { cancel(); wg.Wait() })
	serve := func(register func(*grpc.Server), opts ...grpc.ServerOption) string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(1 << 20)}, opts...)...)
		register(gs)
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		return lis.Addr().String()
	}
	engines := o.games
	if len(engines) == 0 {
		engines = []engine.Engine{highcard.Engine(game)}
	}
	targets := map[string]string{}
	for _, eng := range engines {
		name := eng.Info().Name
		var addrs []string
		for i := range o.rules {
			srv := rules.New(eng, e.tables, connectBus(fmt.Sprint("rules-", name, i)), rules.Options{SweepInterval: 20 * time.Millisecond})
			wg.Add(1)
			go func() { defer wg.Done(); _ = srv.Run(ctx) }()
			addrs = append(addrs, serve(func(gs *grpc.Server) { rulesv1.RegisterRulesServiceServer(gs, srv) }))
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
	conns, closeConns, err := gateway.Dial(targets)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeConns() })
	e.rules = rulesv1.NewRulesServiceClient(conns[game])
	if len(o.opt.SessionKey) == 0 {
		o.opt.SessionKey = []byte("test key shared by every replica")
	}
	if o.opt.DriveInterval == 0 {
		o.opt.DriveInterval = 50 * time.Millisecond
	}
	if o.opt.MatchInterval == 0 {
		o.opt.MatchInterval = 50 * time.Millisecond
	}
	if o.opt.RateLimit == 0 {
		o.opt.RateLimit = -1
	}
	if o.opt.Accounts == nil {
		o.opt.Accounts = e.accounts // shared by the replicas
	}
	if o.opt.Argon2 == (gateway.Argon2Params{}) {
		o.opt.Argon2 = testArgon2
	}
	for i := range o.gateways {
		opt := o.opt
		opt.Replica = fmt.Sprint("gw-", i)
		if o.perGateway != nil {
			o.perGateway(i, &opt)
		}
		gw, err := gateway.New(opt, e.lobby, connectBus(opt.Replica), conns)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = gw.Run(ctx) }()
		e.gws = append(e.gws, gw)
		opts := gateway.ServerOptions(opt)
		if o.gatewayUnary != nil {
			opts = append(opts, grpc.UnaryInterceptor(o.gatewayUnary))
		}
		e.gwAddrs = append(e.gwAddrs, serve(func(gs *grpc.Server) { gw.Register(gs, nil) }, opts...))
	}
	return e
}

// client is one person's connection to one gateway replica.
type client struct {
	t      testing.TB
	c      gatewayv1.GatewayServiceClient
	id     string
	token  string
	gw     int
	events []*eventsv1.Event // everything Watch delivered
	batch  bool              // watch with WatchRequest.batch
}

func (e *env) dial(gw int) gatewayv1.GatewayServiceClient {
	return gatewayv1.NewGatewayServiceClient(dialRaw(e.t, e.gwAddrs[gw]))
}

func dialRaw(t testing.TB, addr string) *grpc.ClientConn {
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func (e *env) signIn(gw int, name string) *client {
	e.t.Helper()
	c := e.dial(gw)
	r, err := c.SignIn(e.t.Context(), &gatewayv1.SignInRequest{DisplayName: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return &client{t: e.t, c: c, id: r.GetPlayerId(), token: r.GetSessionToken(), gw: gw}
}

func withToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

func (c *client) ctx() context.Context { return withToken(c.t.Context(), c.token) }

func action(a string) *anypb.Any {
	m, _ := anypb.New(wrapperspb.String(a))
	return m
}

var actionIDs struct {
	sync.Mutex
	n int
}

func nextActionID() string {
	actionIDs.Lock()
	defer actionIDs.Unlock()
	actionIDs.n++
	return fmt.Sprint("a", actionIDs.n)
}

// watcher collects a Watch stream's events on a channel.
type watcher struct {
	cancel context.CancelFunc
	ch     chan *eventsv1.Event
	done   chan error
}

func (c *client) watch(table string, after uint64) *watcher {
	ctx, cancel := context.WithCancel(c.ctx())
	s, err := c.c.Watch(ctx, &gatewayv1.WatchRequest{TableId: table, AfterSequence: after, Batch: c.batch})
	if err != nil {
		c.t.Fatal(err)
	}
	w := &watcher{cancel: cancel, ch: make(chan *eventsv1.Event, 4096), done: make(chan error, 1)}
	go func() {
		defer close(w.ch)
		for {
			r, err := s.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				w.done <- err
				return
			}
			if !c.batch {
				w.ch <- r.GetEvent()
				continue
			}
			if r.GetEvent() != nil || len(r.GetEvents()) == 0 {
				w.done <- fmt.Errorf("batched stream sent %v", r)
				return
			}
			for _, e := range r.GetEvents() {
				w.ch <- e
			}
		}
	}()
	return w
}

func isFinished(e *eventsv1.Event) bool { return e.GetPayload().MessageIs(&eventsv1.TableFinished{}) }

// play plays table to its end for c: whenever its seat has legal actions it takes the first (or a
// random one), and it waits for events in between. It returns the TableFinished event.
func (c *client) play(table string, w *watcher, pick func([]*anypb.Any) *anypb.Any) *eventsv1.TableFinished {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		legal, err := c.c.ListLegalActions(c.ctx(), &gatewayv1.ListLegalActionsRequest{TableId: table})
		if err != nil {
			c.t.Errorf("legal actions: %v", err)
			return nil
		}
		if len(legal.GetActions()) > 0 {
			v := legal.GetVersion()
			_, err := c.c.Act(c.ctx(), &gatewayv1.ActRequest{TableId: table, Action: pick(legal.GetActions()), ActionId: nextActionID(), ExpectedVersion: &v})
			if err != nil && !isRace(err) {
				c.t.Errorf("act: %v", err)
				return nil
			}
		}
		// Wait for something to happen (our move's events, or others').
		select {
		case e, ok := <-w.ch:
			if !ok {
				c.t.Errorf("watch ended before the table finished: %v", <-w.done)
				return nil
			}
			c.events = append(c.events, e)
			if isFinished(e) {
				f := &eventsv1.TableFinished{}
				_ = e.GetPayload().UnmarshalTo(f)
				return f
			}
			// Drain what else is there without blocking.
			for drained := false; !drained; {
				select {
				case e, ok := <-w.ch:
					if !ok {
						drained = true
						break
					}
					c.events = append(c.events, e)
					if isFinished(e) {
						f := &eventsv1.TableFinished{}
						_ = e.GetPayload().UnmarshalTo(f)
						return f
					}
				default:
					drained = true
				}
			}
		case <-deadline:
			c.t.Errorf("table %s did not finish in time", table)
			return nil
		}
	}
}

func isRace(err error) bool { return status.Code(err) == codes.Aborted }

func rounds(n uint32) *anypb.Any {
	m, _ := anypb.New(wrapperspb.UInt32(n))
	return m
}

func first(a []*anypb.Any) *anypb.Any { return a[0] }

// waitMatched follows a ticket to its table.
// watchTicket opens c's stream of the ticket's progress, cut after 30 s.
func (c *client) watchTicket(ticket string) gatewayv1.GatewayService_WatchTicketClient {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx(), 30*time.Second)
	c.t.Cleanup(cancel)
	s, err := c.c.WatchTicket(ctx, &gatewayv1.WatchTicketRequest{TicketId: ticket})
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *client) waitMatched(ticket string) *gatewayv1.WatchTicketResponse {
	c.t.Helper()
	s := c.watchTicket(ticket)
	for {
		r, err := s.Recv()
		if err != nil {
			c.t.Fatalf("ticket stream: %v", err)
		}
		if r.GetState() == gatewayv1.TicketState_TICKET_STATE_MATCHED {
			return r
		}
		if r.GetState() == gatewayv1.TicketState_TICKET_STATE_CANCELLED {
			c.t.Fatalf("ticket cancelled")
		}
	}
}
