package cli

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyspage"
)

// The demo's settings pages. Only `svc-api demo` mounts them: the sign-in
// lets anyone who can reach the port act as any demo user, which is the
// point of a demo and never acceptable in `svc-api serve`.
const (
	demoKeysPath   = "/settings/developer-keys"
	demoSignInPath = "/settings/sign-in"
	demoCookie     = "svc_demo_session"
)

// demoUser is one user the demo sign-in offers.
type demoUser struct {
	OrgID, OrgName, Subscription, UserID, Role string
}

// Value is the form value naming the user: organization and user id.
func (u demoUser) Value() string { return u.OrgID + " " + u.UserID }

// demoUsers lists the members of the demo snapshot's organizations.
func demoUsers(now time.Time) []demoUser {
	var out []demoUser
	rank := map[string]int{keys.RoleOwner: 0, keys.RoleAdmin: 1, keys.RoleMember: 2}
	for _, o := range snapshot.Demo(now).Organizations {
		slices.SortStableFunc(o.Members, func(a, b snapshot.Member) int { return rank[a.Role] - rank[b.Role] })
		sub := o.SubscriptionStatus
		if sub == keys.SubscriptionTrialing {
			sub = "trial"
		}
		for _, m := range o.Members {
			out = append(out, demoUser{OrgID: o.ID, OrgName: o.Name, Subscription: sub, UserID: m.UserID, Role: m.Role})
		}
	}
	return out
}

// demoSessions signs the demo's session cookie with a key made at start, so
// that a cookie cannot name a user it was not given for (a restart signs
// everyone out). The cookie holds no secret, only who signed in.
type demoSessions struct {
	key   []byte
	users map[string]demoUser // by Value()
}

func newDemoSessions(users []demoUser) (*demoSessions, error) {
	s := &demoSessions{key: make([]byte, 32), users: map[string]demoUser{}}
	if _, err := rand.Read(s.key); err != nil {
		return nil, fmt.Errorf("demo session key: %w", err)
	}
	for _, u := range users {
		s.users[u.Value()] = u
	}
	return s, nil
}

func (s *demoSessions) mac(v string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *demoSessions) cookie(u demoUser) *http.Cookie {
	v := base64.RawURLEncoding.EncodeToString([]byte(u.Value()))
	return &http.Cookie{Name: demoCookie, Value: v + "." + s.mac(v), Path: "/settings/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// user returns the signed-in demo user, if any.
func (s *demoSessions) user(r *http.Request) (demoUser, bool) {
	c, err := r.Cookie(demoCookie)
	if err != nil {
		return demoUser{}, false
	}
	v, mac, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(s.mac(v))) {
		return demoUser{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return demoUser{}, false
	}
	u, ok := s.users[string(raw)]
	return u, ok
}

// identify is the keyspage.IdentityFunc of the demo.
func (s *demoSessions) identify(r *http.Request) (keyspage.Identity, error) {
	u, ok := s.user(r)
	if !ok {
		return keyspage.Identity{}, errors.New("not signed in")
	}
	return keyspage.Identity{OrganizationID: u.OrgID, UserID: u.UserID}, nil
}

// demoTemplateText is the demo's layout (around the Developer keys section
// and the sign-in) and its sign-in form. demoUser is bound in demoSettings.
const demoTemplateText = `
{{define "layout"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Snapshot demo settings</title>
{{.Head}}
</head>
<body>
<header class="dk-main">
<p><strong>Snapshot demo</strong> · Settings{{with demoUser .Identity}} · {{.OrgName}} ({{.Subscription}}) · signed in as {{.UserID}}, {{.Role}}{{end}} · <a href="` + demoSignInPath + `">Switch user</a></p>
</header>
<main class="dk-main">
{{.Content}}
</main>
</body>
</html>{{end}}

{{define "signin"}}<section class="dk" aria-labelledby="demo-title">
<h1 id="demo-title">Sign in to the demo</h1>
<p class="dk-lead">This sign-in exists only in <code>svc-api demo</code>: pick a demo user to see the Developer keys page as them. No password; nothing here is real.</p>
<form method="post" action="` + demoSignInPath + `">
<fieldset class="dk-group">
<legend>Demo user</legend>
{{range $i, $u := .}}<label class="dk-check"><input type="radio" name="user" value="{{$u.Value}}"{{if eq $i 0}} checked{{end}}> {{$u.UserID}}: {{$u.Role}} of {{$u.OrgName}} ({{$u.Subscription}})</label><br>
{{end}}
</fieldset>
<p><button type="submit" class="dk-primary">Sign in</button></p>
</form>
</section>{{end}}
`

// demoSettings returns the handler of `svc-api demo`: the Developer keys
// page at /settings/developer-keys/ behind the demo sign-in at
// /settings/sign-in, and api for everything else.
func demoSettings(ks *keys.Manager, api http.Handler, log *slog.Logger, now time.Time) (http.Handler, error) {
	users := demoUsers(now)
	sessions, err := newDemoSessions(users)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("").Funcs(template.FuncMap{
		"demoUser": func(id keyspage.Identity) *demoUser {
			if u, ok := sessions.users[id.OrganizationID+" "+id.UserID]; ok {
				return &u
			}
			return nil
		},
	}).Parse(demoTemplateText)
	if err != nil {
		return nil, fmt.Errorf("demo templates: %w", err)
	}
	page, err := keyspage.New(keyspage.Config{
		Keys: ks, Identify: sessions.identify, Path: demoKeysPath, SignInURL: demoSignInPath,
		Layout: tmpl.Lookup("layout"), Logger: log,
	})
	if err != nil {
		return nil, err
	}
	signIn := http.NewServeMux()
	signIn.HandleFunc("GET "+demoSignInPath, func(w http.ResponseWriter, r *http.Request) {
		var content, out bytes.Buffer
		if err := tmpl.ExecuteTemplate(&content, "signin", users); err != nil {
			http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
			return
		}
		id, _ := sessions.identify(r)
		if err := tmpl.ExecuteTemplate(&out, "layout", keyspage.LayoutData{
			Title: "Sign in", Identity: id,
			Head:    `<link rel="stylesheet" href="` + demoKeysPath + `/assets/keys.css">`,
			Content: template.HTML(content.String()), //nolint:gosec // html/template output
		}); err != nil {
			http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = out.WriteTo(w)
	})
	signIn.HandleFunc("POST "+demoSignInPath, func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		u, ok := sessions.users[r.PostFormValue("user")]
		if !ok {
			http.Error(w, "Pick one of the demo users.", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, sessions.cookie(u))
		http.Redirect(w, r, demoKeysPath+"/", http.StatusSeeOther)
	})
	guarded := http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", keyspage.ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		signIn.ServeHTTP(w, r)
	}))

	mux := http.NewServeMux()
	mux.Handle(demoKeysPath+"/", page)
	mux.Handle(demoSignInPath, guarded)
	mux.Handle("/", api)
	return mux, nil
}
