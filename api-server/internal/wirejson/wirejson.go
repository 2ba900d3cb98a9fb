package wirejson

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Appender builds JSON in B; OK turns false when a value has no
// encoding/json form that this code reproduces (a non-finite float, a year
// outside 0–9999), which encoding/json refuses too.
type Appender struct {
	B  []byte
	OK bool
}

// Raw appends s as it is.
func (a *Appender) Raw(s string) { a.B = append(a.B, s...) }

// Null appends null.
func (a *Appender) Null() { a.B = append(a.B, "null"...) }

// Str appends s as a JSON string.
func (a *Appender) Str(s string) { a.B = AppendString(a.B, s) }

// NullStr appends s, or null when !valid.
func (a *Appender) NullStr(s string, valid bool) {
	if !valid {
		a.Null()
		return
	}
	a.Str(s)
}

// Int appends v.
func (a *Appender) Int(v int64) { a.B = strconv.AppendInt(a.B, v, 10) }

// NullInt appends v, or null when !valid.
func (a *Appender) NullInt(v int64, valid bool) {
	if !valid {
		a.Null()
		return
	}
	a.Int(v)
}

// Bool appends v.
func (a *Appender) Bool(v bool) { a.B = strconv.AppendBool(a.B, v) }

// NullFloat appends f as encoding/json does, or null when !valid.
func (a *Appender) NullFloat(f float64, valid bool) {
	if !valid {
		a.Null()
		return
	}
	a.Float(f)
}

// Float is encoding/json's float64 encoding.
func (a *Appender) Float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		a.OK = false
		return
	}
	abs := math.Abs(f)
	fmt := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmt = 'e'
	}
	a.B = strconv.AppendFloat(a.B, f, fmt, -1, 64)
	if fmt == 'e' {
		// clean up e-09 to e-9
		n := len(a.B)
		if n >= 4 && a.B[n-4] == 'e' && a.B[n-3] == '-' && a.B[n-2] == '0' {
			a.B[n-2] = a.B[n-1]
			a.B = a.B[:n-1]
		}
	}
}

// Time is time.Time's MarshalJSON (RFC 3339 with nanoseconds), or null
// when !valid.
func (a *Appender) Time(t time.Time, valid bool) {
	if !valid {
		a.Null()
		return
	}
	if y := t.Year(); y < 0 || y > 9999 {
		a.OK = false
		return
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		a.OK = false
		return
	}
	a.B = append(a.B, '"')
	a.B = t.AppendFormat(a.B, time.RFC3339Nano)
	a.B = append(a.B, '"')
}

// Day appends the date d (YYYY-MM-DD) as the JSON string of the start of
// that day in UTC, d + "T00:00:00Z".
func (a *Appender) Day(d string) {
	a.B = AppendString(a.B, d)
	a.B = append(a.B[:len(a.B)-1], `T00:00:00Z"`...)
}

const hexDigits = "0123456789abcdef"

// htmlSafe reports the ASCII bytes encoding/json writes as they are when it
// escapes HTML: not a control character, '"', '\\', '<', '>' or '&'.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// invalidUTF8 is what encoding/json writes for a byte that is not part of
// valid UTF-8: the escape \ufffd up to Go 1.26, the replacement character
// U+FFFD itself from Go 1.27 on. It is asked once, so that AppendString
// writes encoding/json's bytes whichever toolchain builds the server
// (go.work names go1.27.3; GOTOOLCHAIN=local builds with the machine's Go).
var invalidUTF8 = func() string {
	b, err := json.Marshal("\xff")
	if err != nil || len(b) < 3 {
		return `\ufffd`
	}
	return string(b[1 : len(b)-1])
}()

// AppendString is encoding/json's appendString with HTML escaping (what
// json.Marshal does).
func AppendString(dst []byte, src string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, invalidUTF8...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	dst = append(dst, '"')
	return dst
}
