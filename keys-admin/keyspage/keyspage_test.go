package keyspage_test

import (
	"bytes"
	"context"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyspage"
	"github.com/uptrace/bun"
)

const path = "/settings/developer-keys"

func migrate(ctx context.Context, db *bun.DB) error { _, err := keys.Migrate(ctx, db); return err }

// identify stands in for the host's session: it trusts two test headers.
func identify(r *http.Request) (keyspage.Identity, error) {
	id := keyspage.Identity{OrganizationID: r.Header.Get("X-Test-Org"), UserID: r.Header.Get("X-Test-User")}
	if id.UserID == "" {
		return id, errors.New("no session")
	}
	return id, nil
}

// Hostile names: markup, an attribute break-out, and a right-to-left
// override that would make "exe.png" read as "gnp.exe".
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	"invoice\u202Egnp.exe",
	"zero\u200Bwidth",
}

type fixture struct {
	t    *testing.T
	svc  *keys.Manager
	auth *keys.Authenticator // the request side: does a key shown once work?
	db   *bun.DB
	url  string
	logs *lockedBuffer
}

// lockedBuffer is the log's destination: the server's goroutines write
// while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func setup(t *testing.T, b dbtest.Backend) *fixture { return setupWith(t, b, nil, time.Now) }

// setupWith is setup with a RevealStore (nil: the default) and a clock.
func setupWith(t *testing.T, b dbtest.Backend, reveals keyspage.RevealStore, clock func() time.Time) *fixture {
	ctx := t.Context()
	now := time.Now().UTC()
	ended := now.Add(-48 * time.Hour)
	trialEnds := now.Add(7 * 24 * time.Hour)
	for _, o := range []struct {
		org keys.Organization
		m   []keys.Member
	}{
		{keys.Organization{ID: "org_a", Name: "Acme", SubscriptionStatus: keys.SubscriptionActive}, []keys.Member{
			{UserID: "owner", Role: keys.RoleOwner}, {UserID: "admin", Role: keys.RoleAdmin},
			{UserID: "member", Role: keys.RoleMember}, {UserID: "gone", Role: keys.RoleAdmin, RemovedAt: &ended}}},
		{keys.Organization{ID: "org_b", Name: "Beta", SubscriptionStatus: keys.SubscriptionActive}, []keys.Member{
			{UserID: "b_owner", Role: keys.RoleOwner}}},
		{keys.Organization{ID: "org_full", Name: "Full", SubscriptionStatus: keys.SubscriptionActive}, []keys.Member{
			{UserID: "f_owner", Role: keys.RoleOwner}}},
		{keys.Organization{ID: "org_canceled", Name: "Gone", SubscriptionStatus: keys.SubscriptionCanceled}, []keys.Member{
			{UserID: "c_owner", Role: keys.RoleOwner}}},
		{keys.Organization{ID: "org_trial", Name: "Trying", SubscriptionStatus: keys.SubscriptionTrialing, TrialEndsAt: &trialEnds}, []keys.Member{
			{UserID: "t_owner", Role: keys.RoleOwner}}},
	} {
		if err := keys.UpsertOrganization(ctx, b.DB, o.org, o.m, now); err != nil {
			t.Fatal(err)
		}
	}
	svc := keys.NewManager(b.DB)
	auth := keys.NewAuthenticator(b.Handle, keys.AuthenticatorOptions{})
	logs := &lockedBuffer{}
	page, err := keyspage.NewWithClock(keyspage.Config{
		Keys: svc, Identify: identify, Path: path, SignInURL: "/sign-in",
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Reveals: reveals,
	}, clock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(path+"/", page)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &fixture{t: t, svc: svc, auth: auth, db: b.DB, url: srv.URL, logs: logs}
}

type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request as a same-origin browser would (Sec-Fetch-Site), unless
// hdr overrides it.
func (f *fixture) do(method, p, org, user string, form url.Values, hdr map[string]string) response {
	f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.url+path+p, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if user != "" {
		req.Header.Set("X-Test-Org", org)
		req.Header.Set("X-Test-User", user)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{resp.StatusCode, resp.Header, string(raw)}
	if !strings.HasPrefix(p, "/assets/") {
		f.checkSafe(method+" "+p, r)
	}
	return r
}

var (
	reInlineScript = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]`)
	reScriptNoSrc  = regexp.MustCompile(`(?i)<script(?:\s(?:[^>s]|s[^r])*)?>`)
	reTag          = regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9]*((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*/?>`)
	reAttr         = regexp.MustCompile(`\s+([^\s=>/]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?`)
)

