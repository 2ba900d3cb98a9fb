package e2e

import (
	"context"
	"encoding"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adsnap/svc/e2e/internal/harness"
	svc "github.com/adsnap/svc/sdk-go"
	"github.com/adsnap/svc/sdk-go/svctest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 31, Build item 7: a field of a resource of the API must reach every
// client. For each resource schema of api-server/openapi.yaml, its
// properties (a nested object's as "account.currency") must be exactly the
// JSON fields of sdk-go's model, the columns of svc-mcp's tool (its output
// schema), and svc-cli's CSV columns, each way round. The CSV names a nested
// field by its last part ("currency" for "account.currency") and may add
// columns derived from others (derived below, each with its reason).

// resourceClients says which model, tool and command carry each resource.
var resourceClients = []struct {
	schema  string
	model   any
	tool    string
	csvArgs []string
	derived []string // CSV columns that are no property: derived from others
}{
	{"Account", svc.Account{}, "svc_accounts", []string{"accounts"}, nil},
	{"Campaign", svc.Campaign{}, "svc_campaigns", []string{"campaigns"}, nil},
	// level: account or campaign, from campaignId (null or not).
	{"Insight", svc.Insight{}, "svc_insights", []string{"insights"}, []string{"level"}},
	{"InsightSummaryGroup", svc.InsightSummaryGroup{}, "svc_insights_summary", []string{"insights", "--summary", "--level", "account"}, nil},
}

// openAPIFields are the properties of the schema name of doc, nested
// objects flattened with a dot.
func openAPIFields(t *testing.T, doc *openapi3.T, name string) []string {
	t.Helper()
	ref := doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		t.Fatalf("openapi.yaml has no schema %s", name)
	}
	var out []string
	var walk func(prefix string, s *openapi3.Schema)
	walk = func(prefix string, s *openapi3.Schema) {
		for name, p := range s.Properties {
			if p.Value.Type.Is("object") && len(p.Value.Properties) > 0 {
				walk(prefix+name+".", p.Value)
				continue
			}
			out = append(out, prefix+name)
		}
	}
	walk("", ref.Value)
	slices.Sort(out)
	return out
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
)

// modelFields are the JSON fields of the struct v, nested structs (other
// than those that encode themselves, such as time.Time and svc.Date)
// flattened with a dot.
func modelFields(v any) []string {
	var out []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(textMarshaler) && !reflect.PointerTo(ft).Implements(jsonMarshaler) &&
				!ft.Implements(textMarshaler) && !ft.Implements(jsonMarshaler) {
				walk(prefix+name+".", ft)
				continue
			}
			out = append(out, prefix+name)
		}
	}
	walk("", reflect.TypeOf(v))
	slices.Sort(out)
	return out
}

