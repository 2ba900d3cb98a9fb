package build

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install at a version", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.0.0"}}, "1.0.0"},
		{"work tree", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "dev"},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.0.1-0.20261123180000-abcdefabcdef"}}, "1.0.1-0.20261123180000-abcdefabcdef"},
		{"dependency of another main module", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tool", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "github.com/adsnap/svc/sdk-go", Version: "v1.2.0"}, {Path: modulePath, Version: "v1.1.0"}},
		}, "1.1.0"},
		{"absent", debug.BuildInfo{Main: debug.Module{Path: "example.com/tool"}}, "dev"},
	}
	for _, tt := range tests {
		if got := moduleVersion(&tt.info); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
