package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	apiquery "github.com/adsnap/svc/api-server/internal/query"
)

// The statements of GET /insights/summary (queries/*/summary*.sql). On
// PostgreSQL the groups, their exact sums and the page of groups come from
// one statement led by the meta columns, as a list page does; on SQLite the
// statement returns the rows in the order of their groups and
// InsightSummary sums and pages them here.
var (
	qSummary          = query("summary")
	qSummaryByAccount = query("summary_by_account")
)

// SummaryParams selects one page of summary groups. Limit is the number of
// groups to read (the API asks for one more than it returns); Level is
// "account" or "campaign", GroupBy "total", "account", "campaign", "day",
// "week" or "month" (query.Params); the others are ListParams'.
type SummaryParams struct {
	Limit, Offset  int
	AccountID      string
	From, To       string
	Level, GroupBy string
	// Options are the answers of summary_answers.go; nil for none.
	Options *apiquery.SummaryOptions
}

// SummaryGroup is one group of insight rows: one currency, one level, the
// keys of its grouping ("" where the grouping has none), and its exact
// sums as decimal text. Purchases is "" when PurchaseRows is 0, and
// PurchaseValue and ValueSpend (the spend of the PurchaseValueRows rows,
// the denominator of the ROAS) are "" when PurchaseValueRows is 0.
type SummaryGroup struct {
	Currency                  string
	AccountID, CampaignID     string
	PeriodStart, PeriodEnd    string // YYYY-MM-DD
	Rows, Days                int64
	Spend                     string
	Impressions, Clicks       int64
	PurchaseRows              int64
	Purchases                 string
	PurchaseValueRows         int64
	PurchaseValue, ValueSpend string
	// AccountName, CampaignName and Status name the group's account and
	// campaign (summary_answers.go); "" where the grouping has none.
	AccountName, CampaignName, Status string
	// Previous is the same group over the second period, with
	// Options.CompareFrom (all zero where it had no rows); nil otherwise.
	Previous *SummaryGroup
}

// InsightSummary returns the organization's meta and a page of the groups
// of its insight rows (openapi.yaml, readInsightSummary), in the API's
// order. On PostgreSQL it is one statement and one round trip, which also
// reads pre's key-state epoch (pre, if not nil; only on PostgreSQL). When the
// account asked for is not the organization's, Meta.AccountFound is false
// and there is no group.
func (s *Store) InsightSummary(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	if p.Options != nil && p.Options.Ranked() {
		return s.rankedSummary(ctx, orgID, p, pre)
	}
	m, out, err := s.summaryGroups(ctx, orgID, p, pre)
	if err == nil {
		err = s.nameGroups(ctx, orgID, out)
	}
	return m, out, err
}

// summaryGroups is InsightSummary without the answers: the page of groups
// in the API's order.
func (s *Store) summaryGroups(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	var (
		m   Meta
		out []SummaryGroup
		err error
	)
	if s.pool != nil {
		m, out, err = s.pgSummary(ctx, orgID, p, pre)
	} else {
		m, out, err = s.sqliteSummary(ctx, orgID, p, pre)
	}
	if err != nil {
		return m, nil, fmt.Errorf("insight summary: %w", err)
	}
	for i := range out {
		if out[i].PeriodEnd, err = periodEnd(out[i].PeriodStart, p.GroupBy); err != nil {
			return m, nil, fmt.Errorf("insight summary: %w", err)
		}
	}
	return m, out, nil
}

// InsightSummary reads on a replica when one is healthy.
func (r *Routed) InsightSummary(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	return routed(ctx, r, orgID, pre, func(s *Store, pre Prelude) (Meta, []SummaryGroup, error) {
		return s.InsightSummary(ctx, orgID, p, pre)
	})
}

