// Command weft is the Weft desktop app: a Wails window whose React frontend
// edits workflows and whose Go side (the App bindings) delegates to backend/.
// Started with a command (weft run FILE, weft schedule list, …) it is the
// command line instead, without a window: a schedule made in the app runs
// this binary, so the desktop user needs nothing else installed.
package main

import (
	"embed"
	"log"
	"os"

	"github.com/weft-dev/weft/backend/cli"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// assets is the built frontend. frontend/dist/.gitkeep is committed so this
// embed (and so `go vet ./...`) works on a fresh clone before any npm build.
//
//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

// sampleWorkflow is opened at start when there is no last file to reopen
// (LoadStart), so the built app has it wherever it runs.
//
//go:embed testdata/workflows/sample.json
var sampleWorkflow []byte

func main() {
	if cli.Handles(os.Args[1:]) {
		os.Exit(cli.Main(os.Args[1:]))
	}
	app := NewApp()
	err := wails.Run(&options.App{
		Title:            "Weft",
		Width:            1280,
		Height:           800,
		MinWidth:         800,
		MinHeight:        500,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		OnStartup:        app.startup,
		OnBeforeClose:    app.beforeClose,
		OnShutdown:       app.shutdown,
		Bind:             []interface{}{app},
		Linux: &linux.Options{
			Icon:        icon,
			ProgramName: "weft",
		},
	})
	if err != nil {
		log.Fatal(err)
	}
}
