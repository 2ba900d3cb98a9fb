//go:build race

package svccli_test

// race is true when the tests run under the race detector.
const race = true
