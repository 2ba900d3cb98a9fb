package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Unavailable reports whether err is a failure of the database as a
// dependency: it could not be reached or dropped the connection, it is
// shutting down or out of resources, a deadline passed (the statement
// timeout, a wait for a pooled connection), or it gave up a transaction that
// may succeed when tried again (serialization failure, deadlock, SQLite's
// busy and locked). Trying again later may then succeed. Any other error (a
// statement the database refuses, a missing table, a constraint, a bug) is
// not Unavailable.
//
// PostgreSQL errors are classified by SQLSTATE, SQLite errors by their
// primary result code, never by message text.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return unavailableSQLState(pg.Code)
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PROTOCOL:
			return true
		}
		return false
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) ||
		errors.As(err, &connect) || errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// unavailableSQLState reports whether a PostgreSQL SQLSTATE (Appendix A of
// its manual) says the server, not the statement, failed.
func unavailableSQLState(code string) bool {
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "08", // connection exception
		"53": // insufficient resources: disk full, out of memory, too many connections
		return true
	}
	switch code {
	case "57P01", // admin_shutdown
		"57P02", // crash_shutdown
		"57P03", // cannot_connect_now (starting up, in recovery)
		"57014", // query_canceled: the statement timeout
		"40001", // serialization_failure
		"40P01": // deadlock_detected
		return true
	}
	return false
}

// SchemaMissing reports whether err says that a table, column or schema the
// statement names does not exist: on PostgreSQL SQLSTATE 42P01
// (undefined_table), 42703 (undefined_column) or 3F000
// (invalid_schema_name); on SQLite the generic SQLITE_ERROR, which SQLite
// also gives a malformed statement: there it means "maybe". Commands use it
// to suggest running the migrations.
func SchemaMissing(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "42P01" || pg.Code == "42703" || pg.Code == "3F000"
	}
	var lite *sqlite.Error
	return errors.As(err, &lite) && lite.Code()&0xff == sqlite3.SQLITE_ERROR
}
