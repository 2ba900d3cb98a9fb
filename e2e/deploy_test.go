package e2e

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsnap/svc/e2e/internal/harness"
	"github.com/compose-spec/compose-go/v2/schema"
	yaml3 "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// TestDeployFiles (issue #17) checks deploy/ as far as this machine can
// without a container engine or a cluster: the compose file against the
// Compose Specification's schema, the Kubernetes manifests decoded strictly
// into k8s.io/api types, the systemd unit with systemd-analyze verify, and
// the binaries the Dockerfile copies (built by the same script the suite
// builds its binaries with) static and stripped.
func TestDeployFiles(t *testing.T) {
	e := setup(t)
	deploy := filepath.Join(harness.RepoRoot(), "deploy")
	t.Run("Compose", func(t *testing.T) { testCompose(t, deploy) })
	t.Run("Kubernetes", func(t *testing.T) { testKubernetes(t, deploy) })
	t.Run("Systemd", func(t *testing.T) { testSystemd(t, deploy, e.bin.API) })
	t.Run("HAProxy", func(t *testing.T) { testHAProxy(t, deploy) })
	t.Run("StaticBinaries", func(t *testing.T) { testStaticBinaries(t, deploy, e) })
}

// testCompose validates deploy/compose.yaml with compose-go's schema
// package (the compose-spec JSON schema that `docker compose config`
// applies, embedded in compose-go): lighter than compose-go's loader, which
// would also resolve images and paths that do not exist here.
func testCompose(t *testing.T, deploy string) {
	b, err := os.ReadFile(filepath.Join(deploy, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml3.Unmarshal(b, &doc); err != nil { // yaml.v3 resolves the anchors and << merges
		t.Fatalf("compose.yaml: %v", err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("compose.yaml does not follow the Compose Specification: %v", err)
	}
	// The schema accepts what the topology needs to be wrong about; check it.
	services, _ := doc["services"].(map[string]any)
	for _, name := range []string{"postgres", "redis", "migrate", "api1", "api2", "lb"} {
		if _, ok := services[name]; !ok {
			t.Errorf("compose.yaml has no service %q", name)
		}
	}
	for _, name := range []string{"api1", "api2"} {
		svc, _ := services[name].(map[string]any)
		deps, _ := svc["depends_on"].(map[string]any)
		if m, _ := deps["migrate"].(map[string]any); m["condition"] != "service_completed_successfully" {
			t.Errorf("%s does not wait for the migration to complete: %v", name, deps)
		}
	}
	if _, err := os.Stat(filepath.Join(deploy, "haproxy.cfg")); err != nil {
		t.Errorf("the load balancer's configuration: %v", err)
	}
	// A schema that accepts anything would pass the above: it must refuse a typo.
	bad := map[string]any{"services": map[string]any{"x": map[string]any{"image": "x", "enviroment": map[string]any{}}}}
	if schema.Validate(bad) == nil {
		t.Error("the compose schema accepted an unknown service field")
	}
}

// testKubernetes decodes every document of deploy/kubernetes strictly (an
// unknown or misplaced field is an error) into its k8s.io/api type.
func testKubernetes(t *testing.T, deploy string) {
	files, err := filepath.Glob(filepath.Join(deploy, "kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes (%v)", err)
	}
	kinds := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml3.NewDecoder(bytes.NewReader(b))
		for i := 0; ; i++ {
			var node map[string]any
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			doc, err := yaml.Marshal(node)
			if err != nil {
				t.Fatal(err)
			}
			kind, _ := node["kind"].(string)
			if err := decodeStrict(kind, doc, t); err != nil {
				t.Errorf("%s document %d (%s): %v", filepath.Base(f), i, kind, err)
			}
			kinds[kind]++
		}
	}
	for _, k := range []string{"Deployment", "Service", "PodDisruptionBudget", "Job"} {
		if kinds[k] == 0 {
			t.Errorf("deploy/kubernetes has no %s", k)
		}
	}
	// Strictness itself: a misplaced field must be refused.
	if err := decodeStrict("Service", []byte("apiVersion: v1\nkind: Service\nspec:\n  selectr: {a: b}\n"), t); err == nil {
		t.Error("strict decoding accepted an unknown field")
	}
}

func decodeStrict(kind string, doc []byte, t *testing.T) error {
	switch kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(doc, &d); err != nil {
			return err
		}
		c := d.Spec.Template.Spec.Containers
		if len(c) == 0 || c[0].ReadinessProbe == nil || c[0].ReadinessProbe.HTTPGet == nil || c[0].ReadinessProbe.HTTPGet.Path != "/readyz" ||
			c[0].LivenessProbe == nil || c[0].LivenessProbe.HTTPGet == nil {
			return errors.New("the container needs a readiness probe on /readyz and an HTTP liveness probe")
		}
		if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			return errors.New("the pod must run as non-root")
		}
		// The grace period covers the preStop sleep, a drain delay of up to
		// 10 s (issue 36) and 30 s of requests in flight.
		var preStop int64
		if l := c[0].Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Sleep != nil {
			preStop = l.PreStop.Sleep.Seconds
		}
		if g := d.Spec.Template.Spec.TerminationGracePeriodSeconds; g == nil || *g < preStop+10+30 {
			return fmt.Errorf("terminationGracePeriodSeconds %v is less than the preStop sleep (%d s) + a 10 s drain + 30 s in flight", g, preStop)
		}
		return nil
	case "Service":
		var s corev1.Service
		return yaml.UnmarshalStrict(doc, &s)
	case "PodDisruptionBudget":
		var p policyv1.PodDisruptionBudget
		return yaml.UnmarshalStrict(doc, &p)
	case "Job":
		var j batchv1.Job
		return yaml.UnmarshalStrict(doc, &j)
	}
	return fmt.Errorf("kind %q: add it to decodeStrict", kind)
}

