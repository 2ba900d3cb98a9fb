package query

// IDPattern is the pattern of every identifier: a query's accountId, and
// every id of an imported document (snapshot's validation).
const IDPattern = `^[a-zA-Z0-9_-]{1,128}$`

// ValidID reports whether s matches IDPattern. It is written out rather
// than a regexp: the import checks three ids a row, and regexp's matcher
// took 0.67 s of the 9.3 s of CPU that importing 1,000,000 insight rows
// spends in Go (issue 45's bench document; with validDecimal, the Go CPU
// went from 9.25 to 7.9 s): CPU the server on the same machine can use.
// The import's wall time did not move beyond its noise (its reading phase
// varies by about a second between runs). FuzzValidID holds it to the
// regexp.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}
