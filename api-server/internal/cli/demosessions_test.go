package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/demo"
)

const demoOwner = "org_demo_acme u_demo_acme_owner"

// noRedirects is a client that shows each answer as it is, cookies included.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signInAs posts the demo sign-in form as user, carrying the cookies given,
// and returns the session cookie it sets.
func signInAs(t *testing.T, c *http.Client, site, user string, with ...*http.Cookie) *http.Cookie {
	t.Helper()
	resp := send(t, c, http.MethodPost, site+demo.SignInPath, url.Values{"user": {user}}.Encode(), nil, with...)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != demo.KeysPath+"/" {
		t.Fatalf("sign in as %s: %d %v", user, resp.StatusCode, resp.Header)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == demo.Cookie {
			return ck
		}
	}
	t.Fatalf("sign in as %s: no %s cookie in %v", user, demo.Cookie, resp.Header)
	return nil
}

// send makes one request with a form body (if any), headers and cookies.
func send(t *testing.T, c *http.Client, method, u, form string, hdr map[string]string, cookies ...*http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	for _, ck := range cookies {
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// page is the status of the Developer keys page with cookie: 200 signed
// in, 401 not.
func page(t *testing.T, c *http.Client, site string, cookie *http.Cookie) int {
	t.Helper()
	return send(t, c, http.MethodGet, site+demo.KeysPath+"/", "", nil, cookie).StatusCode
}

// TestDemoSessions: each sign-in gets a new random session value, which
// ends at sign-out, at a later sign-in from the same browser, and after
// demo.SessionTTL (issue 30, finding 8: the value was the same on every
// sign-in of a user, valid until restart, with no sign-out).
func TestDemoSessions(t *testing.T) {
	var mu sync.Mutex
	clock := time.Now()
	demo.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	t.Cleanup(func() { demo.Now = time.Now })
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }

	t.Setenv("SVC_REDIS_URL", "")
	d := startDemo(t, "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0")
	a := signInAs(t, noRedirects, d.site, demoOwner)
	b := signInAs(t, noRedirects, d.site, demoOwner)
	if a.Value == b.Value {
		t.Errorf("two sign-ins of one user got the same session value %q", a.Value)
	}
	for _, ck := range []*http.Cookie{a, b} {
		if len(ck.Value) < 26 || strings.Contains(ck.Value, base64.RawURLEncoding.EncodeToString([]byte(demoOwner))) {
			t.Errorf("session value %q: short, or it names the user", ck.Value)
		}
		if !ck.HttpOnly || ck.Secure || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/settings/" || ck.MaxAge != int(demo.SessionTTL/time.Second) {
			t.Errorf("cookie over plain HTTP: %+v", ck)
		}
		if got := page(t, noRedirects, d.site, ck); got != http.StatusOK {
			t.Errorf("the page with a fresh session: %d", got)
		}
	}

	// Sign-out ends that session (replaying its value gets 401), and only it.
	resp := send(t, noRedirects, http.MethodPost, d.site+demo.SignOutPath, "", nil, b)
	var cleared bool
	for _, ck := range resp.Cookies() {
		cleared = cleared || ck.Name == demo.Cookie && ck.Value == "" && ck.MaxAge < 0
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != demo.SignInPath || !cleared {
		t.Errorf("sign-out: %d %v", resp.StatusCode, resp.Header)
	}
	if got := page(t, noRedirects, d.site, b); got != http.StatusUnauthorized {
		t.Errorf("the page with a signed-out session: %d, want 401", got)
	}
	if got := page(t, noRedirects, d.site, a); got != http.StatusOK {
		t.Errorf("another session after a sign-out: %d", got)
	}
	// A sign-out from another site is refused and ends nothing.
	if resp := send(t, noRedirects, http.MethodPost, d.site+demo.SignOutPath, "", map[string]string{"Sec-Fetch-Site": "cross-site"}, a); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site sign-out: %d", resp.StatusCode)
	}
	// Switching user from a browser ends its earlier session.
	c := signInAs(t, noRedirects, d.site, "org_demo_acme u_demo_acme_admin", a)
	if page(t, noRedirects, d.site, a) != http.StatusUnauthorized || page(t, noRedirects, d.site, c) != http.StatusOK {
		t.Errorf("after switching user: the old session %d, the new %d", page(t, noRedirects, d.site, a), page(t, noRedirects, d.site, c))
	}

	// A session ends demo.SessionTTL after its sign-in, used or not.
	advance(demo.SessionTTL - time.Second)
	if got := page(t, noRedirects, d.site, c); got != http.StatusOK {
		t.Errorf("a second before its expiry: %d", got)
	}
	advance(time.Second)
	if got := page(t, noRedirects, d.site, c); got != http.StatusUnauthorized {
		t.Errorf("at its expiry: %d, want 401", got)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their files and a pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "svc-api demo test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestDemoOverTLS: served over TLS, the demo's session cookie is Secure and
// its settings pages send HSTS, as the API does; it prints https:// URLs.
func TestDemoOverTLS(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "")
	cert, key, pool := selfSigned(t)
	addr, out := startCommand(t, regexp.MustCompile(`Serving on https?://([0-9.:]+)`),
		"demo", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	site := "https://" + addr
	if !strings.Contains(out.String(), "Serving on "+site) || !strings.Contains(out.String(), "Developer keys page (demo sign-in): "+site+demo.SignInPath) {
		t.Errorf("the demo over TLS prints http:// URLs:\n%s", out.String())
	}
	c := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
		CheckRedirect: noRedirects.CheckRedirect,
	}
	hsts := func(what string, resp *http.Response) {
		t.Helper()
		if got := resp.Header.Get("Strict-Transport-Security"); got != demo.HSTS {
			t.Errorf("%s: %d, Strict-Transport-Security %q, want %q", what, resp.StatusCode, got, demo.HSTS)
		}
	}
	hsts("sign-in page", send(t, c, http.MethodGet, site+demo.SignInPath, "", nil))
	resp := send(t, c, http.MethodPost, site+demo.SignInPath, url.Values{"user": {demoOwner}}.Encode(), nil)
	hsts("sign-in", resp)
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == demo.Cookie {
			session = ck
		}
	}
	if session == nil || !session.Secure || !session.HttpOnly {
		t.Fatalf("session cookie over TLS: %+v", session)
	}
	keysPage := send(t, c, http.MethodGet, site+demo.KeysPath+"/", "", nil, session)
	if keysPage.StatusCode != http.StatusOK {
		t.Errorf("keys page over TLS: %d", keysPage.StatusCode)
	}
	hsts("keys page", keysPage)
	hsts("keys page asset", send(t, c, http.MethodGet, site+demo.KeysPath+"/assets/keys.css", "", nil))
	hsts("sign-out", send(t, c, http.MethodPost, site+demo.SignOutPath, "", nil, session))
	hsts("API", send(t, c, http.MethodGet, site+"/api/v1/developer/accounts", "", nil))
}