// checkSafe asserts the headers every page must carry and that the HTML
// holds no inline script, event handler or inline style (which the CSP
// would block anyway).
func (f *fixture) checkSafe(what string, r response) {
	f.t.Helper()
	h := r.header
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			f.t.Errorf("%s: CSP %q lacks %q", what, csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		f.t.Errorf("%s: CSP %q allows inline code", what, csp)
	}
	if h.Get("Cache-Control") != "no-store" || h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
		f.t.Errorf("%s: headers %v", what, h)
	}
	if r.status != http.StatusSeeOther && !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		f.t.Errorf("%s: content type %q", what, h.Get("Content-Type"))
	}
	for _, re := range []*regexp.Regexp{reInlineScript, reScriptNoSrc} {
		if m := re.FindString(r.body); m != "" {
			f.t.Errorf("%s: page holds inline script %q", what, m)
		}
	}
	// Event handler and style attributes, read from the tags themselves
	// (an escaped "onerror=" inside an attribute value is only text).
	for _, tag := range reTag.FindAllStringSubmatch(r.body, -1) {
		for _, a := range reAttr.FindAllStringSubmatch(tag[1], -1) {
			if name := strings.ToLower(a[1]); strings.HasPrefix(name, "on") || name == "style" {
				f.t.Errorf("%s: tag %q has attribute %s", what, tag[0], name)
			}
		}
	}
}

