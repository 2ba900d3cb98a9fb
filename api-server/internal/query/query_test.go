package query

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/apikey"
)

var now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func TestParseDefaults(t *testing.T) {
	p, probs := Parse("", Insights, now)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := Params{Limit: 50, Offset: 0, From: "2026-10-23", To: "2026-11-21"}
	if p != want {
		t.Errorf("%+v, want %+v", p, want)
	}
	p, _ = Parse("from=2026-11-01", Insights, now)
	if p.From != "2026-11-01" || p.To != "2026-11-21" {
		t.Errorf("only from: %+v", p)
	}
	p, _ = Parse("to=2026-11-10", Insights, now)
	if p.From != "2026-10-12" || p.To != "2026-11-10" {
		t.Errorf("only to: %+v", p)
	}
	p, probs = Parse("limit=100&offset=10000&accountId=acc_1-X", Accounts, now)
	if len(probs) > 0 || p.Limit != 100 || p.Offset != 10000 || p.AccountID != "acc_1-X" || p.From != "" {
		t.Errorf("%+v %v", p, probs)
	}
	if _, probs := Parse("from=2026-08-24&to=2026-11-21", Insights, now); len(probs) != 0 {
		t.Errorf("90 days: %v", probs)
	}
	if _, probs := Parse("from=2026-08-23&to=2026-11-21", Insights, now); len(probs) != 1 {
		t.Errorf("91 days: %v", probs)
	}
}

// TestPlainDigits: limit and offset take plain decimal digits only, so that
// one number has one spelling (issue 30, finding 10): no sign (%2B5 is
// "+5"), no leading zero, nothing but digits; every problem listed.
func TestPlainDigits(t *testing.T) {
	for _, q := range []string{"limit=%2B5", "limit=05", "limit=-0", "offset=010", "offset=-0", "offset=%2B0", "offset=00",
		"limit=%205", "limit=5%20", "limit=1e1", "limit=0x10", "offset=-1", "limit=%EF%BC%95", "offset=1_000", "limit="} {
		_, probs := Parse(q, Accounts, now)
		name, _, _ := strings.Cut(q, "=")
		want := name + " must be an integer between "
		if len(probs) != 1 || !strings.HasPrefix(probs[0], want) || !strings.Contains(probs[0], "plain digits") {
			t.Errorf("%s: %q, want one problem %q… in plain digits", q, probs, want)
		}
	}
	if _, probs := Parse("limit=%2B5&offset=010", Accounts, now); len(probs) != 2 {
		t.Errorf("both wrong: %q, want two problems", probs)
	}
	for q, want := range map[string]Params{
		"offset=0":              {Limit: 50},
		"limit=1&offset=10":     {Limit: 1, Offset: 10},
		"limit=100&offset=9999": {Limit: 100, Offset: 9999},
	} {
		if p, probs := Parse(q, Accounts, now); len(probs) != 0 || p != want {
			t.Errorf("%s: %+v %q, want %+v", q, p, probs, want)
		}
	}
}

func TestInspect(t *testing.T) {
	for q, want := range map[string]Rejection{
		"":                        None,
		"limit=5":                 None,
		"KEY=x":                   CredentialInQuery,
		"access%5Ftoken=x":        CredentialInQuery,
		"x=SVC_LIVE_abc":          CredentialInQuery,
		"x=%73vc_live_abc":        CredentialInQuery,
		"Authorization=x&orgId=1": CredentialInQuery,
		"orgId=1":                 OrgOverride,
		"Organization=1":          OrgOverride,
		"org_id=%zz":              OrgOverride,
		"keys=1":                  None,
	} {
		if got := Inspect(q); got != want {
			t.Errorf("Inspect(%q) = %q, want %q", q, got, want)
		}
	}
}

