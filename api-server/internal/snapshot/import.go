package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Summary counts what an import upserted.
type Summary struct {
	Organizations int64 `json:"organizations"`
	Accounts      int64 `json:"accounts"`
	Campaigns     int64 `json:"campaigns"`
	Insights      int64 `json:"insights"`
	LeadContacts  int64 `json:"leadContacts"`
}

func (s Summary) String() string {
	return fmt.Sprintf("%d organizations, %d accounts, %d campaigns, %d insights, %d lead contacts",
		s.Organizations, s.Accounts, s.Campaigns, s.Insights, s.LeadContacts)
}

// Total is the number of elements of every kind.
func (s Summary) Total() int64 {
	return s.Organizations + s.Accounts + s.Campaigns + s.Insights + s.LeadContacts
}

func (s *Summary) add(k kind) {
	switch k {
	case kindOrganization:
		s.Organizations++
	case kindAccount:
		s.Accounts++
	case kindCampaign:
		s.Campaigns++
	case kindInsight:
		s.Insights++
	default:
		s.LeadContacts++
	}
}

// Phases of an import, as Progress reports them.
const (
	PhaseReading  = "reading"  // decoding, validating and staging elements
	PhaseChecking = "checking" // references, duplicates and ownership, in the database
	PhaseMerging  = "merging"  // upserting the staged rows into the tables
	PhaseDone     = "done"     // committed
)

// Progress is what an import has done so far.
type Progress struct {
	Phase string
	Rows  Summary // elements read
}

// Options tune ImportStream.
type Options struct {
	// Format of the stream: FormatJSON (default) or FormatNDJSON.
	Format Format
	// Now is the import time (updated_at, removed_at); zero means time.Now().
	Now time.Time
	// Progress, when set, is called after every staged batch and at every
	// change of phase, from the importing goroutine.
	Progress func(Progress)
}

// Import validates doc and upserts it in one transaction: rows are inserted
// or replaced by id, so importing the same document again changes nothing.
// If any part is invalid, including a reference to a row that exists neither
// in the document nor in the database, or a row that would move to another
// organization, it returns a *ValidationError listing the problems and
// writes nothing. It is ImportStream over a document already in memory.
func Import(ctx context.Context, db *bun.DB, doc *Document, now time.Time) (Summary, error) {
	return importFrom(ctx, db, &docSource{doc: doc}, Options{Now: now})
}

// ImportStream reads a snapshot document (or NDJSON records) from r and
// imports it like Import, holding one element at a time: each element is
// decoded, validated and staged in a batch, batches are written to staging
// tables inside the import's transaction (COPY on PostgreSQL, prepared
// inserts on SQLite), and at the end of the stream the references,
// duplicates and ownership are checked in the database and the staged rows
// are merged into the tables. Memory does not depend on the document's
// size. The whole document lands, or nothing does (also when ctx is
// canceled or the process dies); readers see the old rows until commit.
func ImportStream(ctx context.Context, db *bun.DB, r io.Reader, opts Options) (Summary, error) {
	var src source
	if opts.Format == FormatNDJSON {
		src = newNDJSONSource(r)
	} else {
		src = newJSONSource(r)
	}
	return importFrom(ctx, db, src, opts)
}

// Cross-references are checked in the database, inside the transaction,
// against the staged rows plus the stored ones: the arrays may come in any
// order (campaigns before their accounts), and keeping the ids of every
// insight row in memory would make memory grow with the document. Only two
// compact sets are kept in memory: the organizations (with their members,
// the host platform's few rows) and the ids of the accounts rows refer to
// (to know which organizations' data time to recompute).

