// Package schema declares the API's resources (SPEC §2) once: for each field
// its wire (JSON) name, type, nullability, column, and what the snapshot
// import needs (whether the document carries it, how it is validated).
// `go generate` in store and snapshot writes from it the row structs, the
// pgx and SQLite row decoders, the JSON encoder, the document struct, its
// validation and the import's column lists (store/gen). The statements
// that read the rows are SQL files (store/queries) whose column lists, the
// import's upserts (snapshot/queries) whose lists of the insight's
// declared fields, and openapi.yaml's resource schemas (and its examples'
// keys: a nullable field an example lacks is null there), store/gen writes
// in place between marker lines (-target regions; TestGeneratedRegions
// fails when they are stale); store's TestQueries checks that the statements return the
// declared columns, in order. Nothing reads this package at run time.
package schema

// Type is a field's kind of value.
type Type int

const (
	// Text is a string column, a JSON string.
	Text Type = iota
	// Decimal is a numeric column read as its text, a JSON string.
	Decimal
	// Int is a bigint, a JSON number.
	Int
	// Float is a double precision, a JSON number.
	Float
	// Bool is a boolean.
	Bool
	// Time is a timestamptz (always nullable), a JSON RFC 3339 string.
	Time
	// Date is a date read as YYYY-MM-DD, on the wire the start of that day
	// in UTC (YYYY-MM-DDT00:00:00Z).
	Date
	// JSON is a jsonb document field that is stored and never returned.
	JSON
)

// MaxCount is the most a count of one row may be (Check Count: impressions,
// reach, clicks, conversions): 10^12, far above any platform's daily figure.
// The service adds counts in 64-bit integers, which hold 9.2 × 10^18: at
// this bound a sum overflows only past 9.2 million rows at the maximum, and
// the sums are checked where they are added (security review 2, issue 40).
// The import refuses more (snapshot.MaxCount); openapi.yaml states it.
const MaxCount = 1_000_000_000_000

// Check is how the snapshot import validates a document field.
type Check string

const (
	// Hand: validated by hand-written code (ids, dates, times, payloads).
	Hand Check = ""
	// Required text, not empty.
	NonEmpty Check = "text"
	// A decimal in its text form (required unless Null).
	DecimalText Check = "decimal"
	// A count: present and not negative.
	Count Check = "count"
	// A finite number (null allowed).
	Number Check = "number"
	// One of Field.Enum.
	OneOf Check = "enum"
)

// Field is one field of a resource.
type Field struct {
	// Go is the Go field name (row struct, document struct).
	Go string
	// JSON is the field's name on the wire and in the snapshot document.
	JSON string
	Type Type
	// Null: the value may be absent (JSON null).
	Null bool
	// WireNull: the API contract (SPEC §2) allows null although the column
	// never holds one; only the OpenAPI type says so (Insight.date).
	WireNull bool
	// Column is the table column ("" for a document field the import
	// writes by hand, as accountId is account_id, with its organization),
	// and the name of the column the read statements return for it.
	Column string
	// Read: the read statements select it and the API returns it.
	Read bool
	// Group is the JSON object the field is returned in ("" for the top level).
	Group string
	// Doc: the snapshot document carries it. DocOmitEmpty adds omitempty.
	Doc, DocOmitEmpty bool
	// Check is how the import validates it (Hand: hand-written).
	Check Check
	// Enum lists the values of a OneOf field.
	Enum []string
	// Measured: returned only when the resource's measurement field is not
	// Unmeasured (SPEC §2 rule 1: purchase fields only when measured).
	Measured bool
	// Desc is the field's description in openapi.yaml ("" for none), and
	// Examples its examples there, a YAML flow sequence ("" for none).
	Desc, Examples string
}

// Resource is one list resource of the API.
type Resource struct {
	// Name is the Go name (Account: AccountRow, …).
	Name string
	// Table is the table its rows are stored in.
	Table string
	// Measurement names the Go field that tells whether Measured fields are
	// returned; Unmeasured is its value when they are not.
	Measurement, Unmeasured string
	Fields                  []Field
}

// Descriptions in openapi.yaml that several fields share.
const (
	untrusted  = "Untrusted third-party text."
	budget     = "Decimal amount in the account currency, as stored."
	inCurrency = "Stored decimal value, in the account currency."
)

// Resources are the API's list resources.
var Resources = []Resource{Account, Campaign, Insight}

// Account is SPEC §2's Account.
var Account = Resource{
	Name: "Account", Table: "ad_accounts",
	Fields: []Field{
		{Go: "ID", JSON: "id", Type: Text, Column: "id", Read: true},
		{Go: "AccountName", JSON: "accountName", Type: Text, Column: "account_name", Read: true, Desc: untrusted},
		{Go: "Currency", JSON: "currency", Type: Text, Column: "currency", Read: true, Desc: "Account currency."},
		{Go: "Timezone", JSON: "timezone", Type: Text, Column: "timezone", Read: true},
		{Go: "IsActive", JSON: "isActive", Type: Bool, Column: "is_active", Read: true},
		{Go: "LastSyncAt", JSON: "lastSyncAt", Type: Time, Null: true, Column: "last_sync_at", Read: true,
			Desc: "Time of the last synchronization."},
	},
}

