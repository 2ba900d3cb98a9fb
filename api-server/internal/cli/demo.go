package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/cobra"
	"github.com/uptrace/bun"
)

// demoKeyName names the keys svc-api demo creates. Earlier demo keys stay
// valid until they expire: only their hash is stored, so a later run could
// not print them again. Only when the organization is at the limit of
// active keys is the oldest demo key revoked, and the output says so.
const demoKeyName = "svc-api demo"

// demoKeyDays is the lifetime of a demo key: longer than svc's key-expiry
// warning (7 days), so that a fresh demo key does not warn on every command.
const demoKeyDays = 30

// The demo's clock and timer; tests move them across midnight.
var (
	demoNow   = time.Now
	demoAfter = time.After
)

func newDemo() *cobra.Command {
	var c config
	var envErr envErrors
	var unsafePublic bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the API on built-in demo data with nothing else installed",
		Long: `demo migrates its own embedded SQLite database (demo.db under the data directory,
./.data or SVC_DATA_DIR), imports the built-in demo snapshot, creates a demo key, prints
it once with commands to try, and serves on 127.0.0.1:8080 until Ctrl-C. No PostgreSQL
or Redis needed; rate limits are kept in process. SVC_DATABASE_URL and SVC_REDIS_URL are
ignored: pass --database-url to run the demo on another database.

Running it again refreshes the data and prints a new key; keys printed by earlier runs
stay valid until they expire (30 days), unless the organization reaches its limit of 10
active keys, when the oldest demo key is revoked (the output says so). While it runs,
the data is extended at each UTC midnight, so that "today" always has rows.

If the port is busy (another demo still running?), pick another one with
--listen 127.0.0.1:8081 or SVC_LISTEN_ADDR=127.0.0.1:8081.

It also serves the "Developer keys" settings page at /settings/developer-keys/, behind a
demo-only sign-in at /settings/sign-in where you pick a demo user, with no password
(svc-api serve has neither). A sign-in lasts 2 hours or until "Sign out"; over TLS
(--tls-cert/--tls-key) its cookie is Secure and the pages send HSTS.

Because anyone who reaches that sign-in can act as any demo user, the demo listens on
loopback addresses only: a --listen address that is not loopback (0.0.0.0, :8080, a
public address) is refused with exit 2, unless --unsafe-public-demo is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(envErr) > 0 {
				return usageError{errors.New(strings.Join(envErr, "; "))}
			}
			if !cmd.Flags().Changed("site-url") {
				c.SiteURL = "" // SVC_SITE_URL names the site svc uses, not this demo: runDemo takes its own address
			}
			return runDemo(cmd.Context(), &c, unsafePublic, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&unsafePublic, "unsafe-public-demo", false,
		"listen on a non-loopback address anyway: anyone who reaches it can sign in as any demo user, with no password")
	addDatabaseFlags(cmd.Flags(), &c, "demo.db")
	cmd.Flags().Lookup("database-url").Usage = "postgres://USER@HOST:PORT/DB?sslmode=… or sqlite:PATH (default sqlite:DATA_DIR/demo.db; SVC_DATABASE_URL is ignored)"
	addServeFlags(cmd.Flags(), &c, &envErr)
	cmd.Flags().Lookup("site-url").Usage = "public URL of the demo, named by its /developers/ page and install script (default: the address it listens on; SVC_SITE_URL is ignored)"
	cmd.Flags().StringVar(&c.LogLevel, "log-level", env("SVC_LOG_LEVEL", "warn"), "debug, info, warn or error (env SVC_LOG_LEVEL)")
	// The demo never shares limits: it is one process on loopback.
	_ = cmd.Flags().MarkHidden("redis-url")
	return cmd
}

func runDemo(ctx context.Context, c *config, unsafePublic bool, stdout, stderr io.Writer) error {
	log, err := newLogger(stderr, c.LogLevel)
	if err != nil {
		return err
	}
	// Take the port first: when it is busy, or not loopback, nothing is
	// changed (no data re-imported, no key created).
	ln, err := demoListen(c.Listen, unsafePublic, log)
	if err != nil {
		return err
	}
	defer ln.Close() // serve closes it too; a second Close is harmless
	tls := c.TLSCert != ""

	url := c.DatabaseURL
	if url == "" {
		// The demo's own database, whatever SVC_DATABASE_URL says: the demo
		// must never write demo organizations into a real database.
		if os.Getenv("SVC_DATABASE_URL") != "" {
			fmt.Fprintln(stderr, "note: SVC_DATABASE_URL is ignored; the demo uses its own database (pass --database-url to choose one)")
		}
		if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
		url = "sqlite:" + filepath.Join(c.DataDir, "demo.db")
	}
	handle, err := database.Connect(ctx, url, database.Options{MaxOpenConns: c.DBMaxConns})
	if err != nil {
		return err
	}
	defer handle.Close()
	db := handle.Bun
	if _, err := store.Migrate(ctx, db); err != nil {
		return err
	}
	now := demoNow()
	sum, err := snapshot.Import(ctx, db, snapshot.Demo(now), now)
	telemetry.ImportRun(err)
	if err != nil {
		return fmt.Errorf("import demo snapshot: %w", err)
	}
	fmt.Fprintf(stderr, "demo data: %s in %s\n", sum, database.Redact(url))

	dk, err := newDemoKey(ctx, db)
	if err != nil {
		return err
	}
	c.DatabaseURL = url
	c.RedisURL = "" // the demo is one process: in-process limits
	c.listener = ln
	if c.SiteURL == "" {
		// Its own address, never a request's Host (issue 30).
		c.SiteURL = siteURL(ln.Addr().String())
	}
	settingsKeys := keys.NewManager(db)
	c.mount = func(api http.Handler) (http.Handler, error) {
		return demoSettings(settingsKeys, api, log, time.Now(), tls)
	}
	if c.DownloadsDir == "" {
		if c.DownloadsDir = demoDownloadsDir(); c.DownloadsDir != "" {
			site := c.SiteURL
			fmt.Fprintf(stderr, "downloads: %s at %s/developers/; install svc from it with\n"+
				"  curl -fsSL %[2]s/developers/install-svc.sh | sh -s -- --dir \"$HOME/.local/bin\"\n",
				c.DownloadsDir, site)
		}
	}

	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { keepDemoCurrent(rctx, db, log) })
	defer func() { stop(); wg.Wait() }()
	return serve(ctx, c, handle, log, func(addr string) {
		site := siteURL(addr)
		if tls {
			site = "https://" + strings.TrimPrefix(site, "http://")
		}
		printDemo(stdout, demoOutput{site: site, key: dk, svc: siblingCommand("svc"), svcAbs: absCommand(siblingCommand("svc")),
			keysAdmin: siblingCommand("keys-admin"), databaseURL: database.Redact(url)})
		fmt.Fprintf(stdout, "Developer keys page (demo sign-in): %s%s\n", site, demoSignInPath)
	})
}

// demoListen listens on addr, which must be a loopback address unless
// unsafePublic is set (then it warns).
func demoListen(addr string, unsafePublic bool, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, busyPortError(addr, err)
	}
	if !isLoopback(ln.Addr()) {
		if !unsafePublic {
			ln.Close()
			return nil, publicDemoError(addr, ln.Addr())
		}
		log.Warn("--unsafe-public-demo: the demo sign-in at " + demoSignInPath + " lets anyone who reaches " +
			ln.Addr().String() + " act as any demo user, with no password")
	}
	return ln, nil
}

// publicDemoError refuses a listen address that is not loopback, and says
// what to set instead.
func publicDemoError(listen string, bound net.Addr) error {
	_, port, err := net.SplitHostPort(listen)
	if err != nil || port == "" {
		port = "8080"
	}
	return usageError{fmt.Errorf("--listen %s is not a loopback address (it would listen on %s): the demo's sign-in lets anyone "+
		"who reaches it act as any demo user and manage their keys, with no password; nothing was changed. "+
		"Listen on loopback: svc-api demo --listen 127.0.0.1:%s (make demo: SVC_LISTEN_ADDR=127.0.0.1:%[3]s make demo), "+
		"or pass --unsafe-public-demo to serve the demo to the network anyway", listen, bound, port)}
}

// busyPortError says that the address is taken and how to pick another.
func busyPortError(addr string, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	host, _, splitErr := net.SplitHostPort(addr)
	if splitErr != nil || host == "" {
		host = "127.0.0.1"
	}
	other := net.JoinHostPort(host, "8081")
	return usageError{fmt.Errorf("%s is busy: another program (an svc-api demo still running?) listens there; "+
		"nothing was changed. Stop it, or pick another port: svc-api demo --listen %s (make demo: SVC_LISTEN_ADDR=%s make demo)",
		addr, other, other)}
}

// demoKey is what a demo run did with its keys.
type demoKey struct {
	created *keys.CreatedKey
	earlier []keys.KeyInfo // earlier demo keys, still valid
	revoked []keys.KeyInfo // revoked to stay within keys.MaxActiveKeys
}

// newDemoKey creates this run's demo key. Earlier demo keys stay valid;
// when the organization already has keys.MaxActiveKeys active keys, the
// oldest demo keys are revoked to make room.
func newDemoKey(ctx context.Context, db *bun.DB) (*demoKey, error) {
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
		if k.Name == demoKeyName {
			demo = append(demo, k)
		}
	}
	slices.SortFunc(demo, func(a, b keys.KeyInfo) int { return a.CreatedAt.Compare(b.CreatedAt) })
	dk := &demoKey{}
	for active >= keys.MaxActiveKeys && len(demo) > 0 {
		if _, err := ks.Revoke(ctx, snapshot.DemoOrganization, snapshot.DemoOwner, demo[0].ID); err != nil {
			return nil, fmt.Errorf("revoke the oldest demo key: %w", err)
		}
		dk.revoked = append(dk.revoked, demo[0])
		demo = demo[1:]
		active--
	}
	dk.earlier = demo
	dk.created, err = ks.Create(ctx, keys.CreateRequest{
		OrganizationID: snapshot.DemoOrganization, UserID: snapshot.DemoOwner, Name: demoKeyName,
		Scopes:        apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead),
		ExpiresInDays: demoKeyDays,
	})
	if err != nil {
		return nil, fmt.Errorf("create demo key: %w", err)
	}
	return dk, nil
}

// keepDemoCurrent imports the demo snapshot again just after each UTC
// midnight until ctx is done, so that the data always reaches today (UTC).
// Rows are keyed by account, campaign and date: each import adds the new
// day and leaves the older ones.
func keepDemoCurrent(ctx context.Context, db *bun.DB, log *slog.Logger) {
	for {
		now := demoNow().UTC()
		next := now.Truncate(24 * time.Hour).Add(24*time.Hour + time.Second)
		select {
		case <-ctx.Done():
			return
		case <-demoAfter(next.Sub(now)):
		}
		now = demoNow()
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

func siteURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// siblingCommand is how the demo tells the user to run name (svc,
// keys-admin): the binary built next to this svc-api (make demo builds
// bin/), as a path from the working directory, or plain name when there is
// none (installed on PATH).
func siblingCommand(name string) string {
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

// absCommand makes a command given as a path absolute, as MCP hosts need:
// they start the server from a directory of their own.
func absCommand(cmd string) string {
	if !strings.Contains(cmd, string(filepath.Separator)) {
		return cmd
	}
	if abs, err := filepath.Abs(cmd); err == nil {
		return abs
	}
	return cmd
}

// demoOutput is what the demo prints at start.
type demoOutput struct {
	site, svc, svcAbs, keysAdmin, databaseURL string
	key                                       *demoKey
}

func printDemo(w io.Writer, o demoOutput) {
	k := o.key.created
	fmt.Fprintf(w, `Demo key (shown once; only its hash is stored; valid %d days, until %s):

  %s

`, demoKeyDays, k.ExpiresAt.UTC().Format(time.DateOnly), k.Key)
	if n := len(o.key.earlier); n > 0 {
		fmt.Fprintf(w, "Keys printed by earlier demo runs still work until they expire (%d active).\n", n)
	}
	for _, r := range o.key.revoked {
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
`, o.site, k.Key, o.svc, o.keysAdmin, snapshot.DemoOrganization, snapshot.DemoOwner, o.databaseURL, o.svcAbs)
}
