package store

import "testing"

// TestDecimalSum: SQLite's sums are exact and written with the most decimal
// places of their terms, as PostgreSQL's numeric sum writes them; terms in
// %g's exponent form are read exactly.
func TestDecimalSum(t *testing.T) {
	for _, tc := range []struct {
		terms []string
		want  string
	}{
		{[]string{"12.50", "7.5"}, "20.00"},
		{[]string{"64710", "1"}, "64711"},
		{[]string{"0.1", "0.2"}, "0.3"},
		{[]string{"-0.125", "0.1"}, "-0.025"},
		{[]string{"1.5e-05", "1"}, "1.000015"},
		{[]string{"1e+21", "0.5"}, "1000000000000000000000.5"},
		{[]string{"-1.00", "1"}, "0.00"},
		{[]string{formatFloat(78.45), formatFloat(0.1 + 0.2)}, "78.75"},
	} {
		var d decimal
		for _, x := range tc.terms {
			if err := d.add(x); err != nil {
				t.Fatalf("%v: %v", tc.terms, err)
			}
		}
		if got := d.String(); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.terms, got, tc.want)
		}
	}
	var d decimal
	for _, bad := range []string{"", "1.2.3", "abc", "1e", "1_0"} {
		if d.add(bad) == nil {
			t.Errorf("%q taken as a decimal", bad)
		}
	}
}
