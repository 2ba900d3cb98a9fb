package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
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

// DB is an open database: bun's handle for the query builder and
// migrations, and, on PostgreSQL, the pgx pool that bun's connections come
// from, for the code that speaks pgx itself (the api-server's per-request
// statements: prepared once per connection, batched, read without
// database/sql's row machinery). Bun and Pool share one set of connections:
// Pool's size bounds both.
type DB struct {
	Bun  *bun.DB
	Pool *pgxpool.Pool // nil on SQLite
}

// IsPostgres reports whether db speaks PostgreSQL.
func (db *DB) IsPostgres() bool { return db.Pool != nil }

// MaxConns is the most connections db opens at once.
func (db *DB) MaxConns() int {
	if db.Pool != nil {
		return int(db.Pool.Config().MaxConns)
	}
	return db.Bun.DB.Stats().MaxOpenConnections
}

// Close closes bun's handle and the pool.
func (db *DB) Close() error { return db.Bun.Close() }

// Open connects to the database named by rawURL: "postgres://…" (or
// "postgresql://…") for PostgreSQL, "sqlite:PATH" for the embedded default.
// It pings the database before returning. Errors never contain a password.
// It is Connect for the callers that only use bun: closing the returned
// handle closes the pool too.
func Open(ctx context.Context, rawURL string, opts Options) (*bun.DB, error) {
	db, err := Connect(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	return db.Bun, nil
}

// Connect is Open returning both handles: on PostgreSQL a pgx pool of
// opts.MaxOpenConns connections (20 by default) and bun's DB over it
// (stdlib.OpenDBFromPool: database/sql keeps no idle connection of its own,
// the pool does).
func Connect(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		cfg, err := pgxpool.ParseConfig(rawURL)
		if err != nil {
			return nil, fmt.Errorf("database url %s: invalid postgres url", Redact(rawURL))
		}
		n := opts.MaxOpenConns
		if n <= 0 {
			n = 20
		}
		cfg.MaxConns = int32(n)
		cfg.MaxConnIdleTime = 5 * time.Minute
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("connect to %s: invalid configuration", Redact(rawURL))
		}
		// closingConnector: closing bun's handle (all that Open's callers
		// hold) closes the pool too.
		sqldb := sql.OpenDB(closingConnector{stdlib.GetPoolConnector(pool), pool})
		sqldb.SetMaxIdleConns(0)
		// The pool bounds bun's connections anyway; the same bound on
		// database/sql makes its statistics (svc-api's go_sql_* metrics)
		// show the pool's size instead of "unlimited".
		sqldb.SetMaxOpenConns(n)
		db := &DB{Bun: bun.NewDB(sqldb, pgdialect.New()), Pool: pool}
		return ping(ctx, db, rawURL)
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
		return ping(ctx, &DB{Bun: bun.NewDB(sqldb, sqlitedialect.New())}, rawURL)
	default:
		return nil, fmt.Errorf("database url %s: want postgres://… or sqlite:PATH", Redact(rawURL))
	}
}

// closingConnector is pgx's pool connector whose Close (called by
// sql.DB.Close) closes the pool.
type closingConnector struct {
	driver.Connector
	pool *pgxpool.Pool
}

func (c closingConnector) Close() error {
	c.pool.Close()
	return nil
}

func ping(ctx context.Context, db *DB, rawURL string) (*DB, error) {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.Bun.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", Redact(rawURL), err)
	}
	return db, nil
}

// IsPostgres reports whether db speaks PostgreSQL.
func IsPostgres(db bun.IDB) bool {
	return db.Dialect().Name().String() == "pg"
}

// Redact returns the connection URL rawURL as it may be printed (logs,
// errors, /readyz's detail, the demo's output): by allowlist, its scheme,
// user, hosts with their ports and database, and nothing else: no password,
// no query parameter (sslpassword, passfile, service, options…), whatever
// the URL holds. A postgres:// URL is read by pgconn, as Connect reads it
// (the defaults it fills in, such as the port, are shown); if pgconn cannot
// read it, by net/url with the same allowlist. A sqlite: URL keeps its path.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable url)"
	}
	switch u.Scheme {
	case "postgres", "postgresql":
		out := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
		if u.User != nil && u.User.Username() != "" {
			out.User = url.User(u.User.Username())
		}
		if cfg, err := pgconn.ParseConfig(rawURL); err == nil {
			out.Host, out.Path = pgHosts(cfg), "/"+cfg.Database
			out.User = nil
			if cfg.User != "" {
				out.User = url.User(cfg.User)
			}
		}
		return out.String()
	case "sqlite":
		if u.Opaque != "" {
			return "sqlite:" + u.Opaque
		}
		out := &url.URL{Scheme: "sqlite", Host: u.Host, Path: u.Path, OmitHost: u.Host == ""}
		return out.String()
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// pgHosts lists cfg's hosts with their ports, as a URL's host: the first,
// then the other hosts of a multi-host URL (pgconn's fallbacks, which repeat
// a host for sslmode=prefer).
func pgHosts(cfg *pgconn.Config) string {
	hosts := []string{net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))}
	for _, f := range cfg.Fallbacks {
		if h := net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port))); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return strings.Join(hosts, ",")
}

// ErrMigrationLocked reports that another migrator held the lock for too long.
var ErrMigrationLocked = errors.New("migrations are locked by another process")
