package svc

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// Row is one row of a bulk read: the typed value, and the row exactly as
// the service sent it (one JSON object), for printing it unchanged (an
// insight's date-time "2026-11-19T00:00:00Z" is the [Date] 2026-11-19 in
// Value). See AllRaw of each service.
type Row[T any] struct {
	Value T
	Raw   json.RawMessage
}

// values iterates over the typed values of rows.
func values[T any](rows iter.Seq2[Row[T], error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for r, err := range rows {
			if !yield(r.Value, err) {
				return
			}
		}
	}
}

// rawAt returns row i of page as the service sent it, or nil for a page
// that was not decoded from a response.
func rawAt[T any](page *Page[T], i int) json.RawMessage {
	if i < len(page.raw) {
		return page.raw[i]
	}
	return nil
}

// list fetches one page of endpoint with opts, validated first. bulk marks
// the request of an iterator (see Client.get).
func list[T any](ctx context.Context, c *Client, endpoint string, opts lister, bulk bool) (*Page[T], error) {
	q, err := opts.query(DateOf(c.cfg.now().UTC()))
	if err != nil {
		return nil, err
	}
	page := new(Page[T])
	resp, err := c.get(ctx, endpoint, q, page, bulk)
	if err != nil {
		return nil, err
	}
	page.Response = resp
	return page, nil
}

// capped reports whether a page stopped at the offset limit while rows may
// remain: the server gives no nextOffset past MaxOffset, even when more rows
// exist (its meta.note then says so). A full page ending past MaxOffset is
// taken as capped; when it was in fact the last row, the way around the
// limit costs a request or two and finds nothing more.
func capped(m Meta) bool {
	return m.NextOffset == nil && m.Limit > 0 && m.Returned >= m.Limit && m.Offset+m.Returned > MaxOffset
}

// walk is one bulk read: it fetches pages, checks that every page comes
// from the same snapshot (meta.dataAsOf), counts the rows yielded and
// yields them. Every method returns false once the iteration must stop
// (the consumer stopped, or an error was yielded).
type walk[T any] struct {
	c        *Client
	endpoint string
	op       string
	yield    func(Row[T], error) bool
	asOf     string
	started  bool
	rows     int
}

func newWalk[T any](c *Client, endpoint string, yield func(Row[T], error) bool) *walk[T] {
	return &walk[T]{c: c, endpoint: endpoint, op: "GET " + endpoint, yield: yield}
}

// fail yields err once, with a zero row.
func (w *walk[T]) fail(err error) bool {
	w.yield(Row[T]{}, err)
	return false
}

// incomplete yields an *IncompleteError.
func (w *walk[T]) incomplete(reason string, err error) bool {
	return w.fail(&IncompleteError{Endpoint: w.op, Rows: w.rows, Reason: reason, Err: err})
}

// emit yields one row, with the row as the service sent it.
func (w *walk[T]) emit(row T, raw json.RawMessage) bool {
	if !w.yield(Row[T]{Value: row, Raw: raw}, nil) {
		return false
	}
	w.rows++
	return true
}

// page fetches one page of endpoint (which may differ from the walk's, for
// the accounts of a per-account split) and checks its snapshot.
func fetchPage[R, T any](ctx context.Context, w *walk[T], endpoint string, opts lister) (*Page[R], bool) {
	page, err := list[R](ctx, w.c, endpoint, opts, true)
	if err != nil {
		return nil, w.fail(err)
	}
	if !w.started {
		w.started, w.asOf = true, page.Meta.DataAsOf
	} else if page.Meta.DataAsOf != w.asOf {
		return nil, w.fail(fmt.Errorf("svc: %s: %w: dataAsOf was %q on the first page and is %q at offset %d of GET %s; start the listing again",
			w.op, ErrSnapshotMoved, w.asOf, page.Meta.DataAsOf, page.Meta.Offset, endpoint))
	}
	return page, true
}