func importFrom(ctx context.Context, db *bun.DB, src source, opts Options) (Summary, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC().Truncate(time.Microsecond)
	conn, err := db.Conn(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return Summary{}, fmt.Errorf("begin import: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	im := &importer{
		tx: tx, conn: conn, pg: db.Dialect().Name() == dialect.PG, now: now, src: src,
		progress: opts.Progress, orgIndex: map[string]int64{}, refAccounts: map[string]bool{},
		refCampaigns: map[string]bool{},
	}
	if im.pg {
		im.startWriter(ctx)
	}
	defer im.stopWriter() //nolint:errcheck // before the rollback: the writer uses the connection
	if err := im.run(ctx); err != nil {
		return Summary{}, err
	}
	if err := tx.Commit(); err != nil {
		return Summary{}, fmt.Errorf("commit import: %w", err)
	}
	im.report(PhaseDone)
	return im.sum, nil
}

// orgEntry is an organization of the document, kept in memory.
type orgEntry struct {
	org   Organization
	trial *time.Time
}

type importer struct {
	tx       bun.Tx
	conn     bun.Conn
	pg       bool
	now      time.Time
	src      source
	progress func(Progress)

	probs collector
	sum   Summary

	orgs        []orgEntry
	orgIndex    map[string]int64 // id → ord of its first element
	refAccounts map[string]bool  // accounts that staged rows name

	stages [numKinds]*stage

	// PostgreSQL: batches are copied by a writer goroutine while the next
	// one is decoded (two cores: the decoder and the server both busy).
	jobs     chan copyJob
	writerCh chan error
	writeErr error
	// writerFailed is set when a copy failed, so that reading stops.
	writerFailed atomic.Bool

	refCampaigns map[string]bool // campaigns that staged insight rows name
	insightArgs  []any           // the staged values of one insight, reused
}

// copyJob is one batch for the writer.
type copyJob struct {
	table   string
	columns []string
	rows    [][]any
}

// startWriter starts the goroutine that copies batches into the staging
// tables on the import's connection.
func (im *importer) startWriter(ctx context.Context) {
	jobs, done := make(chan copyJob, 2), make(chan error, 1)
	im.jobs, im.writerCh = jobs, done
	go func() {
		var failed error
		for j := range jobs {
			if failed != nil {
				continue
			}
			failed = im.conn.Raw(func(dc any) error {
				c, ok := dc.(*stdlib.Conn)
				if !ok {
					return errors.New("postgres connection is not a pgx connection")
				}
				_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{j.table}, j.columns, pgx.CopyFromRows(j.rows))
				if err != nil {
					return fmt.Errorf("copy into %s: %w", j.table, err)
				}
				return nil
			})
			if failed != nil {
				im.writerFailed.Store(true)
			}
		}
		done <- failed
	}()
}

// stopWriter waits for the writer to finish the batches it was given and
// returns its first error. It is safe to call more than once.
func (im *importer) stopWriter() error {
	if im.jobs == nil {
		return im.writeErr
	}
	close(im.jobs)
	im.jobs = nil
	im.writeErr = <-im.writerCh
	return im.writeErr
}

// collector keeps the first maxProblems problems and counts the rest.
type collector struct {
	kept  []string
	total int
}

func (c *collector) add(ps ...string) {
	for _, p := range ps {
		c.total++
		if len(c.kept) < maxProblems {
			c.kept = append(c.kept, p)
		}
	}
}

func (c *collector) err() error {
	if c.total == 0 {
		return nil
	}
	return &ValidationError{Problems: c.kept, More: c.total - len(c.kept)}
}

func (im *importer) report(phase string) {
	if im.progress != nil {
		im.progress(Progress{Phase: phase, Rows: im.sum})
	}
}

