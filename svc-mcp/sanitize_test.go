package svcmcp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are invisible code points of the fixtures' names (act_3, cmp_3):
// tag characters ("ASCII smuggling"), bidirectional controls, variation
// selectors (also the supplement's), Hangul fillers, U+2800 braille blank,
// the soft hyphen, the combining grapheme joiner, the Arabic letter mark,
// the Mongolian vowel separator, word joiner and invisible operators, zero
// width joiner and the byte order mark.
var hostile = []rune{
	0xE0049, 0xE0067, 0xE0053, 0xE0100, 0x202E, 0x2067, 0xFE0F, 0xFE0E, 0x3164, 0x2800,
	0x115F, 0x1160, 0xFFA0, 0x00AD, 0x034F, 0x061C, 0x180E, 0x2060, 0x2061, 0x2063, 0x200D, 0xFEFF,
}

// strs returns every string in a decoded JSON value.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, strs(x)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, x := range v {
			out = append(out, k)
			out = append(out, strs(x)...)
		}
		return out
	}
	return nil
}

// TestNoInvisibleCharactersReachTheModel: names full of invisible
// characters reach neither the text nor structuredContent (which hosts
// forward to models too); the visible part of each name is there unchanged.
// Issue 30, finding 5.
func TestNoInvisibleCharactersReachTheModel(t *testing.T) {
	t.Parallel()
	api := newTestAPI(t)
	cs := connectAPI(t, api)
	for _, tc := range []struct{ tool, visible string }{
		{"svc_accounts", "Gamma Store ⚠"},
		{"svc_campaigns", "Spring  sale"},
	} {
		res := call(t, cs, tc.tool, map[string]any{"limit": 100})
		if res.IsError {
			t.Fatalf("%s: %s", tc.tool, text(t, res))
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var sc any
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatal(err)
		}
		channels := map[string][]string{"text": {text(t, res)}, "structuredContent": strs(sc)}
		for channel, ss := range channels {
			found := false
			for _, s := range ss {
				for _, r := range hostile {
					if strings.ContainsRune(s, r) {
						t.Errorf("%s: %s holds U+%04X in %+q", tc.tool, channel, r, s)
					}
				}
				if strings.Contains(s, tc.visible) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: %s lacks the visible name %q", tc.tool, channel, tc.visible)
			}
		}
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                            "plain",
		"a\u200bb\u200c\u200d\u200e\u200f": "ab",
		"\u202a\u202b\u202c\u202d\u202ex":  "x",
		"\u2066\u2067\u2068\u2069y\ufeff":  "y",
		"tab\there\nnew\x00\x7f":           "tab here new  ",
		"line\u2028para\u2029end":          "line para end",
		"Café 東京 👍":                        "Café 東京 👍",
		"Acme\U000E0041\U000E0042 ok":      "Acme ok",
		"v\ufe0fs\U000E0100\u180b":         "vs",
		"\u3164\u115f\u1160\uffa0\u2800x":  "x",
		"soft\u00adhyphen\u034f":           "softhyphen",
		"\ufff9anno\ufffb":                 "anno",
		// Visible format characters stay (Prepended_Concatenation_Mark).
		"\u0600123": "\u0600123",
		// No-break and ideographic spaces are visible spaces.
		"a\u00a0b\u3000c": "a\u00a0b\u3000c",
	} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%+q) = %+q, want %+q", in, got, want)
		}
	}
}

// TestDefaultIgnorable checks the derivation of the property against code
// points of DerivedCoreProperties.txt (Unicode 17.0.0), from each of its
// parts, and against code points the derivation leaves out.
func TestDefaultIgnorable(t *testing.T) {
	t.Parallel()
	in := []rune{
		0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F,
		0x200B, 0x200F, 0x202A, 0x202E, 0x2060, 0x2064, 0x2065, 0x206F, 0x3164, 0xFE00, 0xFE0F,
		0xFEFF, 0xFFA0, 0xFFF0, 0xFFF8, 0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A, 0xE0000, 0xE0001,
		0xE0020, 0xE007F, 0xE0100, 0xE01EF, 0xE0FFF,
	}
	out := []rune{'a', ' ', 0x00A0, 0x0600, 0x0605, 0x06DD, 0x070F, 0x110BD, 0xFFF9, 0xFFFB, 0x13430, 0x2800, 0x2028, 0x1680, 0x3000}
	for _, r := range in {
		if !defaultIgnorable(r) {
			t.Errorf("U+%04X is Default_Ignorable_Code_Point", r)
		}
	}
	for _, r := range out {
		if defaultIgnorable(r) {
			t.Errorf("U+%04X is not Default_Ignorable_Code_Point", r)
		}
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if defaultIgnorable(r) && cleanText(string(r)) != "" {
			t.Fatalf("cleanText keeps U+%04X", r)
		}
	}
}
