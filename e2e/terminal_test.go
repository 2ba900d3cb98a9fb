package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// testKeyStdinTerminal (issue 30, item 11): `svc … --key-stdin` with its
// standard streams on a real pseudo-terminal (github.com/creack/pty) reads
// the pasted key without echo, so the key never appears in what the
// terminal shows, and gives the terminal back as it found it, also when
// interrupted with Ctrl-C while it waits; from a pipe it reads as before,
// without a prompt.
func testKeyStdinTerminal(t *testing.T, e *env) {
	base := e.replicas[0].URL
	key := e.keys["alpha_aci"]
	env := []string{"SVC_SITE_URL=" + base, "SVC_API_KEY=", "NO_COLOR=1"}

	t.Run("pasted key not shown", func(t *testing.T) {
		term := startOnTerminal(t, e.bin.CLI, env, "accounts", "--key-stdin", "-o", "jsonl")
		term.waitFor(t, "Paste the API key")
		term.waitEchoOff(t)
		if _, err := term.master.Write([]byte(key + "\r")); err != nil { // Enter sends CR
			t.Fatal(err)
		}
		code := term.wait(t, 30*time.Second)
		echo := term.echoOn(t)
		shown := term.close(t)
		e.rec.add("svc accounts --key-stdin on a terminal", shown)
		if code != 0 {
			t.Errorf("exit %d; the terminal showed:\n%s", code, strings.ReplaceAll(shown, key, "KEY"))
		}
		for _, part := range []string{key, key[len("svc_live_"):], key[len(key)-12:]} {
			if strings.Contains(shown, part) {
				t.Errorf("the terminal shows the pasted key (%d characters of it, shown here as KEY):\n%s",
					len(part), strings.ReplaceAll(shown, part, "KEY"))
				break
			}
		}
		for _, a := range e.fix.ExpectedAccounts(harness.OrgAlpha) {
			if id := a.(map[string]any)["id"].(string); !strings.Contains(shown, `"id":"`+id+`"`) {
				t.Errorf("account %s not listed with the key read from the terminal:\n%s", id, strings.ReplaceAll(shown, key, "KEY"))
			}
		}
		if !echo {
			t.Error("echo is still off after svc exited")
		}
	})

	t.Run("Ctrl-C while waiting restores echo", func(t *testing.T) {
		term := startOnTerminal(t, e.bin.CLI, env, "accounts", "--key-stdin")
		term.waitFor(t, "Paste the API key")
		term.waitEchoOff(t)
		if _, err := term.master.Write([]byte{0x03}); err != nil { // VINTR: SIGINT to svc
			t.Fatal(err)
		}
		code := term.wait(t, 10*time.Second)
		echo := term.echoOn(t)
		shown := term.close(t)
		if code != 1 || !strings.Contains(shown, "svc: interrupted") {
			t.Errorf("exit %d, want 1 with \"svc: interrupted\"; the terminal showed:\n%s", code, shown)
		}
		if !echo {
			t.Error("echo is still off after svc was interrupted")
		}
	})

	t.Run("from a pipe", func(t *testing.T) {
		out, errOut, code := e.svc(t, e.bin.CLI, base, "", key+"\n", "accounts", "--key-stdin", "-o", "jsonl")
		if code != 0 || strings.Count(out, "\n") != len(e.fix.ExpectedAccounts(harness.OrgAlpha)) {
			t.Errorf("exit %d\n%s\n%s", code, out, errOut)
		}
		if strings.Contains(errOut, "Paste") {
			t.Errorf("a prompt off a terminal: %q", errOut)
		}
	})
}

// terminal is a process whose standard input, output and error are the
// slave side of a pseudo-terminal; the test holds the master side, as a
// terminal emulator does, and keeps everything the terminal shows.
type terminal struct {
	cmd          *exec.Cmd
	master, tty  *os.File
	exited       chan struct{}
	exitErr      error
	mu           sync.Mutex
	shown        bytes.Buffer
	changed      chan struct{} // closed and replaced at each read from the master
	readerExited chan struct{}
}