// next moves opts to the next page, or reports false when page was the last
// of its listing. A nextOffset that does not move forward is an error.
func (w *walk[T]) next(page Meta, opts *ListOptions) (more, ok bool) {
	if page.NextOffset == nil {
		return false, true
	}
	if *page.NextOffset <= opts.Offset {
		return false, w.fail(fmt.Errorf("svc: %s: the server returned nextOffset %d at offset %d; stopping to avoid a loop",
			w.op, *page.NextOffset, opts.Offset))
	}
	opts.Offset = *page.NextOffset
	return true, true
}

// plain yields every row of one listing (no split), following nextOffset.
// When the listing stops at the offset limit, it yields an
// *IncompleteError with reason, or calls onCap when it is not nil and
// returns what onCap returns.
func plain[T, O any, P interface {
	*O
	lister
}](ctx context.Context, w *walk[T], opts O, skip int, reason string) bool {
	p := P(&opts)
	for {
		page, ok := fetchPage[T](ctx, w, w.endpoint, p)
		if !ok {
			return false
		}
		for i, row := range page.Data {
			if skip > 0 {
				skip--
				continue
			}
			if !w.emit(row, rawAt(page, i)) {
				return false
			}
		}
		more, ok := w.next(page.Meta, p.listOptions())
		if !ok {
			return false
		}
		if !more {
			if capped(page.Meta) {
				return w.incomplete(reason, nil)
			}
			return true
		}
	}
}

// accountIDs reads the ids of every account of the organization, for a
// split by account. A failure is reported as an *IncompleteError with why.
func accountIDs[T any](ctx context.Context, w *walk[T], why string) ([]string, bool) {
	opts := AccountListOptions{ListOptions{Limit: MaxLimit}}
	var ids []string
	for {
		page, err := list[Account](ctx, w.c, "/accounts", &opts, true)
		if err != nil {
			return nil, w.incomplete(why+", and listing the accounts to read it account by account failed", err)
		}
		for _, a := range page.Data {
			ids = append(ids, a.ID)
		}
		more, ok := w.next(page.Meta, &opts.ListOptions)
		if !ok {
			return nil, false
		}
		if !more {
			if capped(page.Meta) {
				return nil, w.incomplete(why+", and the organization has more than 10,100 accounts, too many to list", nil)
			}
			return ids, true
		}
	}
}

// pages iterates over the pages of one listing, following meta.nextOffset
// until it is null: opts is copied when pages is called, so the caller may
// reuse it, and every range over the result starts again from opts.Offset.
// The first error is yielded once, with a nil page, and ends the iteration;
// so does a change of meta.dataAsOf between pages (ErrSnapshotMoved), a
// nextOffset that does not move forward, and a last page that stops at the
// offset limit while rows may remain (ErrIncomplete).
func pages[T, O any, P interface {
	*O
	lister
}](ctx context.Context, c *Client, endpoint string, opts *O) iter.Seq2[*Page[T], error] {
	start := copyOrZero(opts)
	return func(yield func(*Page[T], error) bool) {
		cur := *start
		p := P(&cur)
		var asOf string
		rows := 0
		for first := true; ; first = false {
			page, err := list[T](ctx, c, endpoint, p, true)
			if err != nil {
				yield(nil, err)
				return
			}
			offset := p.listOptions().Offset
			if first {
				asOf = page.Meta.DataAsOf
			} else if page.Meta.DataAsOf != asOf {
				yield(nil, fmt.Errorf("svc: GET %s: %w: dataAsOf was %q on the first page and is %q at offset %d; start the listing again",
					endpoint, ErrSnapshotMoved, asOf, page.Meta.DataAsOf, offset))
				return
			}
			if !yield(page, nil) {
				return
			}
			rows += len(page.Data)
			next := page.Meta.NextOffset
			if next == nil {
				if capped(page.Meta) {
					yield(nil, &IncompleteError{Endpoint: "GET " + endpoint, Rows: rows,
						Reason: fmt.Sprintf("the listing stops at the offset limit (%d) and rows may remain; use All, which splits the listing", MaxOffset)})
				}
				return
			}
			if *next <= offset {
				yield(nil, fmt.Errorf("svc: GET %s: the server returned nextOffset %d at offset %d; stopping to avoid a loop",
					endpoint, *next, offset))
				return
			}
			p.listOptions().Offset = *next
		}
	}
}

