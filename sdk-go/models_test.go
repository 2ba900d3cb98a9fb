package svc

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDecimal(t *testing.T) {
	t.Parallel()
	valid := map[string]string{"12.50": "25/2", "0": "0", "-0.4": "-2/5", "+3": "3", ".5": "1/2", "5.": "5", "1e-3": "1/1000", "2.5E2": "250"}
	for in, want := range valid {
		d, err := ParseDecimal(in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", in, err)
			continue
		}
		r, err := d.Rat()
		if err != nil || r.RatString() != want {
			t.Errorf("Decimal(%q).Rat() = %v, %v; want %s", in, r, err, want)
		}
	}
	for _, in := range []string{"", "-", ".", "1/3", "NaN", "Inf", "0x10", "1e", "1e99999", "1,5", " 1", "1.2.3", "e5"} {
		if _, err := ParseDecimal(in); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", in)
		}
		if _, err := Decimal(in).Rat(); err == nil {
			t.Errorf("Decimal(%q).Rat() succeeded", in)
		}
	}
}

func TestDecimalJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		A Decimal  `json:"a"`
		B *Decimal `json:"b"`
		C *Decimal `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a":"12.50","b":80.10,"c":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != "12.50" || v.B == nil || *v.B != "80.10" || v.C != nil {
		t.Errorf("decoded %+v", v)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"a":"12.50","b":"80.10","c":null}` {
		t.Errorf("encoded %s", out)
	}
}

func TestDate(t *testing.T) {
	t.Parallel()
	d, err := ParseDate("2026-11-19")
	if err != nil || d != (Date{2026, time.November, 19}) || d.String() != "2026-11-19" {
		t.Errorf("ParseDate = %v, %v", d, err)
	}
	for _, bad := range []string{"2026-11-19T00:00:00Z", "19.11.2026", "2026-02-30", ""} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) succeeded", bad)
		}
	}
	if got := d.AddDays(-29); got != (Date{2026, time.October, 21}) {
		t.Errorf("AddDays(-29) = %s", got)
	}
	if !(Date{2026, 12, 31}).After(d) || !d.Before(Date{2027, 1, 1}) || d.daysUntil(Date{2027, 2, 17}) != 90 {
		t.Error("date comparison is wrong")
	}
	if (Date{}).IsValid() || !(Date{}).IsZero() || (Date{2026, 2, 29}).IsValid() || !(Date{2028, 2, 29}).IsValid() {
		t.Error("IsValid or IsZero is wrong")
	}
	if got := DateOf(time.Date(2026, 11, 19, 23, 30, 0, 0, time.FixedZone("x", -3600))); got != d {
		t.Errorf("DateOf = %s, want the day in t's location", got)
	}

	var v struct{ A, B, C *Date }
	if err := json.Unmarshal([]byte(`{"A":"2026-11-19T00:00:00Z","B":"2026-11-19","C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if *v.A != d || *v.B != d || v.C != nil {
		t.Errorf("decoded %v %v %v", v.A, v.B, v.C)
	}
	out, _ := json.Marshal(v)
	if string(out) != `{"A":"2026-11-19","B":"2026-11-19","C":null}` {
		t.Errorf("encoded %s", out)
	}
	if err := json.Unmarshal([]byte(`{"A":20261119}`), &v); err == nil {
		t.Error("a number decoded as a date")
	}
}
