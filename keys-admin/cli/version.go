package cli

import (
	"runtime/debug"
	"strings"
)

// version is set with -ldflags "-X github.com/adsnap/svc/keys-admin/cli.version=X.Y.Z"; unset, it is "".
var version string

// modulePath is the module whose version binaryVersion reports.
const modulePath = "github.com/adsnap/svc/keys-admin"

// binaryVersion returns the version this command reports, without its "v".
// It is the one behaviour of svc-api, svc and keys-admin, written out in each
// module (none of the three depends on a module the other two do), and e2e's
// TestVersionFunctionsAreOne fails when the copies differ:
//
//  1. the -ldflags -X value of version, when set (`make build` and
//     scripts/build-static.sh stamp versions.yaml's);
//  2. else the module version the go command recorded (moduleVersion);
//  3. else "dev": a build from a work tree, which names no version.
//
// The unset value of the variable is "", not "dev", so that no stamped
// value can be taken for "unset"; "dev" is only ever the output.
func binaryVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := moduleVersion(info, modulePath); v != "" {
			return v
		}
	}
	return "dev"
}

// moduleVersion returns the version, without its "v", that info records
// for the module at path: the main module's when the command was built in
// its own module (`go install …@vX.Y.Z`), else the dependency's when another
// module built it (`go build` or `go tool` in a module that requires it,
// which is why the dependencies are searched too). A replaced module reports
// its replacement's version. It returns "" for a work-tree build, which the
// go command records as "(devel)" (a workspace or directory replacement).
func moduleVersion(info *debug.BuildInfo, path string) string {
	m := &info.Main
	if m.Path != path {
		m = nil
		for _, d := range info.Deps {
			if d.Path == path {
				m = d
				break
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return ""
	}
	return strings.TrimPrefix(m.Version, "v")
}