// bulkOptions copies opts for a bulk read: 100 rows a page unless the
// caller chose a page size.
func bulkOptions[O any, P interface {
	*O
	lister
}](opts *O) O {
	o := *copyOrZero(opts)
	if lo := P(&o).listOptions(); lo.Limit == 0 {
		lo.Limit = MaxLimit
	}
	return o
}

// allAccounts iterates over every account. No split can reach accounts
// past the offset limit, so an organization with more than 10,100 accounts
// gets ErrIncomplete after the first 10,100 (ad accounts of one
// organization number in the tens or hundreds).
func allAccounts(ctx context.Context, c *Client, opts *AccountListOptions) iter.Seq2[Row[Account], error] {
	o := bulkOptions(opts)
	return func(yield func(Row[Account], error) bool) {
		if _, err := o.query(DateOf(c.cfg.now().UTC())); err != nil {
			yield(Row[Account]{}, err)
			return
		}
		w := newWalk(c, "/accounts", yield)
		plain(ctx, w, o, 0, fmt.Sprintf("the organization has more accounts than the offset limit (%d) lets a listing reach", MaxOffset))
	}
}

// allCampaigns iterates over every campaign. When the campaigns of the
// organization do not fit below the offset limit (a first request at
// offset MaxOffset tells), it lists the accounts first and then the
// campaigns of each account: the order is then by account, then id.
func allCampaigns(ctx context.Context, c *Client, opts *CampaignListOptions) iter.Seq2[Row[Campaign], error] {
	o := bulkOptions(opts)
	return func(yield func(Row[Campaign], error) bool) {
		if _, err := o.query(DateOf(c.cfg.now().UTC())); err != nil {
			yield(Row[Campaign]{}, err)
			return
		}
		w := newWalk(c, "/campaigns", yield)
		if o.AccountID != "" {
			plain(ctx, w, o, 0, fmt.Sprintf("account %s has more campaigns than the offset limit (%d) lets a listing reach", o.AccountID, MaxOffset))
			return
		}
		probe := o
		probe.Offset = MaxOffset
		page, ok := fetchPage[Campaign](ctx, w, w.endpoint, &probe)
		if !ok {
			return
		}
		if !capped(page.Meta) {
			plain(ctx, w, o, 0, "")
			return
		}
		why := fmt.Sprintf("the organization has more campaigns than the offset limit (%d) lets one listing reach", MaxOffset)
		ids, ok := accountIDs(ctx, w, why)
		if !ok {
			return
		}
		skip := o.Offset // counted in the per-account order
		for _, id := range ids {
			po := o
			po.Offset, po.AccountID = 0, id
			before := w.rows
			if !plain(ctx, w, po, skip, fmt.Sprintf("account %s has more campaigns than the offset limit (%d) lets a listing reach", id, MaxOffset)) {
				return
			}
			skip = max(skip-(w.rows-before), 0)
		}
	}
}

// allInsights iterates over every insight row of the date range, in the
// documented order (date descending, then id). When a listing stops at the
// offset limit, it goes on with the range narrowed to end on the last day
// it reached, and re-reads that day from its start: the rows of the day
// being read are held back until a row of an earlier day shows that the day
// is complete, so none is yielded twice. A single day that alone passes the
// limit is read account by account (its rows then come by account, then
// id); one account's day past the limit gives ErrIncomplete.
func allInsights(ctx context.Context, c *Client, opts *InsightListOptions) iter.Seq2[Row[Insight], error] {
	o := bulkOptions(opts)
	return func(yield func(Row[Insight], error) bool) {
		today := DateOf(c.cfg.now().UTC())
		if _, err := o.query(today); err != nil {
			yield(Row[Insight]{}, err)
			return
		}
		w := newWalk(c, "/insights", yield)
		r, _ := InsightDates(o.From, o.To, today) // checked by query
		from, to := r.From, r.To
		offset, dropUntil := o.Offset, ""
		for {
			win := o
			win.From, win.To, win.Offset = from, to, offset
			r, ok := insightWindow(ctx, w, win, dropUntil)
			if !ok {
				return
			}
			switch {
			case !r.capped:
				return // the whole range is read
			case r.overflow:
				if o.AccountID != "" {
					// No split is left: yield what was read of the day (the
					// first rows in the documented order), then fail.
					for _, row := range r.held {
						if !w.emit(row.Value, row.Raw) {
							return
						}
					}
					w.incomplete(fmt.Sprintf("account %s has more insight rows on %s than the offset limit (%d) lets a listing reach",
						o.AccountID, r.day, MaxOffset), nil)
					return
				}
				if !insightDayByAccount(ctx, w, o, r.day) {
					return
				}
				if !from.Before(r.day) {
					return
				}
				to, offset, dropUntil = r.day.AddDays(-1), 0, ""
			default:
				// Narrow to end on the day being read; its rows start again
				// at the first one held back.
				to, offset, dropUntil = r.day, 0, r.firstHeld
			}
		}
	}
}

