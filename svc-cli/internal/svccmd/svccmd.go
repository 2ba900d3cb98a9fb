// Package svccmd runs the svc command: it builds the command tree, executes
// it and turns the outcome into an exit code.
package svccmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/adsnap/svc/svc-cli/internal/cmd/root"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// Main runs svc with the process's arguments, streams and environment.
func Main() cmdutil.ExitCode {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, cmdutil.New(iostreams.System()), os.Args[1:])
}

// Run runs svc with args and the factory f, prints any error on f's
// standard error, and returns the exit code.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) cmdutil.ExitCode {
	cmd := root.NewCmdRoot(f)
	cmd.SetArgs(args)
	cmd.SetIn(f.IOStreams.In)
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	ran, err := cmd.ExecuteContextC(ctx)
	code, msg := cmdutil.ExitFor(err)
	if code == cmdutil.ExitOK {
		return code
	}
	fmt.Fprintln(f.IOStreams.ErrOut, "svc: "+msg)
	if _, ok := errors.AsType[*cmdutil.FlagError](err); ok && ran != nil {
		fmt.Fprintf(f.IOStreams.ErrOut, "Run '%s --help' for usage.\n", ran.CommandPath())
	}
	return code
}
