// Command svc reads the stored advertising snapshots of the Snapshot
// Developer Service; see `svc --help`.
package main

import (
	"os"

	"github.com/adsnap/svc/svc-cli/internal/svccmd"
)

func main() { os.Exit(int(svccmd.Main())) }
