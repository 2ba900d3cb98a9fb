package store

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

//go:embed migrations
var migrationFiles embed.FS

// Migrations is the api-server's migration set (bookkeeping tables
// api_server_migrations and api_server_migration_locks).
var Migrations = database.EmbeddedMigrations("api_server", migrationFiles, "migrations")

// Migrate applies keys-admin's migrations (organizations, members, developer
// keys), then the api-server's, each under its migrator's lock. It returns
// the names of the migrations it applied; running it again applies nothing.
func Migrate(ctx context.Context, db *bun.DB) ([]string, error) {
	applied, err := keys.Migrate(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("keys-admin migrations: %w", err)
	}
	more, err := database.Migrate(ctx, db, Migrations, time.Minute)
	if err != nil {
		return nil, err
	}
	return append(applied, more...), nil
}
