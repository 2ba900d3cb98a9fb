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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/adsnap/svc/api-server/internal/demo"
	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/cobra"
)

func newDemo() *cobra.Command {
	var c config
	var envErr envErrors
	var unsafePublic bool
	var scale string
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
			c.demoScale = scale
			return runDemo(cmd.Context(), &c, unsafePublic, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&scale, "scale", demo.ScaleSmall,
		"small (3 accounts, 6 campaigns) or large (24 accounts in 4 currencies, 500+ campaigns, most paused or archived long ago, 90 days, the last week restated by a second import)")
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

	url, handle, err := openDemoDatabase(ctx, c, stderr)
	if err != nil {
		return err
	}
	defer handle.Close()
	db := handle.Bun
	sum, err := demo.LoadScale(ctx, db, c.demoScale)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo data: %s in %s\n", sum, database.Redact(url))

	dk, err := demo.NewKey(ctx, db)
	if err != nil {
		return err
	}
	c.DatabaseURL = url
	c.RedisURL = "" // the demo is one process: in-process limits
	c.listener = ln
	if c.SiteURL == "" {
		// Its own address, never a request's Host (issue 30).
		c.SiteURL = demo.SiteURL(ln.Addr().String())
	}
	settingsKeys := keys.NewManager(db)
	c.mount = func(api http.Handler) (http.Handler, error) {
		return demo.Settings(settingsKeys, api, log, time.Now(), tls)
	}
	if c.DownloadsDir == "" {
		if c.DownloadsDir = demo.DownloadsDir(); c.DownloadsDir != "" {
			site := c.SiteURL
			fmt.Fprintf(stderr, "downloads: %s at %s/developers/; install svc from it with\n"+
				"  curl -fsSL %[2]s/developers/install-svc.sh | sh -s -- --dir \"$HOME/.local/bin\"\n",
				c.DownloadsDir, site)
		}
	}

	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { demo.KeepCurrent(rctx, db, log) })
	defer func() { stop(); wg.Wait() }()
	return serve(ctx, c, handle, log, func(addr string) {
		site := demo.SiteURL(addr)
		if tls {
			site = "https://" + strings.TrimPrefix(site, "http://")
		}
		demo.Print(stdout, demo.Output{Site: site, Key: dk, Svc: demo.SiblingCommand("svc"), SvcAbs: demo.AbsCommand(demo.SiblingCommand("svc")),
			KeysAdmin: demo.SiblingCommand("keys-admin"), DatabaseURL: database.Redact(url)})
		fmt.Fprintf(stdout, "Developer keys page (demo sign-in): %s%s\n", site, demo.SignInPath)
	})
}

// openDemoDatabase connects to --database-url, or by default to the demo's
// own SQLite database under the data directory, whatever SVC_DATABASE_URL
// says: the demo must never write demo organizations into a real database.
func openDemoDatabase(ctx context.Context, c *config, stderr io.Writer) (string, *database.DB, error) {
	url := c.DatabaseURL
	if url == "" {
		if os.Getenv("SVC_DATABASE_URL") != "" {
			fmt.Fprintln(stderr, "note: SVC_DATABASE_URL is ignored; the demo uses its own database (pass --database-url to choose one)")
		}
		if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
			return "", nil, fmt.Errorf("data directory: %w", err)
		}
		url = "sqlite:" + filepath.Join(c.DataDir, "demo.db")
	}
	handle, err := database.Connect(ctx, url, database.Options{MaxOpenConns: c.DBMaxConns})
	if err != nil {
		return "", nil, err
	}
	return url, handle, nil
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
		log.Warn("--unsafe-public-demo: the demo sign-in at " + demo.SignInPath + " lets anyone who reaches " +
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
