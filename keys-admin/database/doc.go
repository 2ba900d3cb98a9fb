// Package database opens the service's database from a URL and runs embedded
// SQL migrations under the migrator's lock. It is shared by keys-admin and the
// api-server so that both speak to PostgreSQL and SQLite the same way.
//
// Files:
//
//   - database.go: Open, Connect, DB (bun, and the pgx pool on PostgreSQL),
//     IsPostgres and Redact;
//   - migrate.go: MigrationSet, EmbeddedMigrations and Migrate;
//   - errors.go: Unavailable and SchemaMissing, the driver errors that
//     callers turn into answers;
//   - dbtest/: a fresh PostgreSQL schema or SQLite file per test.
package database
