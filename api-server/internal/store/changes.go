package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/adsnap/svc/api-server/internal/wirejson"
	"github.com/jackc/pgx/v5/pgconn"
)

// The changes feed (DESIGN §4b, issue 42): changes.sql and changes_first.sql.
var (
	qChanges      = query("changes")
	qChangesFirst = query("changes_first")
	qTokenSecret  = query("token_secret")
)

// ChangesParams selects one page of the changes feed. A first sync (First)
// reads every current row after the cursor's row (AfterDate, AfterID;
// AfterDate "" on its first page); a later sync reads the entries of the
// window from Lo (the token's watermark) to Hi after the cursor's entry
// (AfterTxID, AfterSeq). Hi 0 takes the window's end now (a sync's first
// page); the page answers it in ChangesMeta.Hi for the cursors and the
// token. Limit is the number of changes to read (the API asks for one more
// than it returns).
type ChangesParams struct {
	Limit     int
	First     bool
	Lo, Hi    uint64
	AfterTxID uint64
	AfterSeq  int64
	AfterDate string
	AfterID   string
}

// need is the watermark a database must have reached to answer p: the
// window's end when it is fixed, else its start (Routed).
func (p ChangesParams) need() uint64 { return max(p.Lo, p.Hi) }

// ChangesMeta is a changes page's meta.
type ChangesMeta struct {
	Meta
	// Hi is the window's end: the watermark of the token that ends the sync.
	Hi uint64
	// Gone is true when the log no longer holds every entry from Lo on
	// (pruned by the retention): the caller must sync from scratch (410).
	Gone bool
	// nowXmin is the answering database's own watermark (Routed), and
	// prunedBelow the organization's horizon (0: nothing pruned).
	nowXmin, prunedBelow uint64
}

// Change is one change of the feed: an upsert with the row's current values,
// or a removal (Deleted) naming the row.
type Change struct {
	Deleted bool
	// TxID and Seq place the entry in watermark order (0 in a first sync;
	// on SQLite both are the entry's seq).
	TxID uint64
	Seq  int64
	// ID, AccountID and Date name a removed row (Date YYYY-MM-DD).
	ID, AccountID, Date string
	Row                 InsightRow // an upsert's row
}

// ChangePage is a page of changes, in the feed's order.
type ChangePage struct {
	Changes []Change
	arena   []byte
}

// Len is the number of changes read.
func (p *ChangePage) Len() int {
	if p == nil {
		return 0
	}
	return len(p.Changes)
}

// Release is a no-op (the page is not pooled).
func (p *ChangePage) Release() {}

// AppendJSON appends the first n changes to b as the API returns them
// (DESIGN §4b): {"change":"upsert","insight":{…}} or {"change":"delete",
// "id":…,"accountId":…,"date":"YYYY-MM-DD"}.
func (p *ChangePage) AppendJSON(b []byte, n int) ([]byte, bool) {
	a := wirejson.Appender{B: append(b, '['), OK: true}
	for i := range n {
		if i > 0 {
			a.Raw(",")
		}
		c := &p.Changes[i]
		if c.Deleted {
			a.Raw(`{"change":"delete","id":`)
			a.Str(c.ID)
			a.Raw(`,"accountId":`)
			a.Str(c.AccountID)
			a.Raw(`,"date":`)
			a.Str(c.Date)
			a.Raw("}")
			continue
		}
		a.Raw(`{"change":"upsert","insight":`)
		c.Row.appendJSON(&a)
		a.Raw("}")
	}
	a.Raw("]")
	return a.B, a.OK
}

// changeLead is the number of columns of a changes statement between the
// meta (metaCols on PostgreSQL, less key_epoch on SQLite) and the
// insight's: hi, pruned_below, now_xmin and the entry's five.
const changeLead = 8

// ChangesPage reads a page of the organization's changes (changes.sql) or of
// its first sync (changes_first.sql), with the meta and, on PostgreSQL,
// pre's key-state epoch in the same statement.
func (s *Store) ChangesPage(ctx context.Context, orgID string, p ChangesParams, pre Prelude) (ChangesMeta, *ChangePage, error) {
	q, args := s.changesArgs(orgID, p)
	var (
		m    ChangesMeta
		page = &ChangePage{Changes: make([]Change, 0, p.Limit)}
		err  error
	)
	if s.pool != nil {
		m, err = s.pgChanges(ctx, q, args, pre, page)
	} else if pre != nil {
		err = errPreludeSQLite
	} else {
		m, err = s.sqliteChanges(ctx, q, args, page)
	}
	if err != nil {
		return m, nil, fmt.Errorf("read changes: %w", err)
	}
	// The window reads from Lo on (lo <= txid; on SQLite lo <= seq); the
	// log holds every entry from prunedBelow on.
	m.Gone = !p.First && p.Lo < m.prunedBelow
	// The statement's LATERAL (or CTE) gives the page in its order; sorted
	// again here so that no plan choice can reorder it.
	if p.First {
		slices.SortFunc(page.Changes, func(a, b Change) int {
			return cmp.Or(cmp.Compare(b.Row.Date, a.Row.Date), cmp.Compare(a.Row.ID, b.Row.ID))
		})
	} else {
		slices.SortFunc(page.Changes, func(a, b Change) int {
			return cmp.Or(cmp.Compare(a.TxID, b.TxID), cmp.Compare(a.Seq, b.Seq))
		})
	}
	return m, page, nil
}

