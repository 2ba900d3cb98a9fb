// Package cmdutil holds what every svc command shares: the Factory that
// builds API clients, the list flags, usage errors, and the exit codes with
// the one function that maps an error to its exit code and message.
package cmdutil

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	svc "github.com/adsnap/svc/sdk-go"
)

// ExitCode is the exit status of svc.
type ExitCode int

// The exit codes of svc, documented in `svc --help` and the README: the repository's one policy for svc, svc-api and keys-admin (README.md, "Exit codes").
const (
	// ExitOK: success.
	ExitOK ExitCode = 0
	// ExitError: any other error, including a refused redirect.
	ExitError ExitCode = 1
	// ExitUsage: bad command, flag or argument, or options the client
	// rejected before sending anything (dates, limit, offset, accountId).
	ExitUsage ExitCode = 2
	// ExitAuth: no key, a malformed key, or the service refused the key
	// (401) or the access (403).
	ExitAuth ExitCode = 3
	// ExitNotFound: the service answered 404, such as an accountId outside
	// the key's organization.
	ExitNotFound ExitCode = 4
	// ExitRateLimited: the service answered 429.
	ExitRateLimited ExitCode = 5
	// ExitUnavailable: the service answered 503 (or 502/504 from a
	// gateway), or the network or the TLS handshake failed, or it timed out.
	ExitUnavailable ExitCode = 6
	// ExitIncomplete: a listing of every row (--all, --summary) could not
	// read every row (svc.ErrIncomplete): the offset limit stops it and no
	// narrower request reaches the rest. The rows read are printed.
	ExitIncomplete ExitCode = 7
	// ExitInvalid: `svc verify` found a signature or a checksum that does
	// not match, or none (a *VerifyError): do not use the files.
	ExitInvalid ExitCode = 8
)

// ExitCodesHelp describes the exit codes for help texts.
const ExitCodesHelp = `Exit codes: one policy for svc, svc-api and keys-admin (the repository's
README.md, section "Exit codes", whose meanings begin each line):
  0  success
  1  unexpected failure, including a redirect, which svc refuses to follow
  2  usage: unknown command or flag, bad value (date, limit, offset, accountId)
  3  refused: no key, malformed key, 401 or 403
  4  not found: 404, such as an accountId outside your organization
  5  conflict or limit: rate limited (429); wait 60 seconds, or pass --wait
  6  unavailable: 503 (or 502/504 from a gateway), network or TLS failure, or
     time-out; trying again later may succeed
  7  incomplete: --all or --summary could not read every row (more than
     10,100 rows of one account on one day, or of one listing no filter
     splits); the rows read are printed, a summary is not
  8  invalid data: svc verify found a signature or a checksum that does not
     match; do not use the files`

// ExitFor maps an error returned by a command to the exit code and the
// one-line message (without the "svc: " prefix) to print on standard error.
// It is the only place where errors become exit codes.
func ExitFor(err error) (ExitCode, string) {
	if err == nil {
		return ExitOK, ""
	}
	var (
		flagErr  *FlagError
		valErr   *svc.ValidationError
		apiErr   *svc.APIError
		netErr   net.Error
		stdinErr *KeyError
		verErr   *VerifyError
	)
	var partial *PartialError
	if errors.As(err, &partial) && partial.Rows > 0 {
		code, msg := ExitFor(partial.Err)
		return code, msg + partial.suffix()
	}
	switch {
	case errors.Is(err, svc.ErrIncomplete):
		return ExitIncomplete, "incomplete: " + strings.ReplaceAll(trim(err), "svc: ", "")
	case errors.As(err, &verErr):
		return ExitInvalid, verErr.Error()
	case errors.As(err, &flagErr):
		return ExitUsage, flagErr.Error()
	case errors.As(err, &valErr):
		return ExitUsage, "invalid request, no request was made: " + strings.Join(valErr.Problems, "; ")
	case errors.As(err, &stdinErr):
		return ExitAuth, stdinErr.Error()
	case errors.Is(err, svc.ErrMissingAPIKey):
		return ExitAuth, "no API key: set SVC_API_KEY, or pass --key-stdin and write the key on standard input"
	case errors.Is(err, svc.ErrInvalidAPIKey):
		// The SDK's message never contains the key.
		why := trim(err)
		if _, after, ok := strings.Cut(why, svc.ErrInvalidAPIKey.Error()+": "); ok {
			why = after
		}
		return ExitAuth, "the API key is malformed, so no request was made: " + why
	case errors.As(err, &apiErr):
		return apiExit(apiErr)
	case errors.Is(err, svc.ErrRedirectRefused):
		return ExitError, trim(err) + "; check SVC_SITE_URL (svc only talks to the site it was given)"
	case isTLSFailure(err):
		return ExitUnavailable, "TLS failure, no data was exchanged: " + trim(err) + "; check SVC_SITE_URL and the site's certificate"
	case errors.Is(err, context.Canceled):
		return ExitError, "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return ExitUnavailable, "timed out: " + trim(err)
	case errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return ExitUnavailable, "network failure: " + trim(err)
	}
	return ExitError, trim(err)
}

// isTLSFailure reports whether err is a failed TLS handshake: a certificate
// that is not trusted, expired or for another host, or a peer that does not
// speak TLS. Such errors are not net.Error values.
func isTLSFailure(err error) bool {
	var (
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		alert     tls.AlertError
		authority x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert) ||
		errors.As(err, &authority) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

func apiExit(e *svc.APIError) (ExitCode, string) {
	detail := fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if len(e.Messages) > 0 {
		detail += ": " + strings.Join(e.Messages, "; ")
	}
	if e.RequestID != "" {
		detail += ", request id " + e.RequestID
	}
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return ExitAuth, "the API key was refused (" + detail + "): it is unknown, revoked or expired; create a key in the settings UI (Developer keys)"
	case http.StatusForbidden:
		return ExitAuth, "access denied (" + detail + "): the key lacks the scope for this command, or its issuer is no longer an owner or administrator of the organization"
	case http.StatusNotFound:
		return ExitNotFound, "not found (" + detail + ")"
	case http.StatusTooManyRequests:
		secs := int(e.RetryAfter.Seconds())
		if secs <= 0 {
			secs = 60
		}
		return ExitRateLimited, fmt.Sprintf("rate limited (%s): wait %d seconds before retrying, or pass --wait", detail, secs)
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return ExitUnavailable, "the service is unavailable (" + detail + "); try again later"
	case http.StatusBadRequest:
		return ExitUsage, "the service rejected the request (" + detail + ")"
	}
	return ExitError, "the service answered " + detail
}

// PartialError is an error that stopped a listing after some rows were
// printed: the message names how many.
type PartialError struct {
	// Rows is how many rows were printed before the error.
	Rows int
	// JSON says that a JSON array was left unterminated on purpose.
	JSON bool
	// Err is the error.
	Err error
}

// Error returns the message of Err and the rows printed.
func (e *PartialError) Error() string { return e.Err.Error() + e.suffix() }

// Unwrap returns Err.
func (e *PartialError) Unwrap() error { return e.Err }

func (e *PartialError) suffix() string {
	s := fmt.Sprintf(" (%d rows were printed before this error", e.Rows)
	if e.JSON {
		s += "; the JSON array is left unterminated so that it cannot be read as complete"
	}
	return s + ")"
}

// trim drops the SDK's "svc: " prefix, which Main prints itself.
func trim(err error) string { return strings.TrimPrefix(err.Error(), "svc: ") }
