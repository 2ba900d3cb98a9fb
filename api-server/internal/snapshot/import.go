package snapshot

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/keys-admin/keys"
	"github.com/uptrace/bun"
)

// Summary counts what an import upserted.
type Summary struct {
	Organizations int `json:"organizations"`
	Accounts      int `json:"accounts"`
	Campaigns     int `json:"campaigns"`
	Insights      int `json:"insights"`
	LeadContacts  int `json:"leadContacts"`
}

func (s Summary) String() string {
	return fmt.Sprintf("%d organizations, %d accounts, %d campaigns, %d insights, %d lead contacts",
		s.Organizations, s.Accounts, s.Campaigns, s.Insights, s.LeadContacts)
}

// Import validates doc whole and upserts it in one transaction: rows are
// inserted or replaced by id, so importing the same document again changes
// nothing. If any part is invalid, including a reference to a row that
// exists neither in the document nor in the database, or a row that would
// move to another organization, it returns a *ValidationError listing every
// problem and writes nothing.
func Import(ctx context.Context, db *bun.DB, doc *Document, now time.Time) (Summary, error) {
	now = now.UTC().Truncate(time.Microsecond)
	v, probs := validate(doc)
	if len(probs) > 0 {
		return Summary{}, &ValidationError{Problems: probs}
	}
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		accts, probs, err := checkReferences(ctx, tx, doc)
		if err != nil {
			return err
		}
		if len(probs) > 0 {
			return &ValidationError{Problems: probs}
		}
		return write(ctx, tx, doc, v, accts, now)
	})
	if err != nil {
		return Summary{}, err
	}
	return Summary{
		Organizations: len(doc.Organizations), Accounts: len(doc.Accounts), Campaigns: len(doc.Campaigns),
		Insights: len(doc.Insights), LeadContacts: len(doc.LeadContacts),
	}, nil
}

// accountInfo is what rows of an account repeat (denormalized).
type accountInfo struct {
	ID                  string `bun:"id"`
	OrganizationID      string `bun:"organization_id"`
	PlatformAdAccountID string `bun:"platform_ad_account_id"`
	Currency            string `bun:"currency"`
	Timezone            string `bun:"timezone"`
}

type ownerRow struct {
	ID             string `bun:"id"`
	OrganizationID string `bun:"organization_id"`
	AccountID      string `bun:"account_id"`
}

const batch = 500

