package output

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	svc "github.com/adsnap/svc/sdk-go"
)

// None is shown in tables for an absent value (a null budget or date).
const None = "—"

// NA is shown in tables for unavailable purchase data; it is never 0.
const NA = "n/a"

// Sanitize makes untrusted text (names and other data from the service) safe
// to show on a terminal: control characters (such as ESC, which starts color
// and cursor sequences), bidirectional and other invisible format characters
// and invalid UTF-8 are replaced by visible escapes such as \x1b or \u202e.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		r == '\u2028' || r == '\u2029'
}

// Money returns an amount with its currency, such as "12.50 EUR".
func Money(amount, currency string) string {
	if amount == "" {
		return None
	}
	return amount + " " + currency
}

// DecimalMoney returns a nullable decimal amount with its currency, or None.
func DecimalMoney(d *svc.Decimal, currency string) string {
	if d == nil {
		return None
	}
	return Money(d.String(), currency)
}

// Time returns t in UTC as RFC 3339, or None.
func Time(t *time.Time) string {
	if t == nil {
		return None
	}
	return t.UTC().Format(time.RFC3339)
}

// Number returns a float in its shortest exact form.
func Number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Int returns an integer in decimal.
func Int(v int64) string { return strconv.FormatInt(v, 10) }

// YesNo returns "yes" or "no".
func YesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// OrNone returns *s, or None when s is nil.
func OrNone(s *string) string {
	if s == nil {
		return None
	}
	return *s
}

// formulaStart holds the first characters that make a spreadsheet read a
// CSV cell as a formula: OWASP's "CSV Injection" list (=, +, -, @, tab,
// carriage return).
const formulaStart = "=+-@\t\r"

// plainNumber matches a decimal number such as "-12.50", "+3" or "1e-3",
// which spreadsheets read as a number, not a formula.
var plainNumber = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// CSVCell returns s as a CSV cell that no spreadsheet runs as a formula,
// after OWASP's rule for CSV injection: a cell that begins with =, +, -, @,
// tab or carriage return gets a leading ' (which spreadsheets read as "this
// is text"), except a number such as "-12.50", which is left as it is.
// Hand-written: the rule is a few lines, and no well-kept Go library
// carries it.
func CSVCell(s string) string {
	if s == "" || strings.IndexByte(formulaStart, s[0]) < 0 || plainNumber.MatchString(s) {
		return s
	}
	return "'" + s
}

// Nullable helpers for CSV, where null is an empty field.

// CSVString returns *s, or "" when s is nil.
func CSVString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CSVDecimal returns the decimal text, or "" when d is nil.
func CSVDecimal(d *svc.Decimal) string {
	if d == nil {
		return ""
	}
	return d.String()
}

// CSVTime returns t as RFC 3339, or "" when t is nil.
func CSVTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// CSVNumber returns *v in its shortest exact form, or "" when v is nil.
func CSVNumber(v *float64) string {
	if v == nil {
		return ""
	}
	return Number(*v)
}

// PadDecimals writes at least n decimal places, adding zeros and never
// rounding: "80" gives "80.00", "45.5" gives "45.50", "1.125" stays.
func PadDecimals(s string, n int) string {
	if s == "" || strings.ContainsAny(s, "eE") {
		return s
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) >= n {
		return s
	}
	return whole + "." + frac + strings.Repeat("0", n-len(frac))
}
