// Package store holds the api-server's tables and every statement it reads
// them with:
//
//   - migrations/: the tables (ad accounts, campaigns, daily insights and
//     their per-day counts, lead contacts, per-organization snapshot
//     times), embedded, applied by Migrate after keys-admin's (migrate.go);
//     models.go: bun models for the snapshot import;
//   - queries/: every statement the store runs, one SQL file per statement
//     and dialect, embedded and declared in queries.go; a page statement's
//     column list is written by gen from schema (between its
//     "-- generated: … columns" and "-- end" lines), as are openapi.yaml's
//     resource schemas;
//   - store.go: Store (New, the *Page methods, ListParams, Meta), and the
//     reader of each dialect: read_pg.go (pgx, one statement and one round
//     trip per page, its meta and a Prelude's key-state epoch included) and
//     read_sqlite.go;
//   - prelude.go: Prelude, the request's key confirmed by its page's
//     statement (keys.Pending; the protocol and its one SQL contract are
//     keys-admin's, keys-admin/keys/pending.go);
//   - rawdecode.go: the decoder of pgx's raw column values (a page's text
//     in one buffer); rows.go: Page, pooled, and its JSON;
//   - resources_gen.go: written by gen from schema: per resource the row
//     struct, its decoder, its database/sql scan and its JSON encoder;
//   - summary.go: InsightSummary, the groups of GET /insights/summary
//     (summed in one statement on PostgreSQL, here on SQLite);
//     summary_answers.go its answers (names and status, the second period,
//     status and having, sort and top within each currency) and
//     summary_figures.go their arithmetic (issue 46);
//   - freshness.go: InsightFreshness, the last import (insight_imports).
//   - replicas.go: Routed, the pages read on PostgreSQL read replicas;
//     primarycheck.go: CheckPrimary and WatchPrimary, the writable-primary
//     check of /readyz and of serve;
//   - versions.go: the tag material of a page (Versions, Conditional; the
//     versions_* statements), for the API's ETags (DESIGN §4c);
//     tagcache.go: on PostgreSQL, that material kept by the organization's
//     data version (its newest import record), so that a page read again
//     before the next import is read without its versions statement;
//   - changes.go: the changes feed (ChangesPage: a first sync, or the
//     changes of a watermark window, changes.sql and changes_first.sql; on
//     Routed only from a replica that has replayed up to the window), and
//     TokenSecret, the sync tokens' HMAC key the migrations generated;
//   - errors.go: which errors are the database's unavailability.
//   - checkedsum.go: sums of counts checked for overflow (ErrCountOverflow).
//
// The page statements select only the columns SPEC §2 returns; the columns
// that must never leave the service are named in none of them. There is no
// reflection on the request path.
package store
