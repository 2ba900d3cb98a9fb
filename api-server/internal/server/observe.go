package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/adsnap/svc/api-server/internal/ratelimit"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// This file instruments the pipeline (issue #17): the request's metrics and
// span (observe), and the dependencies wrapped so that each call is counted
// and gets a child span. With Config.Metrics and Config.Tracer nil, nothing
// here is installed and the request path is the uninstrumented one.
//
// The request span is made here rather than by otelgin: otelgin records the
// raw path, the client's address and its user agent, and this service keeps
// to the route template (a key-shaped path must never reach a trace).

// observe records the request's metrics and, with tracing on, its span
// ("GET /api/v1/developer/accounts"): route template, method and status,
// never the raw path, the query string or a header.
func (s *Server) observe(c *gin.Context) {
	var span trace.Span
	if s.tracer != nil {
		ctx := propagation.TraceContext{}.Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
		ctx, span = s.tracer.Start(ctx, "HTTP request", trace.WithSpanKind(trace.SpanKindServer))
		c.Request = c.Request.WithContext(ctx)
	}
	c.Next()
	status := c.Writer.Status()
	route := c.FullPath()
	if span != nil {
		method := spanMethod(c.Request.Method)
		name := route
		if name == "" {
			name = telemetry.UnmatchedRoute
		}
		span.SetName(method + " " + name)
		span.SetAttributes(telemetry.AttrMethod.String(method), telemetry.AttrRoute.String(name), telemetry.AttrStatus.Int(status))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		span.End()
	}
	s.metrics.Request(route, status, time.Since(state(c).start))
}

// spanMethod is the method as semantic conventions want it: a known method,
// or _OTHER (a raw method is unbounded).
func spanMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// child starts a span under the request's, when the request has a
// recording one; end is then the span's End.
func child(ctx context.Context, tracer trace.Tracer, name string) (context.Context, trace.Span) {
	if tracer == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	return tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
}

// endSpan ends sp (if any), marking it failed when err is not nil. Only the
// error's kind is recorded: an error's text may quote an argument.
func endSpan(sp trace.Span, err error) {
	if sp == nil {
		return
	}
	if err != nil {
		sp.SetStatus(codes.Error, errorKind(err))
	}
	sp.End()
}

func errorKind(err error) string {
	switch {
	case errors.Is(err, keys.ErrUnauthenticated):
		return "unauthenticated"
	case errors.Is(err, ratelimit.ErrUnavailable):
		return "rate limit store unavailable"
	case telemetry.IsDeadline(err):
		return "deadline exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "error"
}

// observedKeys counts key lookups and gives each a span.
type observedKeys struct {
	next    KeyLookup
	metrics *telemetry.Metrics
	tracer  trace.Tracer
}

func (o observedKeys) Lookup(ctx context.Context, presented string) (*keys.Principal, error) {
	ctx, sp := child(ctx, o.tracer, "key lookup")
	p, err := o.next.Lookup(ctx, presented)
	endSpan(sp, err)
	keyLookupMetric(o.metrics, err)
	return p, err
}

// keyLookupMetric counts a key lookup's outcome.
func keyLookupMetric(m *telemetry.Metrics, err error) {
	switch {
	case err == nil:
		m.KeyLookup("found")
	case errors.Is(err, keys.ErrUnauthenticated):
		m.KeyLookup("unauthenticated")
	default:
		m.KeyLookup("error")
		if !errors.Is(err, context.Canceled) {
			m.DatabaseError("key_lookup", telemetry.IsDeadline(err))
		}
	}
}

// observedLimiter counts the limiter's decisions and failures and gives
// each call a span.
type observedLimiter struct {
	ratelimit.Limiter
	metrics *telemetry.Metrics
	tracer  trace.Tracer
}

func (o observedLimiter) Allow(ctx context.Context, checks []ratelimit.Check, results []ratelimit.Result) error {
	ctx, sp := child(ctx, o.tracer, "rate limit")
	err := o.Limiter.Allow(ctx, checks, results)
	endSpan(sp, err)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			o.metrics.LimiterError(telemetry.IsDeadline(err))
		}
		return err
	}
	for i := range checks {
		if r := &results[i]; r.Limit.Name != "" { // a check after a refusing gate is not taken
			o.metrics.LimiterDecision(r.Limit.Name, r.Allowed)
		}
	}
	return nil
}

// observedStore counts the failed pings of the store; the reads are
// observed by readRows (readDone), once for every endpoint.
type observedStore struct {
	Store
	metrics *telemetry.Metrics
}

// readDone ends the span of an endpoint's read and counts its failure
// under op (a client that left is not counted, nor a sync token or cursor
// the changes feed refused: the client's mistake, not the database's).
func (s *Server) readDone(sp trace.Span, op string, err error) {
	if errors.As(err, new(*feedRefusal)) {
		err = nil
	}
	endSpan(sp, err)
	if err != nil && !errors.Is(err, context.Canceled) {
		s.metrics.DatabaseError(op, telemetry.IsDeadline(err))
	}
}

func (o observedStore) Ping(ctx context.Context) error {
	err := o.Store.Ping(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		o.metrics.DatabaseError("ping", telemetry.IsDeadline(err))
	}
	return err
}

// instrument wraps the dependencies when metrics or tracing are on.
func (s *Server) instrument() {
	if s.metrics == nil && s.tracer == nil {
		return
	}
	s.keys = observedKeys{next: s.keys, metrics: s.metrics, tracer: s.tracer}
	s.limiter = observedLimiter{Limiter: s.limiter, metrics: s.metrics, tracer: s.tracer}
	s.store = observedStore{Store: s.store, metrics: s.metrics}
}

// admitWait records a wait for a place that began at t0 (metrics on only).
func (s *Server) admitWait(t0 time.Time, err error) {
	s.metrics.Admitted(time.Since(t0), err != nil && telemetry.IsDeadline(err))
}