func (im *importer) run(ctx context.Context) error {
	if err := im.createStages(ctx); err != nil {
		return err
	}
	im.report(PhaseReading)
	var p problems
	for {
		p = p[:0]
		e, err := im.src.next(&p)
		im.probs.add(p...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				im.probs.add(ve.Problems...)
				return im.probs.err()
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p = p[:0]
		im.sum.add(e.kind)
		if err := im.accept(ctx, e, &p); err != nil {
			return err
		}
		im.probs.add(p...)
	}
	if err := im.flushAll(ctx); err != nil {
		return err
	}
	if err := im.probs.err(); err != nil {
		return err
	}
	im.report(PhaseChecking)
	if err := im.writeOrganizations(ctx); err != nil {
		return err
	}
	if err := im.check(ctx); err != nil {
		return err
	}
	if err := im.probs.err(); err != nil {
		return err
	}
	im.report(PhaseMerging)
	return im.merge(ctx)
}

// accept validates one element and stages it (or keeps it, for an
// organization). Once a problem is found nothing more is staged: the
// import will fail, the rest is only validated.
func (im *importer) accept(ctx context.Context, e element, p *problems) error {
	path := im.src.path(e.kind, e.ord)
	stage := im.stages[e.kind]
	switch e.kind {
	case kindOrganization:
		o := *e.org
		trial := p.organization(path, &o)
		if first, ok := im.orgIndex[o.ID]; ok {
			p.add(path, "duplicate id %s (first at %s)", quote(o.ID), im.src.path(kindOrganization, first))
		} else {
			im.orgIndex[o.ID] = e.ord
		}
		if im.probs.total == 0 && len(*p) == 0 {
			im.orgs = append(im.orgs, orgEntry{org: o, trial: trial})
		}
		return nil
	case kindAccount:
		a := e.acc
		sync := p.account(path, a)
		if len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		return stage.add(ctx, im, e.ord, a.ID, a.OrganizationID, a.PlatformAdAccountID, a.AccountName,
			a.Currency, a.Timezone, *a.IsActive, im.timeValue(sync), a.AccessTokenEncrypted, im.jsonValue(a.RawPayload))
	case kindCampaign:
		c := e.cmp
		sync := p.campaign(path, c)
		if len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		im.refAccounts[c.AccountID] = true
		return stage.add(ctx, im, e.ord, c.ID, c.AccountID, c.Name, c.Objective, c.Status, c.EffectiveStatus,
			c.DailyBudget, c.LifetimeBudget, im.timeValue(sync), im.jsonValue(c.RawPayload))
	case kindInsight:
		in := e.ins
		date, sync := p.insight(path, in)
		if len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		if !im.refAccounts[in.AccountID] {
			im.refAccounts[in.AccountID] = true
		}
		if in.CampaignID != nil && !im.refCampaigns[*in.CampaignID] {
			im.refCampaigns[*in.CampaignID] = true
		}
		var d any = in.Date
		if im.pg {
			d = date
		}
		args := insightFieldValues(append(im.insightArgs[:0], e.ord, in.ID, in.AccountID, in.CampaignID, d), in)
		im.insightArgs = args
		return stage.add(ctx, im, append(args, in.Conversions, im.timeValue(sync), im.jsonValue(in.RawPayload))...)
	default:
		l := e.lead
		p.lead(path, l)
		if len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		im.refAccounts[l.AccountID] = true
		return stage.add(ctx, im, e.ord, l.ID, l.AccountID, l.Email, l.Phone)
	}
}

// timeValue is a staged time: time.Time for pgx, bun's text form for SQLite.
func (im *importer) timeValue(t *time.Time) any {
	if t == nil {
		return nil
	}
	if im.pg {
		return *t
	}
	return t.UTC().Format(sqliteTime)
}

// sqliteTime is the form bun writes times in on SQLite (store.NullTime reads it).
const sqliteTime = "2006-01-02 15:04:05.999999-07:00"

func (im *importer) jsonValue(b []byte) any {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return string(b)
}

// stage is the staging table of one kind and its pending batch.
type stage struct {
	table   string
	columns []string
	rows    [][]any
	spare   [][]any
	stmt    *sql.Stmt // SQLite
}

// batchRows is the number of rows a staging batch holds before it is written.
const batchRows = 5000

// stageColumns are the staging tables' columns (PostgreSQL type, and every
// SQLite column is untyped). Decimals are staged as text and cast when merged.
var stageColumns = [numKinds][][2]string{
	kindAccount: {{"ord", "bigint"}, {"id", "text"}, {"organization_id", "text"}, {"platform_ad_account_id", "text"},
		{"account_name", "text"}, {"currency", "text"}, {"timezone", "text"}, {"is_active", "boolean"},
		{"last_sync_at", "timestamptz"}, {"access_token_encrypted", "text"}, {"raw_payload", "jsonb"}},
	kindCampaign: {{"ord", "bigint"}, {"id", "text"}, {"account_id", "text"}, {"name", "text"}, {"objective", "text"},
		{"status", "text"}, {"effective_status", "text"}, {"daily_budget", "text"}, {"lifetime_budget", "text"},
		{"synced_at", "timestamptz"}, {"raw_payload", "jsonb"}},
	// The declared fields (insight_gen.go) between the identity and the rest.
	kindInsight: slices.Concat([][2]string{{"ord", "bigint"}, {"id", "text"}, {"account_id", "text"}, {"campaign_id", "text"}, {"date", "date"}},
		insightFieldColumns, [][2]string{{"conversions", "bigint"}, {"synced_at", "timestamptz"}, {"raw_payload", "jsonb"}}),
	kindLead: {{"ord", "bigint"}, {"id", "text"}, {"account_id", "text"}, {"email", "text"}, {"phone", "text"}},
}

// analyzeColumns are the columns of kind k's staging table that the checks
// and the merge join or group on.
func analyzeColumns(k kind) []string {
	var out []string
	for _, c := range stageColumns[k] {
		switch c[0] {
		case "id", "organization_id", "account_id", "campaign_id":
			out = append(out, c[0])
		}
	}
	return out
}

func stageTable(k kind) string { return "svc_import_" + strings.ToLower(arrayNames[k]) }

// createStages creates the staging tables: TEMP tables of this transaction
// (dropped at commit on PostgreSQL, before it on SQLite), so nothing of them
// outlives the import or is seen by another session.
func (im *importer) createStages(ctx context.Context) error {
	for k := kindAccount; k < numKinds; k++ {
		st := &stage{table: stageTable(k)}
		var defs []string
		for _, c := range stageColumns[k] {
			st.columns = append(st.columns, c[0])
			if im.pg {
				defs = append(defs, c[0]+" "+c[1])
			} else {
				defs = append(defs, c[0])
			}
		}
		q := "CREATE TEMP TABLE " + st.table + " (" + strings.Join(defs, ", ") + ")"
		if im.pg {
			q += " ON COMMIT DROP"
		} else if _, err := im.tx.ExecContext(ctx, "DROP TABLE IF EXISTS temp."+st.table); err != nil {
			return fmt.Errorf("create staging table: %w", err)
		}
		if _, err := im.tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create staging table: %w", err)
		}
		if !im.pg {
			ph := strings.TrimSuffix(strings.Repeat("?, ", len(st.columns)), ", ")
			stmt, err := im.tx.PrepareContext(ctx, "INSERT INTO "+st.table+" VALUES ("+ph+")")
			if err != nil {
				return fmt.Errorf("prepare staging insert: %w", err)
			}
			st.stmt = stmt
		}
		im.stages[k] = st
	}
	if im.pg {
		// Raised by the insights merge for a row that would change
		// organization, so that the common case costs no extra join.
		if _, err := im.tx.ExecContext(ctx, `CREATE OR REPLACE FUNCTION pg_temp.svc_import_moved(id text) RETURNS boolean
			LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'row % would move to another organization', id USING ERRCODE = 'SVC01'; END $f$`); err != nil {
			return fmt.Errorf("create import function: %w", err)
		}
	}
	return nil
}

