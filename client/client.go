// Package client is a Go client of cardroom's public API (cardroom.gateway.v1.GatewayService,
// docs/api.md). It does the parts every client otherwise writes again:
//
//   - signing in with a device credential kept where the caller says (a file, or any
//     CredentialStore), refreshing the session before it expires and signing in again when the
//     gateway no longer takes it;
//   - queueing for a match, creating and joining private tables, adding bots and starting;
//   - a Table handle whose Watch follows the table to its end, resuming after the last sequence it
//     delivered whenever the stream or the connection drops (no gap, no duplicate), with
//     exponential backoff, until its context ends;
//   - the seat's current labelled choices, taken from the stream, and the seat's view, fetched when
//     the stream shows the table moved;
//   - Act with a generated action id, retried with the same id after UNAVAILABLE or a deadline: the
//     gateway applies an action id once.
//
// A Client is safe for concurrent use; so is a Table, but one Watch at a time.
package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Client is one player's connection to a cardroom.
type Client struct {
	cc    grpc.ClientConnInterface
	conn  *grpc.ClientConn // nil when the caller gave its own connection
	api   gatewayv1.GatewayServiceClient
	plain gatewayv1.GatewayServiceClient // without the session: SignIn, RefreshSession
	opt   options

	mu      sync.Mutex
	session Session
	issued  time.Time                   // when the token was received
	again   func(context.Context) error // signs in again with the credential of the last sign-in (nil: a guest)
	renew   sync.Mutex                  // one refresh or sign-in at a time
}

// Session is the signed-in player's session.
type Session struct {
	PlayerID    string
	DisplayName string
	// NewPlayer is true when the sign-in made the player.
	NewPlayer bool
	Token     string
	ExpiresAt time.Time
}

type options struct {
	dial        []grpc.DialOption
	log         *slog.Logger
	callTimeout time.Duration
	retry       Backoff
	now         func() time.Time
}

// Option changes how a Client works.
type Option func(*options)

// WithDialOptions adds gRPC dial options to Dial's own (e.g. transport credentials for TLS, which
// replace the plaintext default).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dial = append(o.dial, opts...) }
}

// WithLogger logs the client's reconnections and retries (default: nothing is logged).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithCallTimeout bounds each attempt of a call that is retried (Act and the calls with a request
// id): an attempt without an answer in this time is tried again (default 10 s).
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.callTimeout = d } }

// WithBackoff sets the pauses between retries and reconnections (default: 50 ms doubling up to
// 5 s, with a quarter of jitter).
func WithBackoff(b Backoff) Option { return func(o *options) { o.retry = b } }

// Dial connects to the cardroom at addr (host:port) in plaintext unless WithDialOptions gives
// transport credentials. The connection comes back quickly after a gateway restart: it tries again
// after 100 ms, then at most every 500 ms, and pings a silent link every 30 s.
func Dial(addr string, opts ...Option) (*Client, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	dial := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: 5 * time.Second,
		}),
		// The gateway accepts a ping every 10 s at most (docs/operations.md).
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
	}, o.dial...)
	cc, err := grpc.NewClient(addr, dial...)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	c := New(cc, opts...)
	c.conn = cc
	return c, nil
}