// servingWriter records what is written and closes serving once the demo
// says it serves.
type servingWriter struct {
	lockedBuffer
	once    sync.Once
	serving chan struct{}
}

func (w *servingWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), "Serving on ") {
		w.once.Do(func() { close(w.serving) })
	}
	return n, err
}

// TestDemoRefusesPublicAddress: on an address that is not loopback the demo
// exits 2 with what to set, and changes nothing; --unsafe-public-demo lets
// it serve there (issue 30, finding 8: it only warned).
func TestDemoRefusesPublicAddress(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "")
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		dir := t.TempDir()
		out := &servingWriter{serving: make(chan struct{})}
		var errOut lockedBuffer
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan int, 1)
		go func() { done <- Run(ctx, []string{"demo", "--data-dir", dir, "--listen", addr}, nil, out, &errOut) }()
		select {
		case code := <-done:
			msg := errOut.String()
			if code != exitUsage || !strings.Contains(msg, "--listen "+addr+" is not a loopback address") ||
				!strings.Contains(msg, "svc-api demo --listen 127.0.0.1:0 ") || !strings.Contains(msg, "--unsafe-public-demo") {
				t.Errorf("demo --listen %s: exit %d\n%s", addr, code, msg)
			}
		case <-out.serving:
			cancel()
			<-done
			t.Errorf("demo --listen %s serves, want exit 2:\n%s", addr, errOut.String())
		}
		cancel()
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Errorf("demo --listen %s changed the data directory: %v %v", addr, entries, err)
		}
	}

	for _, args := range [][]string{{"--listen", "0.0.0.0:0", "--unsafe-public-demo"}, {"--listen", "localhost:0"}} {
		site, _ := startCommand(t, regexp.MustCompile(`Serving on (http://[0-9.:]+)`), append([]string{"demo", "--data-dir", t.TempDir()}, args...)...)
		if code, _ := get(t, http.DefaultClient, site+demo.SignInPath); code != http.StatusOK {
			t.Errorf("demo %v: sign-in page %d", args, code)
		}
	}
}
