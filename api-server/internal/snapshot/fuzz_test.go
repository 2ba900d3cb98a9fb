package snapshot_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/testenv"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// rePath splits a problem's path: $, then .name or [i] steps.
var rePath = regexp.MustCompile(`\.[A-Za-z0-9_]+|\[[0-9]+\]|\["(?:[^"\\]|\\.)*"\]`)

// resolve walks path (the part of a problem before ": ") in the document
// decoded generically, and returns how many steps exist and how many the
// path has.
func resolve(doc any, path string) (found, steps int) {
	if !strings.HasPrefix(path, "$") {
		return -1, 0
	}
	parts := rePath.FindAllString(path[1:], -1)
	if strings.Join(parts, "") != path[1:] {
		return -1, 0
	}
	cur := doc
	for i, p := range parts {
		switch v := cur.(type) {
		case map[string]any:
			name := strings.TrimPrefix(p, ".")
			if strings.HasPrefix(p, `["`) {
				if err := json.Unmarshal([]byte(p[1:len(p)-1]), &name); err != nil {
					return -1, 0
				}
			} else if p[0] != '.' {
				return i, len(parts)
			}
			next, ok := v[name]
			if !ok {
				return i, len(parts)
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(strings.Trim(p, "[]"))
			if err != nil || p[0] != '[' || n >= len(v) {
				return i, len(parts)
			}
			cur = v[n]
		default:
			return i, len(parts)
		}
	}
	return len(parts), len(parts)
}

// databaseChecks are the problems only the database can find.
var databaseChecks = []string{"is neither in the document nor in the database", "already belongs to another",
	"belongs to another account than", "duplicate id"}

// FuzzValidate checks properties of the snapshot validator on any input:
//   - every problem Parse or Validate reports names a path that exists in
//     the input, except the last step of a required field that is absent;
//   - the streamed import refuses whatever Parse and Validate refuse, with
//     a *ValidationError, on both backends;
//   - a document they accept imports on both backends without a database
//     error: it lands, or is refused only for what needs the database
//     (references, ownership), never by PostgreSQL or SQLite themselves.
func FuzzValidate(f *testing.F) {
	today := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	f.Add([]byte(testenv.Fixture(today)))
	f.Add([]byte(`{"insights": [` + insightJSON("i1", "0000-01-01", `,"rawPayload":{"a":"\u0000"}`) + `]}`))
	f.Add([]byte(`{"organizations":[{"id":"org_f","subscriptionStatus":"active","members":[{"userId":"u","role":"owner"}]}],
		"accounts":[{"id":"acc_f","organizationId":"org_f","platformAdAccountId":"p","accountName":"n\u0000","currency":"EUR","timezone":"UTC","isActive":true}],
		"campaigns":[{"id":"cmp_f","accountId":"acc_f","name":"n","objective":"o","status":"s","dailyBudget":"1.5"}],
		"insights":[{"id":"ins_f","accountId":"acc_f","campaignId":"cmp_f","date":"2026-01-01","attributionWindow":"w",
		"purchaseMeasurement":"unavailable","spend":"1","ctr":"1","cpc":"1","cpm":"1","impressions":1,"reach":1,"clicks":1,
		"rawPayload":{"n":[1e5,-0.5,"\ud83d\ude00"]}}]}`))
	f.Add([]byte(`{"extra":1,"accounts":{}}`))
	pg, lite := dbtest.Postgres(f), dbtest.SQLite(f)
	for _, b := range []dbtest.Backend{pg, lite} {
		if err := testenv.Migrate(f.Context(), b.DB); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var refused []string
		doc, err := snapshot.Parse(bytes.NewReader(input))
		if err == nil {
			err = snapshot.Validate(doc)
		}
		if err != nil {
			var ve *snapshot.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse/Validate returned %T %v", err, err)
			}
			refused = ve.Problems
		}
		var generic any
		jsonErr := json.Unmarshal(input, &generic)
		for _, p := range refused {
			path, msg, ok := strings.Cut(p, ": ")
			if !ok {
				t.Fatalf("problem without a path: %q", p)
			}
			if jsonErr != nil {
				if path != "$" {
					t.Fatalf("input is not JSON but a problem names %q", p)
				}
				continue
			}
			found, steps := resolve(generic, path)
			if found < 0 {
				t.Fatalf("problem with a malformed path: %q", p)
			}
			if found < steps && !(found == steps-1 && strings.Contains(msg, "required")) {
				t.Fatalf("problem names a path that is not in the input: %q", p)
			}
		}
		for _, b := range []dbtest.Backend{pg, lite} {
			_, err := snapshot.ImportStream(t.Context(), b.DB, bytes.NewReader(input), snapshot.Options{Now: today})
			var ve *snapshot.ValidationError
			switch {
			case err == nil && len(refused) > 0:
				t.Fatalf("%s: the streamed import accepted what validation refuses: %q", b.Name, refused)
			case err != nil && !errors.As(err, &ve):
				t.Fatalf("%s: import failed with a database error: %v", b.Name, err)
			case err != nil && len(refused) == 0:
				for _, p := range ve.Problems {
					db := false
					for _, c := range databaseChecks {
						db = db || strings.Contains(p, c)
					}
					if !db {
						t.Fatalf("%s: the import refused a document validation accepts: %q", b.Name, p)
					}
				}
			}
		}
	})
}
