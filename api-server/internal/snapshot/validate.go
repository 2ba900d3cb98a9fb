package snapshot

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	apiquery "github.com/adsnap/svc/api-server/internal/query" // query names queries.go's declarations here
	"github.com/adsnap/svc/api-server/internal/store/schema"
	// Time zones are checked against the IANA database; embed it so that a
	// host without /usr/share/zoneinfo validates the same way.
	_ "time/tzdata"
)

var reCurrency = regexp.MustCompile(`^[A-Z]{3}$`)

// decimalPattern is the form of every decimal string of a document.
const decimalPattern = `^-?[0-9]+(\.[0-9]+)?$`

const (
	maxText    = 1024
	maxDecimal = 40
	// Dates and times lie in years 1–9999: PostgreSQL has no year 0 and
	// both backends store four-digit years.
	minYear = 1
	maxYear = 9999
	// MaxCount is the most a count of one row may be: schema.MaxCount
	// (its comment says why).
	MaxCount = schema.MaxCount
)

var (
	subscriptionStatuses = set("trialing", "active", "canceled")
	roles                = set("owner", "admin", "member")
)

func set(v ...string) map[string]bool {
	m := make(map[string]bool, len(v))
	for _, s := range v {
		m[s] = true
	}
	return m
}

// problems collects the validation messages of one element.
type problems []string

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, path+": "+fmt.Sprintf(format, args...))
}

func (p *problems) id(path, v string) {
	if !apiquery.ValidID(v) { // the API's accountId's pattern
		p.add(path, "want an identifier matching %s, got %s", apiquery.IDPattern, quote(v))
	}
}

func (p *problems) text(path, v string, required bool) {
	switch {
	case required && v == "":
		p.add(path, "required (a non-empty string)")
	case len(v) > maxText:
		p.add(path, "longer than %d bytes", maxText)
	default:
		p.nul(path, v)
	}
}

// nul refuses a NUL character, which PostgreSQL text cannot store.
func (p *problems) nul(path, v string) {
	if strings.IndexByte(v, 0) >= 0 {
		p.add(path, "contains a NUL character (U+0000), which the database cannot store")
	}
}

func (p *problems) decimal(path string, v *string, required bool) {
	switch {
	case v == nil && required:
		p.add(path, "required (a decimal string such as \"12.50\")")
	case v == nil:
	case len(*v) > maxDecimal || !validDecimal(*v):
		p.add(path, "not a decimal string (want %s, e.g. \"12.50\"), got %s", decimalPattern, quote(*v))
	}
}

// validDecimal reports whether s matches decimalPattern. Written out, as
// apiquery.ValidID is (see there): four decimals a row, and the regexp took
// 0.39 s of the Go CPU of a 1,000,000-row import. FuzzValidDecimal holds it
// to the pattern.
func validDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	return digits(whole) && (!dot || digits(frac))
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (p *problems) timestamp(path string, v *string) *time.Time {
	if v == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		p.add(path, "not an RFC 3339 date-time (want e.g. 2026-11-20T06:00:00Z), got %s", quote(*v))
		return nil
	}
	t = t.UTC()
	if t.Year() < minYear || t.Year() > maxYear {
		p.add(path, "year %d is out of range (want a UTC time in years 0001–9999), got %s", t.Year(), quote(*v))
		return nil
	}
	return &t
}

func (p *problems) count(path string, v *int64) {
	switch {
	case v == nil:
		p.add(path, "required (a non-negative integer)")
	case *v < 0:
		p.add(path, "must not be negative")
	case *v > MaxCount:
		p.add(path, "%d is more than %d, the most one row may count (the service's 64-bit sums of many rows must not overflow)", *v, int64(MaxCount))
	}
}

func (p *problems) number(path string, v *float64) {
	if v != nil && *v < 0 {
		p.add(path, "must not be negative")
	}
}

// collector keeps an import's first maxProblems problems and counts the rest.
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

// err is the *ValidationError of the problems collected, or nil.
func (c *collector) err() error {
	if c.total == 0 {
		return nil
	}
	return &ValidationError{Problems: c.kept, More: c.total - len(c.kept)}
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Validate checks every value of the document that needs no database:
// identifiers, required fields, enums, decimals, dates, duplicates and the
// references between elements of the document. It returns every problem.
func Validate(doc *Document) error {
	p := validate(doc)
	if len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
}

// validate checks each element, then the duplicates and references within
// the document (the import checks those against the database instead).
func validate(doc *Document) problems {
	var p problems
	seen := map[string]string{}
	dup := func(kind, path, id string) {
		k := kind + "\x00" + id
		if first, ok := seen[k]; ok {
			p.add(path, "duplicate id %s (first at %s)", quote(id), first)
			return
		}
		seen[k] = path
	}
	for i := range doc.Organizations {
		path := fmt.Sprintf("$.organizations[%d]", i)
		p.organization(path, &doc.Organizations[i])
		dup("org", path, doc.Organizations[i].ID)
	}
	for i := range doc.Accounts {
		path := fmt.Sprintf("$.accounts[%d]", i)
		p.account(path, &doc.Accounts[i])
		dup("account", path, doc.Accounts[i].ID)
	}
	campaigns := map[string]int{}
	for i, c := range doc.Campaigns {
		path := fmt.Sprintf("$.campaigns[%d]", i)
		p.campaign(path, &doc.Campaigns[i])
		dup("campaign", path, c.ID)
		campaigns[c.ID] = i
	}
	for i, in := range doc.Insights {
		path := fmt.Sprintf("$.insights[%d]", i)
		p.insight(path, &doc.Insights[i])
		dup("insight", path, in.ID)
		if in.CampaignID != nil {
			if ci, ok := campaigns[*in.CampaignID]; ok && doc.Campaigns[ci].AccountID != in.AccountID {
				p.add(path+".campaignId", "campaign %s belongs to account %s, not %s",
					quote(*in.CampaignID), quote(doc.Campaigns[ci].AccountID), quote(in.AccountID))
			}
		}
	}
	today := time.Now().UTC()
	for i := range doc.Complete {
		p.window(fmt.Sprintf("$.complete[%d]", i), &doc.Complete[i], today)
	}
	for i := range doc.LeadContacts {
		path := fmt.Sprintf("$.leadContacts[%d]", i)
		p.lead(path, &doc.LeadContacts[i])
		dup("lead", path, doc.LeadContacts[i].ID)
	}
	return p
}

// organization checks one organization and its members (duplicates among
// its members included) and returns its trial end.
func (p *problems) organization(path string, o *Organization) *time.Time {
	p.id(path+".id", o.ID)
	p.text(path+".name", o.Name, false)
	if !subscriptionStatuses[o.SubscriptionStatus] {
		p.add(path+".subscriptionStatus", "want one of trialing, active, canceled, got %s", quote(o.SubscriptionStatus))
	}
	t := p.timestamp(path+".trialEndsAt", o.TrialEndsAt)
	if o.SubscriptionStatus == "trialing" && o.TrialEndsAt == nil {
		p.add(path+".trialEndsAt", "required when subscriptionStatus is trialing")
	}
	users := map[string]bool{}
	for j, m := range o.Members {
		mp := fmt.Sprintf("%s.members[%d]", path, j)
		p.id(mp+".userId", m.UserID)
		if users[m.UserID] {
			p.add(mp+".userId", "duplicate member %s", quote(m.UserID))
		}
		users[m.UserID] = true
		if !roles[m.Role] {
			p.add(mp+".role", "want one of owner, admin, member, got %s", quote(m.Role))
		}
	}
	return t
}

// account checks one account.
func (p *problems) account(path string, a *Account) {
	p.id(path+".id", a.ID)
	p.id(path+".organizationId", a.OrganizationID)
	p.text(path+".platformAdAccountId", a.PlatformAdAccountID, true)
	p.text(path+".accountName", a.AccountName, true)
	if !reCurrency.MatchString(a.Currency) {
		p.add(path+".currency", "want an ISO 4217 code such as EUR, got %s", quote(a.Currency))
	}
	if a.Timezone == "" || len(a.Timezone) > 64 || strings.IndexByte(a.Timezone, 0) >= 0 {
		p.add(path+".timezone", "want an IANA time zone such as Europe/Berlin, got %s", quote(a.Timezone))
	} else if _, err := loadLocation(a.Timezone); err != nil || a.Timezone == "Local" {
		p.add(path+".timezone", "unknown IANA time zone %s", quote(a.Timezone))
	}
	if a.IsActive == nil {
		p.add(path+".isActive", "required (a boolean)")
	}
	p.timestamp(path+".lastSyncAt", a.LastSyncAt)
	if a.AccessTokenEncrypted != nil {
		if len(*a.AccessTokenEncrypted) > 16<<10 {
			p.add(path+".accessTokenEncrypted", "longer than 16 KiB")
		} else {
			p.nul(path+".accessTokenEncrypted", *a.AccessTokenEncrypted)
		}
	}
	p.payload(path+".rawPayload", a.RawPayload)
}

// campaign checks one campaign.
func (p *problems) campaign(path string, c *Campaign) {
	p.id(path+".id", c.ID)
	p.id(path+".accountId", c.AccountID)
	p.text(path+".name", c.Name, true)
	p.text(path+".objective", c.Objective, true)
	p.text(path+".status", c.Status, true)
	if c.EffectiveStatus != nil {
		p.text(path+".effectiveStatus", *c.EffectiveStatus, true)
	}
	p.decimal(path+".dailyBudget", c.DailyBudget, false)
	p.decimal(path+".lifetimeBudget", c.LifetimeBudget, false)
	p.timestamp(path+".syncedAt", c.SyncedAt)
	p.payload(path+".rawPayload", c.RawPayload)
}

// insight checks one insight row and returns its date (zero when invalid)
// and sync time.
func (p *problems) insight(path string, in *Insight) (time.Time, *time.Time) {
	p.id(path+".id", in.ID)
	p.id(path+".accountId", in.AccountID)
	if in.CampaignID != nil {
		p.id(path+".campaignId", *in.CampaignID)
	}
	d, err := time.Parse(time.DateOnly, in.Date)
	switch {
	case err != nil || d.Format(time.DateOnly) != in.Date:
		p.add(path+".date", "not a date (want YYYY-MM-DD), got %s", quote(in.Date))
		d = time.Time{}
	case d.Year() < minYear:
		p.add(path+".date", "year %04d is out of range (want years 0001–9999), got %s", d.Year(), quote(in.Date))
		d = time.Time{}
	}
	p.checkInsightFields(path, in)
	if in.Conversions != nil {
		p.count(path+".conversions", in.Conversions)
	}
	t := p.timestamp(path+".syncedAt", in.SyncedAt)
	p.payload(path+".rawPayload", in.RawPayload)
	return d, t
}

// lead checks one lead contact.
func (p *problems) lead(path string, l *LeadContact) {
	p.id(path+".id", l.ID)
	p.id(path+".accountId", l.AccountID)
	if l.Email != nil {
		p.text(path+".email", *l.Email, false)
	}
	if l.Phone != nil {
		p.text(path+".phone", *l.Phone, false)
	}
}

// locations caches time.LoadLocation, which reads the zone database on
// every call; a document names few zones.
var locations sync.Map

func loadLocation(name string) (*time.Location, error) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, l)
	return l, nil
}
