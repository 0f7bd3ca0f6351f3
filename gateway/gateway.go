// Package gateway is cardroom's public API (cardroom.gateway.v1): sign-in (guests, device and
// password credentials) and sessions, private tables,
// matchmaking, play routed to each game's rules service, the Watch stream of a table's events, bots
// for empty and abandoned seats, and per-player limits. It knows no game: options, actions, views
// and events cross it as google.protobuf.Any.
//
// The gateway keeps no authority in memory: tables, tickets, presence and drive leases live in the
// lobby store (Redis when replicated), games in the rules services, events on the bus. Any replica
// serves any client; each replica keeps, per table it streams, the ordered history of the table's
// events (filled from the bus and, for gaps, from the rules service's log).
package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"cardroom.dev/gateway/accounts"
	"cardroom.dev/gateway/lobby"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/config"
	"cardroom.dev/services/kit/refusal"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
)

// Options tune a Server; zero values take the defaults.
type Options struct {
	// SessionKeys sign and verify session tokens: the first signs, every one verifies (a new key
	// goes first while the old ones still verify the tokens they signed). Every replica needs the
	// same keys, each at least MinSessionKeyBytes long. SessionKey is one key of id LegacyKeyID,
	// used when SessionKeys is empty. Neither: a random key of this process, unless Redis is set
	// (replicas sharing Redis serve each other's clients), where New refuses.
	SessionKeys []SessionKey
	SessionKey  []byte
	// SessionTTL is a token's lifetime (default 12h); SessionMaxAge the longest a session lasts
	// from its sign-in, RefreshSession included (default 7 days).
	SessionTTL    time.Duration
	SessionMaxAge time.Duration
	// Redis, when set, makes the per-player rate limits and the sign-outs shared by every replica
	// using it, with keys under RedisPrefix. RevocationRecheck is how long a replica trusts that a
	// session it saw is not signed out on another replica before asking Redis again (default 5s;
	// negative: at every call).
	Redis             redis.UniversalClient
	RedisPrefix       string
	RevocationRecheck time.Duration
	// SoleReplica says this gateway is the only one (the all-in-one `cardroom serve`): without a
	// session key it signs with a random key of the process even when it uses Redis. A gateway
	// that is not alone refuses to start without a key, since its tokens must verify on the others.
	SoleReplica bool
	// TrustedProxies are the proxies whose X-Forwarded-For names the client's address (for the
	// sign-in limit); a call from any other peer is limited by the peer's address. Default none.
	TrustedProxies []netip.Prefix
	// AbsenceGrace is how long a seated player may go without Watch before a bot plays (default 30s).
	AbsenceGrace time.Duration
	// RateLimit (requests/s) and RateBurst per player (defaults 50 and 100; a negative RateLimit: none;
	// OptionsFrom turns the configuration's 0, which means no limit, into -1).
	RateLimit float64
	RateBurst int
	// MaxRequestBytes bounds one request message (default 64 KiB).
	MaxRequestBytes int
	// MaxConnectionAge closes a client connection after this long (default 5m, ±10 % jitter), and
	// MaxConnectionAgeGrace (default 30s) later ends the streams still open on it: clients
	// reconnect, and resume Watch after the last sequence they saw, through the load balancer,
	// so that replicas an autoscaler added get their share of long-lived streams (ServerOptions).
	MaxConnectionAge, MaxConnectionAgeGrace time.Duration
	// TicketMaxWait is the longest wait of a ticket that names none (default 30s).
	TicketMaxWait time.Duration
	// Retention is how long finished tables are kept (default 24h).
	Retention time.Duration
	// MatchInterval is how often the queues are matched (default 200ms); DriveInterval how often
	// free tables are claimed and absent seats checked (default 250ms); DriveLease how long a
	// replica owns a table's lifecycle (its deal, bots, end) without renewing, renewed every third
	// of it (default 3s): a dead replica's tables move on after it.
	MatchInterval time.Duration
	DriveInterval time.Duration
	DriveLease    time.Duration
	// Accounts keeps the players who sign in with a credential (default: in memory, for this
	// process only; every replica needs the same store).
	Accounts Accounts
	// Argon2 are the parameters of new password hashes (default DefaultArgon2); PasswordHashers
	// bounds the password hashes computed at once (default 2), each taking Argon2.MemoryKiB.
	Argon2          Argon2Params
	PasswordHashers int
	// Stats, when set, answers the profiles, leaderboards and game figures the gateway serves
	// (GetPlayerProfile, GetLeaderboard, GetGameFigures); without it they are UNAVAILABLE.
	Stats statsv1.StatsServiceClient
	// Replica names this replica in drive leases (default: random).
	Replica string
	Now     func() time.Time
	Logger  *slog.Logger

	// fault, in tests, is asked after each step of a table's start (lifecycle.go) whether this
	// replica stops there, as if it died.
	fault func(table, step string) bool
}

