package svc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Page is one page of a list endpoint: the rows in Data and the envelope's
// Meta. Data is empty, never an error, on an empty final page.
type Page[T any] struct {
	Data []T  `json:"data"`
	Meta Meta `json:"meta"`
	// Response is the metadata of the HTTP answer: request id, rate-limit
	// buckets, the key's expiry.
	Response *Response `json:"-"`

	raw []json.RawMessage // the rows of Data as the service sent them
}

func (p *Page[T]) meta() *Meta {
	m := p.Meta
	return &m
}

// UnmarshalJSON decodes the envelope and keeps each row as the service sent
// it as well, for [Page.RawData].
func (p *Page[T]) UnmarshalJSON(b []byte) error {
	var w struct {
		Data []json.RawMessage `json:"data"`
		Meta Meta              `json:"meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	data := make([]T, len(w.Data))
	for i, raw := range w.Data {
		if err := json.Unmarshal(raw, &data[i]); err != nil {
			return fmt.Errorf("data[%d]: %w", i, err)
		}
	}
	p.Data, p.Meta, p.raw = data, w.Meta, w.Data
	return nil
}

// RawData returns the rows of the page exactly as the service sent them
// (one JSON object per row, in the order of Data), for printing them
// unchanged: Data is the typed view, in which, for example, an insight's
// date-time "2026-11-19T00:00:00Z" is the [Date] 2026-11-19. It is nil for a
// page that was not decoded from a response.
func (p *Page[T]) RawData() []json.RawMessage { return p.raw }

// AccountPage is one page of ad accounts. API: GET /accounts.
type AccountPage = Page[Account]

// CampaignPage is one page of campaigns. API: GET /campaigns.
type CampaignPage = Page[Campaign]

// InsightPage is one page of daily insight rows. API: GET /insights.
type InsightPage = Page[Insight]

// Meta describes the stored snapshot a page was read from and where the next
// page starts.
type Meta struct {
	// Source is always "stored_snapshot".
	Source string `json:"source"`
	// LiveMetaRequest is always false: no live platform request is made.
	LiveMetaRequest bool `json:"liveMetaRequest"`
	// Limit is the page size the server applied.
	Limit int `json:"limit"`
	// Offset is the offset the server applied.
	Offset int `json:"offset"`
	// NextOffset is the offset of the next page, or nil on the last page.
	NextOffset *int `json:"nextOffset"`
	// Returned is the number of rows in Data.
	Returned int `json:"returned"`
	// GeneratedAt is when the response was generated, if known.
	GeneratedAt *time.Time `json:"generatedAt"`
	// DataAsOf identifies the snapshot: the newest sync time among the
	// organization's stored rows.
	DataAsOf string `json:"dataAsOf"`
	// Note says that the data is a stored snapshot that may be stale.
	Note string `json:"note"`
}

// Account is a stored snapshot of an advertising account.
type Account struct {
	ID          string     `json:"id"`
	AccountName string     `json:"accountName"`
	Currency    string     `json:"currency"`
	Timezone    string     `json:"timezone"`
	IsActive    bool       `json:"isActive"`
	LastSyncAt  *time.Time `json:"lastSyncAt"`
}

// AccountRef is the currency and time zone of the account a campaign or an
// insight row belongs to.
type AccountRef struct {
	Currency string `json:"currency"`
	Timezone string `json:"timezone"`
}

// Campaign is a stored snapshot of a campaign. Budgets are in the account
// currency (Account.Currency).
type Campaign struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	Name                string     `json:"name"`
	Objective           string     `json:"objective"`
	Status              string     `json:"status"`
	EffectiveStatus     *string    `json:"effectiveStatus"`
	DailyBudget         *Decimal   `json:"dailyBudget"`
	LifetimeBudget      *Decimal   `json:"lifetimeBudget"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             AccountRef `json:"account"`
}

// PurchaseMeasurement says how the purchase fields of an insight row were
// measured.
type PurchaseMeasurement string

// The values of PurchaseMeasurement.
const (
	// PurchaseValueReported means purchases and their value were reported.
	PurchaseValueReported PurchaseMeasurement = "reported_purchase_value"
	// PurchaseCountReported means the purchase count was reported.
	PurchaseCountReported PurchaseMeasurement = "reported_purchase_count"
	// PurchaseUnavailable means there is no purchase evidence: Purchases,
	// PurchaseValue and ROAS are nil, and must not be read as zero.
	PurchaseUnavailable PurchaseMeasurement = "unavailable"
)

// Insight is one stored row of daily metrics, at account level (CampaignID
// nil) or campaign level. The two levels overlap and must not be added
// together, nor may amounts in different currencies; see [SummarizeInsights].
type Insight struct {
	ID                  string     `json:"id"`
	PlatformAdAccountID string     `json:"platformAdAccountId"`
	AttributionWindow   string     `json:"attributionWindow"`
	CampaignID          *string    `json:"campaignId"`
	Date                *Date      `json:"date"`
	SyncedAt            *time.Time `json:"syncedAt"`
	Account             AccountRef `json:"account"`

	PurchaseMeasurement PurchaseMeasurement `json:"purchaseMeasurement"`

	Spend Decimal `json:"spend"`
	CTR   Decimal `json:"ctr"`
	CPC   Decimal `json:"cpc"`
	CPM   Decimal `json:"cpm"`

	Impressions int64 `json:"impressions"`
	Reach       int64 `json:"reach"`
	Clicks      int64 `json:"clicks"`

	// Purchases, PurchaseValue and ROAS are nil when there is no purchase
	// evidence (PurchaseMeasurement is PurchaseUnavailable). They are never
	// inferred from generic conversion counts.
	Purchases     *float64 `json:"purchases"`
	PurchaseValue *float64 `json:"purchaseValue"`
	ROAS          *float64 `json:"roas"`
}

// Level reports whether the row is an account-level row (CampaignID nil) or
// a campaign-level row.
func (i Insight) Level() Level {
	if i.CampaignID == nil {
		return LevelAccount
	}
	return LevelCampaign
}

// Decimal is a decimal amount kept as the exact text the service sent, such
// as "12.50". It is a string on the wire; decoding also accepts a JSON number
// and keeps its literal text. Use [Decimal.Rat] for exact arithmetic, never
// float64.
type Decimal string

// ParseDecimal checks that s is a decimal number: an optional sign, digits
// with an optional fraction, and an optional exponent of at most four digits
// ("12.50", "-0.4", "1e-3"). Fractions such as "1/3", Inf and NaN are rejected.
func ParseDecimal(s string) (Decimal, error) {
	if !isDecimal(s) {
		return "", fmt.Errorf("svc: %q is not a decimal number", s)
	}
	return Decimal(s), nil
}

// Rat returns the exact value of d.
func (d Decimal) Rat() (*big.Rat, error) {
	if !isDecimal(string(d)) {
		return nil, fmt.Errorf("svc: %q is not a decimal number", string(d))
	}
	r, ok := new(big.Rat).SetString(string(d))
	if !ok {
		return nil, fmt.Errorf("svc: %q is not a decimal number", string(d))
	}
	return r, nil
}

// String returns the decimal text as sent by the service.
func (d Decimal) String() string { return string(d) }

// UnmarshalJSON accepts a JSON string or number holding a decimal number.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if !isDecimal(s) {
		return fmt.Errorf("%q is not a decimal number", s)
	}
	*d = Decimal(s)
	return nil
}

