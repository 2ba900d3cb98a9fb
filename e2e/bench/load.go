package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server started by the harness.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string // file holding its standard error
}

var (
	procsMu sync.Mutex
	procs   []*proc
)

// start runs a server in its own process group, stderr to a file in dir.
func start(dir, name string, env []string, bin string, args ...string) (*proc, *bufio.Reader, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := dir + "/" + name + ".log"
	f, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = f
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	f.Close()
	p := &proc{name: name, cmd: cmd, log: logPath}
	procsMu.Lock()
	procs = append(procs, p)
	procsMu.Unlock()
	return p, bufio.NewReader(out), nil
}

// peakRSS is the process's high-water resident set size in bytes.
func (p *proc) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stop sends SIGTERM to the process group and waits (SIGKILL after 10 s).
func (p *proc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	procsMu.Lock()
	for i, q := range procs {
		if q == p {
			procs = append(procs[:i], procs[i+1:]...)
			break
		}
	}
	procsMu.Unlock()
}

func stopAll() {
	procsMu.Lock()
	ps := append([]*proc(nil), procs...)
	procsMu.Unlock()
	for _, p := range ps {
		p.stop()
	}
}

func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, p *proc, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if p.cmd.ProcessState != nil {
			break
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not become ready at %s; its log:\n%s", p.name, url, p.tail())
}

// loadResult is one wrk run.
type loadResult struct {
	RPS      float64 `json:"rps"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"` // non-2xx responses, socket errors and timeouts
	CPU      cpuCost `json:"cpu"`    // CPU per request by process (setup.go measure)
}

var (
	reRPS      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	reReqs     = regexp.MustCompile(`([0-9]+) requests in`)
	reNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses:\s+([0-9]+)`)
	reSockErrs = regexp.MustCompile(`Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)`)
	rePct      = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
)

// wrk runs wrk against url for d with conns connections on 2 threads,
// sending the headers hdrs ("Name: value") too.
func wrk(ctx context.Context, url, bearer string, conns int, d time.Duration, hdrs ...string) (loadResult, error) {
	args := []string{"-t2", "-c" + strconv.Itoa(conns), "-d" + strconv.Itoa(int(d.Seconds())) + "s", "--timeout", "5s", "--latency"}
	if bearer != "" {
		args = append(args, "-H", "Authorization: Bearer "+bearer)
	}
	for _, h := range hdrs {
		args = append(args, "-H", h)
	}
	args = append(args, url)
	out, err := exec.CommandContext(ctx, "wrk", args...).CombinedOutput()
	if err != nil {
		return loadResult{}, fmt.Errorf("wrk %s: %w\n%s", url, err, out)
	}
	return parseWrk(string(out))
}

func parseWrk(s string) (loadResult, error) {
	var r loadResult
	m := reRPS.FindStringSubmatch(s)
	if m == nil {
		return r, fmt.Errorf("unexpected wrk output:\n%s", s)
	}
	r.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := reReqs.FindStringSubmatch(s); m != nil {
		r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reNon2xx.FindStringSubmatch(s); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.Errors += n
	}
	if m := reSockErrs.FindStringSubmatch(s); m != nil {
		for _, v := range m[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			r.Errors += n
		}
	}
	for _, m := range rePct.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[3] {
		case "us":
			v /= 1000
		case "s":
			v *= 1000
		}
		if m[1] == "50" {
			r.P50 = v
		} else {
			r.P99 = v
		}
	}
	return r, nil
}