// startOnTerminal starts bin on a new pseudo-terminal, as the session
// leader with the terminal as its controlling terminal (so that Ctrl-C
// signals it), and stops it by PID when the test ends.
func startOnTerminal(t *testing.T, bin string, env []string, args ...string) *terminal {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	term := &terminal{master: master, tty: tty, exited: make(chan struct{}), changed: make(chan struct{}), readerExited: make(chan struct{})}
	term.cmd = exec.Command(bin, args...)
	term.cmd.Env = append(os.Environ(), env...)
	term.cmd.Stdin, term.cmd.Stdout, term.cmd.Stderr = tty, tty, tty
	term.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := term.cmd.Start(); err != nil {
		master.Close()
		tty.Close()
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		term.exitErr = term.cmd.Wait()
		close(term.exited)
	}()
	go term.read()
	t.Cleanup(func() {
		select {
		case <-term.exited:
		default:
			term.cmd.Process.Kill() //nolint:errcheck // by PID, the process this test started
			<-term.exited
		}
		term.tty.Close()
		term.master.Close()
	})
	return term
}

// read copies what the terminal shows until the master reports the end (EIO
// once no process holds the slave side open).
func (term *terminal) read() {
	defer close(term.readerExited)
	buf := make([]byte, 4096)
	for {
		n, err := term.master.Read(buf)
		term.mu.Lock()
		term.shown.Write(buf[:n])
		close(term.changed)
		term.changed = make(chan struct{})
		term.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor waits until the terminal has shown s (10 s at most).
func (term *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		term.mu.Lock()
		found, changed, shown := strings.Contains(term.shown.String(), s), term.changed, term.shown.String()
		term.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-term.exited:
			term.mu.Lock()
			shown = term.shown.String()
			term.mu.Unlock()
			if !strings.Contains(shown, s) {
				t.Fatalf("svc exited (%v) before the terminal showed %q:\n%s", term.exitErr, s, shown)
			}
			return
		case <-deadline:
			t.Fatalf("the terminal did not show %q within 10 s:\n%s", s, shown)
		}
	}
}

// echoOn reports whether the terminal echoes its input (termios ECHO).
func (term *terminal) echoOn(t *testing.T) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(term.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatalf("read the terminal's mode: %v", err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// waitEchoOff waits until svc has switched the terminal's echo off, as a
// person pastes the key only after the prompt. A terminal's mode changes
// without any notification, so this polls it (every 2 ms, 5 s at most);
// when echo stays on (the old svc), the test goes on to show what a paste
// then shows.
func (term *terminal) waitEchoOff(t *testing.T) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for term.echoOn(t) {
		select {
		case <-tick.C:
		case <-term.exited:
			t.Fatalf("svc exited (%v) before it switched echo off", term.exitErr)
		case <-deadline:
			t.Error("echo still on 5 s after the prompt: svc reads the key with echo on")
			return
		}
	}
}

// wait waits for the process to exit and returns its exit code; after
// timeout it fails the test (the cleanup kills the process).
func (term *terminal) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-term.exited:
	case <-time.After(timeout):
		term.mu.Lock()
		shown := term.shown.String()
		term.mu.Unlock()
		t.Fatalf("svc still running %s later; the terminal showed:\n%s", timeout, shown)
	}
	if ee, ok := errors.AsType[*exec.ExitError](term.exitErr); ok {
		return ee.ExitCode()
	}
	if term.exitErr != nil {
		t.Fatalf("svc: %v", term.exitErr)
	}
	return 0
}

// close closes the test's slave side once the process has exited, reads the
// rest of what the terminal shows, and returns all of it.
func (term *terminal) close(t *testing.T) string {
	t.Helper()
	term.tty.Close()
	select {
	case <-term.readerExited:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end within 10 s of svc's exit")
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.shown.String()
}
