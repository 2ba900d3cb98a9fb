package output

import (
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Acme EU":                     "Acme EU",
		"Café 東京":                     "Café 東京",
		"\x1b[31mRED\x1b[0m":          `\x1b[31mRED\x1b[0m`,
		"a\u202eb\u2066c\u200bd":      `a\u202eb\u2066c\u200bd`,
		"line\nbreak\ttab\r":          `line\x0abreak\x09tab\x0d`,
		"bad\xffutf8":                 `bad\xffutf8`,
		"c1\u009bcontrol":             `c1\u009bcontrol`,
		"sep\u2028line\u2029para\x7f": `sep\u2028line\u2029para\x7f`,
	}
	for in, want := range tests {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPadDecimals(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"80": "80.00", "45.5": "45.50", "1.125": "1.125", "0.10": "0.10", "": "", "1e3": "1e3"} {
		if got := PadDecimals(in, 2); got != want {
			t.Errorf("PadDecimals(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		tty  bool
		want Format
	}{{"", true, Table}, {"", false, JSON}, {"table", false, Table}, {"json", true, JSON}, {"jsonl", true, JSONL}, {"csv", false, CSV}} {
		if got, err := ParseFormat(tt.in, tt.tty); err != nil || got != tt.want {
			t.Errorf("ParseFormat(%q, %v) = %q, %v; want %q", tt.in, tt.tty, got, err, tt.want)
		}
	}
	if _, err := ParseFormat("JSON", false); err == nil {
		t.Error("ParseFormat accepted JSON")
	}
}
