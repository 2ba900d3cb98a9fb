package wirejson

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// FuzzMatchesEncodingJSON holds every Appender method that encodes a value
// to encoding/json, byte for byte: a string (AppendString writes every string
// of every row), a float64 from any bit pattern, an int64 and a time in any
// fixed zone. Where encoding/json refuses the value, the Appender must turn
// OK false instead. scripts/fuzz.sh (make test) runs it.
func FuzzMatchesEncodingJSON(f *testing.F) {
	f.Add("plain", math.Float64bits(80.125), int64(0), int64(1795500000), int64(123456789), int32(0))
	f.Add("a\"b\\c<d>e&f\x00\x01\b\f\n\r\t\x1f\x7f", math.Float64bits(1e-7), int64(-1), int64(-62135596800), int64(0), int32(5*3600+1800))
	f.Add("é 日本 \u2028\u2029 \xff\xfe \u202e\u200b\ufeff", math.Float64bits(1e21), int64(math.MaxInt64), int64(253402300800), int64(999999999), int32(-24*3600))
	f.Add("\xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf", math.Float64bits(math.NaN()), int64(math.MinInt64), int64(0), int64(1), int32(-1))
	f.Fuzz(func(t *testing.T, s string, bits uint64, n, sec, nsec int64, offset int32) {
		check := func(what string, v any, write func(a *Appender)) {
			t.Helper()
			want, err := json.Marshal(v)
			a := Appender{OK: true}
			write(&a)
			switch {
			case err != nil && a.OK:
				t.Errorf("%s %#v: encoding/json refuses it (%v), the Appender wrote %q", what, v, err, a.B)
			case err == nil && !a.OK:
				t.Errorf("%s %#v: encoding/json writes %s, the Appender refused it", what, v, want)
			case err == nil && string(a.B) != string(want):
				t.Errorf("%s %#v:\n got %s\nwant %s", what, v, a.B, want)
			}
		}
		check("string", s, func(a *Appender) { a.Str(s) })
		if got, want := string(AppendString([]byte("x"), s)), "x"+mustMarshal(t, s); got != want {
			t.Errorf("AppendString after a prefix: %q, want %q", got, want)
		}
		fl := math.Float64frombits(bits)
		check("float", fl, func(a *Appender) { a.Float(fl) })
		check("int", n, func(a *Appender) { a.Int(n) })
		tm := time.Unix(sec, nsec).In(time.FixedZone("z", int(offset)))
		check("time", tm, func(a *Appender) { a.Time(tm, true) })
	})
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
