package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeTelemetryFlags: --metrics-addr is documented and may not be the
// API's own address, and an exporter other than OTLP is refused with a
// message (issue #17).
func TestServeTelemetryFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"serve", "--help"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d %s", code, errOut.String())
	}
	if help := out.String(); !strings.Contains(help, "--metrics-addr") || !strings.Contains(help, "SVC_METRICS_ADDR") {
		t.Errorf("serve --help does not document --metrics-addr:\n%s", help)
	}
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	if code := Run(t.Context(), []string{"migrate", "--database-url", db}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("migrate: %d %s", code, errOut.String())
	}
	errOut.Reset()
	code := Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:18089", "--metrics-addr", "127.0.0.1:18089"},
		strings.NewReader(""), &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--metrics-addr must differ from --listen") {
		t.Errorf("--metrics-addr equal to --listen: exit %d, %s", code, errOut.String())
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	errOut.Reset()
	code = Run(t.Context(), []string{"serve", "--database-url", db, "--listen", "127.0.0.1:0"}, strings.NewReader(""), &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "otlp only") {
		t.Errorf("OTEL_TRACES_EXPORTER=zipkin: exit %d, %s", code, errOut.String())
	}
}