// changesArgs are the statement and arguments of p in the store's dialect.
func (s *Store) changesArgs(orgID string, p ChangesParams) (*statement, []any) {
	pg := s.pool != nil
	if p.First {
		after := p.AfterDate
		if after == "" {
			after = "9999-12-31"
		}
		if pg {
			return qChangesFirst, []any{orgID, xidText(p.Hi), after, p.AfterID, p.Limit}
		}
		return qChangesFirst, []any{orgID, seqArg(p.Hi), after, p.AfterID, p.Limit}
	}
	afterTx, afterSeq := p.AfterTxID, p.AfterSeq
	if afterTx < p.Lo { // a first page: from the window's start on
		afterTx, afterSeq = p.Lo, 0
		if !pg {
			afterSeq = int64(p.Lo) - 1
		}
	}
	if pg {
		return qChanges, []any{orgID, strconv.FormatUint(p.Lo, 10), xidText(p.Hi), strconv.FormatUint(afterTx, 10), afterSeq, p.Limit}
	}
	return qChanges, []any{orgID, int64(p.Lo), seqArg(p.Hi), afterSeq, 0, p.Limit}
}

// xidText is a PostgreSQL watermark argument: "" for "now".
func xidText(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}

// seqArg is a SQLite watermark argument: -1 for "now".
func seqArg(v uint64) int64 {
	if v == 0 {
		return -1
	}
	return int64(v)
}

// pgChanges runs a changes statement through pgx into page.
func (s *Store) pgChanges(ctx context.Context, q *statement, args []any, pre Prelude, page *ChangePage) (ChangesMeta, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return ChangesMeta{}, err
	}
	defer conn.Release()
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return ChangesMeta{}, err
	}
	defer rows.Close()
	var m ChangesMeta
	first := true
	for rows.Next() {
		vals, fds := rows.RawValues(), rows.FieldDescriptions()
		if len(vals) != metaCols+changeLead+len(insightColumns) {
			return m, errColumnCount
		}
		if first {
			first = false
			if m.Meta, err = readMeta(vals, fds, pre); err != nil {
				return m, err
			}
			if m, err = changeWindow(m, vals[metaCols], vals[metaCols+1], vals[metaCols+2]); err != nil {
				return m, err
			}
		}
		if err := page.pgRow(vals[metaCols+3:], fds[metaCols+3:]); err != nil {
			return m, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return m, err
	}
	if first {
		return m, errors.New("the changes statement returned no row")
	}
	return m, nil
}

// changeWindow reads hi, pruned_below and now_xmin (decimal text, pruned_below
// NULL when nothing was pruned) into m.
func changeWindow(m ChangesMeta, hi, pruned, now []byte) (ChangesMeta, error) {
	var err error
	if m.Hi, err = strconv.ParseUint(string(hi), 10, 64); err != nil {
		return m, fmt.Errorf("read changes window: %w", err)
	}
	if m.nowXmin, err = strconv.ParseUint(string(now), 10, 64); err != nil {
		return m, fmt.Errorf("read changes window: %w", err)
	}
	if pruned != nil {
		below, err := strconv.ParseUint(string(pruned), 10, 64)
		if err != nil {
			return m, fmt.Errorf("read changes horizon: %w", err)
		}
		m.prunedBelow = below
	}
	return m, nil
}

