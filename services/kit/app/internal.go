package app

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ServiceTokenHeader is the metadata key of the service token on internal calls (the gateway's
// calls to the rules services and to the stats service).
const ServiceTokenHeader = "cardroom-service-token"

// NewInternalGRPCServer is NewGRPCServer for a service that only other cardroom processes call
// (a rules service, the stats service): clients hold no session, so what keeps players and
// strangers out is the service token (Config.ServiceToken). With a token every call must carry it
// (ServiceTokenHeader) or is refused UNAUTHENTICATED, except health checks (Kubernetes' probes
// carry no metadata). Without one, the server may only listen on loopback: an address beyond it
// is refused here, before anything listens, so an internal service is never reachable
// unauthenticated from another host.
func (a *App) NewInternalGRPCServer(addr string, opts ...grpc.ServerOption) (*grpc.Server, *health.Server, error) {
	token := a.Config.ServiceToken
	if token == "" && !IsLoopback(addr) {
		return nil, nil, fmt.Errorf("internal service on %s: listening beyond loopback needs a service token: set --service-token (CARDROOM_SERVICE_TOKEN), the same on the gateway, or listen on 127.0.0.1", addr)
	}
	if token != "" {
		g := tokenGuard(sha256.Sum256([]byte(token)))
		opts = append(opts, grpc.ChainUnaryInterceptor(g.unary), grpc.ChainStreamInterceptor(g.stream))
	}
	return a.NewGRPCServer(addr, opts...)
}

// IsLoopback reports whether addr (host:port) listens on loopback only: a loopback IP
// (127.0.0.0/8, ::1) or "localhost". Every interface ("", 0.0.0.0, ::) and any other name is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// tokenGuard checks the service token; it keeps the token's digest, so a comparison takes the
// same time whatever the length and content of what a caller sent.
type tokenGuard [sha256.Size]byte

func (g tokenGuard) check(ctx context.Context, method string) error {
	if strings.HasPrefix(method, "/"+healthpb.Health_ServiceDesc.ServiceName+"/") {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	got := md.Get(ServiceTokenHeader)
	if len(got) != 1 {
		return status.Error(codes.Unauthenticated, "internal service: the call carries no service token")
	}
	d := sha256.Sum256([]byte(got[0]))
	if subtle.ConstantTimeCompare(d[:], g[:]) != 1 {
		return status.Error(codes.Unauthenticated, "internal service: wrong service token")
	}
	return nil
}

func (g tokenGuard) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := g.check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (g tokenGuard) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := g.check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return h(srv, ss)
}

// ServiceCredentials sends token on every call of a connection to an internal service
// (grpc.WithPerRPCCredentials). The connections are plaintext inside the cluster, as before: the
// token proves the caller, the NetworkPolicy keeps others off the path.
func ServiceCredentials(token string) credentials.PerRPCCredentials { return serviceCreds(token) }

type serviceCreds string

func (c serviceCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{ServiceTokenHeader: string(c)}, nil
}

func (serviceCreds) RequireTransportSecurity() bool { return false }
