package svcmcp

import (
	"strings"
	"unicode"
)

// No invisible character reaches a model. Every string of a result (names
// above all, but ids, statuses and meta text too) goes through cleanText
// before it is put in the text content or in structuredContent, because
// many hosts forward structuredContent to the model as well. The SDK and
// `svc -o json` keep the exact stored values; only what this server shows a
// model is cleaned.
//
// What is removed is Unicode's Default_Ignorable_Code_Point property:
// characters that render as nothing (zero-width characters, bidirectional
// controls, tag characters used for "ASCII smuggling", variation selectors,
// Hangul fillers, the soft hyphen…), plus the interlinear annotation
// controls and U+2800 BRAILLE PATTERN BLANK, which also show as nothing.
// Control characters (Cc: tab, newline, ESC…) and line and paragraph
// separators become a space, so that words stay apart and a row stays on
// one line. Everything visible is kept as it is.

// defaultIgnorable reports whether r has the Default_Ignorable_Code_Point
// property. The property is derived in the UCD (the header of
// DerivedCoreProperties.txt) as
//
//	Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
//	- White_Space - FFF9..FFFB - 13430..13440 - Prepended_Concatenation_Mark
//
// and this function applies that derivation to the property tables that the
// standard library's unicode package generates from the same UCD (Unicode
// 17.0.0 with go1.27). No hand-picked list: golang.org/x/text has no exported
// table of the property (its precis tables fold it into "disallowed", and its
// generators read UCD files downloaded from unicode.org), so the standard
// tables are the closest source of the data. TestDefaultIgnorable checks
// code points from each part of the derivation.
func defaultIgnorable(r rune) bool {
	if !unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) {
		return false
	}
	switch {
	case unicode.In(r, unicode.White_Space, unicode.Prepended_Concatenation_Mark),
		0xFFF9 <= r && r <= 0xFFFB,
		0x13430 <= r && r <= 0x13440:
		return false
	}
	return true
}

// invisible reports whether r is removed from what a model is shown: a
// default-ignorable code point, an interlinear annotation control (U+FFF9
// to U+FFFB, format characters that the property leaves out because some
// renderers show them, but most show nothing) or U+2800 BRAILLE PATTERN
// BLANK (a symbol, not ignorable, but drawn as an empty cell and used to make
// names that look empty).
func invisible(r rune) bool {
	return defaultIgnorable(r) || 0xFFF9 <= r && r <= 0xFFFB || r == 0x2800
}

// cleanText returns s as a model may read it: invisible characters removed,
// control characters and line or paragraph separators turned into spaces.
// Strings without any of them are returned unchanged (no allocation).
func cleanText(s string) string {
	if strings.IndexFunc(s, needsCleaning) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case invisible(r):
			return -1
		case unicode.IsControl(r), r == '\u2028', r == '\u2029':
			return ' '
		}
		return r
	}, s)
}

func needsCleaning(r rune) bool {
	return invisible(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// cleanPtr is cleanText for a nullable string.
func cleanPtr(s *string) *string {
	if s == nil {
		return nil
	}
	c := cleanText(*s)
	return &c
}
