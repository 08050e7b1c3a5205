// Command weft is the Weft desktop app: a Wails window whose React frontend
// edits workflows and whose Go side (the App bindings) delegates to backend/.
package main

import (
	"embed"
	"log"

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

// sampleWorkflow is opened at start (LoadSample), so the built app has it
// wherever it runs.
//
//go:embed testdata/workflows/sample.json
var sampleWorkflow []byte

func main() {
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