// Campaign is SPEC §2's Campaign.
var Campaign = Resource{
	Name: "Campaign", Table: "campaigns",
	Fields: []Field{
		{Go: "ID", JSON: "id", Type: Text, Column: "id", Read: true},
		{Go: "PlatformAdAccountID", JSON: "platformAdAccountId", Type: Text, Column: "platform_ad_account_id", Read: true,
			Desc: "Identifier of the advertising account at the upstream platform."},
		{Go: "Name", JSON: "name", Type: Text, Column: "name", Read: true, Desc: untrusted},
		{Go: "Objective", JSON: "objective", Type: Text, Column: "objective", Read: true},
		{Go: "Status", JSON: "status", Type: Text, Column: "status", Read: true},
		{Go: "EffectiveStatus", JSON: "effectiveStatus", Type: Text, Null: true, Column: "effective_status", Read: true},
		{Go: "DailyBudget", JSON: "dailyBudget", Type: Decimal, Null: true, Column: "daily_budget", Read: true, Desc: budget},
		{Go: "LifetimeBudget", JSON: "lifetimeBudget", Type: Decimal, Null: true, Column: "lifetime_budget", Read: true, Desc: budget},
		{Go: "SyncedAt", JSON: "syncedAt", Type: Time, Null: true, Column: "synced_at", Read: true},
		{Go: "Currency", JSON: "currency", Type: Text, Column: "currency", Read: true, Group: "account"},
		{Go: "Timezone", JSON: "timezone", Type: Text, Column: "timezone", Read: true, Group: "account"},
	},
}

// Insight is SPEC §2's daily Insight, and the document's insight element
// (import-only fields have Read false; fields the import takes from the
// account have Doc false).
var Insight = Resource{
	Name: "Insight", Table: "insights_daily",
	Measurement: "PurchaseMeasurement", Unmeasured: "unavailable",
	Fields: []Field{
		{Go: "ID", JSON: "id", Type: Text, Column: "id", Read: true, Doc: true},
		{Go: "AccountID", JSON: "accountId", Type: Text, Doc: true},
		{Go: "PlatformAdAccountID", JSON: "platformAdAccountId", Type: Text, Column: "platform_ad_account_id", Read: true},
		{Go: "AttributionWindow", JSON: "attributionWindow", Type: Text, Column: "attribution_window", Read: true, Doc: true, Check: NonEmpty},
		{Go: "CampaignID", JSON: "campaignId", Type: Text, Null: true, Column: "campaign_id", Read: true, Doc: true,
			Desc: "Null for account-level rows."},
		{Go: "Date", JSON: "date", Type: Date, WireNull: true, Column: "date", Read: true, Doc: true, Desc: "The day (UTC midnight)."},
		{Go: "SyncedAt", JSON: "syncedAt", Type: Time, Null: true, Column: "synced_at", Read: true, Doc: true},
		{Go: "Currency", JSON: "currency", Type: Text, Column: "currency", Read: true, Group: "account"},
		{Go: "Timezone", JSON: "timezone", Type: Text, Column: "timezone", Read: true, Group: "account"},
		{Go: "PurchaseMeasurement", JSON: "purchaseMeasurement", Type: Text, Column: "purchase_measurement", Read: true, Doc: true,
			Check: OneOf, Enum: []string{"reported_purchase_value", "reported_purchase_count", "unavailable"}},
		{Go: "Spend", JSON: "spend", Type: Decimal, Column: "spend", Read: true, Doc: true, Check: DecimalText, Desc: inCurrency},
		{Go: "CTR", JSON: "ctr", Type: Decimal, Column: "ctr", Read: true, Doc: true, Check: DecimalText, Desc: "Stored decimal value."},
		{Go: "CPC", JSON: "cpc", Type: Decimal, Column: "cpc", Read: true, Doc: true, Check: DecimalText, Desc: inCurrency},
		{Go: "CPM", JSON: "cpm", Type: Decimal, Column: "cpm", Read: true, Doc: true, Check: DecimalText, Desc: inCurrency},
		{Go: "Impressions", JSON: "impressions", Type: Int, Column: "impressions", Read: true, Doc: true, Check: Count,
			Desc: "Stored count; the import refuses a count above 10^12 (a row's bound, so that the service's 64-bit sums cannot overflow)."},
		{Go: "Reach", JSON: "reach", Type: Int, Column: "reach", Read: true, Doc: true, Check: Count},
		{Go: "Clicks", JSON: "clicks", Type: Int, Column: "clicks", Read: true, Doc: true, Check: Count},
		{Go: "Purchases", JSON: "purchases", Type: Float, Null: true, Column: "purchases", Read: true, Doc: true, Check: Number, Measured: true,
			Desc: "Null when purchase evidence is unavailable; never inferred from generic conversions.", Examples: "[7]"},
		{Go: "PurchaseValue", JSON: "purchaseValue", Type: Float, Null: true, Column: "purchase_value", Read: true, Doc: true, Check: Number, Measured: true,
			Desc: "Null when purchase evidence is unavailable. A 64-bit float (78.45 does not fit a 32-bit one), in the account currency.", Examples: "[78.45]"},
		{Go: "ROAS", JSON: "roas", Type: Float, Null: true, Column: "roas", Read: true, Doc: true, Check: Number, Measured: true,
			Desc: "Null when purchase evidence is unavailable. Purchase value divided by spend, a 64-bit float.", Examples: "[2.1534]"},
		{Go: "Conversions", JSON: "conversions", Type: Int, Null: true, Column: "conversions", Doc: true, DocOmitEmpty: true},
		{Go: "RawPayload", JSON: "rawPayload", Type: JSON, Column: "raw_payload", Doc: true, DocOmitEmpty: true},
	},
}
