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
//   - the apidiff tool (golang.org/x/exp/cmd/apidiff) for the compatibility
//     check of `make release-check`, and staticcheck for `make lint`, are
//     pinned by the tool directives of go.mod.
package tools
