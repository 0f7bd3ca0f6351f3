// Command loopdns is a tiny DNS server for the distributed mode on one machine: it answers A
// records for a few names, each with several loopback addresses, so the gateway's dns:/// rules
// targets resolve to every replica and the gateway balances over them (by table affinity), as
// behind a headless Service in Kubernetes.
//
//	loopdns -listen 127.0.0.1:5353 -record sapotagem-rules=127.0.1.1,127.0.1.2 ...
//
// Other names are NXDOMAIN; other record types of known names are answered empty.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/net/dns/dnsmessage"
)

type records map[string][]netip.Addr

func (r records) String() string { return fmt.Sprint(map[string][]netip.Addr(r)) }

// Set reads name=ip,ip.
func (r records) Set(v string) error {
	name, ips, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=ip,ip: %q", v)
	}
	for s := range strings.SplitSeq(ips, ",") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return fmt.Errorf("%s: not an IPv4 address: %q", name, s)
		}
		r[canonical(name)] = append(r[canonical(name)], a)
	}
	return nil
}

func canonical(name string) string { return strings.ToLower(strings.TrimSuffix(name, ".")) + "." }

func main() {
	recs := records{}
	listen := flag.String("listen", "127.0.0.1:5353", "UDP address to answer on")
	flag.Var(recs, "record", "name=ip,ip (repeatable)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pc, err := net.ListenPacket("udp", *listen)
	if err == nil {
		err = serve(ctx, pc, recs)
	}
	if err != nil {
		slog.Error("loopdns failed", slog.Any("error", err))
		os.Exit(1)
	}
}

// serve answers on pc until ctx ends.
func serve(ctx context.Context, pc net.PacketConn, recs records) error {
	go func() { <-ctx.Done(); _ = pc.Close() }()
	slog.Info("loopdns listening", slog.String("addr", pc.LocalAddr().String()), slog.Any("records", recs))
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		out, err := answer(buf[:n], recs)
		if err != nil {
			continue // not a query we can read: no answer, as a server would drop it
		}
		_, _ = pc.WriteTo(out, from)
	}
}

// answer builds the reply to one query.
func answer(query []byte, recs records) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	addrs, known := recs[strings.ToLower(q.Name.String())]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	if q.Type == dnsmessage.TypeA && q.Class == dnsmessage.ClassINET {
		for _, a := range addrs {
			rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
			if err := b.AResource(rr, dnsmessage.AResource{A: a.As4()}); err != nil {
				return nil, err
			}
		}
	}
	return b.Finish()
}
