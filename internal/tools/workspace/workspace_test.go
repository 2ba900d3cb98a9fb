package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceReplacesEverySibling holds the repository's go.work to the
// go.mod files and versions.yaml (the comment in go.work names this test).
func TestWorkspaceReplacesEverySibling(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// A small repository: versions.yaml with two released modules, lib and cmd
// (cmd requires lib), and an unreleased e2e module requiring both.
const (
	goodVersions = "modules:\n  lib: v1.2.0\n  cmd: v1.0.0\n"
	goodWork     = `go 1.26.0

use (
	./cmd
	./e2e
	./lib
)

replace (
	github.com/adsnap/svc/cmd v1.0.0 => ./cmd
	github.com/adsnap/svc/lib v1.2.0 => ./lib
)
`
	libMod = "module github.com/adsnap/svc/lib\n\ngo 1.26.0\n"
	cmdMod = "module github.com/adsnap/svc/cmd\n\ngo 1.26.0\n\nrequire github.com/adsnap/svc/lib v1.2.0\n"
	e2eMod = "module github.com/adsnap/svc/e2e\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/adsnap/svc/cmd v1.0.0\n\tgithub.com/adsnap/svc/lib v1.2.0\n)\n"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCheck: each rule fails on a tree that breaks it, with a message that
// names the line to change; the good tree passes.
func TestCheck(t *testing.T) {
	good := map[string]string{
		"versions.yaml": goodVersions,
		"go.work":       goodWork,
		"lib/go.mod":    libMod,
		"cmd/go.mod":    cmdMod,
		"e2e/go.mod":    e2eMod,
		// Ignored, as the go command ignores them.
		".cache/proxy/x/go.mod":      "module x\n",
		"e2e/testdata/m/go.mod":      "module m\n",
		"e2e/js/node_modules/go.mod": "module n\n",
	}
	for _, tc := range []struct {
		name   string
		change map[string]string
		want   []string // substrings, one problem each
	}{
		{"good", nil, nil},
		{
			"a required version go.work does not replace",
			map[string]string{"go.work": strings.Replace(goodWork, "\tgithub.com/adsnap/svc/lib v1.2.0 => ./lib\n", "", 1)},
			[]string{"cmd/go.mod, e2e/go.mod require github.com/adsnap/svc/lib v1.2.0, which go.work does not replace: add `github.com/adsnap/svc/lib v1.2.0 => ./lib`"},
		},
		{
			"a replacement no go.mod requires",
			map[string]string{"go.work": strings.Replace(goodWork, "replace (\n", "replace (\n\tgithub.com/adsnap/svc/other v1.0.0 => ./other\n", 1),
				"versions.yaml": goodVersions + "  other: v1.0.0\n", "other/go.mod": "module github.com/adsnap/svc/other\n\ngo 1.26.0\n"},
			[]string{"go.work does not use ./other", "`github.com/adsnap/svc/other v1.0.0 => ./other` replaces a version that no go.mod of the workspace requires"},
		},
		{
			"versions.yaml moved on alone",
			map[string]string{"versions.yaml": strings.Replace(goodVersions, "lib: v1.2.0", "lib: v1.3.0", 1)},
			[]string{
				"cmd/go.mod requires github.com/adsnap/svc/lib v1.2.0, versions.yaml names v1.3.0",
				"e2e/go.mod requires github.com/adsnap/svc/lib v1.2.0, versions.yaml names v1.3.0",
				"`github.com/adsnap/svc/lib v1.2.0 => ./lib` names a version other than versions.yaml's v1.3.0",
			},
		},
		{
			"a requirement that lags",
			map[string]string{"e2e/go.mod": strings.Replace(e2eMod, "lib v1.2.0", "lib v1.1.0", 1)},
			[]string{
				"e2e/go.mod requires github.com/adsnap/svc/lib v1.1.0, versions.yaml names v1.2.0",
				"e2e/go.mod require github.com/adsnap/svc/lib v1.1.0, which go.work does not replace",
			},
		},
		{
			"a replacement of every version",
			map[string]string{"go.work": strings.Replace(goodWork, "lib v1.2.0 => ./lib", "lib => ./lib", 1)},
			[]string{"replaces every version", "e2e/go.mod require github.com/adsnap/svc/lib v1.2.0, which go.work does not replace"},
		},
		{
			"a replacement by another directory",
			map[string]string{"go.work": strings.Replace(goodWork, "lib v1.2.0 => ./lib", "lib v1.2.0 => ./cmd", 1)},
			[]string{"replace it with the module's own directory, ./lib"},
		},
		{
			"a go.mod that replaces a sibling",
			map[string]string{"cmd/go.mod": cmdMod + "\nreplace github.com/adsnap/svc/lib => ../lib\n"},
			[]string{"cmd/go.mod replaces github.com/adsnap/svc/lib: no go.mod replaces a sibling"},
		},
		{
			"a module go.work does not use",
			map[string]string{"tools/go.mod": "module github.com/adsnap/svc/tools\n\ngo 1.26.0\n"},
			[]string{"go.work does not use ./tools"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			for k, v := range tc.change {
				files[k] = v
			}
			problems, err := Check(writeTree(t, files))
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", len(problems), len(tc.want), strings.Join(problems, "\n"))
			}
			for _, w := range tc.want {
				found := false
				for _, p := range problems {
					found = found || strings.Contains(p, w)
				}
				if !found {
					t.Errorf("no problem says %q; got:\n%s", w, strings.Join(problems, "\n"))
				}
			}
		})
	}
}