// isDecimal reports whether s is [+-]digits[.digits][e[+-]digits], with at
// least one digit in the mantissa and at most four in the exponent (a bound
// that keeps big.Rat from allocating huge numbers).
func isDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if exp == "" || len(exp) > 4 || !allDigits(exp) {
			return false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	return (whole != "" || frac != "") && allDigits(whole) && allDigits(frac)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Date is a calendar day with no time zone, as used by insight rows and by
// the from and to options. The zero Date means "not set".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

const dateLayout = "2006-01-02"

// ParseDate parses a date in the form YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("svc: %q is not a date in the form YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// DateOf returns the calendar day of t in t's own location. Use
// DateOf(t.UTC()) for the UTC day.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// String returns the date as YYYY-MM-DD.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsZero reports whether d is the zero Date, which means "not set".
func (d Date) IsZero() bool { return d == Date{} }

// IsValid reports whether d names a real calendar day.
func (d Date) IsValid() bool {
	return d.Year >= 1 && d.Year <= 9999 && DateOf(d.Time()) == d
}

// Time returns midnight UTC at the start of d.
func (d Date) Time() time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

// AddDays returns the date n days after d (before d when n is negative).
func (d Date) AddDays(n int) Date {
	return DateOf(d.Time().AddDate(0, 0, n))
}

// Before reports whether d is earlier than u.
func (d Date) Before(u Date) bool { return d.Time().Before(u.Time()) }

// After reports whether d is later than u.
func (d Date) After(u Date) bool { return d.Time().After(u.Time()) }

// daysUntil returns the number of days from d to u.
func (d Date) daysUntil(u Date) int {
	return int(u.Time().Sub(d.Time()).Hours() / 24)
}

// MarshalText returns the date as YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText accepts YYYY-MM-DD or an RFC 3339 date-time such as
// "2026-11-19T00:00:00Z", whose calendar day as written is kept.
func (d *Date) UnmarshalText(b []byte) error {
	s := string(b)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		*d = DateOf(t)
		return nil
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return fmt.Errorf("%q is neither a date (YYYY-MM-DD) nor an RFC 3339 date-time", s)
	}
	*d = DateOf(t)
	return nil
}

// UnmarshalJSON decodes a JSON string as UnmarshalText does; null leaves d
// unchanged.
func (d *Date) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a date must be a JSON string: %w", err)
	}
	return d.UnmarshalText([]byte(s))
}
