package snapshot

import "strings"

// PostgresText returns the PostgreSQL text of the import's statement name
// ("" when there is none), for the plan checks of package snapshot_test.
func PostgresText(name string) string {
	for _, st := range statements {
		if st.name == name {
			return st.pg
		}
	}
	return ""
}

// InsightsStageDDL is the statement that creates the insights' staging
// table on PostgreSQL, for the plan checks of statements that read it.
func InsightsStageDDL() string {
	var defs []string
	for _, c := range stageColumns[kindInsight] {
		defs = append(defs, c.name+" "+c.pgType)
	}
	return "CREATE TEMP TABLE " + stageTable(kindInsight) + " (" + strings.Join(defs, ", ") + ") ON COMMIT DROP"
}
