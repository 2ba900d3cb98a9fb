package keyspage_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/adsnap/svc/keys-admin/keys"
)

// TestRollOnThePage: "Roll" leads to a form; its POST redirects to the new
// key's one view, which names the old key and until when it works; the list
// then shows both, the old one marked rolled with its expiry; refusals are
// said next to their control, and a rolled key cannot be rolled again.
func TestRollOnThePage(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, migrate, func(t *testing.T, b dbtest.Backend) {
		f := setup(t, b)
		_, view := f.create("org_a", "owner", createForm("etl", "30", "", "accounts:read", "insights:read"))
		old := reSecret.FindString(view.body)
		p, err := f.auth.Lookup(t.Context(), old)
		if err != nil {
			t.Fatal(err)
		}
		page := f.do("GET", "/", "org_a", "admin", nil, nil)
		link := `href="` + path + `/roll/` + p.KeyID + `"`
		if !strings.Contains(page.body, link) {
			t.Fatalf("no roll link %s on the page:\n%s", link, page.body)
		}
		form := f.do("GET", "/roll/"+p.KeyID, "org_a", "admin", nil, nil)
		for _, want := range []string{`name="grace" value="0"`, `name="grace" value="86400" checked`, `name="grace" value="604800"`, `name="expiry" value="30" checked`} {
			if form.status != http.StatusOK || !strings.Contains(form.body, want) {
				t.Fatalf("roll form lacks %s: %d\n%s", want, form.status, form.body)
			}
		}
		if r := f.do("POST", "/roll/"+p.KeyID, "org_a", "admin", url.Values{"expiry": {"30"}, "grace": {"999999"}}, nil); r.status != http.StatusBadRequest ||
			!strings.Contains(r.body, "dk-grace-error") {
			t.Fatalf("grace of 11 days: %d\n%s", r.status, r.body)
		}
		if r := f.do("POST", "/roll/"+p.KeyID, "org_a", "member", url.Values{"expiry": {"30"}, "grace": {"3600"}}, nil); r.status != http.StatusForbidden {
			t.Fatalf("member's roll: %d", r.status)
		}
		if r := f.do("POST", "/roll/"+p.KeyID, "org_b", "b_owner", url.Values{"expiry": {"30"}, "grace": {"3600"}}, nil); r.status != http.StatusNotFound {
			t.Fatalf("another organization's roll: %d", r.status)
		}
		if n := f.count("org_a"); n != 1 {
			t.Fatalf("refused rolls created keys: %d", n)
		}

		post := f.do("POST", "/roll/"+p.KeyID, "org_a", "admin", url.Values{"expiry": {"custom"}, "custom_days": {"45"}, "grace": {"3600"}}, nil)
		loc := post.header.Get("Location")
		if post.status != http.StatusSeeOther || !reView.MatchString(loc) {
			t.Fatalf("roll: %d to %q\n%s", post.status, loc, post.body)
		}
		view = f.do("GET", strings.TrimPrefix(loc, path), "org_a", "admin", nil, nil)
		fresh := reSecret.FindString(view.body)
		if fresh == "" || fresh == old || !strings.Contains(view.body, `id="dk-rolled-note"`) || !strings.Contains(view.body, "keeps working until") {
			t.Fatalf("the roll's view:\n%s", view.body)
		}
		np, err := f.auth.Lookup(t.Context(), fresh)
		if err != nil || np.Scopes != p.Scopes || np.ExpiresAt.Sub(time.Now()) < 44*24*time.Hour {
			t.Fatalf("the new key: %+v %v", np, err)
		}
		op, err := f.auth.Lookup(t.Context(), old)
		if err != nil || op.ExpiresAt.Sub(time.Now()) > time.Hour {
			t.Fatalf("the old key during its grace: %+v %v", op, err)
		}
		page = f.do("GET", "/", "org_a", "admin", nil, nil)
		if strings.Count(page.body, "rolled: works until") != 1 || strings.Contains(page.body, link) || !strings.Contains(page.body, "2 of 10 active keys") {
			t.Fatalf("the list after the roll:\n%s", page.body)
		}
		again := f.do("POST", "/roll/"+p.KeyID, "org_a", "admin", url.Values{"expiry": {"30"}, "grace": {"0"}}, nil)
		if again.status != http.StatusConflict || !strings.Contains(again.body, "already rolled") {
			t.Fatalf("second roll: %d\n%s", again.status, again.body)
		}

		// No grace: the old key stops at once.
		post = f.do("POST", "/roll/"+np.KeyID, "org_a", "owner", url.Values{"expiry": {"7"}, "grace": {"0"}}, nil)
		if post.status != http.StatusSeeOther {
			t.Fatalf("roll with no grace: %d\n%s", post.status, post.body)
		}
		if _, err := f.auth.Lookup(t.Context(), fresh); err != keys.ErrUnauthenticated {
			t.Fatalf("rolled with no grace: %v", err)
		}
	})
}