// OptionsFrom takes the gateway's settings from the configuration; its RateLimit 0 means no limit.
func OptionsFrom(cfg config.Config) Options {
	o := Options{
		SessionTTL: cfg.SessionTTL, AbsenceGrace: cfg.AbsenceGrace, RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst,
		MaxRequestBytes: cfg.MaxRequestBytes, TicketMaxWait: cfg.TicketMaxWait, Retention: cfg.Retention,
		DriveLease: cfg.DriveLease,
	}
	// The keys and the trusted proxies are read by Host, which can refuse them.
	o.SessionMaxAge = cfg.SessionMaxAge
	if cfg.RateLimit == 0 {
		o.RateLimit = -1
	}
	return o
}

func (o *Options) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.SessionTTL, 12*time.Hour)
	def(&o.SessionMaxAge, 7*24*time.Hour)
	def(&o.RevocationRecheck, 5*time.Second)
	def(&o.AbsenceGrace, 30*time.Second)
	def(&o.TicketMaxWait, 30*time.Second)
	def(&o.Retention, 24*time.Hour)
	def(&o.MatchInterval, 200*time.Millisecond)
	def(&o.DriveInterval, 250*time.Millisecond)
	def(&o.DriveLease, 3*time.Second)
	def(&o.MaxConnectionAge, 5*time.Minute)
	def(&o.MaxConnectionAgeGrace, 30*time.Second)
	if o.RateLimit == 0 {
		o.RateLimit = 50
	}
	if o.RateBurst == 0 {
		o.RateBurst = 100
	}
	if o.MaxRequestBytes == 0 {
		o.MaxRequestBytes = 64 << 10
	}
	if o.Accounts == nil {
		o.Accounts = accounts.NewMemory()
	}
	if o.Argon2 == (Argon2Params{}) {
		o.Argon2 = DefaultArgon2
	}
	if o.PasswordHashers <= 0 {
		o.PasswordHashers = 2
	}
	if o.Replica == "" {
		o.Replica = newID("gw-")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// sessionKeys are the keys of o: SessionKeys, else SessionKey, else (alone, or without Redis) a
// random one.
func sessionKeys(o Options) ([]SessionKey, error) {
	keys := o.SessionKeys
	if len(keys) == 0 && len(o.SessionKey) > 0 {
		keys = []SessionKey{{ID: LegacyKeyID, Secret: o.SessionKey}}
	}
	if len(keys) == 0 {
		if o.Redis != nil && !o.SoleReplica {
			return nil, fmt.Errorf("gateway: no session key: a gateway sharing Redis with other replicas needs the same key as they: set %s (at least %d bytes)", keyEnv, MinSessionKeyBytes)
		}
		secret := make([]byte, MinSessionKeyBytes)
		_, _ = rand.Read(secret)
		return []SessionKey{{ID: "local", Secret: secret}}, nil
	}
	if err := checkSessionKeys(keys); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	return keys, nil
}

// Server serves cardroom.gateway.v1.GatewayService.
type Server struct {
	gatewayv1.UnimplementedGatewayServiceServer

	opt        Options
	log        *slog.Logger
	lobby      lobby.Store
	bus        *bus.Bus
	rules      map[string]rulesv1.RulesServiceClient
	sessions   *sessions
	identity   *identity
	limits     *limiter
	throttle   *throttle
	hubs       *hubs
	started    sync.Map // table id → *lobby.Table, for tables whose seats are fixed
	remembered atomic.Int64
	kick       chan struct{} // wakes the matcher
	driveKick  chan struct{} // wakes the driver's claim
	metrics    *metrics

	gamesMu sync.Mutex
	games   map[string]*rulesv1.DescribeGameResponse
}

// New returns a gateway over the lobby store st and the bus b, routing each game to its rules
// service connection.
func New(opt Options, st lobby.Store, b *bus.Bus, conns map[string]grpc.ClientConnInterface) (*Server, error) {
	if st == nil || b == nil {
		return nil, errors.New("gateway: a lobby store and a bus are required")
	}
	if len(conns) == 0 {
		return nil, errors.New("gateway: no rules service to route to")
	}
	opt.defaults()
	keys, err := sessionKeys(opt)
	if err != nil {
		return nil, err
	}
	m := newMetrics()
	log := opt.Logger.With(slog.String("replica", opt.Replica))
	rv := newRevocations(opt.Redis, opt.RedisPrefix, max(0, opt.RevocationRecheck), log,
		func(ctx context.Context) { m.fallbacks.Add(ctx, 1, fellBackRevocations) })
	lim := newLimiter(opt.RateLimit, opt.RateBurst, opt.Now)
	th := newThrottle(opt.Now)
	if opt.Redis != nil {
		lim.share(opt.Redis, opt.RedisPrefix, log, func(ctx context.Context) { m.fallbacks.Add(ctx, 1, fellBackRateLimit) })
		th.share(opt.Redis, opt.RedisPrefix, log, func(ctx context.Context) { m.fallbacks.Add(ctx, 1, fellBackThrottle) })
	}
	s := &Server{
		opt: opt, log: log, lobby: st, bus: b,
		rules:     map[string]rulesv1.RulesServiceClient{},
		sessions:  newSessions(keys, opt.SessionTTL, opt.SessionMaxAge, opt.Now, rv),
		identity:  newIdentity(opt.Accounts, opt.Argon2, opt.PasswordHashers, opt.Now),
		limits:    lim,
		throttle:  th,
		kick:      make(chan struct{}, 1),
		driveKick: make(chan struct{}, 1),
		metrics:   m,
		games:     map[string]*rulesv1.DescribeGameResponse{},
	}
	for g, cc := range conns {
		s.rules[g] = rulesv1.NewRulesServiceClient(cc)
	}
	s.hubs = newHubs(s)
	return s, nil
}

// Register serves the gateway on gs and reports it in hs (may be nil). gs is made with
// ServerOptions.
func (s *Server) Register(gs *grpc.Server, hs *health.Server) {
	gs.RegisterService(checkedService(), s)
	if hs != nil {
		hs.SetServingStatus(gatewayv1.GatewayService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	}
}

// Run runs the replica's background work until ctx ends: matching the queues, playing the seats
// of bots and absent players at the tables this replica holds, and refilling the streamed tables'
// events after an interruption of the bus. The streamed tables' live updates reach their streams
// only while Run runs.
func (s *Server) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); s.runMatcher(ctx) }()
	go func() { defer wg.Done(); s.runDriver(ctx) }()
	go func() { defer wg.Done(); s.hubs.watchFeed(ctx) }()
	go func() { defer wg.Done(); s.hubs.deliverAll(ctx) }()
	wg.Wait()
	return nil
}

