package store

import "github.com/adsnap/svc/keys-admin/database"

// Unavailable reports whether err, from the store or the key lookup, is a
// failure of the database as a dependency: unreachable, shutting down, out
// of resources, past a deadline, or a transaction a retry may complete
// (database.Unavailable: PostgreSQL SQLSTATE, SQLite result codes, error
// types; never message text). The server answers those 503 and counts them
// in its database breaker; any other error is unexpected (a bug, a statement
// the database refuses) and answered 500.
func Unavailable(err error) bool { return database.Unavailable(err) }

// SchemaMissing reports whether err says a table or column is missing
// (database.SchemaMissing): the migrations have not been applied.
func SchemaMissing(err error) bool { return database.SchemaMissing(err) }
