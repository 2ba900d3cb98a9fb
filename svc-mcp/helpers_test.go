package svcmcp

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testKey is a well-formed developer key (prefix, 37 base62 characters and
// their CRC32 checksum).
const testKey = "svc_live_00000000000000000000000000000000000001w1XY4"

// basePath is where the test API is mounted, so that the site URL carries
// a path prefix as a real deployment may.
const basePath = "/prefix"

// testNow is the clock of the server under test: the default insight period
// is 2026-10-22..2026-11-20.
var testNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// Fixtures, exactly as the API sends them (SPEC §2): insight dates are
// date-times, decimals are strings, purchase fields may be null. e2e
// validates them against openapi.yaml (double_test.go).
//
//go:embed testdata/fixtures.json
var fixturesJSON []byte

var fixtures = svctest.MustParseFixtures(fixturesJSON)

// The fixtures of each resource as a JSON array.
var (
	accountsJSON  = jsonArray(fixtures.Accounts)
	campaignsJSON = jsonArray(fixtures.Campaigns)
	insightsJSON  = jsonArray(fixtures.Insights)
	// campaignsJSON12 are the campaigns of act_1.
	campaignsJSON12 = jsonArray(fixtures.Campaigns[:2])
)

func jsonArray(rows []svctest.Row) string {
	s := make([]string, len(rows))
	for i, r := range rows {
		s[i] = r.JSON
	}
	return "[" + strings.Join(s, ",") + "]"
}

const (
	dataAsOf    = "2026-11-20T06:00:00Z"
	generatedAt = "2026-11-20T06:05:00Z"
	note        = svctest.Note
)

// apiResponse is a canned answer of the test API.
type apiResponse struct {
	status  int
	body    string
	headers map[string]string
	delay   <-chan struct{} // if set, the answer waits for it
}

// testAPI is the snapshot developer API of sdk-go's svctest (svc-api's
// statuses and messages) over the fixtures, at {site}/api/v1/developer,
// with canned answers per endpoint.
type testAPI struct {
	*httptest.Server
	api       svctest.API
	mu        sync.Mutex
	queries   []string                // "/accounts?limit=5" per request
	responses map[string]*apiResponse // by endpoint ("/accounts"); nil: the fixtures
}

func newTestAPI(t testing.TB) *testAPI {
	t.Helper()
	api := &testAPI{responses: map[string]*apiResponse{}, api: svctest.API{
		Key:      testKey,
		Accounts: fixtures.Accounts, Campaigns: fixtures.Campaigns, Insights: fixtures.Insights,
		DataAsOf: dataAsOf, GeneratedAt: generatedAt,
		Now: func() time.Time { return testNow },
	}}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

// siteURL is the site to pass to WithSiteURL.
func (a *testAPI) siteURL() string { return a.URL + basePath }

// respond makes the endpoint answer with status and body.
func (a *testAPI) respond(endpoint string, r *apiResponse) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.responses[endpoint] = r
}

func (a *testAPI) lastQuery() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queries) == 0 {
		return ""
	}
	return a.queries[len(a.queries)-1]
}

func (a *testAPI) serve(w http.ResponseWriter, r *http.Request) {
	endpoint, ok := strings.CutPrefix(r.URL.Path, basePath+svc.APIPath)
	if !ok || r.Method != http.MethodGet {
		svctest.WriteError(w, http.StatusNotFound, svctest.MessageNoEndpoint)
		return
	}
	a.mu.Lock()
	a.queries = append(a.queries, endpoint+"?"+r.URL.RawQuery)
	canned := a.responses[endpoint]
	a.mu.Unlock()

	if canned == nil {
		a.api.ServeHTTP(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		svctest.WriteError(w, http.StatusUnauthorized, svctest.MessageUnauthorized)
		return
	}
	if canned.delay != nil {
		select {
		case <-canned.delay:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range canned.headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(canned.status)
	_, _ = w.Write([]byte(canned.body))
}

// connect starts a server with opts and returns a client session on it,
// over in-memory transports.
func connect(t *testing.T, opts ...Option) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := NewServer(append([]Option{withNow(func() time.Time { return testNow })}, opts...)...).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "svcmcp-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// connectAPI connects to a server that reads from api with the test key.
func connectAPI(t *testing.T, api *testAPI, opts ...Option) *mcp.ClientSession {
	t.Helper()
	return connect(t, append([]Option{
		WithSiteURL(api.siteURL()),
		WithSDKOptions(svc.WithAPIKey(testKey), svc.WithRetryBackoff(time.Millisecond)),
	}, opts...)...)
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// text returns the text of the only content of res.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// binary builds cmd/svc-mcp once per test run and returns its path.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "svc-mcp-test-")
	if err != nil {
		return "", err
	}
	binDir = dir
	path := filepath.Join(dir, "svc-mcp")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/svc-mcp")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/svc-mcp: %v\n%s", err, out)
	}
	return path, nil
})

// binDir is removed by TestMain.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func buildBinary(t *testing.T) string {
	t.Helper()
	path, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// runBinary runs the built server with stdin as input and env added to a
// minimal environment, and returns its stdout and stderr.
func runBinary(t *testing.T, ctx context.Context, stdin string, env ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, buildBinary(t))
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("svc-mcp: %v\nstderr:\n%s", err, errOut.String())
	}
	return out.String(), errOut.String()
}
