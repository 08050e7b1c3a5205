// Package appdirs names where Weft keeps its files under the XDG base
// directories, so the "weft" folder and the re-reading of XDG_* live in one
// place.
package appdirs

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/adrg/xdg"
)

// App is the folder name under each XDG base directory.
const App = "weft"

// mu serializes the package xdg's globals: Reload rewrites them, and
// runs going at once (the service's) read them from their own goroutines.
var mu sync.Mutex

// DataFile returns $XDG_DATA_HOME/weft/<rel…>, creating its parent folders.
// XDG_* is read afresh on every call so changes made after start (tests,
// embedding) apply.
func DataFile(rel ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	xdg.Reload()
	p, err := xdg.DataFile(filepath.Join(append([]string{App}, rel...)...))
	if err != nil {
		return "", fmt.Errorf("locate %s in the data directory: %w", filepath.Join(rel...), err)
	}
	return p, nil
}

// DataDir returns the folder $XDG_DATA_HOME/weft/<rel…> without creating it.
func DataDir(rel ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	xdg.Reload()
	if xdg.DataHome == "" {
		return "", fmt.Errorf("locate %s: no XDG data directory", filepath.Join(rel...))
	}
	return filepath.Join(append([]string{xdg.DataHome, App}, rel...)...), nil
}

// ConfigFile returns $XDG_CONFIG_HOME/weft/<rel…>, creating its parent folders.
func ConfigFile(rel ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	xdg.Reload()
	p, err := xdg.ConfigFile(filepath.Join(append([]string{App}, rel...)...))
	if err != nil {
		return "", fmt.Errorf("locate %s in the config directory: %w", filepath.Join(rel...), err)
	}
	return p, nil
}

// StateFile returns $XDG_STATE_HOME/weft/<rel…>, creating its parent
// folders: what Weft learns about its environment (which structured
// output form a model server accepts).
func StateFile(rel ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	xdg.Reload()
	p, err := xdg.StateFile(filepath.Join(append([]string{App}, rel...)...))
	if err != nil {
		return "", fmt.Errorf("locate %s in the state directory: %w", filepath.Join(rel...), err)
	}
	return p, nil
}