// selectIn runs a SELECT … WHERE id IN (…) over ids in batches.
func selectIn[T any](ctx context.Context, tx bun.Tx, table, columns string, ids []string) ([]T, error) {
	var out []T
	for start := 0; start < len(ids); start += batch {
		end := min(start+batch, len(ids))
		var rows []T
		if err := tx.NewSelect().TableExpr(table).ColumnExpr(columns).
			Where("id IN (?)", bun.In(ids[start:end])).Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("read %s: %w", table, err)
		}
		out = append(out, rows...)
	}
	return out, nil
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkReferences resolves every reference of the document against the
// document and the database, and refuses rows that would change
// organization. It returns the account of every id the document uses.
func checkReferences(ctx context.Context, tx bun.Tx, doc *Document) (map[string]accountInfo, problems, error) {
	var p problems

	// Organizations.
	orgs := map[string]bool{}
	for _, o := range doc.Organizations {
		orgs[o.ID] = true
	}
	wantOrgs := map[string]bool{}
	for _, a := range doc.Accounts {
		if !orgs[a.OrganizationID] {
			wantOrgs[a.OrganizationID] = true
		}
	}
	if len(wantOrgs) > 0 {
		found, err := selectIn[ownerRow](ctx, tx, "organizations", "id", keysOf(wantOrgs))
		if err != nil {
			return nil, nil, err
		}
		for _, f := range found {
			orgs[f.ID] = true
		}
	}

	// Accounts: those of the document, then those it references.
	accts := map[string]accountInfo{}
	wantAccts := map[string]bool{}
	for _, a := range doc.Accounts {
		wantAccts[a.ID] = true
	}
	for _, c := range doc.Campaigns {
		wantAccts[c.AccountID] = true
	}
	for _, in := range doc.Insights {
		wantAccts[in.AccountID] = true
	}
	for _, l := range doc.LeadContacts {
		wantAccts[l.AccountID] = true
	}
	existing, err := selectIn[accountInfo](ctx, tx, "ad_accounts",
		"id, organization_id, platform_ad_account_id, currency, timezone", keysOf(wantAccts))
	if err != nil {
		return nil, nil, err
	}
	for _, a := range existing {
		accts[a.ID] = a
	}
	for i, a := range doc.Accounts {
		path := fmt.Sprintf("$.accounts[%d]", i)
		if !orgs[a.OrganizationID] {
			p.add(path+".organizationId", "organization %s is neither in the document nor in the database", quote(a.OrganizationID))
		}
		if old, ok := accts[a.ID]; ok && old.OrganizationID != a.OrganizationID {
			p.add(path+".organizationId", "account %s already belongs to another organization; an account never moves", quote(a.ID))
		}
	}
	for _, a := range doc.Accounts {
		accts[a.ID] = accountInfo{ID: a.ID, OrganizationID: a.OrganizationID,
			PlatformAdAccountID: a.PlatformAdAccountID, Currency: a.Currency, Timezone: a.Timezone}
	}
	account := func(path, id string) (accountInfo, bool) {
		a, ok := accts[id]
		if !ok {
			p.add(path, "account %s is neither in the document nor in the database", quote(id))
		}
		return a, ok
	}

	// Campaigns: those of the document, then those insights reference.
	wantCmps := map[string]bool{}
	for _, c := range doc.Campaigns {
		wantCmps[c.ID] = true
	}
	for _, in := range doc.Insights {
		if in.CampaignID != nil {
			wantCmps[*in.CampaignID] = true
		}
	}
	oldCmps, err := selectIn[ownerRow](ctx, tx, "campaigns", "id, organization_id, account_id", keysOf(wantCmps))
	if err != nil {
		return nil, nil, err
	}
	cmps := map[string]ownerRow{}
	for _, c := range oldCmps {
		cmps[c.ID] = c
	}
	for i, c := range doc.Campaigns {
		path := fmt.Sprintf("$.campaigns[%d]", i)
		a, ok := account(path+".accountId", c.AccountID)
		if old, had := cmps[c.ID]; ok && had && old.OrganizationID != a.OrganizationID {
			p.add(path+".accountId", "campaign %s already belongs to another organization; a campaign never moves", quote(c.ID))
		}
		cmps[c.ID] = ownerRow{ID: c.ID, OrganizationID: a.OrganizationID, AccountID: c.AccountID}
	}

	// Insights and lead contacts.
	ids := make([]string, 0, len(doc.Insights))
	for _, in := range doc.Insights {
		ids = append(ids, in.ID)
	}
	oldIns, err := selectIn[ownerRow](ctx, tx, "insights_daily", "id, organization_id", ids)
	if err != nil {
		return nil, nil, err
	}
	owner := map[string]string{}
	for _, r := range oldIns {
		owner[r.ID] = r.OrganizationID
	}
	for i, in := range doc.Insights {
		path := fmt.Sprintf("$.insights[%d]", i)
		a, ok := account(path+".accountId", in.AccountID)
		if in.CampaignID != nil {
			c, had := cmps[*in.CampaignID]
			switch {
			case !had:
				p.add(path+".campaignId", "campaign %s is neither in the document nor in the database", quote(*in.CampaignID))
			case c.AccountID != in.AccountID:
				p.add(path+".campaignId", "campaign %s belongs to another account than %s", quote(*in.CampaignID), quote(in.AccountID))
			}
		}
		if org, had := owner[in.ID]; ok && had && org != a.OrganizationID {
			p.add(path+".id", "insight %s already belongs to another organization; a row never moves", quote(in.ID))
		}
	}
	ids = ids[:0]
	for _, l := range doc.LeadContacts {
		ids = append(ids, l.ID)
	}
	oldLeads, err := selectIn[ownerRow](ctx, tx, "lead_contacts", "id, organization_id", ids)
	if err != nil {
		return nil, nil, err
	}
	clear(owner)
	for _, r := range oldLeads {
		owner[r.ID] = r.OrganizationID
	}
	for i, l := range doc.LeadContacts {
		path := fmt.Sprintf("$.leadContacts[%d]", i)
		a, ok := account(path+".accountId", l.AccountID)
		if org, had := owner[l.ID]; ok && had && org != a.OrganizationID {
			p.add(path+".id", "lead contact %s already belongs to another organization; a row never moves", quote(l.ID))
		}
	}
	return accts, p, nil
}

