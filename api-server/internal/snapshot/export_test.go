package snapshot

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
