package cmdutil

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// FlagError is a usage error: an unknown command, a bad flag or flag value,
// or a wrong number of arguments. It exits with ExitUsage.
type FlagError struct{ err error }

// FlagErrorf returns a *FlagError with a formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{err: fmt.Errorf(format, args...)}
}

// FlagErrorWrap marks err as a usage error.
func FlagErrorWrap(err error) error { return &FlagError{err: err} }

// Error returns the message.
func (e *FlagError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *FlagError) Unwrap() error { return e.err }

// KeyError reports a problem with the key found before any request, such as
// --key-stdin finding no key on standard input. It exits with ExitAuth.
type KeyError struct{ err error }

// Error returns the message; it never contains what was read.
func (e *KeyError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *KeyError) Unwrap() error { return e.err }

// NoArgs is a cobra.PositionalArgs that refuses any argument with a usage
// error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return FlagErrorf("%q takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// ExactOneOf is a cobra.PositionalArgs requiring one argument among valid.
func ExactOneOf(valid ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return FlagErrorf("%q needs exactly one argument, one of %v", cmd.CommandPath(), valid)
		}
		for _, v := range valid {
			if args[0] == v {
				return nil
			}
		}
		return FlagErrorf("%q: unknown argument %q; use one of %v", cmd.CommandPath(), args[0], valid)
	}
}

// VerifyError says that a download failed `svc verify`: a missing or bad
// signature, a signature by another key, or a checksum that does not match.
// It exits with ExitInvalid.
type VerifyError struct{ err error }

// VerifyErrorf returns a *VerifyError with a formatted message.
func VerifyErrorf(format string, args ...any) error {
	return &VerifyError{err: fmt.Errorf(format, args...)}
}

// Error returns the message.
func (e *VerifyError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *VerifyError) Unwrap() error { return e.err }

// KeyErrorf returns a *KeyError with a formatted message, which must never
// contain the key.
func KeyErrorf(format string, args ...any) error {
	return &KeyError{err: fmt.Errorf(format, args...)}
}

var errEmptyKey = errors.New("--key-stdin: no API key on standard input (the first line is empty)")
