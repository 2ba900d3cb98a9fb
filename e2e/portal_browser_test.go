package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
	"github.com/chromedp/cdproto/audits"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// portalLog records, from the DevTools protocol, every request the browser
// makes (URL), the bytes each transferred, and every CSP violation Chromium
// reports (console/log entries and Audits issues).
type portalLog struct {
	mu         sync.Mutex
	requests   []string
	ids        map[network.RequestID]string
	transfer   map[string]float64 // URL → encoded bytes (headers and body)
	violations []string
}

func (l *portalLog) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			l.requests = append(l.requests, ev.Request.URL)
			l.ids[ev.RequestID] = ev.Request.URL
		case *network.EventLoadingFinished:
			l.transfer[l.ids[ev.RequestID]] += ev.EncodedDataLength
		case *log.EventEntryAdded:
			if strings.Contains(ev.Entry.Text, "Content Security Policy") {
				l.violations = append(l.violations, ev.Entry.Text)
			}
		case *runtime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				if strings.Contains(string(a.Value), "Content Security Policy") {
					l.violations = append(l.violations, string(a.Value))
				}
			}
		case *audits.EventIssueAdded:
			if ev.Issue.Code == audits.InspectorIssueCodeContentSecurityPolicyIssue {
				l.violations = append(l.violations, "audits: "+string(ev.Issue.Code))
			}
		}
	})
}

func (l *portalLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests, l.violations = nil, nil
	l.transfer = map[string]float64{}
}

