package demo

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyspage"
)

// The demo's settings pages. Only `svc-api demo` mounts them: the sign-in
// lets anyone who can reach the port act as any demo user, which is the
// point of a demo and never acceptable in `svc-api serve`.
const (
	KeysPath    = "/settings/developer-keys"
	SignInPath  = "/settings/sign-in"
	SignOutPath = "/settings/sign-out"
	Cookie      = "svc_demo_session"
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

// SessionTTL is how long a demo sign-in lasts, however much it is used.
const SessionTTL = 2 * time.Hour

// maxDemoSessions bounds the sessions held: past it, a sign-in ends the
// oldest session (the demo listens on loopback; only a script signs in that
// often).
const maxDemoSessions = 10000

// HSTS is what the demo's pages send over TLS, as the API's responses do.
const HSTS = "max-age=31536000; includeSubDomains"

// demoSessions are the demo's sign-ins, held in memory: each sign-in gets a
// random session value (crypto/rand, 128 bits) that names nothing, valid
// for SessionTTL or until sign-out, and a restart signs everyone out.
// The map is keyed by a hash of the value, so a lookup compares no secret
// byte by byte. Hand-written: a map, a mutex and an expiry are less than a
// session library's setup, and the demo needs nothing more.
type demoSessions struct {
	users  map[string]demoUser // by Value()
	secure bool                // served over TLS: Secure cookies
	mu     sync.Mutex
	live   map[[sha256.Size]byte]demoSession
}

type demoSession struct {
	user    demoUser
	expires time.Time
}

func newDemoSessions(users []demoUser, secure bool) *demoSessions {
	s := &demoSessions{users: map[string]demoUser{}, secure: secure, live: map[[sha256.Size]byte]demoSession{}}
	for _, u := range users {
		s.users[u.Value()] = u
	}
	return s
}

// signIn starts a session for u and returns its cookie. It ends the
// session r carries, if any: a sign-in never keeps an earlier value alive.
func (s *demoSessions) signIn(r *http.Request, u demoUser) *http.Cookie {
	value := rand.Text()
	now := Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, err := r.Cookie(Cookie); err == nil {
		delete(s.live, sha256.Sum256([]byte(c.Value)))
	}
	var oldest [sha256.Size]byte
	for id, ss := range s.live {
		if !now.Before(ss.expires) {
			delete(s.live, id)
		} else if _, ok := s.live[oldest]; !ok || ss.expires.Before(s.live[oldest].expires) {
			oldest = id
		}
	}
	if len(s.live) >= maxDemoSessions {
		delete(s.live, oldest)
	}
	s.live[sha256.Sum256([]byte(value))] = demoSession{user: u, expires: now.Add(SessionTTL)}
	return s.cookie(value, int(SessionTTL/time.Second))
}

// signOut ends the session r carries and returns the cookie that clears it.
func (s *demoSessions) signOut(r *http.Request) *http.Cookie {
	if c, err := r.Cookie(Cookie); err == nil {
		s.mu.Lock()
		delete(s.live, sha256.Sum256([]byte(c.Value)))
		s.mu.Unlock()
	}
	return s.cookie("", -1)
}

func (s *demoSessions) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: Cookie, Value: value, Path: "/settings/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode}
}

// user returns the signed-in demo user, if any.
func (s *demoSessions) user(r *http.Request) (demoUser, bool) {
	c, err := r.Cookie(Cookie)
	if err != nil {
		return demoUser{}, false
	}
	id := sha256.Sum256([]byte(c.Value))
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.live[id]
	if !ok {
		return demoUser{}, false
	}
	if !Now().Before(ss.expires) {
		delete(s.live, id)
		return demoUser{}, false
	}
	return ss.user, true
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
// and the sign-in) and its sign-in form. demoUser is bound in Settings.
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
<p><strong>Snapshot demo</strong> · Settings{{with demoUser .Identity}} · {{.OrgName}} ({{.Subscription}}) · signed in as {{.UserID}}, {{.Role}}{{end}} · <a href="` + SignInPath + `">Switch user</a></p>
{{if demoUser .Identity}}<form method="post" action="` + SignOutPath + `"><button type="submit">Sign out</button></form>{{end}}
</header>
<main class="dk-main">
{{.Content}}
</main>
</body>
</html>{{end}}

{{define "signin"}}<section class="dk" aria-labelledby="demo-title">
<h1 id="demo-title">Sign in to the demo</h1>
<p class="dk-lead">This sign-in exists only in <code>svc-api demo</code>: pick a demo user to see the Developer keys page as them. No password; nothing here is real.</p>
<form method="post" action="` + SignInPath + `">
<fieldset class="dk-group">
<legend>Demo user</legend>
{{range $i, $u := .}}<label class="dk-check"><input type="radio" name="user" value="{{$u.Value}}"{{if eq $i 0}} checked{{end}}> {{$u.UserID}}: {{$u.Role}} of {{$u.OrgName}} ({{$u.Subscription}})</label><br>
{{end}}
</fieldset>
<p><button type="submit" class="dk-primary">Sign in</button></p>
</form>
</section>{{end}}
`

// Settings returns the handler of `svc-api demo`: the Developer keys
// page at /settings/developer-keys/ behind the demo sign-in at
// /settings/sign-in (and sign-out), and api for everything else. With tls,
// the session cookie is Secure and the settings pages send HSTS.
func Settings(ks *keys.Manager, api http.Handler, log *slog.Logger, now time.Time, tls bool) (http.Handler, error) {
	users := demoUsers(now)
	sessions := newDemoSessions(users, tls)
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
		Keys: ks, Identify: sessions.identify, Path: KeysPath, SignInURL: SignInPath,
		Layout: tmpl.Lookup("layout"), Logger: log, ReferenceURL: "/developers/api",
	})
	if err != nil {
		return nil, err
	}
	signIn := demoSignIn(tmpl, sessions, users)
	mux := http.NewServeMux()
	mux.Handle(KeysPath+"/", page)
	mux.Handle(SignInPath, signIn)
	mux.Handle(SignOutPath, signIn)
	mux.Handle("/", api)
	if !tls {
		return mux, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", HSTS) // the API sets its own too
		mux.ServeHTTP(w, r)
	}), nil
}

// demoSignIn serves the sign-in page, the sign-in and the sign-out, behind
// CrossOriginProtection and the headers of the keys page.
func demoSignIn(tmpl *template.Template, sessions *demoSessions, users []demoUser) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+SignInPath, func(w http.ResponseWriter, r *http.Request) {
		var content, out bytes.Buffer
		if err := tmpl.ExecuteTemplate(&content, "signin", users); err != nil {
			http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
			return
		}
		id, _ := sessions.identify(r)
		if err := tmpl.ExecuteTemplate(&out, "layout", keyspage.LayoutData{
			Title: "Sign in", Identity: id,
			Head:    `<link rel="stylesheet" href="` + KeysPath + `/assets/keys.css">`,
			Content: template.HTML(content.String()), //nolint:gosec // html/template output
		}); err != nil {
			http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = out.WriteTo(w)
	})
	mux.HandleFunc("POST "+SignInPath, func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		u, ok := sessions.users[r.PostFormValue("user")]
		if !ok {
			http.Error(w, "Pick one of the demo users.", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, sessions.signIn(r, u))
		http.Redirect(w, r, KeysPath+"/", http.StatusSeeOther)
	})
	mux.HandleFunc("POST "+SignOutPath, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, sessions.signOut(r))
		http.Redirect(w, r, SignInPath, http.StatusSeeOther)
	})
	return http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", keyspage.ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	}))
}
