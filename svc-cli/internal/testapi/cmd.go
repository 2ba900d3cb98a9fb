package testapi

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// TTY says which streams a test pretends are terminals, and whether color
// is allowed (as if NO_COLOR were unset).
type TTY struct{ Stdout, Stderr, Stdin, Color bool }

// Streams returns fake streams with the TTY-ness of tty.
func Streams(tty TTY) (ios *iostreams.IOStreams, stdin, stdout, stderr *bytes.Buffer) {
	ios, stdin, stdout, stderr = iostreams.Test()
	ios.SetStdoutTTY(tty.Stdout)
	ios.SetStderrTTY(tty.Stderr)
	ios.SetStdinTTY(tty.Stdin)
	ios.SetNoColor(!tty.Color)
	return ios, stdin, stdout, stderr
}

// Factory returns a factory over ios with env as its environment; retries
// of 503 answers and connection errors wait 1 ms, not seconds.
func Factory(ios *iostreams.IOStreams, env map[string]string) *cmdutil.Factory {
	return &cmdutil.Factory{IOStreams: ios, Getenv: Getenv(env), RetryBackoff: time.Millisecond}
}

// Execute runs cmd with the space-separated args in the test's context,
// with errors silenced as the root command does.
func Execute(t *testing.T, cmd *cobra.Command, args string) error {
	t.Helper()
	cmd.SetArgs(strings.Fields(args))
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagErrorWrap(err) })
	return cmd.ExecuteContext(t.Context())
}
