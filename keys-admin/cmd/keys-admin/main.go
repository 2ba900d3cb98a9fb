// Command keys-admin creates, lists and revokes developer keys.
package main

import (
	"os"

	"github.com/adsnap/svc/keys-admin/cli"
)

func main() { os.Exit(int(cli.Main())) }
