package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Document is one snapshot document. Every array is optional.
type Document struct {
	Organizations []Organization `json:"organizations,omitempty"`
	Accounts      []Account      `json:"accounts,omitempty"`
	Campaigns     []Campaign     `json:"campaigns,omitempty"`
	Insights      []Insight      `json:"insights,omitempty"`
	LeadContacts  []LeadContact  `json:"leadContacts,omitempty"`
	// Complete declares, per account, the days the document is complete
	// for: stored rows of those days it does not carry are removed.
	Complete []Window `json:"complete,omitempty"`
}

// Organization is an organization with (some of) its members. In a real
// deployment these rows belong to the host platform.
type Organization struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	SubscriptionStatus string   `json:"subscriptionStatus"`
	TrialEndsAt        *string  `json:"trialEndsAt"`
	Members            []Member `json:"members,omitempty"`
}

// Member is a membership of an organization.
type Member struct {
	UserID  string `json:"userId"`
	Role    string `json:"role"`
	Removed bool   `json:"removed,omitempty"`
}

// Account is an advertising account. AccessTokenEncrypted and RawPayload
// are stored and never returned.
type Account struct {
	ID                   string          `json:"id"`
	OrganizationID       string          `json:"organizationId"`
	PlatformAdAccountID  string          `json:"platformAdAccountId"`
	AccountName          string          `json:"accountName"`
	Currency             string          `json:"currency"`
	Timezone             string          `json:"timezone"`
	IsActive             *bool           `json:"isActive"`
	LastSyncAt           *string         `json:"lastSyncAt"`
	AccessTokenEncrypted *string         `json:"accessTokenEncrypted,omitempty"`
	RawPayload           json.RawMessage `json:"rawPayload,omitempty"`
}

// Campaign is a campaign of an account. RawPayload is stored and never returned.
type Campaign struct {
	ID              string          `json:"id"`
	AccountID       string          `json:"accountId"`
	Name            string          `json:"name"`
	Objective       string          `json:"objective"`
	Status          string          `json:"status"`
	EffectiveStatus *string         `json:"effectiveStatus"`
	DailyBudget     *string         `json:"dailyBudget"`
	LifetimeBudget  *string         `json:"lifetimeBudget"`
	SyncedAt        *string         `json:"syncedAt"`
	RawPayload      json.RawMessage `json:"rawPayload,omitempty"`
}

// Insight (one day of one account or one campaign) is generated from its
// declaration, store/schema (insight_gen.go).

// LeadContact is a lead of an account: stored, never returned.
type LeadContact struct {
	ID        string  `json:"id"`
	AccountID string  `json:"accountId"`
	Email     *string `json:"email"`
	Phone     *string `json:"phone"`
}

// ValidationError lists every problem found in a document, each starting
// with the JSON path of the offending element.
type ValidationError struct {
	Problems []string
	// More counts the problems found beyond Problems (a streamed import
	// keeps the first maxProblems).
	More int
}

// maxProblems caps the list a ValidationError prints.
const maxProblems = 200

// Error lists the problems, at most maxProblems, then how many more.
func (e *ValidationError) Error() string {
	var b strings.Builder
	total := len(e.Problems) + e.More
	fmt.Fprintf(&b, "invalid snapshot document (%d problem", total)
	if total != 1 {
		b.WriteByte('s')
	}
	b.WriteString("; nothing was imported):")
	for i, p := range e.Problems {
		if i == maxProblems {
			break
		}
		b.WriteString("\n  ")
		b.WriteString(p)
	}
	if n := total - min(len(e.Problems), maxProblems); n > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", n)
	}
	return b.String()
}

// MaxDocumentBytes bounds the size of a document Parse reads.
const MaxDocumentBytes = 512 << 20

// Parse reads a document. Structural problems (not JSON, unknown fields,
// wrong types) are reported together as a *ValidationError with JSON paths;
// Validate then checks the values.
func Parse(r io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read snapshot document: %w", err)
	}
	if len(data) > MaxDocumentBytes {
		return nil, &ValidationError{Problems: []string{fmt.Sprintf("$: document larger than %d bytes", MaxDocumentBytes)}}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &ValidationError{Problems: []string{fmt.Sprintf("$: not valid JSON at byte %d: %v", se.Offset, se)}}
		}
		return nil, &ValidationError{Problems: []string{"$: want a JSON object"}}
	}
	if top == nil {
		return nil, &ValidationError{Problems: []string{"$: want a JSON object"}}
	}
	var doc Document
	var problems []string
	unknown := make([]string, 0)
	for k := range top {
		switch k {
		case "organizations", "accounts", "campaigns", "insights", "leadContacts":
		default:
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		problems = append(problems, fmt.Sprintf("$%s: unknown field (want organizations, accounts, campaigns, insights, leadContacts)", fieldStep(k)))
	}
	problems = decodeArray(top, "organizations", &doc.Organizations, problems)
	problems = decodeArray(top, "accounts", &doc.Accounts, problems)
	problems = decodeArray(top, "campaigns", &doc.Campaigns, problems)
	problems = decodeArray(top, "insights", &doc.Insights, problems)
	problems = decodeArray(top, "leadContacts", &doc.LeadContacts, problems)
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return &doc, nil
}

// decodeArray decodes top[name] element by element, so that each problem
// names its element's index.
func decodeArray[T any](top map[string]json.RawMessage, name string, dst *[]T, problems []string) []string {
	raw, ok := top[name]
	if !ok || string(raw) == "null" {
		return problems
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return append(problems, fmt.Sprintf("$.%s: want an array", name))
	}
	out := make([]T, len(elems))
	for i, e := range elems {
		path := fmt.Sprintf("$.%s[%d]", name, i)
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out[i]); err != nil {
			problems = append(problems, decodeProblem(path, err))
		}
	}
	*dst = out
	return problems
}

// reField is a member name a path writes as .name; any other is written
// ["name"] (JSON-quoted), so that every path can be followed back.
var reField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func fieldStep(name string) string {
	if reField.MatchString(name) {
		return "." + name
	}
	b, _ := json.Marshal(name)
	return "[" + string(b) + "]"
}

func decodeProblem(path string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Sprintf("%s: want an object, got %s", path, te.Value)
		}
		return fmt.Sprintf("%s.%s: want %s, got %s", path, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("%s: unknown field %s", path, rest)
	}
	return fmt.Sprintf("%s: %s", path, strings.TrimPrefix(msg, "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int64", "int":
		return "an integer"
	case "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return goKind
}
