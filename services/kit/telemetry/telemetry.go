// Package telemetry sets up what every process reports: OpenTelemetry traces (exported with OTLP
// when an endpoint is configured), metrics exposed for Prometheus, and slog logs that carry the
// trace and span ids of their context.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// Options say how to report.
type Options struct {
	Service string
	// OTLPEndpoint exports traces over OTLP/gRPC to host:port (plaintext, for a local collector or
	// sidecar, unless OTEL_EXPORTER_OTLP_INSECURE=false or a certificate is set, see Exporter) or
	// to a URL (https:// for TLS). Empty: the standard OTEL_EXPORTER_OTLP_ENDPOINT or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, when set, says where. With neither, spans are not
	// recorded at all (nothing would read them), but every span still carries a trace context, so
	// logs keep their trace ids and calls propagate them.
	OTLPEndpoint string
	// TraceSample is the share of new traces recorded when exporting (0 to 1); a trace started
	// upstream follows its parent's decision.
	TraceSample float64
	LogLevel    string
	LogFormat   string
	LogOut      io.Writer
}

// Telemetry is the process's reporting.
type Telemetry struct {
	Logger *slog.Logger
	// Exporting is whether traces are exported (see Options.OTLPEndpoint): instrumentation that
	// only makes spans (Redis commands) is worth installing only then.
	Exporting bool
	// Metrics serves the Prometheus exposition of every OpenTelemetry metric.
	Metrics  http.Handler
	shutdown []func(context.Context) error
}

// Setup installs the global tracer and meter providers and the propagator, and builds the logger.
func Setup(ctx context.Context, o Options) (*Telemetry, error) {
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the process's own name.
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName(o.Service)), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	t := &Telemetry{Exporting: Exporting(o)}

	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(Sampler(o))}
	if t.Exporting {
		exp, err := otlptracegrpc.New(ctx, ExporterOptions(o, os.Getenv)...)
		if err != nil {
			return nil, fmt.Errorf("otlp exporter: %w", err)
		}
		topts = append(topts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(topts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.shutdown = append(t.shutdown, tp.Shutdown)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	pexp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(pexp))
	otel.SetMeterProvider(mp)
	t.shutdown = append(t.shutdown, mp.Shutdown)
	t.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})

	t.Logger = NewLogger(o)
	return t, nil
}

// Sampler decides which spans are recorded: none without an exporter (recording them would only
// cost: on the busiest paths of a rules service, a fifth of its CPU), else the TraceSample share
// of new traces and whatever an upstream caller decided for its own.
func Sampler(o Options) sdktrace.Sampler {
	if !Exporting(o) {
		return dropAll{}
	}
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(o.TraceSample))
}

// dropAll records no span. Unlike sdktrace.NeverSample it does not copy the parent's W3C
// tracestate into each span, which took a walk up the call's context (a gRPC call's is deep) at
// every span: nearly 2 % of a gateway's CPU under load. So without an exporter the trace id still
// goes from call to call, and a caller's tracestate stops at the first span.
type dropAll struct{}

func (dropAll) ShouldSample(sdktrace.SamplingParameters) sdktrace.SamplingResult {
	return sdktrace.SamplingResult{Decision: sdktrace.Drop}
}

func (dropAll) Description() string { return "DropAll" }

// Exporting is whether o exports traces: an endpoint in o, or in the standard variables
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, unless OTEL_TRACES_EXPORTER
// is "none".
func Exporting(o Options) bool {
	if os.Getenv("OTEL_TRACES_EXPORTER") == "none" {
		return false
	}
	return o.OTLPEndpoint != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

// ExporterOptions are the OTLP exporter's options beyond what it reads itself from the standard
// variables (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _INSECURE, _HEADERS, _CERTIFICATE,
// _CLIENT_CERTIFICATE, _CLIENT_KEY, _COMPRESSION, _TIMEOUT), which decide everything when
// o.OTLPEndpoint is empty. o.OTLPEndpoint, when set, names the collector instead: a URL as it is
// (https:// for TLS), a bare host:port in plaintext, as it always was, unless getenv's standard
// variables ask for TLS (OTEL_EXPORTER_OTLP_[TRACES_]INSECURE=false, or a CA certificate).
func ExporterOptions(o Options, getenv func(string) string) []otlptracegrpc.Option {
	switch {
	case o.OTLPEndpoint == "":
		return nil
	case strings.Contains(o.OTLPEndpoint, "://"):
		return []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(o.OTLPEndpoint)}
	}
	opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(o.OTLPEndpoint)}
	tls := false
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"} {
		if strings.EqualFold(getenv(v), "false") {
			tls = true
		}
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE"} {
		if getenv(v) != "" {
			tls = true
		}
	}
	if !tls {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	return opts
}

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for i := len(t.shutdown) - 1; i >= 0; i-- {
		errs = append(errs, t.shutdown[i](ctx))
	}
	return errors.Join(errs...)
}

// NewLogger builds the slog logger: text or JSON, at a level, with trace ids from the context.
func NewLogger(o Options) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(o.LogLevel))
	out := o.LogOut
	if out == nil {
		out = io.Discard
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(out, hopts)
	if o.LogFormat == "json" {
		h = slog.NewJSONHandler(out, hopts)
	}
	return slog.New(traceHandler{h}).With(slog.String("service", o.Service))
}

// traceHandler adds trace_id and span_id to records logged with a traced context.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(as)}
}
func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