// Storage models of the import. They are write-only: the API reads through
// store's queries, which never name the columns that must stay inside.
type accountModel struct {
	bun.BaseModel `bun:"table:ad_accounts"`

	ID                   string     `bun:"id,pk"`
	OrganizationID       string     `bun:"organization_id"`
	PlatformAdAccountID  string     `bun:"platform_ad_account_id"`
	AccountName          string     `bun:"account_name"`
	Currency             string     `bun:"currency"`
	Timezone             string     `bun:"timezone"`
	IsActive             bool       `bun:"is_active"`
	LastSyncAt           *time.Time `bun:"last_sync_at"`
	AccessTokenEncrypted *string    `bun:"access_token_encrypted"`
	RawPayload           *string    `bun:"raw_payload"`
	UpdatedAt            time.Time  `bun:"updated_at"`
}

type campaignModel struct {
	bun.BaseModel `bun:"table:campaigns"`

	ID                  string     `bun:"id,pk"`
	OrganizationID      string     `bun:"organization_id"`
	AccountID           string     `bun:"account_id"`
	PlatformAdAccountID string     `bun:"platform_ad_account_id"`
	Currency            string     `bun:"currency"`
	Timezone            string     `bun:"timezone"`
	Name                string     `bun:"name"`
	Objective           string     `bun:"objective"`
	Status              string     `bun:"status"`
	EffectiveStatus     *string    `bun:"effective_status"`
	DailyBudget         *string    `bun:"daily_budget"`
	LifetimeBudget      *string    `bun:"lifetime_budget"`
	SyncedAt            *time.Time `bun:"synced_at"`
	RawPayload          *string    `bun:"raw_payload"`
	UpdatedAt           time.Time  `bun:"updated_at"`
}

type insightModel struct {
	bun.BaseModel `bun:"table:insights_daily"`

	ID                  string     `bun:"id,pk"`
	OrganizationID      string     `bun:"organization_id"`
	AccountID           string     `bun:"account_id"`
	CampaignID          *string    `bun:"campaign_id"`
	PlatformAdAccountID string     `bun:"platform_ad_account_id"`
	Currency            string     `bun:"currency"`
	Timezone            string     `bun:"timezone"`
	Date                string     `bun:"date"`
	AttributionWindow   string     `bun:"attribution_window"`
	PurchaseMeasurement string     `bun:"purchase_measurement"`
	Spend               string     `bun:"spend"`
	CTR                 string     `bun:"ctr"`
	CPC                 string     `bun:"cpc"`
	CPM                 string     `bun:"cpm"`
	Impressions         int64      `bun:"impressions"`
	Reach               int64      `bun:"reach"`
	Clicks              int64      `bun:"clicks"`
	Purchases           *float64   `bun:"purchases"`
	PurchaseValue       *float64   `bun:"purchase_value"`
	ROAS                *float64   `bun:"roas"`
	Conversions         *int64     `bun:"conversions"`
	SyncedAt            *time.Time `bun:"synced_at"`
	RawPayload          *string    `bun:"raw_payload"`
	UpdatedAt           time.Time  `bun:"updated_at"`
}

