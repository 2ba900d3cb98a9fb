package output

import (
	"reflect"
	"strings"
	"testing"
	"time"

	svc "github.com/adsnap/svc/sdk-go"
)

// TestCSVColumnsDerives: the fields no column names are appended in field
// order, an object's fields count by their own names, and the cells are
// the plain forms of the values.
func TestCSVColumnsDerives(t *testing.T) {
	type ref struct {
		Currency string `json:"currency"`
		Zone     string `json:"zone"`
	}
	type row struct {
		ID        string      `json:"id"`
		Account   ref         `json:"account"`
		Spend     svc.Decimal `json:"spend"`
		Frequency *float64    `json:"frequency"`
		Count     int64       `json:"count"`
		Seen      *time.Time  `json:"seen"`
		Date      *svc.Date   `json:"date"`
		hidden    string
	}
	cols := CSVColumns([]Column[row]{{Header: "id", Value: func(r row) string { return r.ID }},
		{Header: "currency", Value: func(r row) string { return r.Account.Currency }}})
	var heads []string
	for _, c := range cols {
		heads = append(heads, c.Header)
	}
	if want := "id currency zone spend frequency count seen date"; strings.Join(heads, " ") != want {
		t.Fatalf("headers %v, want %s", heads, want)
	}
	f, seen := 1.25, time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	r := row{ID: "x", Account: ref{"EUR", "UTC"}, Spend: "1.50", Frequency: &f, Count: 7, Seen: &seen, hidden: "h"}
	var cells []string
	for _, c := range cols {
		cells = append(cells, c.Value(r))
	}
	if want := []string{"x", "EUR", "UTC", "1.50", "1.25", "7", "2026-11-29T06:00:00Z", ""}; !reflect.DeepEqual(cells, want) {
		t.Fatalf("cells %q, want %q", cells, want)
	}
}
