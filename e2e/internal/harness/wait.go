package harness

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Eventually calls cond at once and then every interval until it returns
// true (Eventually returns true), or until timeout has passed or ctx ends
// (false). It is how the suite waits for a state that only asking shows (a
// process that listens, a status a server answers, a row PostgreSQL
// reports): the condition itself is the event waited on, so a loaded
// machine only makes the wait longer, never wrong. No test sleeps instead.
func Eventually(ctx context.Context, timeout, interval time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
}

// AcceptQueue returns how many connections wait in the accept queue of the
// loopback TCP listener on port (Linux: the rx_queue of its LISTEN line in
// /proc/net/tcp), so that a test can wait until a server has accepted
// everything a flood sent it.
func AcceptQueue(port int) (int, error) {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return 0, fmt.Errorf("accept queue: %w", err)
	}
	want := fmt.Sprintf(":%04X", port)
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		// sl local_address rem_address st tx_queue:rx_queue …; st 0A is LISTEN.
		if len(f) < 5 || f[3] != "0A" || !strings.HasSuffix(f[1], want) {
			continue
		}
		_, rx, _ := strings.Cut(f[4], ":")
		n, err := strconv.ParseInt(rx, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("accept queue of port %d: %q: %w", port, f[4], err)
		}
		return int(n), nil
	}
	return 0, fmt.Errorf("accept queue: no listener on port %d in /proc/net/tcp", port)
}
