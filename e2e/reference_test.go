package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
)

// refExample is one example of the API reference page: its operation, its
// label (curl, Go, svc) and its source as the page shows it.
type refExample struct {
	op, label, source string
}

var (
	reRefOp      = regexp.MustCompile(`(?s)<section class="ref-op" id="([^"]+)".*?</section>`)
	reRefExample = regexp.MustCompile(`(?s)<figure class="ref-example" data-label="([^"]+)">.*?<pre[^>]*><code>(.*?)</code></pre>`)
)

// refExamples reads every example off the page, and checks that they are
// the x-codeSamples of the served OpenAPI document, one for one.
func refExamples(t *testing.T, e *env, base string) []refExample {
	t.Helper()
	resp, body := e.get(t, harness.ClientFrom("127.0.0.45"), base+"/developers/api", "")
	if resp.StatusCode != 200 {
		t.Fatalf("/developers/api: %d", resp.StatusCode)
	}
	var out []refExample
	for _, op := range reRefOp.FindAllStringSubmatch(string(body), -1) {
		for _, ex := range reRefExample.FindAllStringSubmatch(op[0], -1) {
			out = append(out, refExample{op[1], ex[1], html.UnescapeString(ex[2])})
		}
	}
	_, raw := e.get(t, harness.ClientFrom("127.0.0.45"), base+"/api/v1/developer/openapi.json", "")
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Samples     []struct {
				Label  string `json:"label"`
				Source string `json:"source"`
			} `json:"x-codeSamples"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, item := range doc.Paths {
		for _, op := range item {
			labels := map[string]bool{}
			for _, s := range op.Samples {
				want[op.OperationID+"\x00"+s.Label+"\x00"+s.Source] = true
				labels[s.Label] = true
			}
			if !labels["curl"] || !labels["Go"] || !labels["svc"] {
				t.Errorf("%s: examples %v; give every operation of api-server/openapi.yaml x-codeSamples labelled curl, Go and svc (and its x-scope)", op.OperationID, labels)
			}
		}
	}
	for _, ex := range out {
		if !want[ex.op+"\x00"+ex.label+"\x00"+ex.source] {
			t.Errorf("%s %s on the page is not the document's:\n%s", ex.op, ex.label, ex.source)
		}
	}
	if len(out) != len(want) {
		t.Errorf("the page shows %d examples, the document has %d", len(out), len(want))
	}
	return out
}

// TestReferenceExamples (issue 44): every example of the API reference,
// as the page shows it, runs against a live replica with a real key: the
// curl and svc ones in bash with SVC_SITE_URL and SVC_API_KEY set (svc the
// binary under test, on PATH), the Go ones compiled in a module of their
// own that requires sdk-go (replaced by the repository's) and run. Each
// must exit 0 and print what it read.
func TestReferenceExamples(t *testing.T) {
	e := setup(t)
	base := e.replicas[0].URL
	examples := refExamples(t, e, base)
	if len(examples) < 12 {
		t.Fatalf("%d examples on the page", len(examples))
	}
	env := append(os.Environ(), "SVC_SITE_URL="+base, "SVC_API_KEY="+e.keys["alpha_aci"],
		"PATH="+filepath.Dir(e.bin.CLI)+string(os.PathListSeparator)+os.Getenv("PATH"))

	// The Go examples: one module, a main package each, built at once.
	mod := t.TempDir()
	gomod := fmt.Sprintf("module example.com/refexamples\n\ngo 1.26\n\nrequire github.com/adsnap/svc/sdk-go v0.0.0\n\nreplace github.com/adsnap/svc/sdk-go => %s\n",
		filepath.Join(harness.RepoRoot(), "sdk-go"))
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, ex := range examples {
		if ex.label != "Go" {
			continue
		}
		dir := filepath.Join(mod, fmt.Sprintf("ex%02d_%s", i, ex.op))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(ex.source), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(mod, "bin")+string(os.PathSeparator), "./...")
	build.Dir, build.Env = mod, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the Go examples: %v\n%s", err, out)
	}

	for i, ex := range examples {
		t.Run(ex.op+"/"+ex.label, func(t *testing.T) {
			var cmd *exec.Cmd
			switch ex.label {
			case "curl", "svc":
				cmd = exec.CommandContext(t.Context(), "bash", "-euo", "pipefail", "-c", ex.source)
			case "Go":
				cmd = exec.CommandContext(t.Context(), filepath.Join(mod, "bin", fmt.Sprintf("ex%02d_%s", i, ex.op)))
			default:
				t.Fatalf("an example labelled %q: the test runs curl, Go and svc", ex.label)
			}
			cmd.Env, cmd.Dir = env, t.TempDir()
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s\nstdout:\n%s\nstderr:\n%s", err, ex.source, stdout.String(), stderr.String())
			}
			out := strings.TrimSpace(stdout.String())
			if ex.label != "Go" && !json.Valid([]byte(out)) {
				t.Fatalf("not JSON:\n%s", out)
			}
			// A list's or the summary's rows; freshness's data is one object.
			if ex.label == "curl" && !strings.HasPrefix(out, `{"data":[{`) && !strings.HasPrefix(out, `{"data":{"dataAsOf":`) {
				t.Errorf("curl read no rows:\n%.300s", out)
			}
			if out == "" || out == "[]" || out == "null" {
				t.Errorf("printed nothing it read: %q", out)
			}
			t.Logf("%d bytes of output", len(out))
		})
	}
}
