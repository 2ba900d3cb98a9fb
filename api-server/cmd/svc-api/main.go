// Command svc-api is the read-only snapshot API server: serve, migrate,
// import, demo and version. Run svc-api --help.
package main

import (
	"os"

	"github.com/adsnap/svc/api-server/internal/cli"
)

func main() { os.Exit(cli.Main()) }