// FuzzParse: Parse never panics, reports problems as non-empty strings, and
// whatever it accepts is within the documented bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "limit=1", "limit=100&offset=10000", "offset=-1", "limit=1&limit=2",
		"from=2026-11-01&to=2026-11-21", "from=2026-02-30", "to=2030-01-01", "accountId=a%20b", "%zz",
		"a=1;b=2", "from=2026-08-23", "limit=+5", "limit=%2B5", "offset=010", "offset=-0", "to=0000-10-01", "to=0000-01-15", "to=0001-01-15", "from=0000-12-31&to=0001-01-01", "limit=0x10", "accountId=" + strings.Repeat("a", 129)} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, raw string, ep uint8) {
		e := Endpoint(ep % 3)
		p, probs := Parse(raw, e, now)
		for _, m := range probs {
			if m == "" {
				t.Fatal("empty problem")
			}
		}
		_ = Inspect(raw)
		if len(probs) > 0 {
			return
		}
		if p.Limit < 1 || p.Limit > MaxLimit || p.Offset < 0 || p.Offset > MaxOffset {
			t.Fatalf("accepted out of range %+v", p)
		}
		if p.AccountID != "" && !reAccountID.MatchString(p.AccountID) {
			t.Fatalf("accepted accountId %q", p.AccountID)
		}
		if e == Insights {
			from, err1 := time.Parse(time.DateOnly, p.From)
			to, err2 := time.Parse(time.DateOnly, p.To)
			if err1 != nil || err2 != nil || from.After(to) || to.After(now) || to.Sub(from) >= MaxRangeDays*24*time.Hour {
				t.Fatalf("accepted dates %+v", p)
			}
			// Both sides of every computation lie in years 1 to 9999.
			if from.Year() < 1 || from.Year() > 9999 || to.Year() < 1 || to.Year() > 9999 {
				t.Fatalf("accepted dates outside years 1-9999: %+v", p)
			}
		} else if p.From != "" || p.To != "" {
			t.Fatalf("dates on %d", e)
		}
		if slices.Contains([]Endpoint{Accounts, Campaigns}, e) && strings.Contains(raw, "from=") && len(probs) == 0 {
			// "from" is unknown outside insights, unless it is part of another name.
			for _, pair := range strings.Split(raw, "&") {
				if strings.HasPrefix(pair, "from=") {
					t.Fatalf("accepted from on %d: %q", e, raw)
				}
			}
		}
	})
}