// windowResult is how one date window of insights ended.
type windowResult struct {
	capped    bool           // stopped at the offset limit
	overflow  bool           // day alone passes the limit
	day       Date           // the day being read when it stopped
	firstHeld string         // id of the first row held back of day
	held      []Row[Insight] // the rows of day held back
}

// insightWindow reads one date window. Rows of the day being read are held
// back until a row of an earlier day (or the end of the window) shows the
// day complete; rows before dropUntil, when set, were handled before and are
// dropped.
func insightWindow(ctx context.Context, w *walk[Insight], win InsightListOptions, dropUntil string) (windowResult, bool) {
	var held []Row[Insight]
	var day Date
	released := false
	release := func() bool {
		for _, row := range held {
			if !w.emit(row.Value, row.Raw) {
				return false
			}
		}
		if len(held) > 0 {
			released = true
		}
		held = held[:0]
		return true
	}
	if dropUntil != "" {
		day = win.To
	}
	startOffset := win.Offset
	for {
		page, ok := fetchPage[Insight](ctx, w, w.endpoint, &win)
		if !ok {
			return windowResult{}, false
		}
		for i, row := range page.Data {
			d := Date{}
			if row.Date != nil {
				d = *row.Date
			}
			if dropUntil != "" {
				if row.ID != dropUntil {
					if d != day {
						return windowResult{}, w.fail(fmt.Errorf("svc: %s: the rows of %s changed while they were read again (row %q of %s came first); start the listing again",
							w.op, day, row.ID, d))
					}
					continue
				}
				dropUntil = ""
			}
			if len(held) == 0 || d != day {
				if !release() {
					return windowResult{}, false
				}
				day = d
			}
			held = append(held, Row[Insight]{Value: row, Raw: rawAt(page, i)})
		}
		more, ok := w.next(page.Meta, &win.ListOptions)
		if !ok {
			return windowResult{}, false
		}
		if more {
			continue
		}
		if !capped(page.Meta) {
			if dropUntil != "" {
				return windowResult{}, w.fail(fmt.Errorf("svc: %s: row %q of %s was not found again; start the listing again", w.op, dropUntil, day))
			}
			return windowResult{}, release()
		}
		r := windowResult{capped: true, day: day, held: held}
		switch {
		case !released && startOffset == 0:
			// Every row this window reached is of day: no narrower date
			// range can go past it.
			r.overflow = true
		case len(held) > 0:
			r.firstHeld = held[0].Value.ID
		default:
			r.overflow = true
		}
		return r, true
	}
}

// insightDayByAccount yields the rows of one day account by account.
func insightDayByAccount(ctx context.Context, w *walk[Insight], o InsightListOptions, day Date) bool {
	why := fmt.Sprintf("%s has more insight rows than the offset limit (%d) lets a listing reach", day, MaxOffset)
	ids, ok := accountIDs(ctx, w, why)
	if !ok {
		return false
	}
	for _, id := range ids {
		po := o
		po.From, po.To, po.Offset, po.AccountID = day, day, 0, id
		if !plain(ctx, w, po, 0, fmt.Sprintf("account %s has more insight rows on %s than the offset limit (%d) lets a listing reach", id, day, MaxOffset)) {
			return false
		}
	}
	return true
}

// copyOrZero returns a pointer to a copy of *p, or to a zero O when p is nil.
func copyOrZero[O any](p *O) *O {
	o := new(O)
	if p != nil {
		*o = *p
	}
	return o
}
