// Package config declares every setting of every cardroom process in one place: each is a flag
// with a CARDROOM_* environment variable as its default. Processes parse it once at start and log it.
package config

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"cardroom.dev/services/kit/bus"
)

// Config is every setting.
type Config struct {
	// Listen is the address of the process's gRPC server.
	Listen string
	// MetricsListen is the address of the HTTP server with /metrics (Prometheus); empty: none.
	MetricsListen string
	// RedisURL selects the Redis table store; empty: the in-memory store.
	RedisURL string
	// RedisPrefix is put before every Redis key.
	RedisPrefix string
	// NATSURL selects an external NATS with JetStream, or several servers of one NATS cluster
	// comma-separated (the client moves to another when its server dies); empty: an embedded server.
	NATSURL string
	// NATSReplicas is how many servers of a NATS cluster keep the event stream (and its durable
	// consumers): 1 for one server, 3 in production (the stream then survives the loss of one).
	NATSReplicas int
	// NATSDir is where an embedded NATS keeps its stream (empty: a temporary directory).
	NATSDir string
	// NATSPrefix is the prefix of every NATS subject and, upper-cased, the JetStream stream's name:
	// instances with different prefixes share one NATS without seeing each other (bus.Subjects).
	NATSPrefix string
	// OTLPEndpoint, when set, exports traces with OTLP/gRPC to host:port.
	OTLPEndpoint string
	// TraceSample is the share of new traces recorded and exported (a trace started upstream
	// follows its parent's decision). Without an OTLP endpoint nothing is recorded.
	TraceSample float64
	LogLevel    string
	LogFormat   string
	// Retention is how long a finished table and its log stay retrievable.
	Retention time.Duration
	// ShutdownTimeout bounds the graceful stop.
	ShutdownTimeout time.Duration

	// ServiceToken is the shared secret of internal calls: the gateway sends it to the rules
	// services and the stats service, which refuse a call without it. An internal service listening
	// beyond loopback needs one (app.NewInternalGRPCServer); on loopback it is optional.
	ServiceToken string

	// Gateway settings.

	// RulesTargets maps each game to its rules service's gRPC target ("game=target,..."), e.g.
	// "sapotagem=dns:///sapotagem-rules:7070". The gateway connects to every address a dns:///
	// target resolves to and sends each table's calls to one of them by table affinity
	// (gateway/affinity.go); calls that name no table go round-robin.
	RulesTargets string
	// StatsTarget is the stats service's gRPC target, which the gateway asks for the profiles,
	// leaderboards and game figures it serves (empty: those calls are UNAVAILABLE).
	StatsTarget string
	// SessionKey holds the keys of session tokens (HMAC-SHA256), "id:base64,..." with the first
	// signing and all verifying, or one key as written (gateway.ParseSessionKeys); every gateway
	// replica needs the same. Empty: a random key per process, refused when Redis is set.
	SessionKey string
	// SessionTTL is how long a session token is valid; RefreshSession renews it, up to
	// SessionMaxAge from the sign-in.
	SessionTTL    time.Duration
	SessionMaxAge time.Duration
	// TrustedProxies are the CIDR prefixes of the proxies whose X-Forwarded-For names a client's
	// address, comma-separated. Empty: none (the peer's address is the client's).
	TrustedProxies string
	// AbsenceGrace is how long a seated player may go without a Watch stream before a bot plays for them.
	AbsenceGrace time.Duration
	// RateLimit is each player's sustained requests per second (0: no limit); RateBurst the burst
	// above it.
	RateLimit float64
	RateBurst int
	// MaxRequestBytes bounds the size of one request message.
	MaxRequestBytes int
	// TicketMaxWait is a matchmaking ticket's longest wait when it names none.
	TicketMaxWait time.Duration
	// DriveLease is how long a gateway replica owns a table's lifecycle (its deal, its bots, its
	// end) without renewing (it renews every third of it): after a replica dies, its tables' starts
	// go on and their bots move again within about this long.
	DriveLease time.Duration
	// explicit holds the flags of the settings given by a flag or a variable (not defaulted).
	explicit map[string]bool

	// CORSOrigins are the browser origins, besides the page's own, allowed to call the gateway's
	// public API over HTTP (gRPC-Web, Connect), comma-separated; "*" allows any. Empty: same origin only.
	CORSOrigins string
}

