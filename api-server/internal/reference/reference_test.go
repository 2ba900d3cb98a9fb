package reference_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	apiserver "github.com/adsnap/svc/api-server"
	"github.com/adsnap/svc/api-server/internal/reference"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

// TestRealDocument: every operation of openapi.yaml is on the page with its
// scope, its parameters' bounds (through $ref) and its three examples.
func TestRealDocument(t *testing.T) {
	doc, err := apiserver.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reference.New(doc, reference.Options{SiteURL: "https://api.example/"})
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, p, reference.Path)
	body := w.Body.String()
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Security-Policy"), "default-src 'self';") {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	for _, want := range []string{
		`data-operation="readAccountSnapshots" data-scope="accounts:read"`,
		`data-operation="readCampaignSnapshots" data-scope="campaigns:read"`,
		`data-operation="readInsightSnapshots" data-scope="insights:read"`,
		`data-operation="readInsightSummary" data-scope="insights:read"`,
		`export SVC_SITE_URL=https://api.example` + "\n",
		"<li><code>limit</code>: 1 to 100, default 50</li>", // limit, through #/components/parameters and its schema
		"Requests per minute per key",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(body, `class="ref-example"`); n < 12 {
		t.Errorf("%d examples, want 3 for each of 4 operations at least", n)
	}
	html, css := p.Size()
	t.Logf("page %d bytes, style sheet %d bytes (uncompressed)", html, css)
}

// TestAnyOperation: the page renders whatever the document holds, names
// the scope from x-scope, the security requirement or the description, and
// escapes the document's text.
func TestAnyOperation(t *testing.T) {
	doc := `{"openapi":"3.1.0","info":{"title":"T","version":"1","description":"Hello <script>alert(1)</script> ` + "`x`" + `"},
	"servers":[{"url":"/api/v1/developer"}],
	"paths":{
	  "/a":{"get":{"operationId":"opA","x-scope":"accounts:read"}},
	  "/b/{id}":{"parameters":[{"$ref":"#/components/parameters/id"}],
	    "get":{"operationId":"opB","security":[{"bearerKey":["campaigns:read"]}]},
	    "delete":{"description":"Requires the scope ` + "`insights:read`" + `.","x-codeSamples":[{"lang":"Shell","label":"curl","source":"curl -X DELETE \"$SVC_SITE_URL/b/1\""}]}}},
	"components":{"parameters":{"id":{"name":"id","in":"path","required":true,"schema":{"type":"string","pattern":"^[a-z]+$"}}}}}`
	p, err := reference.New([]byte(doc), reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, p, reference.Path).Body.String()
	for _, want := range []string{
		`data-operation="opA" data-scope="accounts:read"`,
		`data-operation="opB" data-scope="campaigns:read"`,
		`data-operation="delete-b-id" data-scope="insights:read"`,
		`<span class="ref-method">DELETE</span> <code>/api/v1/developer/b/{id}</code>`,
		"pattern ^[a-z]&#43;$", "&lt;script&gt;", "<code>x</code>", `curl -X DELETE &#34;$SVC_SITE_URL/b/1&#34;`,
		"https://your-site.example",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if regexp.MustCompile(`<script`).MatchString(body) {
		t.Error("the document's text became markup")
	}
	if w := get(t, p, reference.Path+"/x.js"); w.Code != 404 {
		t.Errorf("unknown asset: %d", w.Code)
	}
}
