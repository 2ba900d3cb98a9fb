// Package iostreams gives commands their standard streams together with what
// they need to know about them: which are terminals, and whether color is
// allowed. Tests build fake streams with Test and choose the TTY-ness.
package iostreams

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// IOStreams are the standard input, output and error of a command.
type IOStreams struct {
	// In is standard input.
	In io.Reader
	// Out is standard output: data only.
	Out io.Writer
	// ErrOut is standard error: provenance of machine output, progress,
	// hints and errors.
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	noColor                        bool

	// secretFD is standard input's descriptor when it is a terminal whose
	// echo golang.org/x/term can switch off (secretOK).
	secretFD int
	secretOK bool
}

// System returns the process's streams. NO_COLOR (any non-empty value) and
// TERM=dumb turn color off.
func System() *IOStreams {
	fd := int(os.Stdin.Fd())
	return &IOStreams{
		secretFD:  fd,
		secretOK:  term.IsTerminal(fd),
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		noColor:   os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb",
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams backed by buffers, none of them a terminal; use the
// Set…TTY methods to pretend otherwise.
func Test() (ios *IOStreams, stdin, stdout, stderr *bytes.Buffer) {
	stdin, stdout, stderr = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IOStreams{In: stdin, Out: stdout, ErrOut: stderr}, stdin, stdout, stderr
}

// CanReadSecret reports whether standard input is a terminal that
// ReadSecret can read from without echo.
func (s *IOStreams) CanReadSecret() bool { return s.secretOK }

// ReadSecret reads one line from standard input, a terminal, with echo
// switched off (golang.org/x/term's ReadPassword, which restores the
// terminal afterwards), and returns it without its line ending. When ctx
// ends first (Ctrl-C: svc catches the signal, and a blocked read does not
// notice it), the terminal's state as it was before is restored and ctx's
// error returned; the read itself is abandoned, and svc exits.
func (s *IOStreams) ReadSecret(ctx context.Context) ([]byte, error) {
	if !s.secretOK {
		return nil, errors.New("standard input is not a terminal")
	}
	state, err := term.GetState(s.secretFD)
	if err != nil {
		return nil, err
	}
	type result struct {
		line []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		line, err := term.ReadPassword(s.secretFD)
		done <- result{line, err}
	}()
	select {
	case r := <-done:
		return r.line, r.err
	case <-ctx.Done():
		_ = term.Restore(s.secretFD, state)
		return nil, ctx.Err()
	}
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStdinTTY sets whether standard input counts as a terminal.
func (s *IOStreams) SetStdinTTY(v bool) { s.stdinTTY = v }

// SetStdoutTTY sets whether standard output counts as a terminal.
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }

// SetStderrTTY sets whether standard error counts as a terminal.
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// SetNoColor sets whether color is refused, as NO_COLOR does.
func (s *IOStreams) SetNoColor(v bool) { s.noColor = v }

// ColorEnabled reports whether standard output may carry color: it is a
// terminal and neither NO_COLOR nor TERM=dumb is set.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.noColor }
