// Command weft is Weft's headless command line (backend/cli). It builds
// without GTK or CGO.
package main

import (
	"os"

	"github.com/weft-dev/weft/backend/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