// fieldDiff reports the properties missing from got and the fields of got
// that are no property, after renaming got's fields with rename (nil: as
// is) and leaving out derived ones.
func fieldDiff(props, got []string, rename func(string) string, derived []string) (missing, extra []string) {
	seen := map[string]bool{}
	for _, g := range got {
		if slices.Contains(derived, g) {
			continue
		}
		if rename != nil {
			g = rename(g)
		}
		seen[g] = true
		if !slices.Contains(props, g) {
			extra = append(extra, g)
		}
	}
	for _, p := range props {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	return missing, extra
}

// csvName maps a CSV column to its property: the nested property whose last
// part it is, when props has one and no property of its own name.
func csvName(props []string) func(string) string {
	return func(col string) string {
		if slices.Contains(props, col) {
			return col
		}
		for _, p := range props {
			if _, last, ok := strings.Cut(p, "."); ok && last == col {
				return p
			}
		}
		return col
	}
}

func TestFieldDiff(t *testing.T) {
	t.Parallel()
	props := []string{"account.currency", "id", "spend"}
	for _, tc := range []struct {
		got            []string
		missing, extra []string
	}{
		{[]string{"id", "spend", "currency", "level"}, nil, nil},
		{[]string{"id", "currency", "level"}, []string{"spend"}, nil},                             // a field left out
		{[]string{"id", "spend", "currency", "roas"}, nil, []string{"roas"}},                      // a field the API lacks
		{[]string{"id", "spend", "level"}, []string{"account.currency"}, nil},                     // a nested one left out
		{[]string{"id", "spend", "account.currency"}, nil, nil},                                   // already flat
		{[]string{"id", "spend", "timezone"}, []string{"account.currency"}, []string{"timezone"}}, // a nested one the API lacks
	} {
		missing, extra := fieldDiff(props, tc.got, csvName(props), []string{"level"})
		if !slices.Equal(missing, tc.missing) || !slices.Equal(extra, tc.extra) {
			t.Errorf("%v: missing %v, extra %v; want %v, %v", tc.got, missing, extra, tc.missing, tc.extra)
		}
	}
}

// TestResourceFieldsAgree is issue 31's check: every property of every
// resource schema of openapi.yaml is in sdk-go's model, svc-mcp's output
// schema and svc-cli's CSV, and none of those has a field the schema lacks.
func TestResourceFieldsAgree(t *testing.T) {
	t.Parallel()
	doc, err := (&openapi3.Loader{Context: t.Context()}).LoadFromFile(filepath.Join(harness.RepoRoot(), "api-server", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "svc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/svc")
	build.Dir = filepath.Join(harness.RepoRoot(), "svc-cli")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build svc: %v\n%s", err, out)
	}
	columns := mcpColumns(t, bin)
	const key = "svc_live_00000000000000000000000000000000000001w1XY4"
	accounts, campaigns, insights := tokenFixtures()
	api := httptest.NewServer(&svctest.API{Key: key, Accounts: accounts, Campaigns: campaigns, Insights: insights,
		DataAsOf: "2026-11-20T06:00:00Z", GeneratedAt: "2026-11-20T06:05:00Z"})
	defer api.Close()

	for _, rc := range resourceClients {
		t.Run(rc.schema, func(t *testing.T) {
			props := openAPIFields(t, doc, rc.schema)
			if len(props) < 5 {
				t.Fatalf("%s has %d properties: %v", rc.schema, len(props), props)
			}
			check := func(client string, got []string, rename func(string) string, derived []string) {
				missing, extra := fieldDiff(props, got, rename, derived)
				for _, m := range missing {
					t.Errorf("%s lacks %s.%s of openapi.yaml", client, rc.schema, m)
				}
				for _, x := range extra {
					t.Errorf("%s has %s, which openapi.yaml's %s lacks", client, x, rc.schema)
				}
			}
			check(fmt.Sprintf("sdk-go's %T", rc.model), modelFields(rc.model), nil, nil)
			cols, ok := columns[rc.tool]
			if !ok {
				t.Errorf("svc mcp has no tool %s", rc.tool)
			}
			check("svc-mcp's "+rc.tool+" output schema", cols, nil, nil)
			check("svc "+strings.Join(rc.csvArgs, " ")+" -o csv", csvHeader(t, bin, api.URL, key, rc.csvArgs), csvName(props), rc.derived)
		})
	}
}

// mcpColumns lists the tools of the built `svc mcp` and returns each
// listing's columns: the properties of "same" in its output schema (every
// column, by its flat name).
func mcpColumns(t *testing.T, bin string) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "fields", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	// The columns of each tool, as the glossary lists them (the output
	// schemas are compact since issue 46: shape only).
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "svc_glossary"})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("svc_glossary: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	out := map[string][]string{}
	tool := ""
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "## Columns of "); ok {
			tool, _, _ = strings.Cut(rest, " ")
			continue
		}
		if strings.HasPrefix(line, "## ") {
			tool = ""
		}
		if name, ok := strings.CutPrefix(line, "- **"); ok && tool != "" {
			name, _, _ = strings.Cut(name, "** (")
			out[tool] = append(out[tool], name)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// csvHeader runs svc with args and -o csv against the API at site and
// returns the CSV's header.
func csvHeader(t *testing.T, bin, site, key string, args []string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, append(args, "-o", "csv", "--limit", "1", "--quiet")...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "SVC_API_KEY=" + key, "SVC_SITE_URL=" + site}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("svc %v: %v\n%s", args, err, stderr.String())
	}
	header, err := csv.NewReader(strings.NewReader(string(out))).Read()
	if err != nil {
		t.Fatalf("svc %v: %v\n%s", args, err, out)
	}
	return header
}
