package query

import (
	"slices"
	"strings"
	"testing"
)

// TestParseChanges: the feed's limit (1–1000, default 100), since or cursor
// (not both), accountId, from and to refused with their reason, unknown and
// repeated parameters, every problem listed.
func TestParseChanges(t *testing.T) {
	for _, c := range []struct {
		q     string
		want  ChangesParams
		probs []string
	}{
		{"", ChangesParams{Limit: 100}, nil},
		{"limit=1000&since=abc_-9", ChangesParams{Limit: 1000, Since: "abc_-9"}, nil},
		{"cursor=Zz", ChangesParams{Limit: 100, Cursor: "Zz"}, nil},
		{"limit=1001", ChangesParams{}, []string{"limit must be between 1 and 1000, got 1001"}},
		{"limit=0", ChangesParams{}, []string{"limit must be between 1 and 1000, got 0"}},
		{"limit=01", ChangesParams{}, []string{"limit must be an integer"}},
		{"since=a&cursor=b", ChangesParams{}, []string{msgChangesBoth}},
		{"since=a&accountId=acc_1&from=2026-01-01&to=2026-01-02", ChangesParams{}, []string{"accountId is not accepted", "from is not accepted", "to is not accepted"}},
		{"accountId=acc_1", ChangesParams{}, []string{"accountId is not accepted"}},
		{"since=a%2Bb", ChangesParams{}, []string{"since must be the opaque value"}},
		{"since=" + strings.Repeat("a", 513), ChangesParams{}, []string{"since must be the opaque value"}},
		{"since=a&since=b", ChangesParams{}, []string{"query parameter since is repeated"}},
		{"offset=1&x=2", ChangesParams{}, []string{`unknown query parameter "offset"`, `unknown query parameter "x"`}},
	} {
		got, probs := ParseChanges(c.q)
		if len(probs) != len(c.probs) {
			t.Errorf("%q: problems %q, want %q", c.q, probs, c.probs)
			continue
		}
		for i := range probs {
			if !strings.HasPrefix(probs[i], c.probs[i]) {
				t.Errorf("%q: problem %q, want %q…", c.q, probs[i], c.probs[i])
			}
		}
		if len(probs) == 0 && got != c.want {
			t.Errorf("%q: %+v, want %+v", c.q, got, c.want)
		}
	}
	_ = slices.Equal[[]string]
}
