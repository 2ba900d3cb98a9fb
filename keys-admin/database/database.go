// Package database opens the service's database from a URL and runs embedded
// SQL migrations under the migrator's lock. It is shared by keys-admin and the
// api-server so that both speak to PostgreSQL and SQLite the same way.
package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// Options tune the connection pool. Zero values choose sensible defaults.
type Options struct {
	MaxOpenConns int
}

// Open connects to the database named by rawURL: "postgres://…" (or
// "postgresql://…") for PostgreSQL, "sqlite:PATH" for the embedded default.
// It pings the database before returning. Errors never contain a password.
func Open(ctx context.Context, rawURL string, opts Options) (*bun.DB, error) {
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		cfg, err := pgx.ParseConfig(rawURL)
		if err != nil {
			return nil, fmt.Errorf("database url %s: invalid postgres url", Redact(rawURL))
		}
		sqldb := stdlib.OpenDB(*cfg)
		n := opts.MaxOpenConns
		if n <= 0 {
			n = 20
		}
		sqldb.SetMaxOpenConns(n)
		sqldb.SetMaxIdleConns(n)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
		return ping(ctx, bun.NewDB(sqldb, pgdialect.New()), rawURL)
	case strings.HasPrefix(rawURL, "sqlite:"):
		path := strings.TrimPrefix(rawURL, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" || strings.ContainsAny(path, "?#") {
			return nil, fmt.Errorf("database url %q: want sqlite:PATH with a file path", rawURL)
		}
		// WAL lets readers run beside the writer; immediate transactions take
		// the write lock at BEGIN so that check-then-insert sequences (the key
		// limit) are serialized; busy_timeout makes writers wait, not fail.
		dsn := path + "?_busy_timeout=10000&_foreign_keys=1&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
		sqldb, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		n := opts.MaxOpenConns
		if n <= 0 {
			n = 4
		}
		sqldb.SetMaxOpenConns(n)
		sqldb.SetMaxIdleConns(n)
		return ping(ctx, bun.NewDB(sqldb, sqlitedialect.New()), rawURL)
	default:
		return nil, fmt.Errorf("database url %s: want postgres://… or sqlite:PATH", Redact(rawURL))
	}
}

func ping(ctx context.Context, db *bun.DB, rawURL string) (*bun.DB, error) {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", Redact(rawURL), err)
	}
	return db, nil
}

// IsPostgres reports whether db speaks PostgreSQL.
func IsPostgres(db bun.IDB) bool {
	return db.Dialect().Name().String() == "pg"
}

// Redact returns rawURL with any password replaced, for messages and logs.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable url)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// ErrMigrationLocked reports that another migrator held the lock for too long.
var ErrMigrationLocked = errors.New("migrations are locked by another process")
