package main

import (
	"context"
	"net"
	"slices"
	"testing"
)

// The Go resolver, as gRPC's dns resolver uses it with an authority, sees every address of a name.
func TestResolverSeesEveryReplica(t *testing.T) {
	recs := records{}
	if err := recs.Set("sponsio-rules=127.0.1.1,127.0.1.2"); err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, pc, recs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
	got, err := r.LookupHost(ctx, "sponsio-rules")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"127.0.1.1", "127.0.1.2"}) {
		t.Fatalf("resolved %v, want both replicas", got)
	}
	if _, err := r.LookupHost(ctx, "unknown-rules"); err == nil {
		t.Fatal("an unknown name resolved")
	}
}

func TestRecordsRefuseBadInput(t *testing.T) {
	for _, v := range []string{"noequals", "=127.0.0.1", "a=::1", "a=notanip"} {
		if err := (records{}).Set(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}
