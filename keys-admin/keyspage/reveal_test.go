package keyspage_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/adsnap/svc/keys-admin/keyspage"
)

// The one view of a new key, as the review's reproduction does it: post a
// create, then GET the redirect's target twice (issue 30, finding 7).
func TestCreateRedirectsToAOneTimeView(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		post := f.do("POST", "/", "org_a", "owner", createForm("ci", "30", "", "accounts:read"), nil)
		loc := post.header.Get("Location")
		if post.status != http.StatusSeeOther || !reView.MatchString(loc) || reSecret.MatchString(post.body) {
			t.Fatalf("create: %d, Location %q\n%s", post.status, loc, post.body)
		}
		view := strings.TrimPrefix(loc, path)
		if f.count("org_a") != 1 {
			t.Fatalf("keys after one create: %d", f.count("org_a"))
		}

		// Another user of the organization, or of another one, holding the
		// URL gets nothing, and does not use the view up.
		for _, who := range [][2]string{{"org_a", "admin"}, {"org_b", "b_owner"}} {
			r := f.do("GET", view, who[0], who[1], nil, nil)
			if reSecret.MatchString(r.body) || !strings.Contains(r.body, "cannot show it again") {
				t.Errorf("%s/%s opened the owner's view: %d\n%s", who[0], who[1], r.status, r.body)
			}
		}
		// Nor does a HEAD, or a visitor who is not signed in.
		if r := f.do("HEAD", view, "org_a", "owner", nil, nil); r.status != http.StatusOK {
			t.Errorf("HEAD: %d", r.status)
		}
		if r := f.do("GET", view, "", "", nil, nil); r.status != http.StatusUnauthorized || reSecret.MatchString(r.body) {
			t.Errorf("no session: %d", r.status)
		}

		first := f.do("GET", view, "org_a", "owner", nil, nil)
		secret := reSecret.FindString(first.body)
		if first.status != http.StatusOK || secret == "" || strings.Contains(first.body, "cannot show it again") {
			t.Fatalf("first view: %d\n%s", first.status, first.body)
		}
		if strings.Contains(loc, secret) || strings.Contains(loc, secret[len("svc_live_"):]) {
			t.Errorf("the redirect URL %q holds the key", loc)
		}
		if _, err := f.auth.Lookup(t.Context(), secret); err != nil {
			t.Errorf("the key shown does not work: %v", err)
		}

		// A reload of the view, and of the list, shows no key and creates none.
		for _, p := range []string{view, view, "/"} {
			r := f.do("GET", p, "org_a", "owner", nil, nil)
			if r.status != http.StatusOK || reSecret.MatchString(r.body) || strings.Contains(r.body, "dk-secret") {
				t.Errorf("GET %s again: %d\n%s", p, r.status, r.body)
			}
			if p == view && !strings.Contains(r.body, "This link showed a new key once and cannot show it again") {
				t.Errorf("the view used up does not say why it is empty:\n%s", r.body)
			}
		}
		if n := f.count("org_a"); n != 1 {
			t.Errorf("keys after the views: %d, want 1", n)
		}
		if strings.Contains(f.logs.String(), secret) {
			t.Errorf("a log line holds the key:\n%s", f.logs)
		}
	})
}

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestOneTimeViewExpires(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		c := &clock{t: time.Now()}
		f := setupWith(t, b, nil, c.now)
		viewAfter := func(wait time.Duration) response {
			t.Helper()
			post := f.do("POST", "/", "org_a", "owner", createForm("late", "7", "", "accounts:read"), nil)
			if post.status != http.StatusSeeOther {
				t.Fatalf("create: %d\n%s", post.status, post.body)
			}
			c.add(wait)
			return f.do("GET", strings.TrimPrefix(post.header.Get("Location"), path), "org_a", "owner", nil, nil)
		}
		if r := viewAfter(keyspage.RevealTTL - time.Second); !reSecret.MatchString(r.body) {
			t.Errorf("the view just before RevealTTL shows no key:\n%s", r.body)
		}
		r := viewAfter(keyspage.RevealTTL)
		if r.status != http.StatusOK || reSecret.MatchString(r.body) || !strings.Contains(r.body, "revoke it below and create another") {
			t.Errorf("the view at RevealTTL: %d\n%s", r.status, r.body)
		}
		// The key that nobody saw is listed, active, for its owner to revoke.
		if r := f.do("GET", "/", "org_a", "owner", nil, nil); strings.Count(r.body, `class="dk-revoke"`) != 2 {
			t.Errorf("the list after an expired view:\n%s", r.body)
		}
	})
}

// store is a RevealStore of the test's own: a map that records the ids it
// was given, and refuses every Put while failing is set.
type store struct {
	mu      sync.Mutex
	failing bool
	m       map[string]*keys.CreatedKey
	ids     []string
	values  []string
}

func (s *store) Put(_ context.Context, id string, k *keys.CreatedKey, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
	s.values = append(s.values, k.Key)
	if s.failing {
		return errors.New("store unreachable")
	}
	s.m[id] = k
	return nil
}

func (s *store) Take(_ context.Context, id string) (*keys.CreatedKey, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.m[id]
	delete(s.m, id)
	return k, time.Now().Add(time.Minute), nil
}

// A host's own RevealStore gets a hash, never the URL's token; when it
// fails, the key nobody will see is revoked at once and the log names the
// key's id, never its value.
func TestRevealStoreOfTheHost(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		s := &store{m: map[string]*keys.CreatedKey{}}
		f := setupWith(t, b, s, time.Now)
		post, view := f.create("org_a", "owner", createForm("shared", "7", "", "accounts:read"))
		if post.status != http.StatusSeeOther {
			t.Fatalf("create: %d, want a redirect to the key's view", post.status)
		}
		token := strings.TrimPrefix(post.header.Get("Location"), path+"/created/")
		if !reSecret.MatchString(view.body) || len(s.ids) != 1 || strings.Contains(s.ids[0], token) || len(s.m) != 0 {
			t.Errorf("host store: ids %q for token %s, %d left\n%s", s.ids, token, len(s.m), view.body)
		}

		s.mu.Lock()
		s.failing = true
		s.mu.Unlock()
		r := f.do("POST", "/", "org_a", "owner", createForm("unseen", "7", "", "accounts:read"), nil)
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "revoked at once") || reSecret.MatchString(r.body) {
			t.Errorf("store failure: %d\n%s", r.status, r.body)
		}
		list, err := f.svc.List(t.Context(), "org_a", "owner")
		if err != nil || len(list) != 2 || list[0].Name != "unseen" || list[0].State != keys.StateRevoked || list[1].State != keys.StateActive {
			t.Fatalf("keys after the failure: %+v %v", list, err)
		}
		logs := f.logs.String()
		if !strings.Contains(logs, "store unreachable") || !strings.Contains(logs, list[0].ID) {
			t.Errorf("the failure is not logged with the key's id:\n%s", logs)
		}
		for _, v := range s.values {
			if strings.Contains(logs, v) {
				t.Errorf("the log holds a key value:\n%s", logs)
			}
		}
	})
}