// begin authenticates a call, charges the caller's rate limit and bounds the request's size.
func (s *Server) begin(ctx context.Context, req proto.Message) (Session, error) {
	sess, err := s.sessions.fromContext(ctx)
	if err != nil {
		s.metrics.refusals.Add(ctx, 1, reasonUnauthenticated)
		return Session{}, err
	}
	if !s.limits.allow(ctx, sess.Player) {
		s.metrics.refusals.Add(ctx, 1, reasonRateLimited)
		return Session{}, refusal.New(codes.ResourceExhausted, refusal.RateLimited, "too many requests; slow down")
	}
	if req != nil && proto.Size(req) > s.opt.MaxRequestBytes {
		s.metrics.refusals.Add(ctx, 1, reasonTooLarge)
		return Session{}, refusal.Invalid("", refusal.TooLarge, "the request is larger than %d bytes", s.opt.MaxRequestBytes)
	}
	return sess, nil
}

func (s *Server) now() time.Time { return s.opt.Now() }

func (s *Server) rulesOf(game string) (rulesv1.RulesServiceClient, error) {
	c, ok := s.rules[game]
	if !ok {
		return nil, refusal.Invalid("game", refusal.UnknownGame, "this cardroom does not offer %q", game)
	}
	return c, nil
}

// describe is a game's description, asked once of its rules service; a missing or unknown game is
// INVALID_ARGUMENT naming the field.
func (s *Server) describe(ctx context.Context, game string) (*rulesv1.DescribeGameResponse, error) {
	if game == "" {
		return nil, refusal.Invalid("game", refusal.MissingField, "game is required")
	}
	s.gamesMu.Lock()
	d, ok := s.games[game]
	s.gamesMu.Unlock()
	if ok {
		return d, nil
	}
	c, err := s.rulesOf(game)
	if err != nil {
		return nil, err
	}
	d, err = c.DescribeGame(ctx, &rulesv1.DescribeGameRequest{})
	if err != nil {
		return nil, err
	}
	s.gamesMu.Lock()
	s.games[game] = d
	s.gamesMu.Unlock()
	return d, nil
}

// notify wakes the watchers of a ticket or a table on every replica (plain NATS, outside the
// event stream).
func (s *Server) notify(subject string) {
	if s.bus != nil {
		_ = s.bus.Notify(subject)
	}
}

// subscribe signals the returned channel at notifications of subject until stop.
func (s *Server) subscribe(subject string) (<-chan struct{}, func(), error) {
	return s.bus.Listen(subject)
}
