package appdirs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPathsFollowXDG(t *testing.T) {
	data, cfg := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	p, err := DataFile("chats", "x.chat.json")
	if err != nil || p != filepath.Join(data, "weft", "chats", "x.chat.json") {
		t.Fatalf("DataFile = %q, %v", p, err)
	}
	if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
		t.Fatalf("DataFile did not create the folder: %v", err)
	}
	d, err := DataDir("versions")
	if err != nil || d != filepath.Join(data, "weft", "versions") {
		t.Fatalf("DataDir = %q, %v", d, err)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatalf("DataDir created the folder: %v", err)
	}
	c, err := ConfigFile("settings.json")
	if err != nil || c != filepath.Join(cfg, "weft", "settings.json") {
		t.Fatalf("ConfigFile = %q, %v", c, err)
	}
}
