package telemetry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestTracingRequested(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "svc-api"}, false},
	} {
		if got := TracingRequested(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("TracingRequested(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

func TestMetricsNilRecordsNothing(t *testing.T) {
	var m *Metrics // off: every method is a no-op
	m.Request("/x", 200, time.Millisecond)
	m.LimiterDecision("ip", true)
	m.LimiterError(true)
	m.DatabaseError("accounts", false)
	m.Queued()
	m.Admitted(time.Millisecond, false)
	m.KeyLookup("found")
	m.LastUsedWrite(nil)
	m.RegisterDB(nil)
	m.RegisterRedisPool(nil)
}

func TestRequestLabels(t *testing.T) {
	m := NewMetrics()
	m.Request("", 404, time.Millisecond)
	m.Request("", 404, time.Millisecond)
	m.Request("/api/v1/developer/accounts", 200, 2*time.Millisecond)
	m.Request("/api/v1/developer/accounts", 999, time.Millisecond)
	if got := testutil.ToFloat64(m.requests.WithLabelValues(UnmatchedRoute, "404")); got != 2 {
		t.Errorf("unmatched 404: %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.requests.WithLabelValues("/api/v1/developer/accounts", "other")); got != 1 {
		t.Errorf("status 999: %v, want 1 as code=\"other\"", got)
	}
	m.LimiterError(true)
	m.DatabaseError("accounts", false)
	if got := testutil.ToFloat64(m.deadlines.WithLabelValues("ratelimit")); got != 1 {
		t.Errorf("ratelimit deadlines: %v", got)
	}
	if got := testutil.ToFloat64(m.deadlines.WithLabelValues("database")); got != 0 {
		t.Errorf("database deadlines: %v", got)
	}
	ImportRun(nil)
	ImportRun(errors.New("bad document"))
	ImportRun(nil)
	if got := testutil.ToFloat64(importRuns.WithLabelValues("ok")); got != 2 {
		t.Errorf("import ok: %v, want 2", got)
	}
	// Everything is served, with conventional names.
	n, err := testutil.GatherAndCount(m.Registry)
	if err != nil || n == 0 {
		t.Fatalf("gather: %d, %v", n, err)
	}
	mfs, _ := m.Registry.Gather()
	for _, mf := range mfs {
		name := mf.GetName()
		if !strings.HasPrefix(name, "svc_api_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			t.Errorf("metric %s outside the svc_api_ namespace", name)
		}
	}
	if problems, err := testutil.GatherAndLint(m.Registry); err != nil || len(problems) > 0 {
		for _, p := range problems {
			if strings.HasPrefix(p.Metric, "svc_api_") {
				t.Errorf("lint %s: %s", p.Metric, p.Text)
			}
		}
	}
}
