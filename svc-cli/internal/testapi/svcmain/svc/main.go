// Command svc is svcmain.Main as a program: the scenario tests build it
// when they run under the race detector (script_test.go).
package main

import "github.com/adsnap/svc/svc-cli/internal/testapi/svcmain"

func main() { svcmain.Main() }
