package database

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// MigrationSet is one component's embedded migrations: a directory per
// dialect, each holding files named YYYYMMDDHHMMSS_name.tx.up.sql.
type MigrationSet struct {
	// Name prefixes the bookkeeping tables (<name>_migrations and
	// <name>_migration_locks), so that components migrate independently.
	Name     string
	Postgres fs.FS
	SQLite   fs.FS
}

// EmbeddedMigrations returns the set named name whose files are in the
// directories root/postgres and root/sqlite of fsys (typically an embed.FS).
// It panics if those directories are missing: that is a build mistake.
func EmbeddedMigrations(name string, fsys fs.FS, root string) MigrationSet {
	sub := func(dir string) fs.FS {
		s, err := fs.Sub(fsys, root+"/"+dir)
		if err == nil {
			_, err = fs.ReadDir(s, ".")
		}
		if err != nil {
			panic(fmt.Sprintf("migrations %s: %s/%s: %v", name, root, dir, err))
		}
		return s
	}
	return MigrationSet{Name: name, Postgres: sub("postgres"), SQLite: sub("sqlite")}
}

// Migrate applies the set's pending migrations under the migrator's lock,
// waiting up to lockWait for another migrator to finish. It returns the names
// of the migrations it applied. Running it again applies nothing.
func Migrate(ctx context.Context, db *bun.DB, set MigrationSet, lockWait time.Duration) ([]string, error) {
	fsys := set.SQLite
	if IsPostgres(db) {
		fsys = set.Postgres
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(fsys); err != nil {
		return nil, fmt.Errorf("%s migrations: %w", set.Name, err)
	}
	m := migrate.NewMigrator(db, ms,
		migrate.WithTableName(set.Name+"_migrations"),
		migrate.WithLocksTableName(set.Name+"_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("%s migrations: init: %w", set.Name, err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := m.Lock(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w (waited %s; if no migration is running, delete the row in %s_migration_locks)",
				set.Name, ErrMigrationLocked, lockWait, set.Name)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	// Unlock even if ctx was cancelled mid-way, or the lock row would stay.
	defer m.Unlock(context.WithoutCancel(ctx)) //nolint:errcheck
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s migrations: %w", set.Name, err)
	}
	var applied []string
	for _, mg := range group.Migrations {
		applied = append(applied, mg.Name+"_"+mg.Comment)
	}
	return applied, nil
}