type leadModel struct {
	bun.BaseModel `bun:"table:lead_contacts"`

	ID             string    `bun:"id,pk"`
	OrganizationID string    `bun:"organization_id"`
	AccountID      string    `bun:"account_id"`
	Email          *string   `bun:"email"`
	Phone          *string   `bun:"phone"`
	UpdatedAt      time.Time `bun:"updated_at"`
}

type snapshotModel struct {
	bun.BaseModel `bun:"table:organization_snapshots"`

	OrganizationID string    `bun:"organization_id,pk"`
	DataAsOf       time.Time `bun:"data_as_of"`
	ImportedAt     time.Time `bun:"imported_at"`
}

func rawJSON(b []byte) *string {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	s := string(b)
	return &s
}

// upsert inserts rows in batches, replacing every column of an existing row
// with the same id.
func upsert[T any](ctx context.Context, tx bun.Tx, rows []T, columns ...string) error {
	for start := 0; start < len(rows); start += batch {
		chunk := rows[start:min(start+batch, len(rows))]
		q := tx.NewInsert().Model(&chunk).On("CONFLICT (id) DO UPDATE")
		for _, c := range columns {
			q = q.Set(c + " = EXCLUDED." + c)
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("upsert %T: %w", chunk[0], err)
		}
	}
	return nil
}

