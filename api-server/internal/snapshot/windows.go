package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Complete windows (DESIGN §2a, README "Importing a snapshot"): a document
// may declare, per account, a range of days it is complete for,
//
//	"complete": [{"accountId": "acc_1", "from": "2026-11-01", "to": "2026-11-28"}]
//
// (NDJSON: a record of kind "complete"). The stored insight rows of that
// account and those days that the document does not carry are removed, in
// the import's transaction, recorded in the change log as removals and
// reflected in the counts and sums. A document without windows removes
// nothing. A window follows the SPEC's date rules for a range (from <= to,
// no day after today UTC, at most 90 days) and names an account of the
// document's organizations (one it lists, or whose accounts it carries),
// known to the document or the database.

// Window is a complete window of one account.
type Window struct {
	AccountID string `json:"accountId"`
	From      string `json:"from"`
	To        string `json:"to"`
}

// maxWindowDays is the longest window, in days (SPEC: a range of at most 90 days).
const maxWindowDays = 90

// The statements of complete windows (queries/).
var (
	qWindowsCheck   = query("windows_check")
	qWindowsTouched = query("windows_touched")
	qWindowsRemove  = query("windows_remove")
)

// window checks one complete window against the SPEC's date rules, with
// today the import's day (UTC), and returns its days (zero when invalid).
func (p *problems) window(path string, w *Window, today time.Time) (from, to time.Time) {
	p.id(path+".accountId", w.AccountID)
	day := func(field, v string) time.Time {
		d, err := time.Parse(time.DateOnly, v)
		if err != nil || d.Format(time.DateOnly) != v || d.Year() < minYear {
			p.add(path+"."+field, "not a date (want YYYY-MM-DD), got %s", quote(v))
			return time.Time{}
		}
		if d.After(today.UTC()) {
			p.add(path+"."+field, "%s is in the future (today is %s UTC)", v, today.UTC().Format(time.DateOnly))
			return time.Time{}
		}
		return d
	}
	from, to = day("from", w.From), day("to", w.To)
	switch {
	case from.IsZero() || to.IsZero():
		return time.Time{}, time.Time{}
	case from.After(to):
		p.add(path, "from %s is after to %s", w.From, w.To)
		return time.Time{}, time.Time{}
	case to.Sub(from) >= maxWindowDays*24*time.Hour:
		p.add(path, "from %s to %s is more than %d days", w.From, w.To, maxWindowDays)
		return time.Time{}, time.Time{}
	}
	return from, to
}

// acceptWindow validates a complete window and stages it.
func (im *importer) acceptWindow(ctx context.Context, e element, path string, p *problems) error {
	w := e.win
	from, to := p.window(path, w, im.now)
	if len(*p) > 0 || im.probs.total > 0 {
		return nil
	}
	im.refAccounts[w.AccountID] = true
	st := im.stages[kindWindow]
	return st.add(ctx, im, append(st.row(), e.ord, w.AccountID, im.db.dateValue(w.From, from), im.db.dateValue(w.To, to)))
}

// checkWindows reports each window whose account is unknown or belongs to
// an organization the document neither lists nor carries accounts of.
func (im *importer) checkWindows(ctx context.Context) error {
	orgs := []string{""} // IN () is no SQL
	for _, o := range im.orgs {
		orgs = append(orgs, o.org.ID)
	}
	return im.rows(ctx, qWindowsCheck.text(im.pg), func(ord int64, v []sql.NullString) {
		path := im.src.path(kindWindow, ord)
		if !v[1].Valid {
			im.probs.add(fmt.Sprintf("%s.accountId: account %s is neither in the document nor in the database", path, quote(v[0].String)))
			return
		}
		im.probs.add(fmt.Sprintf("%s.accountId: account %s belongs to organization %s, which the document does not import",
			path, quote(v[0].String), quote(v[1].String)))
	}, bun.List(orgs), maxProblems+1)
}

// removeIncomplete removes the stored rows of the complete windows that
// the document does not carry, recording them as removals.
func (im *importer) removeIncomplete(ctx context.Context) error {
	if im.sum.Windows == 0 {
		return nil
	}
	if err := im.runSQL(ctx, qWindowsTouched); err != nil {
		return err
	}
	return im.runSQL(ctx, qWindowsRemove)
}
