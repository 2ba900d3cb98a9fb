package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTelemetry (issue #17): the metrics a replica serves on --metrics-addr
// count exactly the traffic sent, and with tracing on a request's span has
// its key-lookup, limiter and query children, with no secret anywhere.
func TestTelemetry(t *testing.T) {
	e := setup(t)
	t.Run("Metrics", func(t *testing.T) { testMetrics(t, e) })
	t.Run("Traces", func(t *testing.T) { testTraces(t, e) })
}

// startObserved starts one replica on e's database and the given Redis,
// with extra environment, and returns it.
func startObserved(t *testing.T, e *env, redisAddr string, extra ...string) *harness.Server {
	t.Helper()
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := append([]string{
		"SVC_DATABASE_URL=" + e.dbURL,
		"SVC_REDIS_URL=redis://" + redisAddr + "/0",
		"SVC_REDIS_NAMESPACE=telemetry" + harness.RandomHex(4),
		fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port),
		fmt.Sprintf("SVC_SITE_URL=http://127.0.0.1:%d", port),
	}, extra...)
	s, err := harness.StartServer(e.bin.API, port, env, "serve")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func testMetrics(t *testing.T, e *env) {
	redis, err := harness.StartRedis(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(redis.Stop)
	mport, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
	s := startObserved(t, e, redis.Addr, fmt.Sprintf("SVC_METRICS_ADDR=127.0.0.1:%d", mport),
		"SVC_LIMIT_KEY_PER_MINUTE=5", "SVC_LIMIT_ORG_PER_MINUTE=1000", "SVC_LIMIT_IP_PER_MINUTE=1000")
	before := scrape(t, metricsURL)

	key := e.keys["alpha_a"]
	unknown := "svc_live_" + strings.Repeat("A", 43) // well-formed, unknown: looked up, 401
	client := harness.ClientFrom("127.0.0.140")
	accounts := s.URL + "/api/v1/developer/accounts?limit=1"
	want := map[int]int{}
	get := func(url, key string, status int) {
		t.Helper()
		if got := do(t.Context(), client, url, key); got.status != status {
			t.Fatalf("GET %s: status %d, want %d", url, got.status, status)
		}
		want[status]++
	}
	for range 5 {
		get(accounts, key, http.StatusOK)
	}
	for range 3 {
		get(accounts, key, http.StatusTooManyRequests) // the per-key bucket (5/min)
	}
	for range 4 {
		get(accounts, unknown, http.StatusUnauthorized)
	}
	for range 2 {
		get(s.URL+"/no/such/path/"+harness.RandomHex(4), "", http.StatusNotFound)
	}
	// One Redis outage: the store stops answering, the request fails closed.
	if err := redis.Pause(); err != nil {
		t.Fatal(err)
	}
	get(accounts, key, http.StatusServiceUnavailable)
	if err := redis.Resume(); err != nil {
		t.Fatal(err)
	}
	after := scrape(t, metricsURL)
	delta := func(name string, labels ...string) float64 {
		return value(after, name, labels...) - value(before, name, labels...)
	}
	route := "/api/v1/developer/accounts"
	for _, c := range []struct {
		name   string
		labels []string
		want   int
	}{
		{"svc_api_http_requests_total", []string{"route", route, "code", "200"}, want[200]},
		{"svc_api_http_requests_total", []string{"route", route, "code", "429"}, want[429]},
		{"svc_api_http_requests_total", []string{"route", route, "code", "401"}, want[401]},
		{"svc_api_http_requests_total", []string{"route", route, "code", "503"}, want[503]},
		{"svc_api_http_requests_total", []string{"route", "unmatched", "code", "404"}, want[404]},
		{"svc_api_http_request_duration_seconds", []string{"route", route, "code", "200"}, want[200]},
		{"svc_api_ratelimit_decisions_total", []string{"bucket", "key", "outcome", "allowed"}, 5},
		{"svc_api_ratelimit_decisions_total", []string{"bucket", "key", "outcome", "refused"}, 3},
		// All or nothing: the organization's bucket would have allowed the 3.
		{"svc_api_ratelimit_decisions_total", []string{"bucket", "org", "outcome", "allowed"}, 8},
		// Every API request, and the 404s charged to the IP (not the outage's).
		{"svc_api_ratelimit_decisions_total", []string{"bucket", "ip", "outcome", "allowed"}, 5 + 3 + 4 + 2},
		{"svc_api_ratelimit_errors_total", nil, 1},
		{"svc_api_deadline_exceeded_total", []string{"dependency", "ratelimit"}, 1},
		// Only the 5 served requests read the key: the key is known to
		// the replica after its first request, so its limits are taken
		// first, and the 3 refused by the key's bucket and the one of the
		// Redis outage make no lookup (issue 21: refused requests stay
		// cheaper than served ones).
		{"svc_api_key_lookups_total", []string{"outcome", "found"}, 5},
		{"svc_api_key_lookups_total", []string{"outcome", "unauthenticated"}, 4},
		{"svc_api_database_errors_total", []string{"operation", "accounts"}, 0},
	} {
		if got := delta(c.name, c.labels...); got != float64(c.want) {
			t.Errorf("%s%v: %v more, want %d", c.name, c.labels, got, c.want)
		}
	}
	// The pools are there, with the bounded labels of their collectors.
	if value(after, "go_sql_max_open_connections", "db_name", "svc_api") <= 0 {
		t.Error("go_sql_max_open_connections{db_name=svc_api} missing or zero")
	}
	if _, ok := after["svc_api_redis_pool_connections"]; !ok {
		t.Error("svc_api_redis_pool_connections missing")
	}
	if value(after, "svc_api_redis_pool_hits_total")+value(after, "svc_api_redis_pool_misses_total") <= 0 {
		t.Error("svc_api_redis_pool_{hits,misses}_total: no connection taken from the pool")
	}
	if _, ok := after["svc_api_admission_wait_seconds"]; !ok {
		t.Error("svc_api_admission_wait_seconds missing")
	}
	// Every series the Grafana dashboard queries exists.
	dash, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "deploy", "grafana", "svc-api-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(dash) {
		t.Error("deploy/grafana/svc-api-dashboard.json is not JSON")
	}
	for _, name := range regexp.MustCompile(`\b(?:svc_api|go_sql|go|process)_[a-z_]+`).FindAllString(string(dash), -1) {
		family := strings.TrimSuffix(name, "_bucket")
		if _, ok := after[family]; !ok {
			t.Errorf("the dashboard queries %s, which /metrics does not serve", name)
		}
	}
	// No unbounded label: no key, key id, organization, IP or raw path.
	for name, mf := range after {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				v := l.GetValue()
				for _, bad := range []string{key, unknown, "svc_live_", e.keyIDs["alpha_a"], "org_", "127.0.0.140", "/no/such/path"} {
					if bad != "" && strings.Contains(v, bad) {
						t.Errorf("%s has label %s=%q (unbounded or secret)", name, l.GetName(), v)
					}
				}
			}
		}
	}
	// The API's own port never serves them.
	if got := do(t.Context(), client, s.URL+"/metrics", ""); got.status != http.StatusNotFound {
		t.Errorf("GET /metrics on the API's port: %d, want 404", got.status)
	}
}

