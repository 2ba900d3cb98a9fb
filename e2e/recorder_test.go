package e2e

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// recorder keeps everything that left the system (response bodies and
// headers, CLI output, MCP messages, server logs) and every secret, so that a
// final scenario can assert that no canary and no key ever appeared.
type recorder struct {
	mu      sync.Mutex
	outputs []string
	secrets []string
	servers []*harness.SyncBuffer
}

func (r *recorder) add(where, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outputs = append(r.outputs, where+"\x00"+s)
}

func (r *recorder) secret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, s)
}

func (r *recorder) logs(b *harness.SyncBuffer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.servers = append(r.servers, b)
}

func (r *recorder) response(resp *http.Response, body []byte) {
	var h strings.Builder
	resp.Header.Write(&h) //nolint:errcheck
	r.add("response "+resp.Request.URL.Path, h.String()+"\n"+string(body))
}

// leaks returns "where: what" for every recorded output that contains one of
// needles; server logs are included. Outputs whose source starts with one of
// the keys of allowed may contain the strings allowed maps it to.
func (r *recorder) leaks(needles []string, allowed map[string][]string) []string {
	r.mu.Lock()
	outputs := append([]string(nil), r.outputs...)
	for _, b := range r.servers {
		outputs = append(outputs, "server log\x00"+b.String())
	}
	r.mu.Unlock()
	var found []string
	for _, o := range outputs {
		where, text, _ := strings.Cut(o, "\x00")
		for _, n := range needles {
			if isAllowed(where, n, allowed) {
				continue
			}
			if strings.Contains(text, n) {
				found = append(found, where+": "+n[:min(len(n), 16)]+"…")
			}
		}
	}
	return found
}

func isAllowed(where, needle string, allowed map[string][]string) bool {
	for prefix, ok := range allowed {
		if strings.HasPrefix(where, prefix) && slices.Contains(ok, needle) {
			return true
		}
	}
	return false
}
