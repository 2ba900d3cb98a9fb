package snapshot

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMergeColumns: each merge statement of queries/ (both dialects)
// inserts exactly the columns that store/schema gives its kind
// (mergeColumnNames, from the staging columns), selects one expression for
// each, sets every one but id and organization_id when the row exists, and
// compares every set column but updated_at to decide whether the row
// changed (SQLite's insights: insights_touched.sql). A field added to schema without its column in a statement fails
// here. The insights' declared fields are generated between marker comments
// (store/gen, TestGeneratedRegions); this test reads the statements without
// their comments and checks each list whole, the hand-written columns around
// the generated ones included.
func TestMergeColumns(t *testing.T) {
	insert := regexp.MustCompile(`(?s)INSERT INTO \w+ AS d \(([^)]*)\)`)
	set := regexp.MustCompile(`(\w+) = excluded\.(\w+)`)
	alias := regexp.MustCompile(`(?s)\)\s+AS excluded \(([^)]*)\)`)
	comment := regexp.MustCompile(`--[^\n]*`)
	for k, st := range map[kind]*statement{kindAccount: qAccountsMerge, kindCampaign: qCampaignsMerge,
		kindInsight: qInsightsMerge, kindLead: qLeadsMerge} {
		want := mergeColumnNames(k)
		for dialect, text := range map[string]string{"postgres": st.pg, "sqlite": st.sqlite} {
			text = comment.ReplaceAllString(text, "")
			name := dialect + "/" + st.name + ".sql"
			m := insert.FindStringSubmatch(text)
			if m == nil {
				t.Errorf("%s: no INSERT INTO … AS d (columns)", name)
				continue
			}
			got := strings.Fields(strings.ReplaceAll(m[1], ",", " "))
			if !slices.Equal(got, want) {
				t.Errorf("%s inserts\n%v\nwant (store/schema)\n%v", name, got, want)
			}
			var sets []string
			for _, s := range set.FindAllStringSubmatch(text, -1) {
				if s[1] != s[2] {
					t.Errorf("%s: %s = excluded.%s", name, s[1], s[2])
				}
				sets = append(sets, s[1])
			}
			// The rewrite of a stored row: ON CONFLICT's, or PostgreSQL's
			// insights UPDATE, whose FROM names its columns as the INSERT does.
			_, after, found := strings.Cut(text, "DO UPDATE SET")
			if !found {
				_, after, found = strings.Cut(text, "UPDATE insights_daily AS d SET")
				m := alias.FindStringSubmatch(text)
				if !found || m == nil {
					t.Errorf("%s: neither ON CONFLICT … DO UPDATE SET nor UPDATE … SET … FROM (…) AS excluded (columns)", name)
					continue
				}
				if got := strings.Fields(strings.ReplaceAll(m[1], ",", " ")); !slices.Equal(got, want) {
					t.Errorf("%s names the UPDATE's source columns\n%v\nwant (store/schema)\n%v", name, got, want)
				}
			}
			_, where, _ := strings.Cut(after, "WHERE")
			if st == qInsightsMerge && dialect == "sqlite" {
				where = comment.ReplaceAllString(qInsightsTouched.sqlite, "") // compared beforehand
			}
			for _, c := range want {
				if c == "id" || c == "organization_id" {
					continue
				}
				if !slices.Contains(sets, c) {
					t.Errorf("%s does not set %s", name, c)
				}
				if c != "updated_at" && !regexp.MustCompile(`\bd\.`+c+`\b`).MatchString(where) {
					t.Errorf("%s does not compare %s", name, c)
				}
			}
		}
	}
}
