package snapshot

import (
	"unicode/utf8"
)

// PostgreSQL's numeric, which jsonb numbers are, holds at most this many
// digits before the decimal point and this many after it.
const (
	maxNumericWeight = 131072
	maxNumericScale  = 16383
)

// payload refuses a rawPayload that PostgreSQL's jsonb would refuse although
// encoding/json accepted it: invalid UTF-8, the escape \u0000 (22P05), a
// lone UTF-16 surrogate escape, and a number beyond numeric's range (22003).
//
// It is hand-written because no JSON library reports these: raw is already
// valid JSON (the decoder checked its syntax), so one pass over its bytes,
// tracking whether it is inside a string, finds them without allocating.
func (p *problems) payload(path string, raw []byte) {
	if len(raw) == 0 {
		return
	}
	if !utf8.Valid(raw) {
		p.add(path, "not valid UTF-8, which the database cannot store")
		return
	}
	if msg := payloadProblem(raw); msg != "" {
		p.add(path, "%s", msg)
	}
}

func payloadProblem(raw []byte) string {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '"':
				inString = false
			case '\\':
				if i+1 < len(raw) && raw[i+1] == 'u' && i+5 < len(raw) {
					r := hex4(raw[i+2 : i+6])
					switch {
					case r == 0:
						return `contains the escape \u0000, which the database cannot store in JSON`
					case r >= 0xD800 && r <= 0xDBFF:
						// A high surrogate must be followed by a low one.
						if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
							if lo := hex4(raw[i+8 : i+12]); lo >= 0xDC00 && lo <= 0xDFFF {
								i += 11
								continue
							}
						}
						return "contains a lone UTF-16 surrogate escape, which the database refuses in JSON"
					case r >= 0xDC00 && r <= 0xDFFF:
						return "contains a lone UTF-16 surrogate escape, which the database refuses in JSON"
					}
					i += 5
					continue
				}
				i++ // the escaped character
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			if !numericFits(raw[i:j]) {
				return "holds a number beyond the database's numeric range (131072 digits before the point, 16383 after)"
			}
			i = j - 1
		}
	}
	return ""
}

func isNumberByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return -1
		}
	}
	return r
}

// numericFits reports whether a JSON number (valid syntax) fits PostgreSQL's
// numeric: at most maxNumericWeight digits before the point and
// maxNumericScale after it, once the exponent is applied.
func numericFits(num []byte) bool {
	mant, exp := num, int64(0)
	for k, c := range num {
		if c == 'e' || c == 'E' {
			mant = num[:k]
			e := num[k+1:]
			neg := false
			if len(e) > 0 && (e[0] == '+' || e[0] == '-') {
				neg = e[0] == '-'
				e = e[1:]
			}
			for _, d := range e {
				if exp > 1<<40 {
					break // far out of range either way
				}
				exp = exp*10 + int64(d-'0')
			}
			if neg {
				exp = -exp
			}
			break
		}
	}
	if len(mant) > 0 && mant[0] == '-' {
		mant = mant[1:]
	}
	intDigits, fracDigits := int64(len(mant)), int64(0)
	for k, c := range mant {
		if c == '.' {
			intDigits, fracDigits = int64(k), int64(len(mant)-k-1)
			break
		}
	}
	// A zero mantissa is zero at any exponent.
	zero := true
	for _, c := range mant {
		if c >= '1' && c <= '9' {
			zero = false
			break
		}
	}
	if zero {
		return true
	}
	return intDigits+exp <= maxNumericWeight && fracDigits-exp <= maxNumericScale
}
