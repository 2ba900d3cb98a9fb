// Module tools holds the repository's release tooling; it is never released
// and is not part of go.work (run it with GOWORK=off, as the Makefile does).
//
//   - cmd/modproxy writes a Go module proxy directory of the released modules
//     (`make proxy OUT=dir`).
//   - the apidiff tool (golang.org/x/exp/cmd/apidiff) is pinned by the tool
//     directive of go.mod, for the compatibility check of `make release-check`.
package tools
