package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium returns the browser the page test drives: $SVC_CHROMIUM or
// Debian's chromium on PATH. It fails, never skips, when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SVC_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the Developer keys browser test needs Chromium: run scripts/test-deps.sh (make test does), "+
			"or `apt-get install chromium chromium-driver`, or set SVC_CHROMIUM to a Chromium binary (%v)", err)
	}
	return p
}

// netLog records what the browser sent and received: every request URL and
// header, every response header (not bodies).
type netLog struct {
	mu      sync.Mutex
	entries []string
	created []network.Headers // response headers of POSTs to the page (the create)
	posts   map[network.RequestID]bool
}

func (l *netLog) listen(ctx context.Context, keysPath string) error {
	return chromedp.Listen(ctx, func(ev any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			l.entries = append(l.entries, "request "+ev.Request.URL+" "+fmt.Sprint(ev.Request.Headers))
			if ev.Request.Method == http.MethodPost && strings.HasSuffix(ev.Request.URL, keysPath+"/") {
				l.posts[ev.RequestID] = true
			}
			if ev.RedirectResponse != nil {
				l.entries = append(l.entries, "redirect "+ev.RedirectResponse.URL+" "+fmt.Sprint(ev.RedirectResponse.Headers))
			}
		case *network.EventRequestWillBeSentExtraInfo:
			l.entries = append(l.entries, "request-extra "+fmt.Sprint(ev.Headers))
		case *network.EventResponseReceived:
			l.entries = append(l.entries, "response "+ev.Response.URL+" "+fmt.Sprint(ev.Response.Headers))
			if l.posts[ev.RequestID] {
				l.created = append(l.created, ev.Response.Headers)
			}
		case *network.EventResponseReceivedExtraInfo:
			l.entries = append(l.entries, "response-extra "+fmt.Sprint(ev.Headers)+" "+ev.HeadersText)
		}
	})
}

func (l *netLog) holding(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.entries {
		if strings.Contains(e, s) {
			out = append(out, e)
		}
	}
	return out
}

