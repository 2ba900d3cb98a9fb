package query

import (
	"regexp"
	"strings"
	"testing"
)

// reAccountID is IDPattern as a regexp: the oracle of ValidID and of
// FuzzParse's accepted accountId.
var reAccountID = regexp.MustCompile(IDPattern)

// FuzzValidID: ValidID accepts exactly what IDPattern matches.
func FuzzValidID(f *testing.F) {
	re := reAccountID
	for _, s := range []string{"", "a", "acc_1-B", "a b", "ä", "a\n", "-", strings.Repeat("x", 128),
		strings.Repeat("x", 129), "x\x00", "ins_ä1", "A-Z_09"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidID(s), re.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %t, the pattern says %t", s, got, want)
		}
	})
}
