package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/spf13/cobra"
)

// demoKeyName names the keys svc-api demo creates; each run revokes the
// previous ones, so the 10-active-key limit is never reached.
const demoKeyName = "svc-api demo"

func newDemo() *cobra.Command {
	var c config
	var envErr envErrors
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the API on built-in demo data with nothing else installed",
		Long: `demo migrates an embedded SQLite database under the data directory (./.data, or
SVC_DATA_DIR), imports the built-in demo snapshot, creates a demo key, prints it once with
commands to try, and serves on 127.0.0.1:8080 until Ctrl-C. No PostgreSQL or Redis needed;
rate limits are kept in process. Running it again refreshes the data and replaces the key.

It also serves the "Developer keys" settings page at /settings/developer-keys/, behind a
demo-only sign-in at /settings/sign-in where you pick a demo user (svc-api serve has neither).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(envErr) > 0 {
				return usageError{errors.New(strings.Join(envErr, "; "))}
			}
			ctx := cmd.Context()
			log, err := newLogger(cmd.ErrOrStderr(), c.LogLevel)
			if err != nil {
				return err
			}
			db, url, err := c.openDB(ctx, "demo.db")
			if err != nil {
				return err
			}
			defer db.Close()
			if _, err := store.Migrate(ctx, db); err != nil {
				return err
			}
			sum, err := snapshot.Import(ctx, db, snapshot.Demo(time.Now()), time.Now())
			if err != nil {
				return fmt.Errorf("import demo snapshot: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "demo data: %s in %s\n", sum, url)

			ks := keys.New(db)
			list, err := ks.List(ctx, snapshot.DemoOrganization, snapshot.DemoOwner)
			if err != nil {
				ks.Close()
				return err
			}
			for _, k := range list {
				if k.Name == demoKeyName && k.State == keys.StateActive {
					if _, err := ks.Revoke(ctx, snapshot.DemoOrganization, snapshot.DemoOwner, k.ID); err != nil {
						ks.Close()
						return fmt.Errorf("revoke previous demo key: %w", err)
					}
				}
			}
			created, err := ks.Create(ctx, keys.CreateRequest{
				OrganizationID: snapshot.DemoOrganization, UserID: snapshot.DemoOwner, Name: demoKeyName,
				Scopes:        apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeCampaignsRead, apikey.ScopeInsightsRead),
				ExpiresInDays: 7,
			})
			ks.Close()
			if err != nil {
				return fmt.Errorf("create demo key: %w", err)
			}
			c.DatabaseURL = url
			c.RedisURL = "" // the demo is one process: in-process limits
			settingsKeys := keys.New(db)
			defer settingsKeys.Close()
			c.mount = func(api http.Handler) (http.Handler, error) {
				if host, _, _ := net.SplitHostPort(c.Listen); host == "" || !net.ParseIP(host).IsLoopback() && host != "localhost" {
					log.Warn("the demo sign-in at " + demoSignInPath + " lets anyone who reaches " + c.Listen + " act as any demo user")
				}
				return demoSettings(settingsKeys, api, log, time.Now())
			}
			if c.DownloadsDir == "" {
				if c.DownloadsDir = demoDownloadsDir(); c.DownloadsDir != "" {
					site := siteURL(c.Listen)
					fmt.Fprintf(cmd.ErrOrStderr(), "downloads: %s at %s/developers/; install svc from it with\n"+
						"  curl -fsSL %[2]s/developers/install-svc.sh | sh -s -- --dir \"$HOME/.local/bin\"\n",
						c.DownloadsDir, site)
				}
			}
			return serve(ctx, &c, db, log, func(addr string) {
				printDemo(cmd.OutOrStdout(), siteURL(addr), created.Key, svcCommand())
				fmt.Fprintf(cmd.OutOrStdout(), "Developer keys page (demo sign-in): %s%s\n", siteURL(addr), demoSignInPath)
			})
		},
	}
	addDatabaseFlags(cmd.Flags(), &c, "demo.db")
	addServeFlags(cmd.Flags(), &c, &envErr)
	cmd.Flags().StringVar(&c.LogLevel, "log-level", env("SVC_LOG_LEVEL", "warn"), "debug, info, warn or error (env SVC_LOG_LEVEL)")
	// The demo never shares limits: it is one process on loopback.
	_ = cmd.Flags().MarkHidden("redis-url")
	return cmd
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

// svcCommand is how the demo tells the user to run svc: the svc built next
// to this svc-api (make demo builds bin/svc), as a path from the working
// directory, or plain "svc" when there is none (installed on PATH).
func svcCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "svc"
	}
	candidate := filepath.Join(filepath.Dir(exe), "svc")
	if info, err := os.Stat(candidate); err != nil || !info.Mode().IsRegular() {
		return "svc"
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

func printDemo(w io.Writer, site, key, svc string) {
	fmt.Fprintf(w, `Demo key (shown once; only its hash is stored; valid 7 days):

  %[2]s

Try it:

  curl -H "Authorization: Bearer %[2]s" %[1]s/api/v1/developer/accounts
  curl -H "Authorization: Bearer %[2]s" "%[1]s/api/v1/developer/insights?limit=5"

  SVC_SITE_URL=%[1]s SVC_API_KEY=%[2]s %[3]s accounts
  SVC_SITE_URL=%[1]s SVC_API_KEY=%[2]s %[3]s campaigns
  SVC_SITE_URL=%[1]s SVC_API_KEY=%[2]s %[3]s insights --summary

OpenAPI document: %[1]s/api/v1/developer/openapi.json
Serving on %[1]s — press Ctrl-C to stop.
`, site, key, svc)
}
