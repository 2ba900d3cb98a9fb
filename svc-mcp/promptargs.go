package svcmcp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	svc "github.com/adsnap/svc/sdk-go"
)

// The prompts' arguments are checked as the tools check theirs (security
// review 2, informational): accountId by the tools' pattern, each period
// by svc.InsightDates (no day after today, at most 90 days, from before
// to), so that a prompt never tells the model to call a tool with
// arguments the tool would refuse, nor carries an argument's text into
// the conversation unchecked. What is echoed of a value is capped (echo).

// reAccountID is the tools' accountId pattern (registry.go's schema).
var reAccountID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// checkAccountArg checks an optional accountId argument of a prompt.
func checkAccountArg(id string) error {
	if id != "" && !reAccountID.MatchString(id) {
		return fmt.Errorf("accountId %s is not an account id (want ^[a-zA-Z0-9_-]{1,128}$, an id from svc_accounts)", echo(id))
	}
	return nil
}

// checkPeriodArg checks a prompt's period as the insight tools would: the
// name says which period.
func checkPeriodArg(name string, p [2]svc.Date, today svc.Date) error {
	if _, err := svc.InsightDates(p[0], p[1], today); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// maxEcho is the most of a value a message quotes.
const maxEcho = 64

// echo quotes s for a message, cut to maxEcho bytes (at a rune boundary)
// with its length when longer: an oversized argument (a 5 MB cursor) is
// never sent back whole.
func echo(s string) string {
	if len(s) <= maxEcho {
		return fmt.Sprintf("%q", s)
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}

// reLongRun is a run of text a validation message may echo from an
// argument: 80 or more bytes without a space.
var reLongRun = regexp.MustCompile(`[^\s]{80,}`)

// maxArgumentMessage bounds the text of an invalid-arguments tool error.
const maxArgumentMessage = 1024

// capEcho cuts what a validation message echoes of the arguments: each
// long run to its first 40 bytes and its length, and the message to
// maxArgumentMessage bytes.
func capEcho(msg string) string {
	msg = reLongRun.ReplaceAllStringFunc(msg, func(run string) string {
		cut := 40
		for cut > 0 && !utf8.RuneStart(run[cut]) {
			cut--
		}
		return fmt.Sprintf("%s… (%d bytes)", run[:cut], len(run))
	})
	if len(msg) > maxArgumentMessage {
		cut := maxArgumentMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = strings.TrimSpace(msg[:cut]) + "… (cut)"
	}
	return msg
}
