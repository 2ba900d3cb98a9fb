// Package telemetry holds what an operator watches: the Prometheus metrics
// svc-api serves on --metrics-addr, and the OpenTelemetry tracer that the
// standard OTEL_* variables turn on. Both are off by default; a nil
// *Metrics and a nil trace.Tracer record nothing and cost nothing.
//
// Files:
//
//   - metrics.go: Metrics, the Prometheus collectors and their recorders;
//   - serve.go: the metrics listener (/metrics, and /readyz's detail);
//   - tracing.go: StartTracing, the tracer the OTEL_* variables ask for.
package telemetry