// add appends one row to the batch and writes the batch when full.
func (st *stage) add(ctx context.Context, im *importer, values ...any) error {
	var row []any
	if n := len(st.spare); n > 0 {
		row, st.spare = st.spare[n-1][:0], st.spare[:n-1]
	}
	row = append(row, values...)
	st.rows = append(st.rows, row)
	if len(st.rows) >= batchRows {
		return st.flush(ctx, im)
	}
	return nil
}

func (st *stage) flush(ctx context.Context, im *importer) error {
	if len(st.rows) == 0 {
		return nil
	}
	if im.pg {
		if im.writerFailed.Load() {
			return im.stopWriter()
		}
		// The writer owns the batch from now on.
		select {
		case im.jobs <- copyJob{table: st.table, columns: st.columns, rows: st.rows}:
		case <-ctx.Done():
			return ctx.Err()
		}
		st.rows = make([][]any, 0, batchRows)
		im.report(PhaseReading)
		return nil
	} else {
		for _, r := range st.rows {
			if _, err := st.stmt.ExecContext(ctx, r...); err != nil {
				return fmt.Errorf("insert into %s: %w", st.table, err)
			}
		}
	}
	for _, r := range st.rows {
		clear(r)
		st.spare = append(st.spare, r)
	}
	st.rows = st.rows[:0]
	im.report(PhaseReading)
	return nil
}

func (im *importer) flushAll(ctx context.Context) error {
	if im.probs.total > 0 {
		return nil
	}
	for k := kindAccount; k < numKinds; k++ {
		if err := im.stages[k].flush(ctx, im); err != nil {
			return err
		}
		if im.stages[k].stmt != nil {
			im.stages[k].stmt.Close()
		}
	}
	if err := im.stopWriter(); err != nil {
		return err
	}
	if im.pg {
		// Statistics, so that the checks and merges join sensibly: of the
		// columns they join and group on only (analyzeColumns). All 24
		// columns of the insights took 280 ms at 100,000 rows, these 70 ms:
		// 6 % of that import's time.
		for k := kindAccount; k < numKinds; k++ {
			if _, err := im.tx.ExecContext(ctx, "ANALYZE "+stageTable(k)+" ("+strings.Join(analyzeColumns(k), ", ")+")"); err != nil {
				return fmt.Errorf("analyze staging table: %w", err)
			}
		}
	}
	return nil
}

// writeOrganizations upserts the document's organizations and their
// members. An organization that lists members lists all of them: a stored
// member it no longer lists is marked removed (so a key that member issued
// stops working, SPEC §3), as the host platform would.
func (im *importer) writeOrganizations(ctx context.Context) error {
	for _, e := range im.orgs {
		o := e.org
		members := make([]keys.Member, len(o.Members))
		listed := make([]string, len(o.Members))
		for j, m := range o.Members {
			members[j] = keys.Member{UserID: m.UserID, Role: m.Role}
			if m.Removed {
				members[j].RemovedAt = &im.now
			}
			listed[j] = m.UserID
		}
		org := keys.Organization{ID: o.ID, Name: o.Name, SubscriptionStatus: o.SubscriptionStatus, TrialEndsAt: e.trial}
		if err := keys.UpsertOrganization(ctx, im.tx, org, members, im.now); err != nil {
			return err
		}
		if o.Members == nil {
			continue // no members field: membership left as it is
		}
		q := im.tx.NewUpdate().TableExpr("organization_members").
			Set("removed_at = ?", im.now).Set("updated_at = ?", im.now).
			Where("organization_id = ?", o.ID).Where("removed_at IS NULL")
		if len(listed) > 0 {
			q = q.Where("user_id NOT IN (?)", bun.List(listed))
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("remove members %s no longer lists: %w", o.ID, err)
		}
	}
	return nil
}

// accountOrgs is every account id with its organization: the staged ones,
// then the stored ones the document does not restate.
const accountOrgs = `(SELECT id, organization_id FROM svc_import_accounts
	UNION ALL SELECT id, organization_id FROM ad_accounts
	WHERE id NOT IN (SELECT id FROM svc_import_accounts))`

