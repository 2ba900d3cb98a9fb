package snapshot

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Every statement the import runs is a file of queries/, as the store's
// reads are (store/queries): the PostgreSQL text in
// queries/postgres/<name>.sql, the SQLite text in queries/sqlite/<name>.sql.
// A statement may exist in one dialect only; run does nothing in the other
// (the merge runs one list of statements, and each dialect has the files of
// the steps it needs: SQLite records what an upsert will change before it,
// PostgreSQL while it runs, RETURNING into the same statement). Arguments
// are bun's ?N placeholders. The staging tables' definitions (stage.go)
// follow the columns of store/schema and are the only SQL made in Go.

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

// query declares the statement name of queries/. It panics when no dialect
// has the file, so that a misspelt name fails every test of the package.
func query(name string) *statement {
	st := &statement{name: name, pg: readQuery("postgres", name), sqlite: readQuery("sqlite", name)}
	if st.pg == "" && st.sqlite == "" {
		panic(fmt.Sprintf("snapshot: no file queries/*/%s.sql", name))
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

// text is the statement's text in a dialect (pg: PostgreSQL).
func (st *statement) text(pg bool) string {
	if pg {
		return st.pg
	}
	return st.sqlite
}

// runSQL executes st in the import's transaction, if its dialect has it.
func (im *importer) runSQL(ctx context.Context, st *statement, args ...any) error {
	_, err := im.runCount(ctx, st, args...)
	return err
}

// runCount is runSQL that returns the number of rows the statement wrote.
func (im *importer) runCount(ctx context.Context, st *statement, args ...any) (int64, error) {
	q := st.text(im.pg)
	if q == "" {
		return 0, nil
	}
	res, err := im.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("import: %s: %w", st.name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("import: %s: %w", st.name, err)
	}
	return n, nil
}
