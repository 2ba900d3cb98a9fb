package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// The regression tests of the security review of 95c3747 (issue 30)
// against the built svc-api: findings 1 (the downloads' site taken from the
// request) and 2 (replica URLs on the public /readyz and in the log).

// evilHost is the host a hostile request names.
const evilHost = "127.poisoned-host-e2e.example"

// hostVariant is one way a request names a host other than the server's.
type hostVariant struct {
	name     string
	absolute bool   // absolute-form request target: http://evilHost/path
	host     string // the Host header ("" is the server's address)
	header   string // more header lines
}

var hostVariants = []hostVariant{
	{name: "plain"},
	{name: "Host header", host: evilHost},
	{name: "absolute-form target", absolute: true},
	{name: "X-Forwarded-Host", header: "X-Forwarded-Host: " + evilHost + "\r\nX-Forwarded-Proto: https\r\nX-Forwarded-For: 203.0.113.9\r\n"},
	{name: "Forwarded", header: "Forwarded: for=203.0.113.9;host=" + evilHost + ";proto=https\r\n"},
}

// rawGet sends GET path to addr as v says, on a connection of its own, and
// returns the status and body. Written by hand (not net/http's client),
// which sends neither an absolute-form target nor a Host other than the
// URL's.
func rawGet(t *testing.T, addr, path string, v hostVariant) (int, string) {
	t.Helper()
	target, host := path, addr
	if v.absolute {
		target = "http://" + evilHost + path
	}
	if v.host != "" {
		host = v.host
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n", target, host, v.header); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", v.name, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// downloadsDir writes a downloads directory: the repository's install
// script, an archive and the release's SHA256SUMS.
func downloadsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "scripts", "install-svc.sh"))
	if err != nil {
		t.Fatal(err)
	}
	archive := []byte("not really an archive")
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	sums := sum(script) + "  install-svc.sh\n" + sum(archive) + "  svc-cli-1.0.0-linux-amd64.tgz\n"
	for name, data := range map[string][]byte{"install-svc.sh": script, "svc-cli-1.0.0-linux-amd64.tgz": archive, "SHA256SUMS": []byte(sums)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkSameDownloads fetches the install script, SHA256SUMS and the index
// from the server at addr in every hostVariant: each must be the same bytes
// as the plain request's, name site and never evilHost.
func checkSameDownloads(t *testing.T, who, addr, site string) {
	t.Helper()
	for _, path := range []string{"/developers/install-svc.sh", "/developers/SHA256SUMS", "/developers/"} {
		var plain string
		for _, v := range hostVariants {
			code, body := rawGet(t, addr, path, v)
			if code != http.StatusOK {
				t.Errorf("%s, %s %s: %d %.200s", who, v.name, path, code, body)
				continue
			}
			if v.name == "plain" {
				plain = body
			} else if body != plain {
				t.Errorf("%s, %s %s: not the bytes of a plain request", who, v.name, path)
			}
			for line := range strings.Lines(body) {
				if strings.Contains(line, "poisoned-host-e2e") {
					t.Errorf("%s, %s %s: the answer names the request's host: %.300s", who, v.name, path, strings.TrimSpace(line))
					break
				}
			}
		}
		switch path {
		case "/developers/install-svc.sh":
			if !strings.Contains(plain, "\ndefault_site="+site+"\n") {
				t.Errorf("%s: install-svc.sh does not default to %s", who, site)
			}
		case "/developers/":
			if !strings.Contains(plain, "curl -fsSL "+site+"/developers/install-svc.sh") {
				t.Errorf("%s: the index does not name %s", who, site)
			}
		}
	}
}

// TestSiteNotFromRequest (finding 1): the downloads never build a URL from
// the request. `serve --downloads-dir` without --site-url refuses to start
// (exit 2, saying what to set); with it, and in `demo` (its own address,
// SVC_SITE_URL ignored), install-svc.sh, SHA256SUMS and the index are the
// same bytes whatever the Host header, an absolute-form target or
// X-Forwarded-* / Forwarded say.
func TestSiteNotFromRequest(t *testing.T) {
	e := setup(t)
	dir := downloadsDir(t)
	base := []string{"SVC_DATABASE_URL=" + e.dbURL, "SVC_REDIS_URL=", "SVC_DOWNLOADS_DIR=" + dir}

	t.Run("ServeWithoutSite", func(t *testing.T) {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		s, err := harness.StartServer(e.bin.API, port, append(base, "SVC_LISTEN_ADDR="+addr, "SVC_SITE_URL="), "serve")
		if err == nil {
			// The old behaviour: it serves, with the site of the request.
			_, script := rawGet(t, addr, "/developers/install-svc.sh", hostVariants[1])
			line, _, _ := strings.Cut(script[strings.Index(script, "default_site="):], "\n")
			s.Stop() //nolint:errcheck
			t.Fatalf("serve --downloads-dir without --site-url started, and a request with Host: %s got %s", evilHost, line)
		}
		msg := err.Error()
		if !strings.Contains(msg, "exit status 2") || !strings.Contains(msg, "--downloads-dir needs --site-url (or SVC_SITE_URL)") {
			t.Errorf("serve --downloads-dir without --site-url: %v, want exit 2 saying to set --site-url", err)
		}
		// A site that cannot go into the script: refused too, not echoed.
		_, errOut, code, err := harness.Run(t.Context(), e.bin.API, append(base, "SVC_LISTEN_ADDR="+addr), "",
			"serve", "--site-url", "https://user:hunter2@dl.example.test")
		if err != nil || code != 2 || !strings.Contains(errOut, "--site-url: want http(s)://host") || strings.Contains(errOut, "hunter2") {
			t.Errorf("serve --site-url with a password: exit %d %v\n%s", code, err, errOut)
		}
	})

	t.Run("Serve", func(t *testing.T) {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		const site = "https://dl.example.test"
		s, err := harness.StartServer(e.bin.API, port, append(base, "SVC_LISTEN_ADDR="+addr, "SVC_SITE_URL="+site), "serve")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop() //nolint:errcheck
		checkSameDownloads(t, "serve", addr, site)
	})

	// demo names its own address: without SVC_SITE_URL (where the old
	// code took the request's host), and with it (ignored: it names the
	// site svc talks to, not the demo's).
	for _, siteEnv := range []string{"", "https://prod.example.test"} {
		t.Run("Demo"+map[bool]string{true: "", false: "IgnoresSVC_SITE_URL"}[siteEnv == ""], func(t *testing.T) {
			port, err := harness.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			s, err := harness.StartServer(e.bin.API, port, []string{"SVC_DOWNLOADS_DIR=" + dir, "SVC_LISTEN_ADDR=" + addr,
				"SVC_SITE_URL=" + siteEnv, "SVC_DATA_DIR=" + t.TempDir()}, "demo")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop() //nolint:errcheck
			checkSameDownloads(t, "demo", addr, "http://"+addr)
		})
	}
}

// TestReadyzRedacted (finding 2): with read replica URLs that carry a
// password and an sslpassword, the public /readyz says ready or not per
// dependency and nothing of the URLs; the log and the metrics listener's
// /readyz name each replica by scheme, user, host, port and database only.
func TestReadyzRedacted(t *testing.T) {
	e := setup(t)
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	mport, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// A replica that does not answer, and the primary named as a replica
	// (not in recovery): both skipped, reads on the primary.
	down := "postgres://replicauser:replicapass@127.0.0.1:1/replicadb?sslmode=disable&sslpassword=sslsecret123"
	u, err := url.Parse(e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "replicapass")
	q := u.Query()
	q.Set("sslpassword", "sslsecret123")
	u.RawQuery = q.Encode()
	env := []string{"SVC_DATABASE_URL=" + e.dbURL, "SVC_REDIS_URL=", "SVC_METRICS_ADDR=",
		"SVC_DATABASE_REPLICA_URLS=" + down + "," + u.String(), "SVC_LOG_LEVEL=debug", fmt.Sprintf("SVC_LISTEN_ADDR=127.0.0.1:%d", port)}
	secrets := []string{"replicapass", "sslsecret123", "sslpassword"}
	want := `{"checks":{"database":"ok","databaseReplicas":["unavailable","unavailable"],"rateLimitStore":"ok"},"status":"ready"}`
	for _, metrics := range []bool{false, true} {
		if metrics {
			env = append(env, fmt.Sprintf("SVC_METRICS_ADDR=127.0.0.1:%d", mport))
		}
		s, err := harness.StartServer(e.bin.API, port, env, "serve")
		if err != nil {
			t.Fatal(err)
		}
		resp, body, err := harness.Get(t.Context(), http.DefaultClient, s.URL+"/readyz", "")
		if err != nil {
			s.Stop() //nolint:errcheck
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(body)); resp.StatusCode != 200 || got != want {
			t.Errorf("public /readyz (metrics %v): %d %s\nwant 200 %s", metrics, resp.StatusCode, got, want)
		}
		outputs := map[string]string{"public /readyz": string(body)}
		if metrics {
			resp, detail, err := harness.Get(t.Context(), http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", mport), "")
			switch {
			case err != nil || resp.StatusCode != 200:
				t.Errorf("metrics listener /readyz: %v %v", resp, err)
			case !strings.Contains(string(detail), `"name":"postgres://replicauser@127.0.0.1:1/replicadb"`) || !strings.Contains(string(detail), `"reason":"unreachable"`):
				t.Errorf("metrics listener /readyz lacks the replica's redacted name or its reason: %s", detail)
			}
			outputs["metrics /readyz"] = string(detail)
		}
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		outputs["log"] = s.Logs.String()
		if !strings.Contains(outputs["log"], "replicauser@127.0.0.1:1/replicadb") {
			t.Errorf("the log does not name the replica that does not answer:\n%s", outputs["log"])
		}
		for _, secret := range secrets {
			for where, text := range outputs {
				if strings.Contains(text, secret) {
					t.Errorf("%s (metrics %v) shows %q:\n%.2000s", where, metrics, secret, text)
				}
			}
		}
	}
}