type setting struct {
	flag, env, def, usage string
	set                   func(c *Config, v string) error
}

func str(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *p(c) = v; return nil }
}

func dur(p func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("not a duration: %q", v)
		}
		*p(c) = d
		return nil
	}
}

func num(p func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("not a non-negative integer: %q", v)
		}
		*p(c) = n
		return nil
	}
}

func float(p func(*Config) *float64) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return fmt.Errorf("not a non-negative number: %q", v)
		}
		*p(c) = f
		return nil
	}
}

var settings = []setting{
	{"listen", "CARDROOM_LISTEN", "127.0.0.1:7070", "gRPC listen address", str(func(c *Config) *string { return &c.Listen })},
	{"metrics-listen", "CARDROOM_METRICS_LISTEN", "127.0.0.1:9464", "Prometheus /metrics listen address (empty: off)", str(func(c *Config) *string { return &c.MetricsListen })},
	{"redis-url", "CARDROOM_REDIS_URL", "", "Redis URL for the table store (empty: in-memory store)", str(func(c *Config) *string { return &c.RedisURL })},
	{"redis-prefix", "CARDROOM_REDIS_PREFIX", "cardroom:", "prefix of every Redis key", str(func(c *Config) *string { return &c.RedisPrefix })},
	{"nats-url", "CARDROOM_NATS_URL", "", "NATS URL with JetStream, or a NATS cluster's URLs comma-separated (empty: embedded server)", str(func(c *Config) *string { return &c.NATSURL })},
	{"nats-replicas", "CARDROOM_NATS_REPLICAS", "1", "servers of the NATS cluster keeping the event stream, 1 to 5 (3 in production; 1 for one server)", num(func(c *Config) *int { return &c.NATSReplicas })},
	{"nats-prefix", "CARDROOM_NATS_PREFIX", bus.DefaultPrefix, "prefix of every NATS subject; upper-cased, the stream name (lower-case letters, digits, '-', '_')", str(func(c *Config) *string { return &c.NATSPrefix })},
	{"nats-dir", "CARDROOM_NATS_DIR", "", "storage directory of the embedded NATS (empty: temporary)", str(func(c *Config) *string { return &c.NATSDir })},
	{"otlp-endpoint", "CARDROOM_OTLP_ENDPOINT", "", "OTLP/gRPC trace collector host:port (empty: no export)", str(func(c *Config) *string { return &c.OTLPEndpoint })},
	{"trace-sample", "CARDROOM_TRACE_SAMPLE", "1", "share of new traces recorded and exported, 0 to 1 (only with an OTLP endpoint)", float(func(c *Config) *float64 { return &c.TraceSample })},
	{"log-level", "CARDROOM_LOG_LEVEL", "info", "debug, info, warn or error", str(func(c *Config) *string { return &c.LogLevel })},
	{"log-format", "CARDROOM_LOG_FORMAT", "text", "text or json", str(func(c *Config) *string { return &c.LogFormat })},
	{"retention", "CARDROOM_RETENTION", "24h", "how long finished tables and their logs are kept", dur(func(c *Config) *time.Duration { return &c.Retention })},
	{"shutdown-timeout", "CARDROOM_SHUTDOWN_TIMEOUT", "10s", "bound on the graceful stop", dur(func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	{"service-token", "CARDROOM_SERVICE_TOKEN", "", "shared secret the gateway sends to the rules and stats services, which refuse calls without it; required by them beyond loopback (empty: they listen on loopback only)", str(func(c *Config) *string { return &c.ServiceToken })},
	{"rules-targets", "CARDROOM_RULES_TARGETS", "", "gateway: game=target pairs of the rules services, comma-separated", str(func(c *Config) *string { return &c.RulesTargets })},
	{"stats-target", "CARDROOM_STATS_TARGET", "", "gateway: the stats service's target, for profiles and leaderboards (empty: none)", str(func(c *Config) *string { return &c.StatsTarget })},
	{"session-key", "CARDROOM_SESSION_KEY", "", "gateway: keys of session tokens, id:base64 comma-separated, the first signing (one key without ':' is taken as written); required with Redis (empty: random per process)", str(func(c *Config) *string { return &c.SessionKey })},
	{"session-ttl", "CARDROOM_SESSION_TTL", "12h", "gateway: how long a session token is valid", dur(func(c *Config) *time.Duration { return &c.SessionTTL })},
	{"session-max-age", "CARDROOM_SESSION_MAX_AGE", "168h", "gateway: longest a session lasts from its sign-in, refreshes included", dur(func(c *Config) *time.Duration { return &c.SessionMaxAge })},
	{"trusted-proxies", "CARDROOM_TRUSTED_PROXIES", "", "gateway: CIDR prefixes of proxies whose X-Forwarded-For is believed, comma-separated (empty: none)", str(func(c *Config) *string { return &c.TrustedProxies })},
	{"absence-grace", "CARDROOM_ABSENCE_GRACE", "30s", "gateway: time without a Watch stream before a bot plays a seat", dur(func(c *Config) *time.Duration { return &c.AbsenceGrace })},
	{"rate-limit", "CARDROOM_RATE_LIMIT", "50", "gateway: requests per second per player (0: no limit)", float(func(c *Config) *float64 { return &c.RateLimit })},
	{"rate-burst", "CARDROOM_RATE_BURST", "100", "gateway: burst of requests per player", num(func(c *Config) *int { return &c.RateBurst })},
	{"max-request-bytes", "CARDROOM_MAX_REQUEST_BYTES", "65536", "gateway: largest request message", num(func(c *Config) *int { return &c.MaxRequestBytes })},
	{"drive-lease", "CARDROOM_DRIVE_LEASE", "3s", "gateway: how long a replica owns a table's lifecycle (deal, bots, end) without renewing (a dead replica's tables move on after it)", dur(func(c *Config) *time.Duration { return &c.DriveLease })},
	{"cors-origins", "CARDROOM_CORS_ORIGINS", "", "gateway: other browser origins allowed to call the API, comma-separated (\"*\": any; empty: same origin only)", str(func(c *Config) *string { return &c.CORSOrigins })},
	{"ticket-max-wait", "CARDROOM_TICKET_MAX_WAIT", "30s", "gateway: longest matchmaking wait of a ticket that names none", dur(func(c *Config) *time.Duration { return &c.TicketMaxWait })},
}

// Parse reads the settings from args (flags win) and getenv (CARDROOM_* variables), else defaults.
// -h or --help is ErrHelp. Parse prints nothing.
func Parse(name string, args []string, getenv func(string) string) (Config, error) {
	var c Config
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The caller says what went wrong, or prints Help for ErrHelp, once.
	fs.SetOutput(io.Discard)
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
			c.setExplicit(s.flag)
		}
		if err := s.set(&c, def); err != nil {
			return c, fmt.Errorf("%s: %w", s.env, err)
		}
		fs.Func(s.flag, fmt.Sprintf("%s (env %s, default %q)", s.usage, s.env, s.def), func(v string) error { c.setExplicit(s.flag); return s.set(&c, v) })
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return c, c.validate()
}

func (c Config) validate() error {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log level %q: debug, info, warn or error", c.LogLevel)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		return fmt.Errorf("log format %q: text or json", c.LogFormat)
	}
	if c.Retention == 0 {
		return fmt.Errorf("retention must be positive")
	}
	if err := bus.CheckPrefix(c.NATSPrefix); err != nil {
		return err
	}
	if c.NATSReplicas < 1 || c.NATSReplicas > bus.MaxReplicas {
		return fmt.Errorf("nats replicas %d: 1 to %d", c.NATSReplicas, bus.MaxReplicas)
	}
	if c.NATSURL == "" && c.NATSReplicas != 1 {
		return fmt.Errorf("nats replicas %d: the embedded NATS is one server (set CARDROOM_NATS_URL to a cluster's servers)", c.NATSReplicas)
	}
	return nil
}