// New is a Client over a connection the caller made (and closes).
func New(cc grpc.ClientConnInterface, opts ...Option) *Client {
	o := options{callTimeout: 10 * time.Second, retry: DefaultBackoff, now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	c := &Client{cc: cc, opt: o, plain: gatewayv1.NewGatewayServiceClient(cc)}
	c.api = gatewayv1.NewGatewayServiceClient(&authConn{c: c})
	return c
}

// Close closes the connection Dial made (nothing for New's).
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// API is the gateway's API with this client's session: every call carries the token, refreshed
// before it expires, and a call refused UNAUTHENTICATED is made again once after the session is
// renewed. For what the Client has no method for (profiles, replays, the room's lists).
func (c *Client) API() gatewayv1.GatewayServiceClient { return c.api }

// Session is the current session (zero before a sign-in).
func (c *Client) Session() Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// PlayerID is the signed-in player's id.
func (c *Client) PlayerID() string { return c.Session().PlayerID }

func (c *Client) setSession(s Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.session = s
	c.issued = c.opt.now()
}

// authed is ctx carrying the session's token, refreshed first when little of its life is left.
func (c *Client) authed(ctx context.Context) (context.Context, error) {
	c.mu.Lock()
	s, issued := c.session, c.issued
	c.mu.Unlock()
	if s.Token == "" {
		return nil, ErrNotSignedIn
	}
	// Refreshed once less than a third of its life is left (at least a minute before its end).
	left := s.ExpiresAt.Sub(c.opt.now())
	if !s.ExpiresAt.IsZero() && (left < s.ExpiresAt.Sub(issued)/3 || left < time.Minute) {
		if err := c.renewSession(ctx, s.Token, false); err != nil {
			return nil, err
		}
		s = c.Session()
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.Token), nil
}

// ErrNotSignedIn is the error of a call made before a sign-in.
var ErrNotSignedIn = errors.New("client: not signed in")

// renewSession gets a new token for the session whose token was old: RefreshSession, or, when the
// gateway refuses it (expired, past the session's maximum age, signed out), a new sign-in with the
// credential of the last one. Callers racing with the same old token renew it once. refused: a call
// was refused UNAUTHENTICATED with old (else old is merely near its end).
func (c *Client) renewSession(ctx context.Context, old string, refused bool) error {
	c.renew.Lock()
	defer c.renew.Unlock()
	c.mu.Lock()
	cur, again := c.session, c.again
	c.mu.Unlock()
	if cur.Token != old {
		return nil // renewed meanwhile
	}
	md := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+old)
	r, err := c.plain.RefreshSession(md, &gatewayv1.RefreshSessionRequest{})
	if err == nil {
		cur.Token, cur.ExpiresAt = r.GetSessionToken(), time.Time{}
		if r.GetExpiresAt() != nil {
			cur.ExpiresAt = r.GetExpiresAt().AsTime()
		}
		c.setSession(cur)
		return nil
	}
	if status.Code(err) != codes.Unauthenticated {
		// Not refreshed, but a token near its end is still good: the next call tries again.
		if !refused && c.opt.now().Before(cur.ExpiresAt) {
			c.opt.log.WarnContext(ctx, "session refresh failed", "error", err)
			return nil
		}
		return fmt.Errorf("refresh session: %w", err)
	}
	if again == nil {
		return fmt.Errorf("the guest session ended, sign in again: %w", err)
	}
	c.opt.log.InfoContext(ctx, "signing in again", "reason", ViolationCode(err))
	return again(ctx)
}

// authConn is the connection with the session: it adds the token to every call and renews the
// session once when a call is refused UNAUTHENTICATED.
type authConn struct{ c *Client }

func (a *authConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	actx, err := a.c.authed(ctx)
	if err != nil {
		return err
	}
	err = a.c.cc.Invoke(actx, method, args, reply, opts...)
	if status.Code(err) != codes.Unauthenticated {
		return err
	}
	if rerr := a.c.renewAfter(ctx, actx); rerr != nil {
		return err
	}
	if actx, err = a.c.authed(ctx); err != nil {
		return err
	}
	return a.c.cc.Invoke(actx, method, args, reply, opts...)
}

// NewStream opens a stream with the token; a stream refused UNAUTHENTICATED reports it on its
// first Recv, where Table.Watch and Queue renew the session and open it again.
func (a *authConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	actx, err := a.c.authed(ctx)
	if err != nil {
		return nil, err
	}
	return a.c.cc.NewStream(actx, desc, method, opts...)
}

// renewAfter renews the session whose token a call refused UNAUTHENTICATED carried (in actx).
func (c *Client) renewAfter(ctx, actx context.Context) error {
	md, _ := metadata.FromOutgoingContext(actx)
	v := md.Get("authorization")
	if len(v) == 0 {
		return ErrNotSignedIn
	}
	return c.renewSession(ctx, v[len(v)-1][len("Bearer "):], true)
}

// renewForStream renews the session after a stream was refused UNAUTHENTICATED.
func (c *Client) renewForStream(ctx context.Context) error {
	return c.renewSession(ctx, c.Session().Token, true)
}

// WithClock gives the client another clock to judge its session's expiry by (tests).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }
