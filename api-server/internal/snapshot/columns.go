package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/adsnap/svc/api-server/internal/store/schema"
)

// column is one column of a staging table, named after the table column
// the merge writes it to.
type column struct {
	name   string
	pgType string // PostgreSQL's type (SQLite's staging columns are untyped)
	// decimal: staged as its text, cast to numeric by the merge on
	// PostgreSQL and compared as text (numeric compares "12.50" = "12.5").
	decimal bool
}

// ordColumn is every staging table's first column: the element's index in
// its array (or line), which names it in messages.
var ordColumn = column{name: "ord", pgType: "bigint"}

// stageColumns are the staging tables' columns, in the order accept stages
// the values. Accounts and campaigns follow store/schema at run time
// (docFields); insights take the declared fields from insight_gen.go (which
// store/gen writes from the same schema) between their identity and the
// rest; lead contacts are not an API resource, so schema does not declare
// them.
var stageColumns = [numKinds][]column{
	kindAccount:  slices.Concat([]column{ordColumn}, columnsOf(accountFields)),
	kindCampaign: slices.Concat([]column{ordColumn}, columnsOf(campaignFields)),
	kindInsight: slices.Concat(
		[]column{ordColumn, {"id", "text", false}, {"account_id", "text", false}, {"campaign_id", "text", false}, {"date", "date", false}},
		declaredInsightColumns(),
		[]column{{"conversions", "bigint", false}, {"synced_at", "timestamptz", false}, {"raw_payload", "jsonb", false}}),
	kindLead:   {ordColumn, {"id", "text", false}, {"account_id", "text", false}, {"email", "text", false}, {"phone", "text", false}},
	kindWindow: {ordColumn, {"account_id", "text", false}, {"date_from", "date", false}, {"date_to", "date", false}},
}

func declaredInsightColumns() []column {
	out := make([]column, len(insightFieldColumns))
	for i, c := range insightFieldColumns {
		out[i] = column{name: c[0], pgType: c[1], decimal: insightDecimalColumns[c[0]]}
	}
	return out
}

// fromAccount are the columns the merge takes from a row's account
// (JOIN ad_accounts a ON a.id = s.account_id) instead of the document:
// campaigns and insights repeat their account's platform id, currency and
// time zone so that list queries need no join (README "Data").
var (
	accountCopies = []string{"platform_ad_account_id", "currency", "timezone"}
	fromAccount   = [numKinds][]string{
		kindCampaign: append([]string{"organization_id"}, accountCopies...),
		kindInsight:  append([]string{"organization_id"}, accountCopies...),
		kindLead:     {"organization_id"},
	}
)

// Stored-only fields: what the document carries for a row and the API
// never returns (the organization is implied by the key, the token and the
// payload are never read). schema declares Insight's (Read false, Doc
// true) but not yet Account's and Campaign's, so they are declared here in
// schema's form; docFields skips any that schema comes to declare itself.
var (
	accountStoredOnly = []schema.Field{
		{Go: "OrganizationID", JSON: "organizationId", Type: schema.Text, Column: "organization_id"},
		{Go: "PlatformAdAccountID", JSON: "platformAdAccountId", Type: schema.Text, Column: "platform_ad_account_id"},
		{Go: "AccessTokenEncrypted", JSON: "accessTokenEncrypted", Type: schema.Text, Null: true, Column: "access_token_encrypted"},
		{Go: "RawPayload", JSON: "rawPayload", Type: schema.JSON, Column: "raw_payload"},
	}
	campaignStoredOnly = []schema.Field{
		{Go: "AccountID", JSON: "accountId", Type: schema.Text, Column: "account_id"},
		{Go: "RawPayload", JSON: "rawPayload", Type: schema.JSON, Column: "raw_payload"},
	}
)

// docField is a staged field of a document struct: its column, its
// schema type and where it is in the struct.
type docField struct {
	column
	typ   schema.Type
	index []int
}

var (
	accountFields  = mustDocFields(reflect.TypeFor[Account](), schema.Account, accountStoredOnly, nil)
	campaignFields = mustDocFields(reflect.TypeFor[Campaign](), schema.Campaign, campaignStoredOnly, fromAccount[kindCampaign])
)

func mustDocFields(rt reflect.Type, r schema.Resource, stored []schema.Field, copied []string) []docField {
	f, err := docFields(rt, r, stored, copied)
	if err != nil {
		panic(err) // a declaration and the document struct disagree: every test fails here
	}
	return f
}

// docFields are the staged fields of resource r's document struct rt: the
// fields the API returns (Read), except those the merge copies from the
// account, then the stored-only ones schema does not declare. Each must be
// a field of rt with the same JSON name.
func docFields(rt reflect.Type, r schema.Resource, stored []schema.Field, copied []string) ([]docField, error) {
	var fields []schema.Field
	for _, f := range r.Fields {
		if (f.Read || f.Doc) && f.Column != "" && !slices.Contains(copied, f.Column) {
			fields = append(fields, f)
		}
	}
	for _, f := range stored {
		if !slices.ContainsFunc(fields, func(g schema.Field) bool { return g.Column == f.Column }) {
			fields = append(fields, f)
		}
	}
	out := make([]docField, len(fields))
	for i, f := range fields {
		sf, ok := rt.FieldByName(f.Go)
		if !ok {
			return nil, fmt.Errorf("snapshot: %s.%s is declared in store/schema but %s has no field %s", r.Name, f.Go, rt, f.Go)
		}
		if tag, _, _ := strings.Cut(sf.Tag.Get("json"), ","); tag != f.JSON {
			return nil, fmt.Errorf("snapshot: %s.%s: JSON name %q, store/schema says %q", rt, f.Go, tag, f.JSON)
		}
		pg, err := stageType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("snapshot: %s.%s: %w", r.Name, f.Go, err)
		}
		out[i] = docField{column: column{name: f.Column, pgType: pg, decimal: f.Type == schema.Decimal}, typ: f.Type, index: sf.Index}
	}
	return out, nil
}

// stageType is the PostgreSQL type a field of type t is staged as
// (decimals as text, cast by the merge).
func stageType(t schema.Type) (string, error) {
	switch t {
	case schema.Text, schema.Decimal:
		return "text", nil
	case schema.Int:
		return "bigint", nil
	case schema.Float:
		return "double precision", nil
	case schema.Bool:
		return "boolean", nil
	case schema.Time:
		return "timestamptz", nil
	case schema.Date:
		return "date", nil
	case schema.JSON:
		return "jsonb", nil
	}
	return "", fmt.Errorf("no staging type for schema type %d", t)
}

func columnsOf(fields []docField) []column {
	out := make([]column, len(fields))
	for i, f := range fields {
		out[i] = f.column
	}
	return out
}

// appendDocValues appends the staged values of a validated element v (a
// pointer to its document struct) for fields. It reads the fields by
// reflection (hand-written for this: store/gen writes the insight's values
// and is not to grow now), which costs nothing that shows: a document
// holds a few hundred accounts and campaigns for every 100,000 insights.
func (im *importer) appendDocValues(row []any, fields []docField, v any) []any {
	rv := reflect.ValueOf(v).Elem()
	for _, f := range fields {
		fv := rv.FieldByIndex(f.index)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				row = append(row, nil)
				continue
			}
			fv = fv.Elem()
		}
		switch f.typ {
		case schema.Time:
			// Validated: it parses, in years 1-9999.
			t, _ := time.Parse(time.RFC3339Nano, fv.String())
			row = append(row, im.db.timeValue(t.UTC()))
		case schema.Date:
			d, _ := time.Parse(time.DateOnly, fv.String())
			row = append(row, im.db.dateValue(fv.String(), d))
		case schema.JSON:
			row = append(row, jsonValue(fv.Bytes()))
		default:
			row = append(row, fv.Interface())
		}
	}
	return row
}

// jsonValue is a staged JSON document: its text, or NULL for none.
func jsonValue(b []byte) any {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return string(b)
}

// analyzeColumns are the columns of kind k's staging table that the checks
// and the merge join or group on.
func analyzeColumns(k kind) []string {
	var out []string
	for _, c := range stageColumns[k] {
		switch c.name {
		case "id", "organization_id", "account_id", "campaign_id":
			out = append(out, c.name)
		}
	}
	return out
}

func stageTable(k kind) string { return "svc_import_" + strings.ToLower(arrayNames[k]) }

// mergeColumnNames are the columns the merge of kind k writes, in the
// order of its statement's INSERT (queries/*/<kind>_merge.sql): the staged
// ones (after ord), those taken from the row's account (fromAccount), then
// updated_at. TestMergeColumns holds the statements to them.
func mergeColumnNames(k kind) []string {
	var out []string
	for _, c := range stageColumns[k][1:] {
		out = append(out, c.name)
	}
	return append(append(out, fromAccount[k]...), "updated_at")
}