// scrape reads url with the Prometheus text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return mfs
}

// value is the sample of name whose labels include labels (name, value
// pairs): a counter's or gauge's value, a histogram's count; 0 if absent.
func value(mfs map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	mf, ok := mfs[name]
	if !ok {
		return 0
	}
	var sum float64
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}

// otlpReceiver is an in-process OTLP/HTTP trace receiver (protobuf).
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	raw   [][]byte
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.raw = append(r.raw, b)
	for _, rs := range msg.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out) //nolint:errcheck
}

func (r *otlpReceiver) snapshot() ([]*tracepb.Span, [][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...), append([][]byte(nil), r.raw...)
}

func testTraces(t *testing.T, e *env) {
	recv := &otlpReceiver{}
	ts := httptest.NewServer(recv)
	t.Cleanup(ts.Close)
	s := startObserved(t, e, e.redis,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+ts.URL, "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_SERVICE_NAME=svc-api-e2e",
		"SVC_LIMIT_KEY_PER_MINUTE=1000", "SVC_LIMIT_ORG_PER_MINUTE=1000", "SVC_LIMIT_IP_PER_MINUTE=1000")
	key := e.keys["alpha_a"]
	client := harness.ClientFrom("127.0.0.141")
	const marker = "limit=2&offset=0"
	if got := do(t.Context(), client, s.URL+"/api/v1/developer/accounts?"+marker, key); got.status != http.StatusOK {
		t.Fatalf("GET /accounts: %d", got.status)
	}
	if got := do(t.Context(), client, s.URL+"/api/v1/developer/campaigns?limit=1", "svc_live_"+strings.Repeat("B", 43)); got.status != http.StatusUnauthorized {
		t.Fatalf("GET /campaigns with an unknown key: %d", got.status)
	}
	var (
		spans []*tracepb.Span
		raw   [][]byte
		req   *tracepb.Span
	)
	harness.Eventually(t.Context(), 10*time.Second, 100*time.Millisecond, func() bool {
		spans, raw = recv.snapshot()
		req = nil
		for _, sp := range spans {
			if sp.GetName() == "GET /api/v1/developer/accounts" {
				req = sp
			}
		}
		return req != nil && len(children(spans, req)) >= 3
	})
	if req == nil {
		t.Fatalf("no span named %q among %d received", "GET /api/v1/developer/accounts", len(spans))
	}
	if req.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("request span kind %v, want server", req.GetKind())
	}
	attrs := map[string]string{}
	for _, kv := range req.GetAttributes() {
		attrs[kv.GetKey()] = anyString(kv.GetValue())
	}
	if attrs["http.route"] != "/api/v1/developer/accounts" || attrs["http.response.status_code"] != "200" || attrs["http.request.method"] != "GET" {
		t.Errorf("request span attributes %v", attrs)
	}
	got := map[string]bool{}
	for _, c := range children(spans, req) {
		got[c.GetName()] = true
	}
	for _, name := range []string{"key lookup", "rate limit", "query accounts"} {
		if !got[name] {
			t.Errorf("request span has no child %q (children: %v)", name, got)
		}
	}
	// No secret, key id, organization or query string anywhere in what was exported.
	for _, b := range raw {
		for _, bad := range []string{key, "svc_live_", e.keyIDs["alpha_a"], "org_alpha", marker, "limit=1"} {
			if bad != "" && bytes.Contains(b, []byte(bad)) {
				t.Errorf("an exported span batch contains %q", bad)
			}
		}
	}
	t.Logf("received %d spans; request span with children %v", len(spans), got)
}

func children(spans []*tracepb.Span, parent *tracepb.Span) []*tracepb.Span {
	var out []*tracepb.Span
	for _, sp := range spans {
		if bytes.Equal(sp.GetParentSpanId(), parent.GetSpanId()) && bytes.Equal(sp.GetTraceId(), parent.GetTraceId()) {
			out = append(out, sp)
		}
	}
	return out
}

func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	}
	return v.String()
}
