package wirejson

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestMatchesEncodingJSON: every value is written as encoding/json writes it.
func TestMatchesEncodingJSON(t *testing.T) {
	check := func(v any, f func(a *Appender)) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		a := Appender{OK: true}
		f(&a)
		if !a.OK || string(a.B) != string(want) {
			t.Errorf("%v: got %s, want %s", v, a.B, want)
		}
	}
	for _, s := range []string{"", "plain", "a\"b\\c<d>e&f\x00\x01\b\f\n\r\t\x1f", "é 日本 \u2028\u2029 \xff\xfe \u202e\u200b"} {
		check(s, func(a *Appender) { a.Str(s) })
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -2.5, 1e-7, 1e-6, 1e20, 1e21, 5e-324, math.MaxFloat64, 123456789012345678, 80.125} {
		check(f, func(a *Appender) { a.Float(f) })
	}
	for _, n := range []int64{0, -1, math.MaxInt64, math.MinInt64} {
		check(n, func(a *Appender) { a.Int(n) })
	}
	for _, tm := range []time.Time{time.Date(2026, 11, 20, 6, 0, 0, 123456789, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 5*3600+1800))} {
		check(tm, func(a *Appender) { a.Time(tm, true) })
	}
	check(nil, func(a *Appender) { a.Time(time.Time{}, false) })
	check("2026-11-19T00:00:00Z", func(a *Appender) { a.Day("2026-11-19") })
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		a := Appender{OK: true}
		if a.Float(f); a.OK {
			t.Errorf("%v: want !OK (encoding/json refuses it)", f)
		}
	}
	a := Appender{OK: true}
	if a.Time(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), true); a.OK {
		t.Error("year 10000: want !OK")
	}
}
