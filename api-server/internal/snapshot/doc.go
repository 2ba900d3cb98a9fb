// Package snapshot reads, validates and imports the snapshot document of
// DESIGN §2a, the way stored advertising data enters the service, and builds
// the built-in demo snapshot. An import is all or nothing: the whole document
// is validated (every problem reported with its JSON path) and then upserted
// in one transaction.
//
// An import runs in stages, a file each:
//
//   - import.go: Import and ImportStream, and the run of one import
//     (importer): read, validate and stage each element, then check, then
//     merge, then commit;
//   - stream.go, ndjson.go: the elements of a JSON document (one at a time,
//     encoding/json's Decoder), of NDJSON records, or of a Document in
//     memory;
//   - document.go, validate.go, payload.go: the document's types (Insight
//     is generated from store/schema, insight_gen.go), Parse, and each
//     element's checks that need no database;
//   - stage.go, columns.go: batches of staged rows in TEMP tables, whose
//     columns follow store/schema;
//   - check.go: duplicates, references and rows that would change
//     organization, checked in the database against staged plus stored rows;
//   - merge.go: the upserts from the staging tables (each rewrites only the
//     rows whose values differ), the organizations and their members, each
//     touched organization's data time;
//   - changes.go: what the import changed (CONTRACT-45): the change log,
//     the day and snapshot versions, the import records, and the per-day
//     counts and sums of the touched days recomputed from the rows;
//     windows.go: complete windows, whose stored rows the document does
//     not carry are removed; prune.go: the change log's retention;
//   - queries.go, queries/: every statement of the import, one SQL file per
//     statement and dialect (the column lists are schema's: the insights'
//     declared fields are written between marker lines by store/gen,
//     `go generate ./internal/store/`, TestGeneratedRegions in store; the
//     lists as a whole are checked by TestMergeColumns; the plans of those
//     every import runs after its merge are checked by TestImportPlans);
//   - dialect.go, postgres.go: what PostgreSQL and SQLite do differently,
//     one interface (PostgreSQL: COPY from a writer goroutine, typed
//     staging, an insights merge that records what it writes in the same
//     statement); fkrelax.go: PostgreSQL's insights merge without the
//     per-row foreign-key triggers.
//
// demo.go builds the demo snapshot; demo_large.go the demo of real size
// (DemoLarge, DemoLargeRestated: svc-api demo --scale large).
package snapshot

//go:generate go run ../store/gen -target snapshot -o insight_gen.go
