package telemetry

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
)

// collector is an OTLP/gRPC trace receiver that keeps what it was sent.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu       sync.Mutex
	services []string // service.name of each resource received
	headers  []metadata.MD
}

func (c *collector) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers = append(c.headers, md)
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// startCollector serves a collector on loopback, over TLS when cert is set.
func startCollector(t *testing.T, cert *tls.Certificate) (*collector, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var opts []grpc.ServerOption
	if cert != nil {
		opts = append(opts, grpc.Creds(credentials.NewServerTLSFromCert(cert)))
	}
	gs := grpc.NewServer(opts...)
	c := &collector{}
	coltracepb.RegisterTraceServiceServer(gs, c)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	return c, lis.Addr().String()
}

// exportOne sets telemetry up as o says, records one span and flushes it.
func exportOne(t *testing.T, o Options) {
	t.Helper()
	tel, err := Setup(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Exporting {
		t.Fatal("not exporting")
	}
	_, span := otel.Tracer("test").Start(t.Context(), "op")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown (flushing the span): %v", err)
	}
}

// TestStandardVariables: with no CARDROOM_OTLP_ENDPOINT, the standard OTEL_* variables say where
// traces go, with which headers and under which service name.
func TestStandardVariables(t *testing.T) {
	c, addr := startCollector(t, nil)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+addr)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=cardroom-test")
	t.Setenv("OTEL_SERVICE_NAME", "renamed")
	exportOne(t, Options{Service: "test", TraceSample: 1})
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.services) == 0 || c.services[0] != "renamed" {
		t.Errorf("service names received %v, want [renamed]", c.services)
	}
	if len(c.headers) == 0 || len(c.headers[0].Get("x-tenant")) == 0 || c.headers[0].Get("x-tenant")[0] != "cardroom-test" {
		t.Errorf("headers received %v, want x-tenant: cardroom-test", c.headers)
	}
}

// TestExportOff: OTEL_TRACES_EXPORTER=none turns export off whatever the endpoint.
func TestExportOff(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	if Exporting(Options{OTLPEndpoint: "127.0.0.1:1"}) {
		t.Error("exporting with OTEL_TRACES_EXPORTER=none")
	}
}

// TestCollectorTLS: CARDROOM_OTLP_ENDPOINT as host:port, with the collector's CA in
// OTEL_EXPORTER_OTLP_CERTIFICATE, exports over TLS (and only over TLS: the collector speaks
// nothing else).
func TestCollectorTLS(t *testing.T) {
	cert, caPEM := selfSigned(t)
	c, addr := startCollector(t, &cert)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", ca)
	exportOne(t, Options{Service: "tls-test", OTLPEndpoint: addr, TraceSample: 1})
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.services) == 0 || c.services[0] != "tls-test" {
		t.Errorf("service names received over TLS %v, want [tls-test]", c.services)
	}
}

func TestExporterOptions(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if n := len(ExporterOptions(Options{}, getenv)); n != 0 {
		t.Errorf("no endpoint: %d options, want none (the variables decide)", n)
	}
	if n := len(ExporterOptions(Options{OTLPEndpoint: "collector:4317"}, getenv)); n != 2 {
		t.Errorf("host:port: %d options, want endpoint and plaintext", n)
	}
	env["OTEL_EXPORTER_OTLP_INSECURE"] = "false"
	if n := len(ExporterOptions(Options{OTLPEndpoint: "collector:4317"}, getenv)); n != 1 {
		t.Errorf("host:port with INSECURE=false: %d options, want the endpoint alone (TLS)", n)
	}
}

// selfSigned is a certificate for 127.0.0.1 and its own CA in PEM.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "collector"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