func (f *fixture) count(org string) int {
	f.t.Helper()
	n, err := f.db.NewSelect().TableExpr("developer_keys").Where("organization_id = ?", org).Count(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	return int(n)
}

func createForm(name string, expiry string, custom string, scopes ...string) url.Values {
	v := url.Values{"name": {name}, "expiry": {expiry}, "scope": scopes}
	if custom != "" {
		v.Set("custom_days", custom)
	}
	return v
}

var (
	reSecret = regexp.MustCompile(`svc_live_[A-Za-z0-9]{43}`)
	reView   = regexp.MustCompile(`^` + path + `/created/[A-Z2-7]{26}$`)
)

// create posts the form as org's user and follows the redirect to the new
// key's view: the POST's answer, and the view's (zero when the POST was not
// a redirect).
func (f *fixture) create(org, user string, form url.Values) (post, view response) {
	f.t.Helper()
	post = f.do("POST", "/", org, user, form, nil)
	if post.status != http.StatusSeeOther {
		return post, response{}
	}
	loc := post.header.Get("Location")
	if !reView.MatchString(loc) {
		f.t.Fatalf("a create redirects to %q, not to a one-time view", loc)
	}
	return post, f.do("GET", strings.TrimPrefix(loc, path), org, user, nil, nil)
}

func TestCreateShowsTheKeyOnce(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		r := f.do("GET", "/", "org_a", "owner", nil, nil)
		if r.status != 200 || !strings.Contains(r.body, "0 of 10 active keys") || !strings.Contains(r.body, `<form method="post" action="`+path+`/"`) {
			t.Fatalf("owner's page: %d\n%s", r.status, r.body)
		}
		for _, label := range []string{`<label for="dk-name">`, `<label for="dk-custom-days">`, "<legend>Scopes</legend>", "<legend>Expires in</legend>"} {
			if !strings.Contains(r.body, label) {
				t.Errorf("form lacks %s", label)
			}
		}
		for _, d := range []string{"7", "30", "60", "90", "custom"} {
			if !strings.Contains(r.body, `name="expiry" value="`+d+`"`) {
				t.Errorf("no expiry choice %s", d)
			}
		}

		post, r := f.create("org_a", "owner", createForm("nightly export", "7", "", "accounts:read", "insights:read"))
		secrets := reSecret.FindAllString(r.body, -1)
		if post.status != http.StatusSeeOther || r.status != http.StatusOK || len(secrets) != 1 {
			t.Fatalf("create: %d, view %d, %d secrets\n%s", post.status, r.status, len(secrets), r.body)
		}
		secret := secrets[0]
		if !strings.Contains(r.body, `<input id="dk-secret" class="dk-secret" type="text" value="`+secret+`" readonly`) ||
			!strings.Contains(r.body, `<label for="dk-secret">`) || !strings.Contains(r.body, "shown only this once") {
			t.Errorf("the secret is not in a labelled field with its warning:\n%s", r.body)
		}
		for _, resp := range []response{post, r} {
			for k, vs := range resp.header {
				if strings.Contains(strings.Join(vs, " "), secret) {
					t.Errorf("header %s holds the key", k)
				}
			}
		}
		if strings.Contains(post.body, secret) || r.header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("the redirect's body holds the key, or the view sends a Referer: %v\n%s", r.header, post.body)
		}
		p, err := f.auth.Lookup(t.Context(), secret)
		if err != nil {
			t.Fatal(err)
		}
		if p.Scopes != apikey.NewScopes(apikey.ScopeAccountsRead, apikey.ScopeInsightsRead) {
			t.Errorf("scopes %v", p.Scopes)
		}
		list, _ := f.svc.List(t.Context(), "org_a", "owner")
		if len(list) != 1 || list[0].Name != "nightly export" || list[0].ExpiresAt.Sub(list[0].CreatedAt) != 7*24*time.Hour {
			t.Errorf("stored: %+v", list)
		}

		// Reloading the page (a GET) shows the key's hint, never its value.
		r = f.do("GET", "/", "org_a", "owner", nil, nil)
		if strings.Contains(r.body, secret) || reSecret.MatchString(r.body) || !strings.Contains(r.body, list[0].Hint) ||
			!strings.Contains(r.body, "1 of 10 active keys") || !strings.Contains(r.body, "accounts:read, insights:read") {
			t.Errorf("page after create:\n%s", r.body)
		}
		// An admin manages keys too, and a custom expiry works.
		if post, r := f.create("org_a", "admin", createForm("", "custom", "45", "campaigns:read")); post.status != http.StatusSeeOther || !reSecret.MatchString(r.body) {
			t.Fatalf("admin create: %d\n%s", post.status, r.body)
		}
		list, _ = f.svc.List(t.Context(), "org_a", "admin")
		if len(list) != 2 || list[0].ExpiresAt.Sub(list[0].CreatedAt) != 45*24*time.Hour || list[0].IssuerID != "admin" {
			t.Errorf("custom expiry: %+v", list[0])
		}
		// A running trial allows creation.
		if r := f.do("GET", "/", "org_trial", "t_owner", nil, nil); r.status != 200 || strings.Contains(r.body, "<fieldset disabled") || strings.Contains(r.body, "dk-refusal") {
			t.Errorf("running trial's page: %d\n%s", r.status, r.body)
		}
		if post, r := f.create("org_trial", "t_owner", createForm("trial key", "90", "", "insights:read")); post.status != http.StatusSeeOther || !reSecret.MatchString(r.body) {
			t.Errorf("create during a trial: %d\n%s", post.status, r.body)
		}
		if strings.Contains(f.logs.String(), secret) {
			t.Errorf("a log line holds the key:\n%s", f.logs)
		}
	})
}

