package server

import (
	"database/sql"
	"time"

	"github.com/adsnap/svc/api-server/internal/store"
)

// The wire types of SPEC §2: exactly the fields listed there. They are
// separate from the store's rows, which the handlers copy from field by field.

type account struct {
	ID          string     `json:"id"`
	AccountName string     `json:"accountName"`
	Currency    string     `json:"currency"`
	Timezone    string     `json:"timezone"`
	IsActive    bool       `json:"isActive"`
	LastSyncAt  *time.Time `json:"lastSyncAt"`
}

type accountRef struct {
	Currency string `json:"currency"`
	Timezone string `json:"timezone"`
}

type campaign struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	Name                string     `json:"name"`
	Objective           string     `json:"objective"`
	Status              string     `json:"status"`
	EffectiveStatus     *string    `json:"effectiveStatus"`
	DailyBudget         *string    `json:"dailyBudget"`
	LifetimeBudget      *string    `json:"lifetimeBudget"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             accountRef `json:"account"`
}

type insight struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	AttributionWindow   string     `json:"attributionWindow"`
	CampaignID          *string    `json:"campaignId"`
	Date                *string    `json:"date"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             accountRef `json:"account"`
	PurchaseMeasurement string     `json:"purchaseMeasurement"`
	Spend               string     `json:"spend"`
	CTR                 string     `json:"ctr"`
	CPC                 string     `json:"cpc"`
	CPM                 string     `json:"cpm"`
	Impressions         int64      `json:"impressions"`
	Reach               int64      `json:"reach"`
	Clicks              int64      `json:"clicks"`
	Purchases           *float64   `json:"purchases"`
	PurchaseValue       *float64   `json:"purchaseValue"`
	ROAS                *float64   `json:"roas"`
}

// Note is meta.note of every response.
const Note = "Stored snapshot: the data may be stale; no live request to the advertising platform was made."

// Notes added to Note on a page that stops at the offset limit while rows
// remain (nextOffset is then null, as SPEC §4 caps offset at 10000), per
// endpoint: how to reach the rest (DESIGN §4).
const (
	capNoteInsights  = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them with a narrower date range (from, to) or per account (accountId)."
	capNoteCampaigns = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit. Read them per account (accountId)."
	capNoteAccounts  = " More rows exist beyond the offset limit (10000): nextOffset is null here only because of that limit, and no filter of this endpoint reaches them."
)

// KeyExpiresHeader carries the expiry time of the request's key, RFC 3339
// in UTC, on every response to a request whose key was recognised.
const KeyExpiresHeader = "Api-Key-Expires-At"

type meta struct {
	Source          string `json:"source"`
	LiveMetaRequest bool   `json:"liveMetaRequest"`
	Limit           int    `json:"limit"`
	Offset          int    `json:"offset"`
	NextOffset      *int   `json:"nextOffset"`
	Returned        int    `json:"returned"`
	GeneratedAt     string `json:"generatedAt"`
	DataAsOf        string `json:"dataAsOf"`
	Note            string `json:"note"`
}

type envelope[T any] struct {
	Data []T  `json:"data"`
	Meta meta `json:"meta"`
}

// errorBody is the error of SPEC §7; Message is a string or a list of strings.
type errorBody struct {
	StatusCode int `json:"statusCode"`
	Message    any `json:"message"`
}

func timePtr(t store.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time
	return &u
}

func nullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

// timeIn, stringIn and floatIn are timePtr, nullString and nullFloat without
// a copy: the pointer is into the row.
func timeIn(t *store.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}

func stringIn(s *sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func floatIn(f *sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}