func write(ctx context.Context, tx bun.Tx, doc *Document, v *parsed, accts map[string]accountInfo, now time.Time) error {
	touched := map[string]bool{}
	for i, o := range doc.Organizations {
		members := make([]keys.Member, len(o.Members))
		for j, m := range o.Members {
			members[j] = keys.Member{UserID: m.UserID, Role: m.Role}
			if m.Removed {
				members[j].RemovedAt = &now
			}
		}
		org := keys.Organization{ID: o.ID, Name: o.Name, SubscriptionStatus: o.SubscriptionStatus, TrialEndsAt: v.trialEndsAt[i]}
		if err := keys.UpsertOrganization(ctx, tx, org, members, now); err != nil {
			return err
		}
		touched[o.ID] = true
	}

	if len(doc.Accounts) > 0 {
		rows := make([]accountModel, len(doc.Accounts))
		for i, a := range doc.Accounts {
			rows[i] = accountModel{
				ID: a.ID, OrganizationID: a.OrganizationID, PlatformAdAccountID: a.PlatformAdAccountID,
				AccountName: a.AccountName, Currency: a.Currency, Timezone: a.Timezone, IsActive: *a.IsActive,
				LastSyncAt: v.lastSyncAt[i], AccessTokenEncrypted: a.AccessTokenEncrypted,
				RawPayload: rawJSON(a.RawPayload), UpdatedAt: now,
			}
			touched[a.OrganizationID] = true
		}
		if err := upsert(ctx, tx, rows, "platform_ad_account_id", "account_name", "currency", "timezone",
			"is_active", "last_sync_at", "access_token_encrypted", "raw_payload", "updated_at"); err != nil {
			return err
		}
		// Rows already stored for these accounts repeat the account's
		// platform id, currency and time zone: keep them in step.
		for _, a := range doc.Accounts {
			for _, table := range []string{"campaigns", "insights_daily"} {
				if _, err := tx.NewUpdate().TableExpr(table).
					Set("platform_ad_account_id = ?", a.PlatformAdAccountID).
					Set("currency = ?", a.Currency).
					Set("timezone = ?", a.Timezone).
					Where("account_id = ?", a.ID).
					Where("(platform_ad_account_id <> ? OR currency <> ? OR timezone <> ?)", a.PlatformAdAccountID, a.Currency, a.Timezone).
					Exec(ctx); err != nil {
					return fmt.Errorf("update %s of account %s: %w", table, a.ID, err)
				}
			}
		}
	}

	if len(doc.Campaigns) > 0 {
		rows := make([]campaignModel, len(doc.Campaigns))
		for i, c := range doc.Campaigns {
			a := accts[c.AccountID]
			rows[i] = campaignModel{
				ID: c.ID, OrganizationID: a.OrganizationID, AccountID: c.AccountID,
				PlatformAdAccountID: a.PlatformAdAccountID, Currency: a.Currency, Timezone: a.Timezone,
				Name: c.Name, Objective: c.Objective, Status: c.Status, EffectiveStatus: c.EffectiveStatus,
				DailyBudget: c.DailyBudget, LifetimeBudget: c.LifetimeBudget, SyncedAt: v.syncedAtC[i],
				RawPayload: rawJSON(c.RawPayload), UpdatedAt: now,
			}
			touched[a.OrganizationID] = true
		}
		if err := upsert(ctx, tx, rows, "account_id", "platform_ad_account_id", "currency", "timezone",
			"name", "objective", "status", "effective_status", "daily_budget", "lifetime_budget",
			"synced_at", "raw_payload", "updated_at"); err != nil {
			return err
		}
	}

	if len(doc.Insights) > 0 {
		rows := make([]insightModel, len(doc.Insights))
		for i, in := range doc.Insights {
			a := accts[in.AccountID]
			rows[i] = insightModel{
				ID: in.ID, OrganizationID: a.OrganizationID, AccountID: in.AccountID, CampaignID: in.CampaignID,
				PlatformAdAccountID: a.PlatformAdAccountID, Currency: a.Currency, Timezone: a.Timezone,
				Date: in.Date, AttributionWindow: in.AttributionWindow, PurchaseMeasurement: in.PurchaseMeasurement,
				Spend: in.Spend, CTR: in.CTR, CPC: in.CPC, CPM: in.CPM,
				Impressions: *in.Impressions, Reach: *in.Reach, Clicks: *in.Clicks,
				Purchases: in.Purchases, PurchaseValue: in.PurchaseValue, ROAS: in.ROAS, Conversions: in.Conversions,
				SyncedAt: v.syncedAtI[i], RawPayload: rawJSON(in.RawPayload), UpdatedAt: now,
			}
			touched[a.OrganizationID] = true
		}
		if err := upsert(ctx, tx, rows, "account_id", "campaign_id", "platform_ad_account_id", "currency",
			"timezone", "date", "attribution_window", "purchase_measurement", "spend", "ctr", "cpc", "cpm",
			"impressions", "reach", "clicks", "purchases", "purchase_value", "roas", "conversions",
			"synced_at", "raw_payload", "updated_at"); err != nil {
			return err
		}
	}

	if len(doc.LeadContacts) > 0 {
		rows := make([]leadModel, len(doc.LeadContacts))
		for i, l := range doc.LeadContacts {
			a := accts[l.AccountID]
			rows[i] = leadModel{ID: l.ID, OrganizationID: a.OrganizationID, AccountID: l.AccountID,
				Email: l.Email, Phone: l.Phone, UpdatedAt: now}
			touched[a.OrganizationID] = true
		}
		if err := upsert(ctx, tx, rows, "account_id", "email", "phone", "updated_at"); err != nil {
			return err
		}
	}

	for _, org := range keysOf(touched) {
		if err := recordDataAsOf(ctx, tx, org, now); err != nil {
			return err
		}
	}
	return nil
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
	m := snapshotModel{OrganizationID: org, DataAsOf: asOf, ImportedAt: now}
	if _, err := tx.NewInsert().Model(&m).
		On("CONFLICT (organization_id) DO UPDATE").
		Set("data_as_of = EXCLUDED.data_as_of").
		Set("imported_at = EXCLUDED.imported_at").
		Exec(ctx); err != nil {
		return fmt.Errorf("record data time of %s: %w", org, err)
	}
	return nil
}
