package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/uptrace/bun"
	bundialect "github.com/uptrace/bun/dialect"
)

// Summary counts what an import upserted.
type Summary struct {
	Organizations int64 `json:"organizations"`
	Accounts      int64 `json:"accounts"`
	Campaigns     int64 `json:"campaigns"`
	Insights      int64 `json:"insights"`
	LeadContacts  int64 `json:"leadContacts"`
	Windows       int64 `json:"completeWindows,omitempty"`
}

// String is the summary line of an import: the count of each kind.
func (s Summary) String() string {
	return fmt.Sprintf("%d organizations, %d accounts, %d campaigns, %d insights, %d lead contacts",
		s.Organizations, s.Accounts, s.Campaigns, s.Insights, s.LeadContacts)
}

// Total is the number of elements of every kind.
func (s Summary) Total() int64 {
	return s.Organizations + s.Accounts + s.Campaigns + s.Insights + s.LeadContacts
}

// add counts one element of kind k.
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
	case kindWindow:
		s.Windows++
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
		tx: tx, now: now, src: src, progress: opts.Progress,
		orgIndex: map[string]int64{}, refAccounts: map[string]bool{}, refCampaigns: map[string]bool{},
	}
	if db.Dialect().Name() == bundialect.PG {
		im.pg = true
		im.db = newPGImport(ctx, tx, conn)
	} else {
		im.db = &sqliteImport{tx: tx}
	}
	defer im.db.close() //nolint:errcheck // before the rollback: the writer uses the connection
	if err := im.runSQL(ctx, qImportSettings); err != nil {
		return Summary{}, err
	}
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

// importer is one import's state. Only two compact sets are kept in
// memory besides the batches: the organizations (with their members, the
// host platform's few rows) and the ids of the accounts and campaigns that
// rows refer to (to know which organizations' data time to recompute, and
// which rows to lock, fkrelax.go); everything else is staged.
type importer struct {
	tx       bun.Tx
	db       dialect
	pg       bool // PostgreSQL (the statements' dialect)
	now      time.Time
	src      source
	progress func(Progress)

	probs collector
	sum   Summary

	orgs         []orgEntry
	orgIndex     map[string]int64 // id → ord of its first element
	refAccounts  map[string]bool  // accounts that staged rows name
	refCampaigns map[string]bool  // campaigns that staged insight rows name
	refOrgs      []string         // the organizations the merge touches, sorted

	stages [numKinds]*stage
}

func (im *importer) report(phase string) {
	if im.progress != nil {
		im.progress(Progress{Phase: phase, Rows: im.sum})
	}
}

// run reads, validates and stages every element, then checks and merges.
func (im *importer) run(ctx context.Context) error {
	if err := im.createStages(ctx); err != nil {
		return err
	}
	im.report(PhaseReading)
	if err := im.read(ctx); err != nil {
		return err
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

// read takes the elements of the source one by one until its end.
func (im *importer) read(ctx context.Context) error {
	var p problems
	for {
		p = p[:0]
		e, err := im.src.next(&p)
		im.probs.add(p...)
		if errors.Is(err, io.EOF) {
			return nil
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
}

// accept validates one element and stages it (or keeps it, for an
// organization). Once a problem is found nothing more is staged: the
// import will fail, the rest is only validated.
func (im *importer) accept(ctx context.Context, e element, p *problems) error {
	path := im.src.path(e.kind, e.ord)
	st := im.stages[e.kind]
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
		if p.account(path, e.acc); len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		return st.add(ctx, im, im.appendDocValues(append(st.row(), e.ord), accountFields, e.acc))
	case kindCampaign:
		if p.campaign(path, e.cmp); len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		im.refAccounts[e.cmp.AccountID] = true
		return st.add(ctx, im, im.appendDocValues(append(st.row(), e.ord), campaignFields, e.cmp))
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
		// The columns of stageColumns[kindInsight], in order.
		row := append(st.row(), e.ord, in.ID, in.AccountID, in.CampaignID, im.db.dateValue(in.Date, date))
		row = insightFieldValues(row, in)
		return st.add(ctx, im, append(row, in.Conversions, im.timeValue(sync), jsonValue(in.RawPayload)))
	case kindWindow:
		return im.acceptWindow(ctx, e, path, p)
	default:
		l := e.lead
		if p.lead(path, l); len(*p) > 0 || im.probs.total > 0 {
			return nil
		}
		im.refAccounts[l.AccountID] = true
		return st.add(ctx, im, append(st.row(), e.ord, l.ID, l.AccountID, l.Email, l.Phone))
	}
}

// timeValue is a staged time, or NULL.
func (im *importer) timeValue(t *time.Time) any {
	if t == nil {
		return nil
	}
	return im.db.timeValue(*t)
}
