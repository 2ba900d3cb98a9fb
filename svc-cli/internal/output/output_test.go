package output

import (
	"strings"
	"testing"

	svc "github.com/adsnap/svc/sdk-go"

	"github.com/adsnap/svc/svc-cli/internal/iostreams"
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

// TestTableDisplayWidth: columns are padded by display width, as gh does
// with go-runewidth: a CJK character takes two terminal cells, so a name in
// Japanese lines up with a Latin one.
func TestTableDisplayWidth(t *testing.T) {
	type row struct{ name, ccy string }
	var b strings.Builder
	err := writeTable(&b, []row{{"Acme 日本", "JPY"}, {"Acme Europe", "EUR"}, {"Ａ", "USD"}}, []Column[row]{
		{Header: "NAME", Value: func(r row) string { return r.name }},
		{Header: "CURRENCY", Value: func(r row) string { return r.ccy }},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "NAME         CURRENCY\n" +
		"Acme 日本    JPY\n" +
		"Acme Europe  EUR\n" +
		"Ａ           USD\n"
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// TestCSVCell: OWASP's rule for CSV injection. A cell that begins with =, +,
// -, @, tab or carriage return gets a leading ', except a number.
func TestCSVCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`=HYPERLINK("http://x","go")`: `'=HYPERLINK("http://x","go")`,
		"+cmd|' /C calc'!A0":          "'+cmd|' /C calc'!A0",
		"-2+3":                        "'-2+3",
		"@SUM(1,1)":                   "'@SUM(1,1)",
		"\tTab":                       "'\tTab",
		"\rReturn":                    "'\rReturn",
		"-":                           "'-",
		"+":                           "'+",
		"-inf":                        "'-inf",
		"-0x1p3":                      "'-0x1p3",
		"-1,5":                        "'-1,5",
		"-12.50":                      "-12.50",
		"+3":                          "+3",
		"-.5":                         "-.5",
		"-1e-3":                       "-1e-3",
		"12.50":                       "12.50",
		"Acme = EU":                   "Acme = EU",
		" =1":                         " =1",
		"'=already":                   "'=already",
		"":                            "",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrintCSVFormulas: Print (the summary's CSV) quotes formula cells too.
func TestPrintCSVFormulas(t *testing.T) {
	t.Parallel()
	type row struct{ ccy, amount string }
	ios, _, stdout, _ := iostreams.Test()
	err := Print(ios, CSV, svc.Meta{}, []row{{"=1+1", "-12.50"}, {"EUR", "-1-1"}}, Spec[row]{CSV: []Column[row]{
		{Header: "currency", Value: func(r row) string { return r.ccy }},
		{Header: "spend", Value: func(r row) string { return r.amount }},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "currency,spend\n'=1+1,-12.50\nEUR,'-1-1\n"; got != want {
		t.Errorf("csv:\n%q\nwant:\n%q", got, want)
	}
}