func TestCreateRefusalsSayWhyAndChangeNothing(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		cases := []struct {
			name, org, user string
			form            url.Values
			status          int
			says            string
			describedBy     string
		}{
			{"no scope", "org_a", "owner", createForm("x", "7", ""), 400, "Choose at least one scope.", "dk-scopes-error"},
			{"unknown scope", "org_a", "owner", createForm("x", "7", "", "accounts:write"), 400, "Choose among the scopes listed.", "dk-scopes-error"},
			{"custom 0", "org_a", "owner", createForm("x", "custom", "0", "accounts:read"), 400, "Choose an expiry from 1 to 90 days.", "dk-expiry-error"},
			{"custom 91", "org_a", "owner", createForm("x", "custom", "91", "accounts:read"), 400, "Choose an expiry from 1 to 90 days.", "dk-expiry-error"},
			{"custom text", "org_a", "owner", createForm("x", "custom", "ten", "accounts:read"), 400, "Enter a whole number of days from 1 to 90.", "dk-expiry-error"},
			{"preset forged", "org_a", "owner", createForm("x", "365", "", "accounts:read"), 400, "Choose an expiry from 1 to 90 days.", "dk-expiry-error"},
			{"no expiry", "org_a", "owner", createForm("x", "", "", "accounts:read"), 400, "Enter a whole number", "dk-expiry-error"},
			{"control in name", "org_a", "owner", createForm("a\x1b[31mb", "7", "", "accounts:read"), 400, "without control characters", "dk-name-error"},
			{"long name", "org_a", "owner", createForm(strings.Repeat("n", 101), "7", "", "accounts:read"), 400, "at most 100 characters", "dk-name-error"},
			{"member", "org_a", "member", createForm("x", "7", "", "accounts:read"), 403, "Only owners and administrators", ""},
			{"removed admin", "org_a", "gone", createForm("x", "7", "", "accounts:read"), 403, "membership of this organization was removed", ""},
			{"stranger", "org_a", "b_owner", createForm("x", "7", "", "accounts:read"), 403, "not a member of this organization", ""},
			{"canceled", "org_canceled", "c_owner", createForm("x", "7", "", "accounts:read"), 403, "status: canceled", ""},
			{"unknown org", "org_x", "owner", createForm("x", "7", "", "accounts:read"), 404, "does not exist", ""},
		}
		for _, tc := range cases {
			r := f.do("POST", "/", tc.org, tc.user, tc.form, nil)
			if r.status != tc.status || !strings.Contains(r.body, tc.says) {
				t.Errorf("%s: %d, want %d saying %q\n%s", tc.name, r.status, tc.status, tc.says, r.body)
			}
			if tc.describedBy != "" && !strings.Contains(r.body, `aria-describedby="`+tc.describedBy+`"`) {
				t.Errorf("%s: the error is not tied to its control (%s)", tc.name, tc.describedBy)
			}
			if tc.status == 400 && !strings.Contains(r.body, `value="`+template(tc.form.Get("name"))+`"`) {
				t.Errorf("%s: the form lost the name typed", tc.name)
			}
			if tc.status == 403 && tc.org == "org_a" && strings.Contains(r.body, "<form") {
				t.Errorf("%s: a create control is shown to someone who cannot manage keys", tc.name)
			}
		}
		for _, org := range []string{"org_a", "org_canceled", "org_x"} {
			if n := f.count(org); n != 0 {
				t.Errorf("%s: refused requests wrote %d keys", org, n)
			}
		}
	})
}

// template escapes s as html/template does in an attribute, for the
// comparisons above.
func template(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "\x1b", "\x1b")
	return r.Replace(s)
}

