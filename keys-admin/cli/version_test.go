package cli

import (
	"runtime/debug"
	"testing"
)

// TestModuleVersion: the table every copy of moduleVersion passes (svc-api,
// svc and keys-admin).
func TestModuleVersion(t *testing.T) {
	t.Parallel()
	other := "github.com/adsnap/svc/sdk-go"
	for _, tt := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install at a version", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.0.0"}}, "1.0.0"},
		{"work tree", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, ""},
		{"no version", debug.BuildInfo{Main: debug.Module{Path: modulePath}}, ""},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.0.1-0.20261123180000-abcdefabcdef"}}, "1.0.1-0.20261123180000-abcdefabcdef"},
		{"dependency of another main module", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tool", Version: "(devel)"},
			Deps: []*debug.Module{{Path: other, Version: "v1.2.0"}, {Path: modulePath, Version: "v1.1.0"}},
		}, "1.1.0"},
		{"dependency replaced by a directory", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tool", Version: "(devel)"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.1.0", Replace: &debug.Module{Path: "../x"}}},
		}, ""},
		{"dependency replaced by another version", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tool", Version: "(devel)"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.1.0", Replace: &debug.Module{Path: modulePath, Version: "v1.1.1"}}},
		}, "1.1.1"},
		{"absent", debug.BuildInfo{Main: debug.Module{Path: "example.com/tool"}, Deps: []*debug.Module{{Path: other, Version: "v1.2.0"}}}, ""},
	} {
		if got := moduleVersion(&tt.info, modulePath); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestBinaryVersion: the -ldflags -X value wins; a test binary is a work-tree
// build, so without one the version is "dev".
func TestBinaryVersion(t *testing.T) {
	saved := version
	t.Cleanup(func() { version = saved })
	version = "9.8.7"
	if got := binaryVersion(); got != "9.8.7" {
		t.Errorf("stamped: %q, want 9.8.7", got)
	}
	version = ""
	if got := binaryVersion(); got != "dev" {
		t.Errorf("unstamped test binary: %q, want dev", got)
	}
}