// pgRow appends the change of a row's entry and insight columns; a row with
// neither is the window's empty row.
func (p *ChangePage) pgRow(vals [][]byte, fds []pgconn.FieldDescription) error {
	d := rawDecoder{vals: vals, fds: fds, arena: p.arena}
	entry, row := vals[2] != nil, vals[5] != nil
	if !entry && !row {
		return nil
	}
	var c Change
	if entry {
		txid, err := strconv.ParseUint(string(vals[0]), 10, 64)
		if err != nil {
			return fmt.Errorf("read change: %w", err)
		}
		c.TxID, c.Seq = txid, d.int8(1)
		c.ID, c.AccountID, c.Date = d.str(2), d.str(3), d.str(4)
	}
	p.arena = d.arena
	if d.err != nil {
		return d.err
	}
	if !row {
		c.Deleted = true
		p.Changes = append(p.Changes, c)
		return nil
	}
	r, err := decodeInsight(vals[5:], fds[5:], &p.arena)
	if err != nil {
		return err
	}
	c.Row = r
	p.Changes = append(p.Changes, c)
	return nil
}

// sqliteChanges runs a changes statement with its prepared SQLite form.
func (s *Store) sqliteChanges(ctx context.Context, q *statement, args []any, page *ChangePage) (ChangesMeta, error) {
	st := s.stmts[q]
	if st == nil {
		return ChangesMeta{}, fmt.Errorf("statement %s has no SQLite form", q.name)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return ChangesMeta{}, err
	}
	defer rows.Close()
	var m ChangesMeta
	first := true
	for rows.Next() {
		var (
			asOf                  NullTime
			found                 int64
			hi, now               int64
			pruned, txid, seq     sql.NullInt64
			id, account, day, rid sql.NullString
		)
		var r InsightRow
		// The row's columns are insightColumns, id first: its NULL tells a
		// removal or the empty row, so it is scanned into rid.
		fields := r.dest()
		fields[0] = &rid
		dest := append([]any{&asOf, &found, &hi, &pruned, &now, &txid, &seq, &id, &account, &day}, fields...)
		if err := rows.Scan(dest...); err != nil {
			return m, err
		}
		if first {
			first = false
			m.Meta = Meta{DataAsOf: asOf.Time, AccountFound: found > 0}
			m.Hi, m.nowXmin = uint64(hi), uint64(now)
			if pruned.Valid {
				m.prunedBelow = uint64(pruned.Int64)
			}
		}
		switch {
		case rid.Valid:
			r.ID = rid.String
			page.Changes = append(page.Changes, Change{TxID: uint64(txid.Int64), Seq: seq.Int64, ID: id.String, AccountID: account.String, Date: day.String, Row: r})
		case id.Valid:
			page.Changes = append(page.Changes, Change{Deleted: true, TxID: uint64(txid.Int64), Seq: seq.Int64, ID: id.String, AccountID: account.String, Date: day.String})
		}
	}
	if err := rows.Err(); err != nil {
		return m, err
	}
	if first {
		return m, errors.New("the changes statement returned no row")
	}
	return m, nil
}

// TokenSecret returns the HMAC key of the changes feed's tokens that the
// migrations generated and stored (api_secrets, shared by every replica of
// the service): serve's default when no --token-secret is given.
func (s *Store) TokenSecret(ctx context.Context) ([]byte, error) {
	var secret string
	if err := s.db.QueryRowContext(ctx, qTokenSecret.text(s.pool != nil)).Scan(&secret); err != nil {
		return nil, fmt.Errorf("read the sync token secret: %w", err)
	}
	return []byte(secret), nil
}

// ChangesPage reads on a healthy replica only when its own watermark has
// reached the window (ChangesParams.need: the window's end once it is
// fixed, its start on a sync's first page), so that a replica behind the
// token never answers it; otherwise, and when the replica's read fails,
// the primary answers. pre's epoch is read on the primary, as routed does.
func (r *Routed) ChangesPage(ctx context.Context, orgID string, p ChangesParams, pre Prelude) (ChangesMeta, *ChangePage, error) {
	rp, st := r.pick()
	if st == nil {
		return r.primary.ChangesPage(ctx, orgID, p, pre)
	}
	if pre != nil {
		if err := r.primary.runPrelude(ctx, orgID, pre); err != nil {
			return ChangesMeta{}, nil, err
		}
	}
	m, page, err := st.ChangesPage(ctx, orgID, p, nil)
	switch {
	case err == nil && m.nowXmin >= p.need():
		return m, page, nil
	case err != nil && ctx.Err() != nil:
		return m, page, err
	case err != nil:
		r.markDown(rp, err)
	}
	r.behind.Add(1)
	return r.primary.ChangesPage(ctx, orgID, p, nil)
}

// TokenSecret is the primary's (the migrations wrote it there).
func (r *Routed) TokenSecret(ctx context.Context) ([]byte, error) { return r.primary.TokenSecret(ctx) }

// ChangesOnPrimary is how many changes pages a replica left to the primary
// because it had not replayed up to their window (or failed).
func (r *Routed) ChangesOnPrimary() uint64 { return r.behind.Load() }