// testHAProxy checks the load balancer's configuration with haproxy -c
// (the replicas' names resolve only inside compose's network: those
// warnings are expected).
func testHAProxy(t *testing.T, deploy string) {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/haproxy"); err != nil {
			t.Fatal("haproxy is required (apt-get install haproxy; scripts/test-deps.sh installs it for make test)")
		}
	}
	out, err := exec.Command(bin, "-c", "-f", filepath.Join(deploy, "haproxy.cfg")).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("Configuration file is valid")) {
		t.Errorf("haproxy -c -f deploy/haproxy.cfg: %v\n%s", err, out)
	}
	// What keeps a restart from failing requests (issue 36; the failover
	// group's RollingRestart runs the file).
	cfg, err := os.ReadFile(filepath.Join(deploy, "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	var directives strings.Builder
	for _, line := range strings.Split(string(cfg), "\n") {
		if d, _, _ := strings.Cut(line, "#"); strings.TrimSpace(d) != "" {
			directives.WriteString(strings.Join(strings.Fields(d), " ") + "\n")
		}
	}
	for _, want := range []string{"retry-on conn-failure empty-response", "option redispatch", "http-check send meth GET uri /readyz", "slowstart"} {
		if !strings.Contains(directives.String(), want) {
			t.Errorf("deploy/haproxy.cfg lacks %q", want)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "[ALERT]") || (strings.Contains(line, "[WARNING]") && !strings.Contains(line, "could not resolve address")) {
			t.Errorf("haproxy: %s", line)
		}
	}
}

// testSystemd runs systemd-analyze verify on the unit, with ExecStart
// pointed at the binary built here (verify checks that it exists): it must
// exit 0 and print nothing (an unknown key is only a warning).
func testSystemd(t *testing.T, deploy, bin string) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze is required (apt-get install systemd; scripts/test-deps.sh installs it for make test)")
	}
	b, err := os.ReadFile(filepath.Join(deploy, "systemd", "svc-api.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("ExecStart=/usr/local/bin/svc-api serve")) {
		t.Fatal("svc-api.service: ExecStart is not /usr/local/bin/svc-api serve")
	}
	for _, opt := range []string{"DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet="} {
		if !bytes.Contains(b, []byte("\n"+opt+"\n")) {
			t.Errorf("svc-api.service lacks %s", opt)
		}
	}
	unit := filepath.Join(t.TempDir(), "svc-api.service")
	if err := os.WriteFile(unit, bytes.ReplaceAll(b, []byte("/usr/local/bin/svc-api"), []byte(bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", unit).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(deploy, "systemd", "svc-api.env.example")); err != nil {
		t.Error(err)
	}
}

// testStaticBinaries: the binaries the suite runs are those the Dockerfile
// copies, built by the same script with the same flags: static (no ELF
// interpreter, CGO_ENABLED=0), -trimpath, stripped.
func testStaticBinaries(t *testing.T, deploy string, e *env) {
	df, err := os.ReadFile(filepath.Join(deploy, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scripts/build-static.sh /out", "COPY --from=build /out/svc-api /out/keys-admin", "distroless/static", "USER 65532"} {
		if !bytes.Contains(df, []byte(want)) {
			t.Errorf("deploy/Dockerfile does not contain %q", want)
		}
	}
	for _, bin := range []string{e.bin.API, e.bin.KeysAdmin} {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		// The go command does not record -ldflags under -trimpath; -s -w
		// show in the file instead: no symbol table, no DWARF.
		if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
			t.Errorf("%s: built with %v, want CGO_ENABLED=0 and -trimpath", filepath.Base(bin), settings)
		}
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Symbols(); !errors.Is(err, elf.ErrNoSymbols) {
			t.Errorf("%s has a symbol table (built without -ldflags -s)", filepath.Base(bin))
		}
		for _, sec := range f.Sections {
			if strings.HasPrefix(sec.Name, ".debug_") || strings.HasPrefix(sec.Name, ".zdebug_") {
				t.Errorf("%s has DWARF section %s (built without -ldflags -w)", filepath.Base(bin), sec.Name)
				break
			}
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				t.Errorf("%s is dynamically linked (%v)", filepath.Base(bin), p.Type)
			}
		}
		f.Close()
	}
}