// TestKeysPageInBrowser drives the Developer keys page of `svc-api demo` in
// Chromium: sign in as the owner, create a key with two scopes and 7 days,
// read it once on the page the create redirects to, use it through the SDK,
// reload that page and go back and forward (the key is gone, no second key
// is created), revoke it after a
// confirmation (401 next), then as a member (no create control, a hand-built
// POST refused), then at 10 active keys (the form says why it is disabled),
// then signs out.
// A screenshot of each state goes to $SVC_SCREENSHOTS, or to a temporary
// directory; the test logs where.
func TestKeysPageInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	api := filepath.Join(dir, "svc-api") // only svc-api: harness.Build links all three
	build := exec.CommandContext(t.Context(), "go", "build", "-o", api, "./cmd/svc-api")
	build.Dir = filepath.Join(harness.RepoRoot(), "api-server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build svc-api: %v\n%s", err, out)
	}
	shots := os.Getenv("SVC_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(dir, "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots of each state: %s", shots)

	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := harness.StartServer(api, port, []string{"SVC_REDIS_URL=", "SVC_LOG_LEVEL=debug"},
		"demo", "--data-dir", filepath.Join(dir, "data"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop svc-api demo: %v", err)
		}
	}()
	var signIn string
	for deadline := time.Now().Add(10 * time.Second); signIn == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := regexp.MustCompile(`Developer keys page \(demo sign-in\): (\S+)`).FindStringSubmatch(srv.Logs.String()); m != nil {
			signIn = m[1]
		}
	}
	if signIn != srv.URL+"/settings/sign-in" {
		t.Fatalf("demo printed no sign-in link for %s:\n%s", srv.URL, srv.Logs)
	}
	const keysPath = "/settings/developer-keys"
	keysURL := srv.URL + keysPath + "/"

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil { // start the browser, open the tab
		t.Fatalf("start %s: %v", browser, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()

	nl := &netLog{posts: map[network.RequestID]bool{}}
	if err := nl.listen(bctx, keysPath); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// Answer window.confirm: accept, unless told to dismiss the next one.
	var dmu sync.Mutex
	var dialogs []string
	var dismissNext bool
	if err := chromedp.Listen(bctx, func(ev any) {
		if ev, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dmu.Lock()
			dialogs = append(dialogs, ev.Message)
			accept := !dismissNext
			dismissNext = false
			dmu.Unlock()
			go func() { // a listener must not run a command itself
				if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept}); err != nil {
					t.Errorf("answer the dialog: %v", err)
				}
			}()
		}
	}); err != nil {
		t.Fatal(err)
	}

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nserver output:\n%s", what, err, srv.Logs)
		}
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644)
		})
	}
	signInAs := func(user string) {
		t.Helper()
		do("sign in as "+user,
			chromedp.Navigate(signIn),
			chromedp.Click(chromedp.CSS(`input[name="user"][value$=" `+user+`"]`)),
			chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.ID("dk-title")),
		)
		if who := get("header", chromedp.Text(chromedp.CSS("header"))); !strings.Contains(who, "signed in as "+user) {
			t.Fatalf("signed in as %s, header says %q", user, who)
		}
	}

	// 1. The owner creates a key with two scopes and 7 days.
	do("sign-in page", chromedp.Navigate(signIn), chromedp.WaitVisible(chromedp.CSS("form")), shot("01-sign-in"))
	signInAs("u_demo_acme_owner")
	// With the keyboard only: Tab from the top of the page to each control,
	// type, Space on the checkboxes, an arrow key in the expiry group, Enter.
	tabTo := func(sel string) {
		t.Helper()
		for range 60 {
			at, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.matches(`+strconv.Quote(sel)+`)`))
			if err != nil {
				t.Fatal(err)
			}
			if at {
				return
			}
			do("tab", chromedp.KeyEvent(kb.Tab))
		}
		t.Fatalf("Tab never reaches %s", sel)
	}
	rowsBefore, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("tr[data-key-id]").length`))
	if err != nil {
		t.Fatal(err)
	}
	tabTo(`#dk-name`)
	do("type the name", chromedp.KeyEvent("browser test key"))
	tabTo(`input[name="scope"][value="accounts:read"]`)
	do("check", chromedp.KeyEvent(" "))
	tabTo(`input[name="scope"][value="insights:read"]`)
	do("check", chromedp.KeyEvent(" "))
	tabTo(`input[name="expiry"]:checked`) // Tab enters a radio group at its checked choice: 30 days
	do("7 days", chromedp.KeyEvent(kb.ArrowLeft))
	tabTo(`.dk-create button[type="submit"]`)
	outline := get("focus ring", chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle`))
	if outline == "none" || outline == "" {
		t.Errorf("the focused button shows no focus ring (outline-style %q)", outline)
	}
	checked := get("choices", chromedp.Evaluate[string](
		`[...document.querySelectorAll(".dk-create input:checked")].map(i => i.value).join(" ")`))
	if checked != "accounts:read insights:read 7" {
		t.Errorf("the keyboard chose %q", checked)
	}
	do("create",
		shot("02-create-form"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.ID("dk-secret")),
		shot("03-key-shown-once"),
	)
	secret := get("key", chromedp.Value(chromedp.ID("dk-secret")))
	focused := get("focus", chromedp.Evaluate[string](`document.activeElement.id`))
	label := get("label", chromedp.Evaluate[string](`document.getElementById("dk-secret").labels[0].textContent`))
	warning := get("warning", chromedp.Text(chromedp.CSS(".dk-created")))
	if !regexp.MustCompile(`^svc_live_[A-Za-z0-9]{43}$`).MatchString(secret) {
		t.Fatalf("the page shows %q, not a key", secret)
	}
	if focused != "dk-secret" || label != "Key value" || !strings.Contains(warning, "shown only this once") {
		t.Errorf("the key is not focused (%q) and labelled (%q) with its warning: %q", focused, label, warning)
	}
	// A screen reader finds the key as the value of a text field named "Key value".
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range tree.Nodes {
		if n.Value == nil || !strings.Contains(string(n.Value.Value), secret) {
			continue
		}
		found = true
		if n.Ignored || n.Name == nil || string(n.Name.Value) != `"Key value"` || n.Role == nil || string(n.Role.Value) != `"textbox"` {
			t.Errorf("the key's accessibility node: role %s, name %s, ignored %v", n.Role.Value, n.Name.Value, n.Ignored)
		}
	}
	if !found {
		t.Errorf("no accessibility node holds the key")
	}
	nl.mu.Lock()
	if len(nl.created) != 1 || nl.created[0]["Cache-Control"] != "no-store" {
		t.Errorf("the create page's headers: %v", nl.created)
	}
	nl.mu.Unlock()

	// 2. The key works through the SDK.
	client, err := svc.NewClient(svc.WithAPIKey(secret), svc.WithSiteURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	accounts, err := client.Accounts.List(ctx, nil)
	if err != nil || len(accounts.Data) == 0 {
		t.Fatalf("SDK with the new key: %v", err)
	}
	if _, err := client.Campaigns.List(ctx, nil); !isStatus(err, http.StatusForbidden) {
		t.Errorf("campaigns without the scope: %v, want 403", err)
	}

	// 3. Reload the key's page, then go back and forward: the key is not
	// shown again and no key is created (Post/Redirect/Get, issue 30).
	view := get("location", chromedp.Location())
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(keysURL) + `created/[A-Z2-7]{26}$`).MatchString(view) {
		t.Errorf("the create did not redirect to a one-time view: the key is shown at %q", view)
	}
	noKey := func(what string, usedUp bool) {
		t.Helper()
		// Evaluate, not a DOM query: chromedp's DOM queries wait for a load
		// event that a page restored from the back-forward cache never sends.
		html := get(what, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
		if strings.Contains(html, secret) || strings.Contains(html, "dk-secret") {
			t.Errorf("%s: the key is on the page again", what)
		}
		if usedUp && !strings.Contains(html, "cannot show it again") {
			t.Errorf("%s: the page does not say the key was shown once", what)
		}
	}
	// Which history navigations the back-forward cache answered, for the log.
	var bfmu sync.Mutex
	var bfcache []string
	if err := chromedp.Listen(bctx, func(ev any) {
		bfmu.Lock()
		defer bfmu.Unlock()
		switch ev := ev.(type) {
		case *page.EventFrameNavigated:
			if ev.Type == page.NavigationTypeBackForwardCacheRestore {
				bfcache = append(bfcache, "restored "+ev.Frame.URL)
			}
		case *page.EventBackForwardCacheNotUsed:
			var why []string
			for _, e := range ev.NotRestoredExplanations {
				why = append(why, string(e.Reason))
			}
			bfcache = append(bfcache, "not used: "+strings.Join(why, ", "))
		}
	}); err != nil {
		t.Fatal(err)
	}
	// travel goes delta entries through the history, as the browser's
	// buttons do, and waits until the page at that entry shows sel (30 s at
	// most). It waits for no load event: a page that the back-forward cache
	// restores sends none.
	travel := func(what string, delta int, sel string) {
		t.Helper()
		h, err := chromedp.Run(ctx, chromedp.NavigationEntries())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		i := int(h.CurrentIndex) + delta
		if i < 0 || i >= len(h.Entries) {
			t.Fatalf("%s: no history entry %d of %d", what, i, len(h.Entries))
		}
		want := h.Entries[i].URL
		if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		check := `location.href === ` + strconv.Quote(want) + ` && document.readyState === "complete" && document.querySelector(` + strconv.Quote(sel) + `) !== null`
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if at, err := chromedp.Run(ctx, chromedp.Evaluate[bool](check)); err == nil && at {
				return
			}
			if time.Now().After(deadline) {
				// Not fatal: the steps after it still count the keys.
				shown, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("dk-secret") !== null`))
				t.Errorf("%s: never reached %s showing %s (the key is on the page: %v)", what, want, sel, shown)
				return
			}
		}
	}
	// Back from the key, then forward: a back-forward cache that kept the
	// page must not show the key again (the page's script takes it out when
	// the page is left, and fetches the page again when it is restored).
	travel("back from the key", -1, "#dk-list-title")
	noKey("back from the key", false)
	travel("forward to the key", 1, ".dk-notice")
	noKey("back and forward", true)
	do("reload the key's page", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("dk-list-title")), shot("04-after-reload"))
	noKey("after a reload", true)
	travel("back after the reload", -1, "#dk-list-title")
	travel("forward after the reload", 1, ".dk-notice")
	do("forward", shot("05-back-and-forward"))
	noKey("reload, back and forward", true)
	bfmu.Lock()
	t.Logf("back-forward cache: %q", bfcache)
	bfmu.Unlock()
	do("the list", chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-list-title")))
	counts := get("counts", chromedp.Evaluate[string](`[document.querySelectorAll("tr[data-key-id]").length,
		[...document.querySelectorAll("tr[data-key-id] th")].filter(c => c.textContent === "browser test key").length,
		document.body.textContent.match(/(\d+) of 10 active keys/)[1]].join(" ")`))
	if want := fmt.Sprintf("%d 1 %d", rowsBefore+1, rowsBefore+1); counts != want {
		t.Errorf("keys of the organization (all, named \"browser test key\", active): %s, want %s", counts, want)
	}
	history, err := chromedp.Run(ctx, chromedp.NavigationEntries())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range history.Entries {
		if strings.Contains(e.URL, secret) {
			t.Errorf("a history entry holds the key: %s", e.URL)
		}
	}
	html := get("page", chromedp.OuterHTML(chromedp.CSS("html")))
	keyID := get("key id", chromedp.Evaluate[string](
		`[...document.querySelectorAll("tr[data-key-id]")].find(r => r.textContent.includes("browser test key")).dataset.keyId`))
	row := `tr[data-key-id="` + keyID + `"]`
	text := get("row", chromedp.Text(chromedp.CSS(row)))
	if strings.Contains(html, secret) || strings.Contains(html, "dk-secret") {
		t.Errorf("the key is still on the page after a reload")
	}
	if !strings.Contains(text, "svc_live_…"+secret[len(secret)-4:]) || !strings.Contains(text, "accounts:read, insights:read") || !strings.Contains(text, "active") {
		t.Errorf("the key's row: %q", text)
	}

	// 4. Revoke: cancelling the confirmation changes nothing; accepting revokes.
	dmu.Lock()
	dismissNext = true
	dmu.Unlock()
	do("revoke, cancelled", chromedp.Click(chromedp.CSS(row+" a.dk-revoke")), chromedp.Sleep(300*time.Millisecond))
	if text := get("row", chromedp.Text(chromedp.CSS(row))); !strings.Contains(text, "active") {
		t.Errorf("a cancelled revoke changed the key: %q", text)
	}
	if _, err := client.Accounts.List(ctx, nil); err != nil {
		t.Errorf("the key after a cancelled revoke: %v", err)
	}
	do("revoke",
		chromedp.Click(chromedp.CSS(row+" a.dk-revoke")),
		chromedp.WaitVisible(chromedp.CSS(".dk-notice")),
		shot("06-revoked"),
	)
	notice := get("notice", chromedp.Text(chromedp.CSS(".dk-notice")))
	dmu.Lock()
	if len(dialogs) != 2 || !strings.Contains(dialogs[1], "Revoke the key “browser test key”") {
		t.Errorf("confirmations: %q", dialogs)
	}
	dmu.Unlock()
	if !strings.Contains(notice, "Revoked the key “browser test key”") {
		t.Errorf("notice: %q", notice)
	}
	if _, err := client.Accounts.List(ctx, nil); !isStatus(err, http.StatusUnauthorized) {
		t.Errorf("revoked key: %v, want 401", err)
	}

	// 5. A member sees no create control, and a POST built by hand is refused.
	signInAs("u_demo_acme_analyst")
	do("member", shot("07-member"))
	refusal := get("refusal", chromedp.Text(chromedp.ID("dk-manage-refusal")))
	controls, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main form, main button, a.dk-revoke").length`))
	if err != nil || !strings.Contains(refusal, "Only owners and administrators") || controls != 0 {
		t.Errorf("member's page: %q, %d controls (%v)", refusal, controls, err)
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(location.pathname, {method: "POST", body: new URLSearchParams(
		{name: "forged", scope: "accounts:read", expiry: "7"})}).then(r => r.status)`,
		func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
	if err != nil || status != http.StatusForbidden {
		t.Errorf("member's hand-built POST: %d %v, want 403", status, err)
	}
	// The same POST from another site is refused before any rule.
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{srv.URL + "/settings/"}})
	if err != nil || len(cookies.Cookies) == 0 {
		t.Fatalf("session cookie: %v", err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, keysURL,
		strings.NewReader(url.Values{"name": {"x"}, "scope": {"accounts:read"}, "expiry": {"7"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	req.AddCookie(&http.Cookie{Name: cookies.Cookies[0].Name, Value: cookies.Cookies[0].Value})
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin POST: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// 6. At 10 active keys the form says why it is disabled. An admin fills
	// the organization up through the form (the demo's own key is active).
	signInAs("u_demo_acme_admin")
	for i := 0; ; i++ {
		active := get("count", chromedp.Evaluate[string](`document.body.textContent.match(/(\d+) of 10 active keys/)[1]`))
		if active == "10" {
			break
		}
		if i >= 10 {
			t.Fatalf("still %s active keys", active)
		}
		do("create",
			chromedp.SendKeys(chromedp.ID("dk-name"), fmt.Sprintf("filler %d", i)),
			chromedp.Click(chromedp.CSS(`input[name="scope"][value="campaigns:read"]`)),
			chromedp.Click(chromedp.CSS(`.dk-create button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.ID("dk-secret")),
			chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-list-title")),
		)
	}
	do("full", shot("08-ten-active-keys"))
	disabled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("form.dk-create > fieldset").disabled`))
	why := get("why", chromedp.Text(chromedp.ID("dk-create-refusal")))
	if err != nil || !disabled || !strings.Contains(why, "already has 10 active keys") || !strings.Contains(why, "Revoke one to create another") {
		t.Errorf("at 10 keys: disabled %v, %q (%v)", disabled, why, err)
	}

	// 7. Sign out: the session is over, the page asks to sign in again.
	do("sign out",
		chromedp.Click(chromedp.CSS(`header form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="user"]`)),
		chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.ID("dk-title")),
	)
	if text := get("signed out", chromedp.Text(chromedp.CSS("main"))); !strings.Contains(text, "Sign in to manage developer keys") {
		t.Errorf("the page after sign-out: %q", text)
	}

	// 8. The key never left the create page's body: not in a URL, a header,
	// a redirect or a server log line.
	if hits := nl.holding(secret); len(hits) > 0 {
		t.Errorf("the key appears in the browser's network traffic:\n%s", strings.Join(hits, "\n"))
	}
	if len(nl.holding(keysPath)) < 20 {
		t.Errorf("too little network traffic recorded for the leak check to mean anything")
	}
	logs := srv.Logs.String()
	if strings.Contains(logs, secret) {
		t.Errorf("the server's output holds the key")
	}
	if !strings.Contains(logs, "/api/v1/developer/accounts") {
		t.Errorf("the server logged no API request, so the log check saw nothing:\n%s", logs)
	}
}

func isStatus(err error, status int) bool {
	var apiErr *svc.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}
