package store

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Every statement the store runs is a file of queries/: the PostgreSQL text
// in queries/postgres/<name>.sql, the SQLite text in queries/sqlite/<name>.sql
// (a statement may exist in one dialect only: the seek is PostgreSQL's). The
// files are embedded and run as they are (less a trailing semicolon); no
// statement is built in Go. Adding one is a file per dialect and a line
// `qName = query("name")` below; New prepares every declared statement of
// its database's dialect (a statement that does not parse, or names a
// missing table or column, fails New), TestQueries checks that every file is
// declared and that the columns each page statement returns are the ones its
// generated decoder reads (schema), and TestPlans checks the plan of every
// PostgreSQL statement.

//go:embed queries
var queryFiles embed.FS

// statement is one statement of queries/: its texts, "" in a dialect that
// lacks it.
type statement struct {
	name       string
	pg, sqlite string
}

// statements are the statements declared by query, in declaration order.
var statements []*statement

// The statements. The page statements (accounts, campaigns, insights and
// their forms) take $1 organization, $2 limit, $3 offset and, for insights,
// $4 from and $5 to; the _by_account forms take the account id last. On
// PostgreSQL each row of a page starts with the meta columns (metaCols:
// data_as_of, account_found, key_epoch, data_version), so that a page, its meta and the
// request's key-state epoch (prelude.go) are one statement; meta and
// meta_by_account read them alone.
var (
	qMeta                  = query("meta")
	qMetaByAccount         = query("meta_by_account")
	qAccounts              = query("accounts")
	qAccountsByAccount     = query("accounts_by_account")
	qCampaigns             = query("campaigns")
	qCampaignsByAccount    = query("campaigns_by_account")
	qInsights              = query("insights")
	qInsightsByAccount     = query("insights_by_account")
	qInsightsSeek          = query("insights_seek")
	qInsightsByAccountSeek = query("insights_by_account_seek")
	qReplicaLag            = query("replica_lag")   // Routed's check of each replica
	qPrimaryCheck          = query("primary_check") // CheckPrimary, on the primary's connections
)

// metaCols is the number of meta columns that lead each row of a
// PostgreSQL page statement: data_as_of, account_found, key_epoch and
// data_version (the organization's data version, tagcache.go).
const metaCols = 4

// query declares the statement name of queries/. It panics when no dialect
// has the file, so that a misspelt name fails every test of the package.
func query(name string) *statement {
	st := &statement{name: name, pg: readQuery("postgres", name), sqlite: readQuery("sqlite", name)}
	if st.pg == "" && st.sqlite == "" {
		panic(fmt.Sprintf("store: no file queries/*/%s.sql", name))
	}
	statements = append(statements, st)
	return st
}

// readQuery returns the text of queries/dialect/name.sql, "" when there is
// no such file.
func readQuery(dialect, name string) string {
	b, err := fs.ReadFile(queryFiles, path.Join("queries", dialect, name+".sql"))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSpace(string(b)), ";")
}

// text is the statement's text in the dialect of a store (pg: PostgreSQL).
func (st *statement) text(pg bool) string {
	if pg {
		return st.pg
	}
	return st.sqlite
}
