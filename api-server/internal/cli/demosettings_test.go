package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/demo"
)

// startCommand runs svc-api args in the background until the test ends and
// returns its site URL, read from what it prints (re, one group).
func startCommand(t *testing.T, re *regexp.Regexp, args ...string) (string, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, strings.NewReader(""), &out, &errOut) }()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String() + errOut.String()); m != nil {
			return m[1], &out
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("%v exited %d:\n%s\n%s", args, code, out.String(), errOut.String())
		default:
		}
	}
	t.Fatalf("%v did not start:\n%s\n%s", args, out.String(), errOut.String())
	return "", nil
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeHasNoDemoSignIn: only the demo mounts the settings pages; serve
// answers 404 there.
func TestServeHasNoDemoSignIn(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	if code := Run(t.Context(), []string{"migrate", "--database-url", db}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Fatalf("migrate: %d", code)
	}
	t.Setenv("SVC_REDIS_URL", "")
	addr, _ := startCommand(t, regexp.MustCompile(`"msg":"serving","addr":"([0-9.:]+)"`),
		"serve", "--database-url", db, "--listen", "127.0.0.1:0")
	for _, p := range []string{demo.SignInPath, demo.KeysPath + "/", demo.KeysPath + "/assets/keys.js"} {
		if code, _ := get(t, http.DefaultClient, "http://"+addr+p); code != http.StatusNotFound {
			t.Errorf("serve: GET %s = %d, want 404", p, code)
		}
		resp, err := http.PostForm("http://"+addr+p, url.Values{"user": {"org_demo_acme u_demo_acme_owner"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("serve: POST %s = %d", p, resp.StatusCode)
		}
	}
}

// TestDemoSignIn: the demo prints the sign-in link; each demo user signs in
// and sees the page as their role allows; a forged cookie or a cross-site
// sign-in is refused.
func TestDemoSignIn(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "")
	link, out := startCommand(t, regexp.MustCompile(`Developer keys page \(demo sign-in\): (http://[0-9.:]+/settings/sign-in)\n`),
		"demo", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0")
	site := strings.TrimSuffix(link, demo.SignInPath)
	if !strings.Contains(out.String(), "Serving on "+site) {
		t.Errorf("link %s is not the site served:\n%s", link, out.String())
	}
	code, body := get(t, http.DefaultClient, link)
	for _, u := range []string{"u_demo_acme_owner: owner of Acme Demo (active)", "u_demo_acme_admin: admin of Acme Demo (active)",
		"u_demo_acme_analyst: member of Acme Demo (active)", "u_demo_globex_owner: owner of Globex Demo (trial)"} {
		if code != 200 || !strings.Contains(body, u) {
			t.Errorf("sign-in page lacks %q: %d\n%s", u, code, body)
		}
	}
	for _, tc := range []struct{ user, sees string }{
		{"org_demo_acme u_demo_acme_owner", "Create key"},
		{"org_demo_acme u_demo_acme_admin", "Create key"},
		{"org_demo_acme u_demo_acme_analyst", "Only owners and administrators"},
		{"org_demo_globex u_demo_globex_owner", "0 of 10 active keys"},
	} {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		resp, err := c.PostForm(link, url.Values{"user": {tc.user}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Request.URL.Path != demo.KeysPath+"/" || !strings.Contains(string(b), tc.sees) ||
			!strings.Contains(string(b), "signed in as "+strings.Fields(tc.user)[1]) {
			t.Errorf("%s: landed on %s:\n%s", tc.user, resp.Request.URL, b)
		}
	}
	// Without a session, or with a forged one, the page asks to sign in.
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(site + "/settings/")
	jar.SetCookies(u, []*http.Cookie{{Name: demo.Cookie, Value: "b3JnX2RlbW9fYWNtZSB1X2RlbW9fYWNtZV9vd25lcg.forged"}})
	for _, c := range []*http.Client{http.DefaultClient, {Jar: jar}} {
		if code, body := get(t, c, site+demo.KeysPath+"/"); code != http.StatusUnauthorized || !strings.Contains(body, `href="`+demo.SignInPath+`"`) {
			t.Errorf("no valid session: %d\n%s", code, body)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, link, strings.NewReader("user=org_demo_acme+u_demo_acme_owner"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("cross-site sign-in: %d %v", resp.StatusCode, resp.Cookies())
	}
	resp, err = http.PostForm(link, url.Values{"user": {"org_demo_acme u_nobody"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || len(resp.Cookies()) != 0 {
		t.Errorf("unknown user: %d", resp.StatusCode)
	}
}