func TestMemberSeesNoControls(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		if _, err := f.svc.Create(t.Context(), keys.CreateRequest{OrganizationID: "org_a", UserID: "owner", Name: "prod",
			Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30}); err != nil {
			t.Fatal(err)
		}
		list, _ := f.svc.List(t.Context(), "org_a", "owner")
		r := f.do("GET", "/", "org_a", "member", nil, nil)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "Only owners and administrators of this organization") ||
			strings.Contains(r.body, "<form") || strings.Contains(r.body, "Create key") || strings.Contains(r.body, list[0].Hint) {
			t.Errorf("member's page: %d\n%s", r.status, r.body)
		}
		// A hand-built revoke from the member is refused too.
		for _, p := range []string{"/revoke/" + list[0].ID} {
			if r := f.do("GET", p, "org_a", "member", nil, nil); r.status != http.StatusForbidden {
				t.Errorf("member GET %s: %d", p, r.status)
			}
			if r := f.do("POST", p, "org_a", "member", url.Values{}, nil); r.status != http.StatusForbidden || !strings.Contains(r.body, "Only owners") {
				t.Errorf("member POST %s: %d\n%s", p, r.status, r.body)
			}
		}
		if list, _ := f.svc.List(t.Context(), "org_a", "owner"); list[0].State != keys.StateActive {
			t.Errorf("the member's revoke went through: %+v", list[0])
		}
		if r := f.do("GET", "/", "", "", nil, nil); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "Sign in to manage developer keys") ||
			!strings.Contains(r.body, `href="/sign-in"`) {
			t.Errorf("no session: %d\n%s", r.status, r.body)
		}
		if r := f.do("POST", "/", "", "", createForm("x", "7", "", "accounts:read"), nil); r.status != http.StatusUnauthorized {
			t.Errorf("no session POST: %d", r.status)
		}
	})
}

