package listing

import (
	"fmt"
	"math"
	"sync"
	"time"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// PlainWaitThreshold is the shortest wait that is reported by a plain line
// when standard error is not a terminal.
const PlainWaitThreshold = 5 * time.Second

// KeyExpiryWarning is how close the key's expiry must be for a warning.
const KeyExpiryWarning = 7 * 24 * time.Hour

// Progress reports what a command does on standard error, through the SDK's
// hooks (Hooks): on a terminal, a line with the pages and rows read and any
// wait ("waiting 23 s for the rate limit"), redrawn in place during a bulk
// read; off a terminal, one plain line for each wait longer than
// PlainWaitThreshold; with quiet, nothing. It also warns, once and unless
// quiet, when the key expires within KeyExpiryWarning.
type Progress struct {
	ios   *iostreams.IOStreams
	quiet bool
	now   func() time.Time

	mu      sync.Mutex
	active  bool // a bulk read is under way
	redraw  bool // the progress line may be drawn
	drawn   bool // a progress line is on the terminal
	pages   int
	rows    int // received
	meta    *svc.Meta
	warned  bool
	waiting string
}

// NewProgress returns the progress of one command.
func NewProgress(ios *iostreams.IOStreams, quiet bool) *Progress {
	return &Progress{ios: ios, quiet: quiet, now: time.Now}
}

// Hooks are the SDK hooks that feed p.
func (p *Progress) Hooks() svc.Hooks {
	return svc.Hooks{OnResponse: p.response, OnWait: p.wait}
}

// Start begins a bulk read. streaming says that rows go to standard output
// as they are read: the progress line is then drawn only when standard
// output is not the same terminal.
func (p *Progress) Start(streaming bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = true
	p.redraw = p.ios.IsStderrTTY() && !p.quiet && !(streaming && p.ios.IsStdoutTTY())
}

// Meta returns the meta of the first page read (zero if none).
func (p *Progress) Meta() svc.Meta {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.meta == nil {
		return svc.Meta{}
	}
	return *p.meta
}

// Clear removes the progress line, before other output on standard error.
func (p *Progress) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Done ends the bulk read and removes the progress line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.active, p.redraw = false, false
}

func (p *Progress) clear() {
	if p.drawn {
		fmt.Fprint(p.ios.ErrOut, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *Progress) draw() {
	if !p.redraw {
		return
	}
	line := fmt.Sprintf("Read %d rows (%d pages)", p.rows, p.pages)
	if p.waiting != "" {
		line += " · " + p.waiting
	}
	fmt.Fprint(p.ios.ErrOut, "\r\x1b[K"+line+"…")
	p.drawn = true
}

func (p *Progress) response(r *svc.Response) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = ""
	if r.Meta != nil {
		p.pages++
		p.rows += r.Meta.Returned
		if p.meta == nil {
			m := *r.Meta
			p.meta = &m
		}
	}
	if !p.warned && !p.quiet && !r.KeyExpiresAt.IsZero() {
		if left := r.KeyExpiresAt.Sub(p.now()); left < KeyExpiryWarning {
			p.warned = true
			p.clear()
			fmt.Fprintf(p.ios.ErrOut, "Warning: the API key expires %s (%s); create a new key in the settings UI (Developer keys) before then.\n",
				inTime(left), r.KeyExpiresAt.UTC().Format("2006-01-02 15:04 UTC"))
		}
	}
	p.draw()
}

// inTime says how far away a duration is: "in 3 days", "in 5 hours".
func inTime(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Hour:
		return "in less than an hour"
	case d < 48*time.Hour:
		return fmt.Sprintf("in %d hours", int(d.Hours()))
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24))
}

func (p *Progress) wait(w svc.Wait) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet {
		return
	}
	secs := int(math.Ceil(w.Duration.Seconds()))
	what := "for the rate limit"
	if w.Reason == svc.WaitRetry {
		what = "before retrying a failed request"
	}
	if p.redraw {
		p.waiting = fmt.Sprintf("waiting %d s %s", secs, what)
		p.draw()
		return
	}
	if w.Duration > PlainWaitThreshold {
		fmt.Fprintf(p.ios.ErrOut, "svc: waiting %d s %s (%d rows read so far)\n", secs, what, p.rows)
	}
}