// check finds, in the database, every problem that needs more than one
// element: duplicates, references and rows that would change organization.
func (im *importer) check(ctx context.Context) error {
	for _, k := range []kind{kindAccount, kindCampaign, kindLead} {
		if err := im.duplicates(ctx, k); err != nil {
			return err
		}
	}
	if !im.pg {
		// PostgreSQL finds these while merging (see mergeInsights).
		if err := im.insightConflicts(ctx); err != nil {
			return err
		}
	}
	acc, cmp, ins, lead := stageTable(kindAccount), stageTable(kindCampaign), stageTable(kindInsight), stageTable(kindLead)
	checks := []struct {
		k     kind
		query string
		msg   func(path string, v []sql.NullString) (string, string)
	}{
		{kindAccount, `SELECT s.ord, s.organization_id FROM ` + acc + ` s
			WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.organization_id) ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".organizationId", fmt.Sprintf("organization %s is neither in the document nor in the database", quote(v[0].String))
			}},
		{kindAccount, `SELECT s.ord, s.id FROM ` + acc + ` s JOIN ad_accounts a ON a.id = s.id
			WHERE a.organization_id <> s.organization_id ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".organizationId", fmt.Sprintf("account %s already belongs to another organization; an account never moves", quote(v[0].String))
			}},
		{kindCampaign, `SELECT s.ord, s.account_id FROM ` + cmp + ` s LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
			WHERE a.id IS NULL ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".accountId", fmt.Sprintf("account %s is neither in the document nor in the database", quote(v[0].String))
			}},
		{kindCampaign, `SELECT s.ord, s.id FROM ` + cmp + ` s JOIN ` + accountOrgs + ` a ON a.id = s.account_id
			JOIN campaigns c ON c.id = s.id WHERE c.organization_id <> a.organization_id ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".accountId", fmt.Sprintf("campaign %s already belongs to another organization; a campaign never moves", quote(v[0].String))
			}},
		// One pass over the staged insights: the account, and the campaign
		// (staged first, stored otherwise) and its account.
		{kindInsight, `SELECT s.ord, s.account_id, s.campaign_id, CASE WHEN a.id IS NULL THEN 'missing' END, c.account_id, c.staged
			FROM ` + ins + ` s
			LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
			LEFT JOIN (SELECT id, account_id, 'staged' AS staged FROM ` + cmp + `
				UNION ALL SELECT id, account_id, NULL FROM campaigns WHERE id NOT IN (SELECT id FROM ` + cmp + `)) c
				ON c.id = s.campaign_id
			WHERE a.id IS NULL OR (s.campaign_id IS NOT NULL AND (c.id IS NULL OR c.account_id <> s.account_id))
			ORDER BY s.ord LIMIT ` + fmt.Sprint(maxProblems+1),
			nil},
		{kindLead, `SELECT s.ord, s.account_id FROM ` + lead + ` s LEFT JOIN ` + accountOrgs + ` a ON a.id = s.account_id
			WHERE a.id IS NULL ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".accountId", fmt.Sprintf("account %s is neither in the document nor in the database", quote(v[0].String))
			}},
		{kindLead, `SELECT s.ord, s.id FROM ` + lead + ` s JOIN ` + accountOrgs + ` a ON a.id = s.account_id
			JOIN lead_contacts l ON l.id = s.id WHERE l.organization_id <> a.organization_id ORDER BY s.ord`,
			func(path string, v []sql.NullString) (string, string) {
				return path + ".id", fmt.Sprintf("lead contact %s already belongs to another organization; a row never moves", quote(v[0].String))
			}},
	}
	for _, c := range checks {
		err := im.rows(ctx, c.query, func(ord int64, v []sql.NullString) {
			path := im.src.path(c.k, ord)
			if c.msg != nil {
				at, msg := c.msg(path, v)
				im.probs.add(at + ": " + msg)
				return
			}
			account, campaign, missing, cmpAccount, staged := v[0], v[1], v[2], v[3], v[4]
			if missing.Valid {
				im.probs.add(fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(account.String)))
			}
			switch {
			case !campaign.Valid:
			case !cmpAccount.Valid:
				im.probs.add(fmt.Sprintf("%s.campaignId: campaign %s is neither in the document nor in the database", path, quote(campaign.String)))
			case cmpAccount.String != account.String && staged.Valid:
				im.probs.add(fmt.Sprintf("%s.campaignId: campaign %s belongs to account %s, not %s", path,
					quote(campaign.String), quote(cmpAccount.String), quote(account.String)))
			case cmpAccount.String != account.String:
				im.probs.add(fmt.Sprintf("%s.campaignId: campaign %s belongs to another account than %s", path,
					quote(campaign.String), quote(account.String)))
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rows runs a check query whose first column is an element's ord and
// calls f for each row (at most maxProblems+1 rows are read).
func (im *importer) rows(ctx context.Context, query string, f func(ord int64, v []sql.NullString)) error {
	rows, err := im.tx.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("check snapshot references: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	n := 0
	for rows.Next() && n <= maxProblems {
		n++
		var ord int64
		v := make([]sql.NullString, len(cols)-1)
		dst := []any{&ord}
		for i := range v {
			dst = append(dst, &v[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("check snapshot references: %w", err)
		}
		f(ord, v)
	}
	return rows.Err()
}

// duplicates reports every staged element of kind k whose id an earlier
// element already has.
func (im *importer) duplicates(ctx context.Context, k kind) error {
	t := stageTable(k)
	return im.rows(ctx, `SELECT s.ord, s.id, f.first FROM `+t+` s
		JOIN (SELECT id, min(ord) AS first FROM `+t+` GROUP BY id HAVING count(*) > 1) f ON f.id = s.id
		WHERE s.ord > f.first ORDER BY s.ord LIMIT `+fmt.Sprint(maxProblems+1),
		func(ord int64, v []sql.NullString) {
			var first int64
			fmt.Sscan(v[1].String, &first)
			im.probs.add(fmt.Sprintf("%s: duplicate id %s (first at %s)", im.src.path(k, ord), quote(v[0].String), im.src.path(k, first)))
		})
}

// insightConflicts reports duplicate insight ids and insight rows that
// would move to another organization.
func (im *importer) insightConflicts(ctx context.Context) error {
	if err := im.duplicates(ctx, kindInsight); err != nil {
		return err
	}
	return im.rows(ctx, `SELECT s.ord, s.id FROM `+stageTable(kindInsight)+` s JOIN `+accountOrgs+` a ON a.id = s.account_id
		JOIN insights_daily d ON d.id = s.id WHERE d.organization_id <> a.organization_id ORDER BY s.ord LIMIT `+fmt.Sprint(maxProblems+1),
		func(ord int64, v []sql.NullString) {
			im.probs.add(fmt.Sprintf("%s.id: insight %s already belongs to another organization; a row never moves",
				im.src.path(kindInsight, ord), quote(v[0].String)))
		})
}

// merge upserts the staged rows into the tables, in the order of their
// references, and records each touched organization's data time.
func (im *importer) merge(ctx context.Context) error {
	nowArg := "?"
	numeric := func(c string) string { return c }
	if im.pg {
		nowArg = "CAST(? AS timestamptz)"
		numeric = func(c string) string { return "CAST(" + c + " AS numeric)" }
	}
	exec := func(what, q string, args ...any) error {
		if _, err := im.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	set := func(cols ...string) string {
		s := make([]string, len(cols))
		for i, c := range cols {
			s[i] = c + " = excluded." + c
		}
		return strings.Join(s, ", ")
	}

	if err := exec("upsert accounts", `INSERT INTO ad_accounts (id, organization_id, platform_ad_account_id, account_name,
		currency, timezone, is_active, last_sync_at, access_token_encrypted, raw_payload, updated_at)
		SELECT id, organization_id, platform_ad_account_id, account_name, currency, timezone, is_active, last_sync_at,
		access_token_encrypted, raw_payload, `+nowArg+` FROM `+stageTable(kindAccount)+` WHERE true
		ON CONFLICT (id) DO UPDATE SET `+set("platform_ad_account_id", "account_name", "currency", "timezone",
		"is_active", "last_sync_at", "access_token_encrypted", "raw_payload", "updated_at"), im.now); err != nil {
		return err
	}
	// Rows already stored for these accounts repeat the account's platform
	// id, currency and time zone: keep them in step.
	for _, table := range []string{"campaigns", "insights_daily"} {
		if err := exec("update "+table+" of changed accounts", `UPDATE `+table+` SET platform_ad_account_id = a.platform_ad_account_id,
			currency = a.currency, timezone = a.timezone FROM `+stageTable(kindAccount)+` a
			WHERE `+table+`.organization_id = a.organization_id AND `+table+`.account_id = a.id
			AND (`+table+`.platform_ad_account_id <> a.platform_ad_account_id OR `+table+`.currency <> a.currency
			OR `+table+`.timezone <> a.timezone)`); err != nil {
			return err
		}
	}
	if err := exec("upsert campaigns", `INSERT INTO campaigns (id, organization_id, account_id, platform_ad_account_id,
		currency, timezone, name, objective, status, effective_status, daily_budget, lifetime_budget, synced_at,
		raw_payload, updated_at)
		SELECT s.id, a.organization_id, s.account_id, a.platform_ad_account_id, a.currency, a.timezone, s.name,
		s.objective, s.status, s.effective_status, `+numeric("s.daily_budget")+`, `+numeric("s.lifetime_budget")+`,
		s.synced_at, s.raw_payload, `+nowArg+` FROM `+stageTable(kindCampaign)+` s JOIN ad_accounts a ON a.id = s.account_id WHERE true
		ON CONFLICT (id) DO UPDATE SET `+set("account_id", "platform_ad_account_id", "currency", "timezone",
		"name", "objective", "status", "effective_status", "daily_budget", "lifetime_budget", "synced_at",
		"raw_payload", "updated_at"), im.now); err != nil {
		return err
	}
	if err := im.mergeInsights(ctx, nowArg, numeric); err != nil {
		return err
	}
	if err := exec("upsert lead contacts", `INSERT INTO lead_contacts (id, organization_id, account_id, email, phone, updated_at)
		SELECT s.id, a.organization_id, s.account_id, s.email, s.phone, `+nowArg+`
		FROM `+stageTable(kindLead)+` s JOIN ad_accounts a ON a.id = s.account_id WHERE true
		ON CONFLICT (id) DO UPDATE SET `+set("account_id", "email", "phone", "updated_at"), im.now); err != nil {
		return err
	}

	touched := map[string]bool{}
	for _, o := range im.orgs {
		touched[o.org.ID] = true
	}
	var accOrgs []string
	if err := im.tx.NewSelect().TableExpr(stageTable(kindAccount)).ColumnExpr("DISTINCT organization_id").
		Scan(ctx, &accOrgs); err != nil {
		return fmt.Errorf("read staged organizations: %w", err)
	}
	ids := make([]string, 0, len(im.refAccounts))
	for id := range im.refAccounts {
		ids = append(ids, id)
	}
	for start := 0; start < len(ids); start += 500 {
		var orgs []string
		if err := im.tx.NewSelect().TableExpr("ad_accounts").ColumnExpr("DISTINCT organization_id").
			Where("id IN (?)", bun.List(ids[start:min(start+500, len(ids))])).Scan(ctx, &orgs); err != nil {
			return fmt.Errorf("read organizations of accounts: %w", err)
		}
		accOrgs = append(accOrgs, orgs...)
	}
	for _, o := range accOrgs {
		touched[o] = true
	}
	list := make([]string, 0, len(touched))
	for o := range touched {
		list = append(list, o)
	}
	sort.Strings(list)
	for _, org := range list {
		if err := recordDataAsOf(ctx, im.tx, org, im.now); err != nil {
			return err
		}
	}
	if !im.pg {
		for k := kindAccount; k < numKinds; k++ {
			if err := exec("drop staging table", "DROP TABLE temp."+stageTable(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// insightColumns are the columns an import writes; the merge compares them
// to skip rows that did not change.
// The declared fields' columns (insight_gen.go) follow date.
var insightColumns = func() []string {
	cols := []string{"account_id", "campaign_id", "platform_ad_account_id", "currency", "timezone", "date"}
	for _, c := range insightFieldColumns {
		cols = append(cols, c[0])
	}
	return append(cols, "conversions", "synced_at", "raw_payload")
}()

// mergeInsights upserts the staged insight rows in one statement (the
// day-count triggers then see one statement's transition tables). On
// PostgreSQL a row that did not change is not rewritten, and duplicate ids
// (error 21000) or a row that would change organization (SVC01, raised by
// pg_temp.svc_import_moved) stop the statement, after which the same
// checks SQLite runs beforehand name the elements.
func (im *importer) mergeInsights(ctx context.Context, nowArg string, numeric func(string) string) error {
	set := make([]string, 0, len(insightColumns)+1)
	// A full slice expression: insightColumns has spare capacity, and
	// concurrent imports must not append into its shared array.
	for _, c := range append(insightColumns[:len(insightColumns):len(insightColumns)], "updated_at") {
		set = append(set, c+" = excluded."+c)
	}
	q := `INSERT INTO insights_daily AS d (id, organization_id, ` + strings.Join(insightColumns, ", ") + `, updated_at)
		SELECT s.id, a.organization_id, s.account_id, s.campaign_id, a.platform_ad_account_id, a.currency, a.timezone,
		s.date, ` + strings.Join(insightFieldSelect(numeric), ", ") + `, s.conversions, s.synced_at, s.raw_payload, ` + nowArg + `
		FROM ` + stageTable(kindInsight) + ` s JOIN ad_accounts a ON a.id = s.account_id WHERE true
		ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ")
	if !im.pg {
		_, err := im.tx.ExecContext(ctx, q, im.now)
		if err != nil {
			return fmt.Errorf("upsert insights: %w", err)
		}
		return nil
	}
	old, new := make([]string, len(insightColumns)), make([]string, len(insightColumns))
	for i, c := range insightColumns {
		old[i], new[i] = "d."+c, "excluded."+c
		if insightDecimalColumns[c] {
			// numeric compares by value; "12.50" and "12.5" differ as stored text.
			old[i], new[i] = old[i]+"::text", new[i]+"::text"
		}
	}
	q += ` WHERE CASE WHEN d.organization_id <> excluded.organization_id THEN pg_temp.svc_import_moved(excluded.id)
		ELSE (` + strings.Join(old, ", ") + `) IS DISTINCT FROM (` + strings.Join(new, ", ") + `) END`
	relaxed, err := im.relaxForeignKeys(ctx)
	if err != nil {
		return err
	}
	if _, err := im.tx.ExecContext(ctx, "SAVEPOINT svc_import_insights"); err != nil {
		return fmt.Errorf("upsert insights: %w", err)
	}
	_, err = im.tx.ExecContext(ctx, q, im.now)
	if relaxed && err == nil {
		if _, err := im.tx.ExecContext(ctx, "SET LOCAL session_replication_role = origin"); err != nil {
			return fmt.Errorf("upsert insights: %w", err)
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "21000" || pe.Code == "SVC01") {
		if _, err := im.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT svc_import_insights"); err != nil {
			return fmt.Errorf("upsert insights: %w", err)
		}
		if err := im.insightConflicts(ctx); err != nil {
			return err
		}
		if err := im.probs.err(); err != nil {
			return err
		}
		return fmt.Errorf("upsert insights: %w", pe)
	}
	if err != nil {
		return fmt.Errorf("upsert insights: %w", err)
	}
	return nil
}