// periodEnd is the last day of the calendar period that starts on start
// (YYYY-MM-DD) under groupBy: the day itself, the Sunday of an ISO week,
// the last of a month; "" when start is.
func periodEnd(start, groupBy string) (string, error) {
	if start == "" {
		return "", nil
	}
	d, err := time.Parse(time.DateOnly, start)
	if err != nil {
		return "", fmt.Errorf("period start %q: %w", start, err)
	}
	switch groupBy {
	case "week":
		d = d.AddDate(0, 0, 6)
	case "month":
		d = d.AddDate(0, 1, -1)
	}
	return d.Format(time.DateOnly), nil
}

// summaryCols is the number of columns of a summary statement after the
// meta columns on PostgreSQL.
const summaryCols = 14

func (s *Store) pgSummary(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	q, args := qSummary, []any{orgID, p.Limit, p.Offset, p.From, p.To, p.Level, p.GroupBy}
	if p.AccountID != "" {
		q, args = qSummaryByAccount, append(args, p.AccountID)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Meta{}, nil, err
	}
	defer conn.Release()
	rows, err := conn.Query(ctx, q.pg, args...)
	if err != nil {
		return Meta{}, nil, err
	}
	defer rows.Close()
	var (
		m   Meta
		out []SummaryGroup
	)
	for rows.Next() {
		vals, fds := rows.RawValues(), rows.FieldDescriptions()
		if len(vals) != metaCols+summaryCols || len(fds) != len(vals) {
			return m, nil, errColumnCount
		}
		if out == nil {
			if m, err = readMeta(vals, fds, pre); err != nil {
				return m, nil, err
			}
			out = make([]SummaryGroup, 0, min(p.Limit, 1024))
		}
		d := rawDecoder{vals: vals[metaCols:], fds: fds[metaCols:]}
		g := SummaryGroup{
			Currency: d.str(0), AccountID: d.nullStr(1).String, CampaignID: d.nullStr(2).String,
			PeriodStart: d.nullStr(3).String, Rows: d.int8(4), Days: d.int8(5), Spend: d.str(6),
			Impressions: d.int8(7), Clicks: d.int8(8),
			PurchaseRows: d.int8(9), Purchases: d.nullStr(10).String,
			PurchaseValueRows: d.int8(11), PurchaseValue: d.nullStr(12).String, ValueSpend: d.nullStr(13).String,
		}
		if d.err != nil {
			return m, nil, d.err
		}
		out = append(out, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return m, nil, err
	}
	if out != nil {
		return m, out, nil
	}
	m, err = pgMeta(ctx, conn, orgID, p.AccountID, pre)
	return m, []SummaryGroup{}, err
}

func (s *Store) sqliteSummary(ctx context.Context, orgID string, p SummaryParams, pre Prelude) (Meta, []SummaryGroup, error) {
	if pre != nil {
		return Meta{}, nil, errPreludeSQLite
	}
	r := sqliteReader{s.stmts}
	m, err := r.meta(ctx, orgID, p.AccountID)
	if err != nil || !m.AccountFound {
		return m, []SummaryGroup{}, err
	}
	q, args := qSummary, []any{orgID, p.From, p.To, p.Level, p.GroupBy}
	if p.AccountID != "" {
		q, args = qSummaryByAccount, append(args, p.AccountID)
	}
	rows, err := s.stmts[q].QueryContext(ctx, args...)
	if err != nil {
		return m, nil, err
	}
	defer rows.Close()
	out := make([]SummaryGroup, 0, min(p.Limit, 128))
	var (
		acc     *summer
		key     [4]string
		skipped int
	)
	flush := func() error {
		if acc == nil {
			return nil
		}
		if skipped < p.Offset {
			skipped++
		} else {
			g, err := acc.group()
			if err != nil {
				return err
			}
			out = append(out, g)
		}
		acc = nil
		return nil
	}
	for rows.Next() && len(out) < p.Limit {
		var (
			r                 summaryRow
			account, campaign sql.NullString
			period            sql.NullString
		)
		if err := rows.Scan(&r.currency, &account, &campaign, &period, &r.date, &r.spend, &r.impressions, &r.clicks,
			&r.measurement, &r.purchases, &r.value); err != nil {
			return m, nil, err
		}
		k := [4]string{r.currency, account.String, campaign.String, period.String}
		if acc == nil || k != key {
			if err := flush(); err != nil {
				return m, nil, err
			}
			key = k
			acc = &summer{g: SummaryGroup{Currency: k[0], AccountID: k[1], CampaignID: k[2], PeriodStart: k[3]}}
		}
		if err := acc.add(&r); err != nil {
			return m, nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return m, nil, err
	}
	if len(out) < p.Limit {
		if err := flush(); err != nil {
			return m, nil, err
		}
	}
	return m, out, nil
}

// summaryRow is one row of SQLite's summary statement.
type summaryRow struct {
	currency, date, spend string
	impressions, clicks   int64
	measurement           string
	purchases, value      sql.NullFloat64
}

// summer sums the rows of one group on SQLite, exactly, as PostgreSQL's
// statement does: decimals as decimals, float8 purchase figures as C's
// %.15g writes them (strconv's 'g' with 15 digits gives the same).
type summer struct {
	g                                   SummaryGroup
	lastDate                            string
	spend, valueSpend, purchases, value decimal
}

func (a *summer) add(r *summaryRow) error {
	a.g.Rows++
	if r.date != a.lastDate { // rows come ordered by date within a group
		a.g.Days++
		a.lastDate = r.date
	}
	if err := addCount(&a.g.Impressions, r.impressions); err != nil { // checkedsum.go
		return err
	}
	if err := addCount(&a.g.Clicks, r.clicks); err != nil {
		return err
	}
	if err := a.spend.add(r.spend); err != nil {
		return err
	}
	measured := r.measurement != "unavailable"
	if measured && r.purchases.Valid {
		a.g.PurchaseRows++
		if err := a.purchases.add(formatFloat(r.purchases.Float64)); err != nil {
			return err
		}
	}
	if measured && r.value.Valid {
		a.g.PurchaseValueRows++
		if err := a.value.add(formatFloat(r.value.Float64)); err != nil {
			return err
		}
		return a.valueSpend.add(r.spend)
	}
	return nil
}

func (a *summer) group() (SummaryGroup, error) {
	g := a.g
	g.Spend = a.spend.String()
	if g.PurchaseRows > 0 {
		g.Purchases = a.purchases.String()
	}
	if g.PurchaseValueRows > 0 {
		g.PurchaseValue, g.ValueSpend = a.value.String(), a.valueSpend.String()
	}
	return g, nil
}

// decimal is an exact decimal sum: v × 10^-scale, scale the most decimal
// places among the terms (PostgreSQL's numeric sum writes the same).
type decimal struct {
	v     big.Int
	scale int
}

var errDecimal = errors.New("not a decimal")

// add adds the decimal text t: an optional sign, digits, an optional
// fraction and an optional exponent (as %g writes).
func (d *decimal) add(t string) error {
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		var err error
		if exp, err = strconv.Atoi(t[i+1:]); err != nil {
			return fmt.Errorf("%q: %w", t, errDecimal)
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	var x big.Int
	if _, ok := x.SetString(whole+frac, 10); !ok || strings.ContainsAny(whole+frac, "_") {
		return fmt.Errorf("%q: %w", t, errDecimal)
	}
	scale := len(frac) - exp
	if scale < 0 {
		x.Mul(&x, pow10(-scale))
		scale = 0
	}
	switch {
	case scale > d.scale:
		d.v.Mul(&d.v, pow10(scale-d.scale))
		d.scale = scale
	case scale < d.scale:
		x.Mul(&x, pow10(d.scale-scale))
	}
	d.v.Add(&d.v, &x)
	return nil
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// String writes the sum with exactly scale decimal places.
func (d *decimal) String() string {
	digits := new(big.Int).Abs(&d.v).String()
	if len(digits) <= d.scale {
		digits = strings.Repeat("0", d.scale-len(digits)+1) + digits
	}
	s := digits
	if d.scale > 0 {
		s = digits[:len(digits)-d.scale] + "." + digits[len(digits)-d.scale:]
	}
	if d.v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// formatFloat writes f as C's %.15g does.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', 15, 64) }
