package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of svc-api's spans.
const TracerName = "github.com/adsnap/svc/api-server"

// TracingRequested reports whether the standard variables ask for traces:
// OTEL_TRACES_EXPORTER set to anything but "none", or an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The
// OpenTelemetry default exporter is OTLP; svc-api still keeps traces off
// until asked, so that a server does not send to localhost:4318 unbidden.
func TracingRequested(getenv func(string) string) bool {
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" {
		return e != "none"
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// StartTracing returns svc-api's tracer when TracingRequested, and nil (off:
// no span is made) otherwise, with a function that flushes and stops the
// exporter. The exporter is OTLP over HTTP/protobuf, configured by the
// standard OTEL_EXPORTER_OTLP_* variables; sampling by OTEL_TRACES_SAMPLER
// (default: parent-based, always on); resource by OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Incoming W3C traceparent headers are honoured.
func StartTracing(ctx context.Context, version string) (trace.Tracer, func(context.Context) error, error) {
	if !TracingRequested(os.Getenv) {
		return nil, func(context.Context) error { return nil }, nil
	}
	switch e := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); e {
	case "", "otlp":
	default:
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: svc-api exports traces with otlp only (or none)", e)
	}
	switch p := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"); {
	case p == "" && os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL") != "" && os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL") != "http/protobuf":
		return nil, nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: svc-api exports traces over http/protobuf only", os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	case p != "" && p != "http/protobuf":
		return nil, nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=%q: svc-api exports traces over http/protobuf only", p)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(serviceName()), semconv.ServiceVersion(version)))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return tp.Tracer(TracerName, trace.WithInstrumentationVersion(version)), tp.Shutdown, nil
}

func serviceName() string {
	if n := os.Getenv("OTEL_SERVICE_NAME"); n != "" {
		return n
	}
	return "svc-api"
}

// Common span attributes (OpenTelemetry semantic conventions). None holds a
// key, a secret, a query string or an organization.
var (
	AttrRoute  = attribute.Key(string(semconv.HTTPRouteKey))
	AttrMethod = attribute.Key(string(semconv.HTTPRequestMethodKey))
	AttrStatus = attribute.Key(string(semconv.HTTPResponseStatusCodeKey))
)
