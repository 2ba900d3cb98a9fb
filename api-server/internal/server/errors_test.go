package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/server"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgconn"
)

// gin's mode is a global the program sets (svc-api's cli package); the
// tests run the server as it does.
func init() { gin.SetMode(gin.ReleaseMode) }

// failingStore answers every page with err.
type failingStore struct {
	server.Store
	err error
}

func (f failingStore) AccountsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.AccountPage, error) {
	return store.Meta{}, nil, f.err
}

func (f failingStore) CampaignsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.CampaignPage, error) {
	return store.Meta{}, nil, f.err
}

func (f failingStore) InsightsPage(context.Context, string, store.ListParams, store.Prelude) (store.Meta, *store.InsightPage, error) {
	return store.Meta{}, nil, f.err
}

// TestErrorClasses: only a classified dependency failure is a 503; an
// unrecognised error is a 500 whose cause is logged once, with the request
// id, and never shown to the client.
func TestErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"unknown", errors.New("decode row 3: unexpected nil in accountName"), http.StatusInternalServerError},
		{"connection failure 08006", &pgconn.PgError{Code: "08006", Message: "connection failure"}, http.StatusServiceUnavailable},
		{"too many connections 53300", &pgconn.PgError{Code: "53300", Message: "too many clients"}, http.StatusServiceUnavailable},
		{"statement timeout 57014", &pgconn.PgError{Code: "57014", Message: "canceling statement"}, http.StatusServiceUnavailable},
		{"syntax error 42601", &pgconn.PgError{Code: "42601", Message: "syntax error at or near \"SELEC\""}, http.StatusInternalServerError},
		{"deadline", context.DeadlineExceeded, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const cause = "reading the test page"
			wrapped := fmt.Errorf("%s: %w", cause, tc.err)
			e := sqliteEnv(t, opts{wrapStore: func(s server.Store) server.Store { return failingStore{s, wrapped} }})
			w := e.get(base+"/accounts", e.all)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body.String())
			}
			id := w.Header().Get("X-Request-Id")
			msg, _ := decodeError(t, w).Message.(string)
			logs := e.logs.String()
			switch tc.status {
			case http.StatusInternalServerError:
				if msg != "internal error (request id "+id+")" {
					t.Errorf("message %q", msg)
				}
				if w.Header().Get("Retry-After") != "" {
					t.Errorf("a 500 says Retry-After")
				}
				if n := strings.Count(logs, cause); n != 1 {
					t.Errorf("cause logged %d times, want once:\n%s", n, logs)
				}
				if !strings.Contains(logs, `"msg":"internal error","request_id":"`+id+`"`) {
					t.Errorf("no internal error line with the request id:\n%s", logs)
				}
				if strings.Contains(logs, "database unavailable") {
					t.Errorf("a 500 logged as a database failure:\n%s", logs)
				}
			case http.StatusServiceUnavailable:
				if !strings.Contains(msg, "database is unavailable") || w.Header().Get("Retry-After") != "1" {
					t.Errorf("message %q, Retry-After %q", msg, w.Header().Get("Retry-After"))
				}
				if !strings.Contains(logs, `"msg":"database unavailable"`) {
					t.Errorf("not logged as a database failure:\n%s", logs)
				}
			}
		})
	}
}

// TestErrorsDoNotTripTheBreaker: unclassified errors are answers of the
// database, not failures: a run of them keeps asking it.
func TestErrorsDoNotTripTheBreaker(t *testing.T) {
	e := sqliteEnv(t, opts{wrapStore: func(s server.Store) server.Store {
		return failingStore{s, &pgconn.PgError{Code: "42601"}}
	}})
	for i := range 10 {
		if w := e.get(base+"/accounts", e.all); w.Code != http.StatusInternalServerError {
			t.Fatalf("request %d: %d, want 500 (the breaker must stay closed)", i, w.Code)
		}
	}
}

// TestForbiddenNamesCheckedScope: the 403 names the scope the endpoint
// checked, for each endpoint.
func TestForbiddenNamesCheckedScope(t *testing.T) {
	e := sqliteEnv(t, opts{})
	for path, scope := range map[string]string{
		"/campaigns": "campaigns:read", "/insights": "insights:read",
	} {
		w := e.get(base+path, e.accOnly)
		if w.Code != http.StatusForbidden {
			t.Fatalf("%s: %d", path, w.Code)
		}
		if msg, _ := decodeError(t, w).Message.(string); msg != "the API key lacks the scope this endpoint requires ("+scope+")" {
			t.Errorf("%s: message %q", path, msg)
		}
	}
}

// proxiedPostgres returns a PostgreSQL backend reached through a TCP proxy
// that the test can take down: a real outage, not a closed handle.
func proxiedPostgres(t *testing.T) (dbtest.Backend, *testenv.Proxy) {
	t.Helper()
	b := dbtest.Postgres(t)
	if err := testenv.Migrate(t.Context(), b.DB); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	h, err := database.Connect(t.Context(), u.String(), database.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return dbtest.Backend{Name: b.Name, DB: h.Bun, Handle: h, URL: u.String()}, proxy
}

// TestNewChangesNoGlobal: the constructor leaves gin's mode as the program
// set it.
func TestNewChangesNoGlobal(t *testing.T) {
	prev := gin.Mode()
	gin.SetMode(gin.TestMode)
	defer gin.SetMode(prev)
	sqliteEnv(t, opts{})
	if m := gin.Mode(); m != gin.TestMode {
		t.Errorf("after server.New gin's mode is %q, want the %q the program set", m, gin.TestMode)
	}
}
