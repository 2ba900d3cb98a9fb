package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/adsnap/svc/api-server/internal/snapshot"
)

// progress reports an import's progress on stderr: on a terminal a line
// refreshed at most 4 times a second, otherwise a plain line every 10
// seconds (logs and CI keep them). Nothing for an import that ends
// within the first interval.
type progress struct {
	w        io.Writer
	on       bool
	terminal bool
	every    time.Duration
	start    time.Time
	mu       sync.Mutex
	last     time.Time
	drawn    bool
}

func newProgress(w io.Writer, on bool) *progress {
	p := &progress{w: w, on: on, start: time.Now(), every: 10 * time.Second}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal, p.every = true, 250*time.Millisecond
		}
	}
	p.last = p.start
	return p
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start) }

// update is the import's Progress callback.
func (p *progress) update(s snapshot.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < p.every && s.Phase == snapshot.PhaseReading {
		return
	}
	if s.Phase == snapshot.PhaseDone || now.Sub(p.start) < p.every {
		return
	}
	p.last = now
	line := fmt.Sprintf("import %s: %d organizations, %d accounts, %d campaigns, %d insights, %d lead contacts; %s rows/s, %s",
		s.Phase, s.Rows.Organizations, s.Rows.Accounts, s.Rows.Campaigns, s.Rows.Insights, s.Rows.LeadContacts,
		rate(s.Rows.Total(), now.Sub(p.start)), now.Sub(p.start).Round(time.Second))
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// finish ends a refreshing line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// rate formats n per d as a whole number.
func rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64(float64(n)/d.Seconds()), 10)
}
