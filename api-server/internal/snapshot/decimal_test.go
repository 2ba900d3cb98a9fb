package snapshot

import (
	"regexp"
	"testing"
)

// FuzzValidDecimal: validDecimal accepts exactly what decimalPattern
// matches.
func FuzzValidDecimal(f *testing.F) {
	re := regexp.MustCompile(decimalPattern)
	for _, s := range []string{"", "0", "-0", "12.50", "-12.5", ".5", "5.", "-", "1.2.3", "١٢", "1e5", "+1", "--1", "0.", "-.5", "12.50\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validDecimal(s), re.MatchString(s); got != want {
			t.Fatalf("validDecimal(%q) = %t, the pattern says %t", s, got, want)
		}
	})
}
