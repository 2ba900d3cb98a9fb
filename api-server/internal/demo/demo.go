package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// KeyName names the keys svc-api demo creates. Earlier demo keys stay
// valid until they expire: only their hash is stored, so a later run could
// not print them again. Only when the organization is at the limit of
// active keys is the oldest demo key revoked, and the output says so.
const KeyName = "svc-api demo"

// KeyDays is the lifetime of a demo key: longer than svc's key-expiry
// warning (7 days), so that a fresh demo key does not warn on every command.
const KeyDays = 30

// The demo's clock and timer; tests move them across midnight.
var (
	Now   = time.Now
	After = time.After
)

// Load migrates db and imports the demo snapshot as of Now, and returns
// what the import did.
func Load(ctx context.Context, db *bun.DB) (string, error) {
	if _, err := store.Migrate(ctx, db); err != nil {
		return "", err
	}
	now := Now()
	sum, err := snapshot.Import(ctx, db, snapshot.Demo(now), now)
	telemetry.ImportRun(err)
	if err != nil {
		return "", fmt.Errorf("import demo snapshot: %w", err)
	}
	return fmt.Sprint(sum), nil
}

// Key is what a demo run did with its keys.
type Key struct {
	Created *keys.CreatedKey
	Earlier []keys.KeyInfo // earlier demo keys, still valid
	Revoked []keys.KeyInfo // revoked to stay within keys.MaxActiveKeys
}

// NewKey creates this run's demo key. Earlier demo keys stay valid;
// when the organization already has keys.MaxActiveKeys active keys, the
// oldest demo keys are revoked to make room.
func NewKey(ctx context.Context, db *bun.DB) (*Key, error) {
	ks := keys.NewManager(db)
	list, err := ks.List(ctx, snapshot.DemoOrganization, snapshot.DemoOwner)
	if err != nil {
		return nil, err
	}
	var active int
	var demo []keys.KeyInfo
	for _, k := range list {
		if k.State != keys.StateActive {
			continue
		}
		active++
		if k.Name == KeyName {
			demo = append(demo, k)
		}
	}
	slices.SortFunc(demo, func(a, b keys.KeyInfo) int { return a.CreatedAt.Compare(b.CreatedAt) })
	dk := &Key{}
	for active >= keys.MaxActiveKeys && len(demo) > 0 {
		if _, err := ks.Revoke(ctx, snapshot.DemoOrganization, snapshot.DemoOwner, demo[0].ID); err != nil {
			return nil, fmt.Errorf("revoke the oldest demo key: %w", err)
		}
		dk.Revoked = append(dk.Revoked, demo[0])
		demo = demo[1:]
		active--
	}
	dk.Earlier = demo
	dk.Created, err = ks.Create(ctx, keys.CreateRequest{
		OrganizationID: snapshot.DemoOrganization, UserID: snapshot.DemoOwner, Name: KeyName,
		Scopes:        apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead),
		ExpiresInDays: KeyDays,
	})
	if err != nil {
		return nil, fmt.Errorf("create demo key: %w", err)
	}
	return dk, nil
}

// KeepCurrent imports the demo snapshot again just after each UTC
// midnight until ctx is done, so that the data always reaches today (UTC).
// Rows are keyed by account, campaign and date: each import adds the new
// day and leaves the older ones.
func KeepCurrent(ctx context.Context, db *bun.DB, log *slog.Logger) {
	for {
		now := Now().UTC()
		next := now.Truncate(24 * time.Hour).Add(24*time.Hour + time.Second)
		select {
		case <-ctx.Done():
			return
		case <-After(next.Sub(now)):
		}
		now = Now()
		_, err := snapshot.Import(ctx, db, snapshot.Demo(now), now)
		telemetry.ImportRun(err)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("extending the demo data to the new day failed", "error", err.Error())
			}
			continue
		}
		log.Info("demo data extended", "today", now.UTC().Format(time.DateOnly))
	}
}

func SiteURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// SiblingCommand is how the demo tells the user to run name (svc,
// keys-admin): the binary built next to this svc-api (make demo builds
// bin/), as a path from the working directory, or plain name when there is
// none (installed on PATH).
func SiblingCommand(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	candidate := filepath.Join(filepath.Dir(exe), name)
	if info, err := os.Stat(candidate); err != nil || !info.Mode().IsRegular() {
		return name
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, candidate); err == nil && !strings.HasPrefix(rel, "..") {
			if !strings.Contains(rel, string(filepath.Separator)) {
				rel = "." + string(filepath.Separator) + rel
			}
			return rel
		}
	}
	return candidate
}

// AbsCommand makes a command given as a path absolute, as MCP hosts need:
// they start the server from a directory of their own.
func AbsCommand(cmd string) string {
	if !strings.Contains(cmd, string(filepath.Separator)) {
		return cmd
	}
	if abs, err := filepath.Abs(cmd); err == nil {
		return abs
	}
	return cmd
}

// Output is what the demo prints at start.
type Output struct {
	Site, Svc, SvcAbs, KeysAdmin, DatabaseURL string
	Key                                       *Key
}

func Print(w io.Writer, o Output) {
	k := o.Key.Created
	fmt.Fprintf(w, `Demo key (shown once; only its hash is stored; valid %d days, until %s):

  %s

`, KeyDays, k.ExpiresAt.UTC().Format(time.DateOnly), k.Key)
	if n := len(o.Key.Earlier); n > 0 {
		fmt.Fprintf(w, "Keys printed by earlier demo runs still work until they expire (%d active).\n", n)
	}
	for _, r := range o.Key.Revoked {
		fmt.Fprintf(w, "Revoked the oldest demo key (%s, created %s) to stay within the limit of %d active keys.\n",
			r.Hint, r.CreatedAt.UTC().Format(time.RFC3339), keys.MaxActiveKeys)
	}
	fmt.Fprintf(w, `Try it:

  curl -H "Authorization: Bearer %[2]s" %[1]s/api/v1/developer/accounts
  curl -H "Authorization: Bearer %[2]s" "%[1]s/api/v1/developer/insights?limit=5"

  export SVC_SITE_URL=%[1]s SVC_API_KEY=%[2]s
  %[3]s accounts
  %[3]s campaigns
  %[3]s insights --summary

MCP host entry (svc mcp on stdio): {"command": "%[8]s", "args": ["mcp"], "env": {"SVC_SITE_URL": "%[1]s", "SVC_API_KEY": "%[2]s"}}

Demo organization %[5]s, owner user %[6]s; manage its keys with keys-admin:

  %[4]s list --database-url %[7]s --org %[5]s --user %[6]s

OpenAPI document: %[1]s/api/v1/developer/openapi.json
Serving on %[1]s — press Ctrl-C to stop.
`, o.Site, k.Key, o.Svc, o.KeysAdmin, snapshot.DemoOrganization, snapshot.DemoOwner, o.DatabaseURL, o.SvcAbs)
}