// relaxForeignKeys lets the insights merge skip the per-row foreign-key
// triggers (three lookups per row, a quarter of the merge's time), which
// check nothing the import has not checked already: every reference of the
// staged rows was resolved by check. First the referenced organizations,
// accounts and campaigns are locked FOR KEY SHARE, exactly the lock the
// foreign-key triggers would take, so that no concurrent transaction can
// delete them before commit; then session_replication_role = replica
// (for this transaction only) disables the foreign-key triggers. The
// day-count triggers are ENABLE ALWAYS and still fire. Setting the role
// needs a superuser or the SET privilege on it; without either the merge
// runs with the triggers, as correct and slower. It reports whether the
// triggers are off.
func (im *importer) relaxForeignKeys(ctx context.Context) (bool, error) {
	lock := func(table string, ids map[string]bool) error {
		list := make([]string, 0, len(ids))
		for id := range ids {
			list = append(list, id)
		}
		sort.Strings(list)
		for start := 0; start < len(list); start += 1000 {
			if _, err := im.tx.ExecContext(ctx, "SELECT 1 FROM "+table+" WHERE id IN (?) ORDER BY id FOR KEY SHARE",
				bun.List(list[start:min(start+1000, len(list))])); err != nil {
				return fmt.Errorf("lock referenced %s: %w", table, err)
			}
		}
		return nil
	}
	var orgs []string
	if len(im.refAccounts) > 0 {
		ids := make([]string, 0, len(im.refAccounts))
		for id := range im.refAccounts {
			ids = append(ids, id)
		}
		if err := im.tx.NewSelect().TableExpr("ad_accounts").ColumnExpr("DISTINCT organization_id").
			Where("id IN (?)", bun.List(ids)).Scan(ctx, &orgs); err != nil {
			return false, fmt.Errorf("read organizations of accounts: %w", err)
		}
	}
	orgSet := map[string]bool{}
	for _, o := range orgs {
		orgSet[o] = true
	}
	if err := lock("organizations", orgSet); err != nil {
		return false, err
	}
	if err := lock("ad_accounts", im.refAccounts); err != nil {
		return false, err
	}
	if err := lock("campaigns", im.refCampaigns); err != nil {
		return false, err
	}
	if _, err := im.tx.ExecContext(ctx, "SAVEPOINT svc_import_role"); err != nil {
		return false, fmt.Errorf("upsert insights: %w", err)
	}
	if _, err := im.tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		if _, err := im.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT svc_import_role"); err != nil {
			return false, fmt.Errorf("upsert insights: %w", err)
		}
		return false, nil
	}
	return true, nil
}

