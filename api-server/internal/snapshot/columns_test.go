package snapshot

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

// TestStagingColumnsFollowSchema: every field store/schema declares for
// accounts and campaigns is staged (but those a campaign takes from its
// account), with the type of its declaration, and merged; the insights'
// declared fields are staged with the types store/gen gives them.
func TestStagingColumnsFollowSchema(t *testing.T) {
	names := func(cols []column) []string {
		var out []string
		for _, c := range cols {
			out = append(out, c.name)
		}
		return out
	}
	for _, tc := range []struct {
		k kind
		r schema.Resource
	}{{kindAccount, schema.Account}, {kindCampaign, schema.Campaign}} {
		staged := names(stageColumns[tc.k])
		for _, f := range tc.r.Fields {
			if slices.Contains(fromAccount[tc.k], f.Column) {
				if slices.Contains(staged, f.Column) {
					t.Errorf("%s.%s: staged, but the merge takes it from the account", tc.r.Name, f.Go)
				}
				continue
			}
			i := slices.Index(staged, f.Column)
			if i < 0 {
				t.Errorf("%s.%s (%s) is not staged: %v", tc.r.Name, f.Go, f.Column, staged)
				continue
			}
			if want, _ := stageType(f.Type); stageColumns[tc.k][i].pgType != want {
				t.Errorf("%s.%s staged as %s, want %s", tc.r.Name, f.Go, stageColumns[tc.k][i].pgType, want)
			}
		}
	}
	for _, f := range schema.Insight.Fields {
		i := slices.IndexFunc(insightFieldColumns, func(c [2]string) bool { return c[0] == f.Column })
		if i < 0 {
			continue
		}
		if want, _ := stageType(f.Type); insightFieldColumns[i][1] != want && f.Type != schema.Date {
			t.Errorf("Insight.%s: store/gen stages it as %s, the import's other kinds as %s", f.Go, insightFieldColumns[i][1], want)
		}
	}
}

// TestDocFieldsRefuseADrift: a field the declaration adds that the
// document struct lacks, or names differently, stops the import's start
// (every test), instead of being left out of the staging table.
func TestDocFieldsRefuseADrift(t *testing.T) {
	r := schema.Account
	r.Fields = append(slices.Clone(r.Fields), schema.Field{Go: "Budget", JSON: "budget", Type: schema.Decimal, Column: "budget", Read: true})
	if _, err := docFields(reflect.TypeFor[Account](), r, accountStoredOnly, nil); err == nil || !strings.Contains(err.Error(), "has no field Budget") {
		t.Errorf("a declared field the struct lacks: %v", err)
	}
	r.Fields = []schema.Field{{Go: "AccountName", JSON: "name", Type: schema.Text, Column: "account_name", Read: true}}
	if _, err := docFields(reflect.TypeFor[Account](), r, nil, nil); err == nil || !strings.Contains(err.Error(), `"accountName", store/schema says "name"`) {
		t.Errorf("a JSON name that differs: %v", err)
	}
	// A stored-only field schema comes to declare is staged once.
	r.Fields = []schema.Field{{Go: "RawPayload", JSON: "rawPayload", Type: schema.JSON, Column: "raw_payload", Doc: true}}
	f, err := docFields(reflect.TypeFor[Account](), r, accountStoredOnly, nil)
	if err != nil || len(f) != len(accountStoredOnly) {
		t.Errorf("declared and stored-only raw_payload: %d fields (%v), want %d", len(f), err, len(accountStoredOnly))
	}
}