func (c *Config) setExplicit(flag string) {
	if c.explicit == nil {
		c.explicit = map[string]bool{}
	}
	c.explicit[flag] = true
}

// Explicit reports whether the setting named flag (without dashes) was given, by its flag or its
// variable, rather than left at its default.
func (c Config) Explicit(flag string) bool { return c.explicit[flag] }

// Default is the default value of the setting named flag (without dashes).
func Default(flag string) string {
	for _, s := range settings {
		if s.flag == flag {
			return s.def
		}
	}
	return ""
}

// ErrHelp is Parse's error when the arguments ask for help (-h, --help): the process prints Help
// on its standard output and exits with status 0.
var ErrHelp = flag.ErrHelp

// Help is the usage of the process named name, which takes settings only.
func Help(name string) string {
	return fmt.Sprintf("usage: %s [settings]\n\nEvery setting is a flag, or the environment variable named.\n\nsettings:\n%s", name, Usage())
}

// Usage lists every setting with its variable and default, for --help and the docs.
func Usage() string {
	out := ""
	for _, s := range settings {
		out += fmt.Sprintf("  --%-18s %-26s %s (default %q)\n", s.flag, s.env, s.usage, s.def)
	}
	return out
}

// LogValue logs the configuration without secrets (URL passwords are redacted).
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("listen", c.Listen),
		slog.String("metrics_listen", c.MetricsListen),
		slog.String("redis_url", Redact(c.RedisURL)),
		slog.String("redis_prefix", c.RedisPrefix),
		slog.String("nats_url", Redact(c.NATSURL)),
		slog.String("nats_prefix", c.NATSPrefix),
		slog.Int("nats_replicas", c.NATSReplicas),
		slog.String("otlp_endpoint", c.OTLPEndpoint),
		slog.Float64("trace_sample", c.TraceSample),
		slog.String("log_level", c.LogLevel),
		slog.Duration("retention", c.Retention),
		slog.Duration("shutdown_timeout", c.ShutdownTimeout),
		slog.Bool("service_token_set", c.ServiceToken != ""),
		slog.String("rules_targets", c.RulesTargets),
		slog.String("stats_target", c.StatsTarget),
		slog.Bool("session_key_set", c.SessionKey != ""),
		slog.Duration("session_ttl", c.SessionTTL),
		slog.Duration("session_max_age", c.SessionMaxAge),
		slog.String("trusted_proxies", c.TrustedProxies),
		slog.Duration("absence_grace", c.AbsenceGrace),
		slog.Float64("rate_limit", c.RateLimit),
		slog.Int("rate_burst", c.RateBurst),
		slog.Int("max_request_bytes", c.MaxRequestBytes),
		slog.Duration("ticket_max_wait", c.TicketMaxWait),
		slog.Duration("drive_lease", c.DriveLease),
		slog.String("cors_origins", c.CORSOrigins),
	)
}

// Redact is raw without passwords; a comma-separated list of URLs (a NATS cluster's) is redacted
// one by one.
func Redact(raw string) string {
	if raw == "" {
		return ""
	}
	if strings.Contains(raw, ",") {
		parts := strings.Split(raw, ",")
		for i, p := range parts {
			parts[i] = Redact(strings.TrimSpace(p))
		}
		return strings.Join(parts, ",")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