// recordDataAsOf stores the newest sync time among the organization's
// snapshot rows, so that requests read one row instead of aggregating. An
// organization without any sync time gets the time of its import.
func recordDataAsOf(ctx context.Context, tx bun.Tx, org string, now time.Time) error {
	var latest store.NullTime
	err := tx.QueryRowContext(ctx, `SELECT MAX(t) AS t FROM (
		SELECT MAX(last_sync_at) AS t FROM ad_accounts WHERE organization_id = ?0
		UNION ALL SELECT MAX(synced_at) FROM campaigns WHERE organization_id = ?0
		UNION ALL SELECT MAX(synced_at) FROM insights_daily WHERE organization_id = ?0) AS s`, org).
		Scan(&latest)
	if err != nil {
		return fmt.Errorf("compute data time of %s: %w", org, err)
	}
	asOf := now
	if latest.Valid {
		asOf = latest.Time
	}
	m := store.OrganizationSnapshot{OrganizationID: org, DataAsOf: asOf, ImportedAt: now}
	if _, err := tx.NewInsert().Model(&m).
		On("CONFLICT (organization_id) DO UPDATE").
		Set("data_as_of = EXCLUDED.data_as_of").
		Set("imported_at = EXCLUDED.imported_at").
		Exec(ctx); err != nil {
		return fmt.Errorf("record data time of %s: %w", org, err)
	}
	return nil
}
