// Module tools holds the repository's build and release tooling; it is never
// released. It is a workspace module (go.work lists it, so plain go commands
// and gopls work in it), and the Makefile and scripts/ run its commands and
// pinned tools with GOWORK=off, so that each builds with exactly the
// versions this go.mod pins, whatever the rest of the workspace requires.
//
//   - cmd/modproxy writes a Go module proxy directory of the released modules
//     (`make proxy OUT=dir`).
//   - cmd/pack writes the byte-reproducible archives of scripts/release-cli.sh.
//   - package versions reads versions.yaml; package workspace checks go.work
//     against the go.mod files and versions.yaml
//     (TestWorkspaceReplacesEverySibling).
//   - package sizecheck holds api-server and keys-admin to files of at most
//     400 lines and functions of at most 80 (hand-written, non-test Go;
//     generated files excepted, tables and templates only with a
//     "sizecheck:table-file" or "sizecheck:table-func" comment saying why):
//     TestSizes, run by make test; and TestDocFileLists keeps the file lists
//     of package docs true in every module (a doc.go that names one of its
//     package's files names them all, and none that is gone).
//   - the apidiff tool (golang.org/x/exp/cmd/apidiff) for the compatibility
//     check of `make release-check`, and staticcheck for `make lint`, are
//     pinned by the tool directives of go.mod.
package tools