// testKey is a real key: the guard must find it however it is written.
func testKey(t testing.TB) string {
	k, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestInspectEncodings: a key in the query is found whatever its encoding
// and separators (issue #22 points 5 and 10).
func TestInspectEncodings(t *testing.T) {
	k := testKey(t)
	body := strings.TrimPrefix(k, KeyMarker)
	double := strings.ReplaceAll(url.QueryEscape(url.QueryEscape(k)), "_", "%255F")
	for _, q := range []string{
		"limit=5%note=svc%5Flive_" + body, // invalid escape before the key: url.QueryUnescape fails on the pair
		"limit=5&note=" + double,          // double encoding
		"limit=5;note=" + k,               // ';' separator
		"limit=5;note=svc%5Flive_" + body,
		"note=" + body,  // a bare secret
		"note=x" + body, // glued to other letters
		"limit=5;x=" + body + "&y=1",
		"a=%" + body,
		"note=" + strings.ReplaceAll(url.QueryEscape(url.QueryEscape(url.QueryEscape(k))), "_", "%25255F"),
		"limit=5;api_key=x",     // a credential name after ';'
		"limit=5&ap%69%5Fkey=x", // an encoded credential name
		"x=%25252525252541",     // encoded past any reading
	} {
		if got := Inspect(q); got != CredentialInQuery {
			t.Errorf("Inspect(%q) = %q, want credential", q, got)
		}
	}
	for _, q := range []string{"limit=5;orgId=1", "limit=5&%6Frg=x", "tenant=1&org%5Fid=2"} {
		if got := Inspect(q); got != OrgOverride {
			t.Errorf("Inspect(%q) = %q, want organization", q, got)
		}
	}
	// Not keys: a long accountId, a near-miss of a key (one character
	// changed), an ordinary encoded value.
	near := []byte(body)
	near[10] ^= 1
	for _, q := range []string{"accountId=" + strings.Repeat("a", 128), "note=" + string(near), "accountId=acc%5F1", "limit=5"} {
		if got := Inspect(q); got != None {
			t.Errorf("Inspect(%q) = %q, want none", q, got)
		}
	}
}

// TestKeyShapedAgreesWithApikey: KeyShaped's restated format agrees with
// keys-admin's: every generated key and its bare body are key-shaped; a
// body with one character changed is not.
func TestKeyShapedAgreesWithApikey(t *testing.T) {
	for range 200 {
		k := testKey(t)
		body := k[len(KeyMarker):]
		if !KeyShaped(k) || !KeyShaped(body) || !KeyShaped("("+body+")") {
			t.Fatalf("generated key not key-shaped")
		}
		b := []byte(body)
		b[len(b)-1] = base62[(strings.IndexByte(base62, b[len(b)-1])+1)%62]
		if KeyShaped(string(b)) || apikey.Validate(KeyMarker+string(b)) == nil {
			t.Fatalf("changed body still valid")
		}
	}
	if KeyShaped("abc-DEF_123") || !KeyShaped(strings.Repeat("a", maxRun+1)) {
		t.Error("KeyShaped on plain values")
	}
}

// TestYearBounds: dates outside years 1 to 9999, given or computed, are
// refused before any query reaches the database (issue #22 point 10).
func TestYearBounds(t *testing.T) {
	for _, q := range []string{"to=0000-10-01", "to=0000-01-15", "from=0000-12-31&to=0001-01-01", "from=0000-01-01"} {
		if _, probs := Parse(q, Insights, now); len(probs) == 0 || !strings.Contains(strings.Join(probs, " "), "between 0001-01-01 and 9999-12-31") {
			t.Errorf("%s: problems %v", q, probs)
		}
	}
	// The default window of an early to starts at 0001-01-01, never in year 0.
	p, probs := Parse("to=0001-01-15", Insights, now)
	if len(probs) > 0 || p.From != "0001-01-01" || p.To != "0001-01-15" {
		t.Errorf("to=0001-01-15: %+v %v", p, probs)
	}
}

// FuzzInspect: a real key written into a query in any of the encodings a
// client, proxy or server may read (plain, bare, prefix in any case, percent
// encoded once or more, with invalid escapes around it, after '&' or ';') is
// always found; and whatever Inspect lets through holds no key-shaped value
// in any of its readings.
func FuzzInspect(f *testing.F) {
	for _, s := range []string{"", "limit=5", "limit=5%", "a=%zz", "x=1;y=2", "%", "note="} {
		f.Add(s, "", uint8(0), uint8(0))
		f.Add(s, "&limit=1", uint8(3), uint8(1))
	}
	key := testKey(f)
	f.Fuzz(func(t *testing.T, before, after string, enc, sep uint8) {
		k := key
		switch enc % 7 {
		case 1:
			k = k[len(KeyMarker):] // bare
		case 2:
			k = strings.ToUpper(KeyMarker) + k[len(KeyMarker):]
		case 3:
			k = strings.ReplaceAll(k, "_", "%5F")
		case 4:
			k = url.QueryEscape(url.QueryEscape(strings.ReplaceAll(k, "_", "%5F")))
		case 5:
			k = "%" + k // an invalid escape right before
		case 6:
			k = strings.ReplaceAll(k, "s", "%73")
		}
		q := before + string("&;"[sep%2]) + "note=" + k + after
		if got := Inspect(q); got != CredentialInQuery {
			t.Fatalf("Inspect(%q) = %q: a key got past the guard", q, got)
		}
		if Inspect(before) == CredentialInQuery {
			return
		}
		for s, i := before, 0; i < maxDecodes; i++ {
			if KeyShaped(s) {
				t.Fatalf("Inspect let %q through; reading %d is key-shaped", before, i)
			}
			s = lenientUnescape(s)
		}
	})
}

// FuzzGuard: the request guard (ScreenURL for every path, GuardAPI for the
// API's, AcceptRequestID) with fuzzed query strings, paths and headers.
// Properties: a real key embedded in the path or the query in any encoding
// (plain, bare, upper-case prefix, percent-encoded once or twice, after an
// invalid escape, after ';') is refused as a credential, so it never
// reaches the key lookup; whatever the guard lets through holds no
// key-shaped value in any reading of the URL, one Authorization header at
// most and no header naming an organization; an accepted X-Request-Id is
// short, plain and not key-shaped.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{"", "limit=5", "limit=5%", "a=%zz", "x=1;y=2", "orgId=1", "from=2026-01-01"} {
		f.Add(s, "", "X-Request-Id", "abc", uint8(0))
		f.Add(s, "&limit=1", "X-Tenant-Id", "t", uint8(3))
		f.Add(s, "", "Authorization", "Bearer x", uint8(7))
	}
	key := testKey(f)
	body := key[len(KeyMarker):]
	f.Fuzz(func(t *testing.T, before, after, hname, hvalue string, enc uint8) {
		embed := enc%8 != 7 // 7: only the fuzzed parts
		k := key
		switch enc % 8 {
		case 1:
			k = body
		case 2:
			k = strings.ToUpper(KeyMarker) + body
		case 3:
			k = strings.ReplaceAll(k, "_", "%5F")
		case 4:
			k = strings.ReplaceAll(url.QueryEscape(url.QueryEscape(k)), "_", "%255F")
		case 5:
			k = "%" + k
		}
		path, q := "/api/v1/developer/accounts", before
		switch {
		case embed && enc%8 == 6:
			path += "/" + k
		case embed:
			q = before + ";note=" + k + after
		}
		uri := path
		if q != "" {
			uri += "?" + q
		}
		header := map[string][]string{"Authorization": {"Bearer " + key}}
		header[hname] = append(header[hname], hvalue)
		screened := ScreenURL(uri)
		guarded, _ := GuardAPI(q, header)
		if embed && screened != CredentialInURL && guarded != CredentialInQuery {
			t.Fatalf("a key in %q got past the guard (%q, %q)", uri, screened, guarded)
		}
		if screened == None && guarded == None {
			// What reaches the key lookup.
			_, rawQuery, _ := strings.Cut(uri, "?")
			if URLHoldsKey(path) || URLHoldsKey(rawQuery) || Inspect(rawQuery) != None ||
				OrgHeader(header) != "" || len(header["Authorization"]) != 1 || strings.Contains(path, "%") {
				t.Fatalf("%q with header %q passed the guard", uri, hname)
			}
		}
		if AcceptRequestID(hvalue) && (KeyShaped(hvalue) || len(hvalue) > 64 || strings.ContainsAny(hvalue, " %/\\\"'<>")) {
			t.Fatalf("X-Request-Id %q accepted", hvalue)
		}
	})
}

// BenchmarkGuard: the guard's cost on an ordinary API request (it runs on
// every request).
func BenchmarkGuard(b *testing.B) {
	header := map[string][]string{"Authorization": {"Bearer x"}, "Accept": {"application/json"},
		"User-Agent": {"svc-cli/1.0.0"}, "X-Request-Id": {"3f2a9c1e-77b0-4d1c-9a51-0c6f1a2b3c4d"}}
	uri := "/api/v1/developer/insights?accountId=acc_alpha_eur&from=2026-10-01&to=2026-10-30&limit=100&offset=200"
	b.ReportAllocs()
	for b.Loop() {
		_, q, _ := strings.Cut(uri, "?")
		if ScreenURL(uri) != None {
			b.Fatal("screen")
		}
		if r, _ := GuardAPI(q, header); r != None {
			b.Fatal("guard")
		}
		if !AcceptRequestID(header["X-Request-Id"][0]) {
			b.Fatal("id")
		}
	}
}
