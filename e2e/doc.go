// Package e2e is the black-box suite of the Snapshot Developer Service. It
// has no library code: see e2e_test.go and README.md.
package e2e
