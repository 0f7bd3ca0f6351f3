package gateway

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// ParseTrustedProxies reads the trusted-proxies setting: comma-separated CIDR prefixes or single
// addresses. Empty: none.
func ParseTrustedProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("CARDROOM_TRUSTED_PROXIES (--trusted-proxies): %q is neither a CIDR prefix nor an address", s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// clientAddr is the address a call comes from, for the sign-in limit: the peer's, unless the
// peer is a trusted proxy; then X-Forwarded-For (gRPC metadata, or the HTTP header of a browser
// call, which reaches the handlers as the same metadata) read from the right, skipping trusted
// proxies: the first address not trusted is the client (what a client wrote itself further left
// is not believed). "" when the peer is unknown.
func clientAddr(ctx context.Context, trusted []netip.Prefix) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return ""
	}
	host := p.Addr.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(addr, trusted) {
		return host
	}
	md, _ := metadata.FromIncomingContext(ctx)
	hops := md.Get("x-forwarded-for")
	client := addr
	for i := len(hops) - 1; i >= 0; i-- {
		list := strings.Split(hops[i], ",")
		for j := len(list) - 1; j >= 0; j-- {
			a, ok := parseHop(list[j])
			if !ok {
				// A trusted proxy passed on something that is no address: the last good hop is
				// all that is known.
				return client.String()
			}
			client = a
			if !isTrusted(a, trusted) {
				return a.String()
			}
		}
	}
	return client.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads one X-Forwarded-For entry: an address, possibly with a port or in brackets.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}
