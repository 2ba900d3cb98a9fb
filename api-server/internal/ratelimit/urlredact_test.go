package ratelimit

import (
	"strings"
	"testing"
)

// TestURLErrorsRedacted (security review 2, informational): a URL that
// go-redis cannot parse is reported without the values that may be
// secrets: a Cluster or Sentinel addr= with user:password@, a path, a
// number.
func TestURLErrorsRedacted(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"redis://u:hunter2secret@node1:7000?addr=admin:hunter2secret@node2:bad:7001", "redis cluster url"},
		{"redis://node1:7000?addr=hunter2secret%40node2:7001:9", "redis cluster url"},
		{"redis://s1:26379?master_name=m&addr=u:hunter2secret@s2:x:1", "redis sentinel url"},
		{"redis://:hunter2secret@host:6379/hunter2secret", "redis url"},
		{"redis://:pw@host:6379/0?dial_timeout=hunter2secret", "redis url"},
	} {
		_, err := NewRedis(tc.url, "ns", 0)
		if err == nil {
			t.Errorf("%s: no error", tc.url)
			continue
		}
		msg := err.Error()
		t.Log(msg)
		if strings.Contains(msg, "hunter2") {
			t.Errorf("%s: the error echoes a secret: %s", tc.url, msg)
		}
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s: %s, want it to start %q", tc.url, msg, tc.want)
		}
	}
}