func TestLimitAndTrialDisableCreationNotRevocation(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		ctx := t.Context()
		var ids []string
		for i := range keys.MaxActiveKeys {
			k, err := f.svc.Create(ctx, keys.CreateRequest{OrganizationID: "org_full", UserID: "f_owner", Name: "k" + string(rune('a'+i)),
				Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		const full = "This organization already has 10 active keys, the most it can have. Revoke one to create another."
		r := f.do("GET", "/", "org_full", "f_owner", nil, nil)
		if r.status != 200 || !strings.Contains(r.body, `<fieldset disabled aria-describedby="dk-create-refusal">`) ||
			!strings.Contains(r.body, `<p class="dk-refusal" id="dk-create-refusal" role="status">`+full) ||
			strings.Count(r.body, `class="dk-revoke"`) != 10 || !strings.Contains(r.body, "10 of 10 active keys") {
			t.Fatalf("full page: %d\n%s", r.status, r.body)
		}
		r = f.do("POST", "/", "org_full", "f_owner", createForm("eleventh", "7", "", "accounts:read"), nil)
		if r.status != http.StatusConflict || !strings.Contains(r.body, full) || f.count("org_full") != 10 {
			t.Errorf("11th key: %d\n%s", r.status, r.body)
		}
		// Revoking one (confirmation page, then the POST) enables the form again.
		r = f.do("GET", "/revoke/"+ids[3], "org_full", "f_owner", nil, nil)
		if r.status != 200 || !strings.Contains(r.body, `<form method="post" action="`+path+`/revoke/`+ids[3]+`"`) ||
			!strings.Contains(r.body, "Revoke this key") || !strings.Contains(r.body, `href="`+path+`/" class="dk-cancel">Cancel</a>`) {
			t.Fatalf("confirm page: %d\n%s", r.status, r.body)
		}
		r = f.do("POST", "/revoke/"+ids[3], "org_full", "f_owner", url.Values{}, nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != path+"/?revoked="+ids[3] {
			t.Fatalf("revoke: %d %v", r.status, r.header)
		}
		r = f.do("GET", "/?revoked="+ids[3], "org_full", "f_owner", nil, nil)
		if !strings.Contains(r.body, "Revoked the key “kd”") || strings.Contains(r.body, "<fieldset disabled") || !strings.Contains(r.body, "9 of 10 active keys") {
			t.Errorf("after revoke:\n%s", r.body)
		}
		if r := f.do("POST", "/revoke/"+ids[3], "org_full", "f_owner", url.Values{}, nil); r.status != http.StatusConflict || !strings.Contains(r.body, "already revoked") {
			t.Errorf("revoke twice: %d", r.status)
		}
		if r := f.do("GET", "/revoke/"+ids[3], "org_full", "f_owner", nil, nil); !strings.Contains(r.body, "already revoked") || strings.Contains(r.body, "<form") {
			t.Errorf("confirm a revoked key:\n%s", r.body)
		}
		// A key of another organization, or none, is not found.
		for _, p := range []string{"/revoke/" + ids[0], "/revoke/key_nope"} {
			if r := f.do("POST", p, "org_a", "owner", url.Values{}, nil); r.status != http.StatusNotFound || !strings.Contains(r.body, "no such key") {
				t.Errorf("POST %s from org_a: %d", p, r.status)
			}
			if r := f.do("GET", p, "org_a", "owner", nil, nil); r.status != http.StatusNotFound {
				t.Errorf("GET %s from org_a: %d", p, r.status)
			}
		}

		// The trial ends: creation is refused with the date, revocation works.
		ended := time.Now().UTC().Add(-72 * time.Hour)
		if err := keys.UpsertOrganization(ctx, f.db, keys.Organization{ID: "org_full", Name: "Full",
			SubscriptionStatus: keys.SubscriptionTrialing, TrialEndsAt: &ended}, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		trial := "The organization's trial ended on " + ended.Format("2 January 2006") + ", so new keys cannot be created until the subscription is paid. You can still revoke keys."
		r = f.do("GET", "/", "org_full", "f_owner", nil, nil)
		if !strings.Contains(r.body, "<fieldset disabled") || !strings.Contains(html.UnescapeString(r.body), trial) || strings.Count(r.body, `class="dk-revoke"`) != 9 {
			t.Errorf("trial over page:\n%s", r.body)
		}
		if r := f.do("POST", "/", "org_full", "f_owner", createForm("x", "7", "", "accounts:read"), nil); r.status != http.StatusForbidden || !strings.Contains(html.UnescapeString(r.body), trial) {
			t.Errorf("create after trial: %d", r.status)
		}
		if r := f.do("POST", "/revoke/"+ids[0], "org_full", "f_owner", url.Values{}, nil); r.status != http.StatusSeeOther {
			t.Errorf("revoke after trial: %d\n%s", r.status, r.body)
		}
		if f.count("org_full") != 10 {
			t.Errorf("keys: %d", f.count("org_full"))
		}
	})
}

func TestCrossOriginRequestsAreRefused(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		k, err := f.svc.Create(t.Context(), keys.CreateRequest{OrganizationID: "org_a", UserID: "owner", Name: "x",
			Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
		if err != nil {
			t.Fatal(err)
		}
		good := createForm("x", "7", "", "accounts:read")
		for _, hdr := range []map[string]string{
			{"Sec-Fetch-Site": "cross-site"},
			{"Sec-Fetch-Site": "same-site"},
			{"Sec-Fetch-Site": "", "Origin": "http://evil.example"},
		} {
			for _, p := range []string{"/", "/revoke/" + k.ID} {
				r := f.do("POST", p, "org_a", "owner", good, hdr)
				if r.status != http.StatusForbidden || !strings.Contains(r.body, "came from another site") {
					t.Errorf("POST %s with %v: %d\n%s", p, hdr, r.status, r.body)
				}
			}
		}
		if list, _ := f.svc.List(t.Context(), "org_a", "owner"); len(list) != 1 || list[0].State != keys.StateActive {
			t.Errorf("cross-origin requests changed keys: %+v", list)
		}
		// A same-origin browser POST, and a non-browser client (no
		// Sec-Fetch-Site, no Origin), pass the check.
		if r := f.do("POST", "/", "org_a", "owner", good, map[string]string{"Sec-Fetch-Site": "", "Origin": f.url}); r.status != http.StatusSeeOther {
			t.Errorf("same origin: %d", r.status)
		}
		if r := f.do("POST", "/", "org_a", "owner", good, map[string]string{"Sec-Fetch-Site": ""}); r.status != http.StatusSeeOther {
			t.Errorf("no browser headers: %d", r.status)
		}
		// Framing is refused by both headers; GET from another site is only a read.
		r := f.do("GET", "/", "org_a", "owner", nil, map[string]string{"Sec-Fetch-Site": "cross-site"})
		if r.status != 200 {
			t.Errorf("cross-site GET: %d", r.status)
		}
	})
}

func TestHostileNamesAreEscaped(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		var ids []string
		for _, name := range hostile {
			k, err := f.svc.Create(t.Context(), keys.CreateRequest{OrganizationID: "org_a", UserID: "owner", Name: name,
				Scopes: apikey.NewScopes(apikey.ScopeAccountsRead), ExpiresInDays: 30})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		// The create page shows the name too.
		_, created := f.create("org_a", "owner", createForm(hostile[1]+hostile[2], "7", "", "accounts:read"))
		pages := map[string]response{
			"list":    f.do("GET", "/", "org_a", "owner", nil, nil),
			"created": created,
			"confirm": f.do("GET", "/revoke/"+ids[2], "org_a", "owner", nil, nil),
		}
		f.do("POST", "/revoke/"+ids[0], "org_a", "owner", url.Values{}, nil)
		pages["revoked"] = f.do("GET", "/?revoked="+ids[0], "org_a", "owner", nil, nil)
		for what, r := range pages {
			for _, bad := range []string{"<script>alert", "<img src=x", `"><img`, "\u202E", "\u200B"} {
				if strings.Contains(r.body, bad) {
					t.Errorf("%s page holds %q unescaped", what, bad)
				}
			}
		}
		list := pages["list"].body
		for _, want := range []string{
			`<bdi class="dk-name">&lt;script&gt;alert(1)&lt;/script&gt;</bdi>`,
			`<bdi class="dk-name">&#34;&gt;&lt;img src=x onerror=alert(2)&gt;</bdi>`,
			`<bdi class="dk-name">invoice<span class="dk-hidden" title="hidden character U&#43;202E">[U&#43;202E]</span>gnp.exe</bdi>`,
			`data-name="invoice[U&#43;202E]gnp.exe"`,
			`zero<span class="dk-hidden" title="hidden character U&#43;200B">[U&#43;200B]</span>width`,
		} {
			if !strings.Contains(list, want) {
				t.Errorf("list lacks %s", want)
			}
		}
		if !strings.Contains(pages["confirm"].body, `invoice<span class="dk-hidden" title="hidden character U&#43;202E">[U&#43;202E]</span>gnp.exe`) {
			t.Errorf("confirm page:\n%s", pages["confirm"].body)
		}
		if !strings.Contains(pages["revoked"].body, "Revoked the key “&lt;script&gt;alert(1)&lt;/script&gt;”") {
			t.Errorf("revoked notice:\n%s", pages["revoked"].body)
		}
	})
}

func TestAssetsAndUnknownPaths(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		page := f.do("GET", "/", "org_a", "owner", nil, nil).body
		m := regexp.MustCompile(`<script src="` + path + `(/assets/keys\.js\?v=[0-9a-f]+)" defer></script>`).FindStringSubmatch(page)
		css := regexp.MustCompile(`<link rel="stylesheet" href="` + path + `(/assets/keys\.css\?v=[0-9a-f]+)">`).FindStringSubmatch(page)
		if m == nil || css == nil {
			t.Fatalf("page does not load the script and stylesheet:\n%s", page)
		}
		js := f.do("GET", m[1], "", "", nil, nil)
		if js.status != 200 || js.header.Get("Content-Type") != "text/javascript; charset=utf-8" || !strings.Contains(js.body, "window.confirm") {
			t.Errorf("script: %d %v", js.status, js.header)
		}
		if r := f.do("GET", css[1], "", "", nil, nil); r.status != 200 || !strings.Contains(r.body, ":focus-visible") {
			t.Errorf("stylesheet: %d", r.status)
		}
		if r := f.do("GET", "/assets/nope.js", "", "", nil, nil); r.status != 404 {
			t.Errorf("unknown asset: %d", r.status)
		}
		if r := f.do("GET", "/elsewhere", "org_a", "owner", nil, nil); r.status != 404 {
			t.Errorf("unknown path: %d", r.status)
		}
		if r := f.do("DELETE", "/", "org_a", "owner", nil, nil); r.status != 404 && r.status != 405 {
			t.Errorf("DELETE: %d", r.status)
		}
	})
}