// TestDeveloperPortalInBrowser (issue 44) drives `svc-api demo` in Chromium:
// /developers/api renders every operation of the served openapi.json with
// its scope and its examples, styled by its own style sheet; the browser
// makes no request to another origin and reports no CSP violation (a
// violation provoked on purpose at the end shows the check sees them); the
// transfer size is logged. Then the owner follows the keys page's link to
// the reference, and rolls a key on the page: the new key is shown once,
// names the old key with its expiry, both work, and the list marks the old
// one rolled.
func TestDeveloperPortalInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	api := filepath.Join(dir, "svc-api")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", api, "./cmd/svc-api")
	build.Dir = filepath.Join(harness.RepoRoot(), "api-server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build svc-api: %v\n%s", err, out)
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := harness.StartServer(api, port, []string{"SVC_REDIS_URL="},
		"demo", "--data-dir", filepath.Join(dir, "data"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop svc-api demo: %v", err)
		}
	}()
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1280, 900))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", browser, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	pl := &portalLog{ids: map[network.RequestID]string{}, transfer: map[string]float64{}}
	if err := pl.listen(bctx); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	for _, enable := range []cdp.Command[cdp.Empty, cdp.Empty]{log.Enable, audits.Enable, runtime.Enable} {
		if _, err := chromedp.Call(ctx, enable, cdp.Empty{}); err != nil {
			t.Fatalf("%s: %v", enable.Method, err)
		}
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nserver output:\n%s", what, err, srv.Logs)
		}
	}
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}

	// 1. The reference: every operation of the served document, with its scope.
	do("the reference", chromedp.Navigate(srv.URL+"/developers/api"), chromedp.WaitVisible(chromedp.CSS("section.ref-op")), chromedp.Sleep(300*time.Millisecond))
	resp, body, err := harness.Get(ctx, http.DefaultClient, srv.URL+"/api/v1/developer/openapi.json", "")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %v %v", resp, err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Scope       string `json:"x-scope"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, item := range doc.Paths {
		for _, op := range item {
			want = append(want, op.OperationID+" "+op.Scope+" 3")
		}
	}
	sort.Strings(want)
	shown := eval("operations", `[...document.querySelectorAll("section.ref-op")].filter(s => s.getBoundingClientRect().height > 0)
		.map(s => s.id + " " + s.querySelector(".ref-scope").textContent + " " + s.querySelectorAll("figure.ref-example").length).sort().join("\n")`)
	if shown != strings.Join(want, "\n") {
		t.Errorf("the page shows (operation, scope, examples):\n%s\nthe document has (x-scope, 3 x-codeSamples each):\n%s", shown, strings.Join(want, "\n"))
	}
	if bg := eval("style", `getComputedStyle(document.querySelector(".ref-method")).backgroundColor`); bg != "rgb(31, 136, 61)" {
		t.Errorf("the style sheet did not apply: a method badge's background is %q", bg)
	}
	pl.mu.Lock()
	var total float64
	for _, u := range pl.requests {
		if !strings.HasPrefix(u, srv.URL+"/") {
			t.Errorf("a request to another origin: %s", u)
		}
	}
	for u, n := range pl.transfer {
		total += n
		t.Logf("transferred %s: %.0f bytes", u, n)
	}
	t.Logf("/developers/api: %d requests, %.0f bytes transferred in all (%.1f KB)", len(pl.requests), total, total/1024)
	if len(pl.requests) < 2 {
		t.Errorf("recorded %d requests: the page and its style sheet at least", len(pl.requests))
	}
	if len(pl.violations) > 0 {
		t.Errorf("CSP violations: %q", pl.violations)
	}
	pl.mu.Unlock()
	// The check sees a violation: an image from another host, added by
	// DevTools, is refused by the page's CSP and reported.
	pl.reset()
	eval("provoke", `(() => { const i = document.createElement("img"); i.src = "https://example.invalid/x.png"; document.body.append(i); return "ok"; })()`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		pl.mu.Lock()
		n := len(pl.violations)
		pl.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("a violation provoked on purpose was not reported: the CSP check sees nothing")
			break
		}
	}

	// 2. The keys page links the reference; the owner rolls a key there.
	do("sign in", chromedp.Navigate(srv.URL+"/settings/sign-in"),
		chromedp.Click(chromedp.CSS(`input[name="user"][value$=" u_demo_acme_owner"]`)),
		chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("dk-title")))
	do("follow the reference link", chromedp.Click(chromedp.ID("dk-reference")), chromedp.WaitVisible(chromedp.CSS("section.ref-op")))
	keysURL := srv.URL + "/settings/developer-keys/"
	do("create a key", chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-name")),
		chromedp.SendKeys(chromedp.ID("dk-name"), "rolled in the browser"),
		chromedp.Click(chromedp.CSS(`input[name="scope"][value="accounts:read"]`)),
		chromedp.Click(chromedp.CSS(`.dk-create button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("dk-secret")))
	oldKey := eval("old key", `document.getElementById("dk-secret").value`)
	do("the list", chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-list-title")))
	oldID := eval("old id", `[...document.querySelectorAll("tr[data-key-id]")].find(r => r.textContent.includes("rolled in the browser")).dataset.keyId`)
	row := `tr[data-key-id="` + oldID + `"]`
	do("roll", chromedp.Click(chromedp.CSS(row+" a.dk-roll")), chromedp.WaitVisible(chromedp.CSS(".dk-roll-form")),
		chromedp.Click(chromedp.CSS(`input[name="grace"][value="3600"]`)),
		chromedp.Click(chromedp.CSS(`.dk-roll-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("dk-secret")))
	newKey := eval("new key", `document.getElementById("dk-secret").value`)
	note := eval("note", `document.getElementById("dk-rolled-note").textContent`)
	if !regexp.MustCompile(`^svc_live_[A-Za-z0-9]{43}$`).MatchString(newKey) || newKey == oldKey || !strings.Contains(note, "keeps working until") {
		t.Fatalf("after the roll: key %q, note %q", newKey, note)
	}
	for _, k := range []string{oldKey, newKey} {
		c, err := svc.NewClient(svc.WithAPIKey(k), svc.WithSiteURL(srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Accounts.List(ctx, nil); err != nil {
			t.Errorf("a key during the grace: %v", err)
		}
	}
	do("the list after the roll", chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-list-title")))
	text := eval("old row", `document.querySelector(`+fmt.Sprintf("%q", row)+`).textContent`)
	if !strings.Contains(text, "rolled: works until") || !strings.Contains(text, "active") {
		t.Errorf("the old key's row: %q", text)
	}
	if n := eval("rows", `String([...document.querySelectorAll("tr[data-key-id]")].filter(r => r.textContent.includes("rolled in the browser")).length)`); n != "2" {
		t.Errorf("%s rows named \"rolled in the browser\", want 2 (the old and the new key)", n)
	}
	if shots := os.Getenv("SVC_SCREENSHOTS"); shots != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(filepath.Join(shots, "09-rolled.png"), png, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}
