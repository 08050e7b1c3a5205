//go:build unix

package assistant

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChatFilesArePrivate: chats quote workflows and run outputs. A chat
// folder and file an earlier Weft left open are tightened by the next
// save (0700, 0600), in .weft beside a workflow as in the data folder;
// the workflow's own folder is left as it is.
func TestChatFilesArePrivate(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	chats := filepath.Join(os.Getenv("XDG_DATA_HOME"), "weft", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(chats, 0o755)
	work := t.TempDir()
	os.Chmod(work, 0o755)
	beside, err := ChatPath(filepath.Join(work, "notes.weft.json"), "wf-1")
	if err != nil {
		t.Fatal(err)
	}
	inData, err := ChatPath("", "wf-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(beside), 0o755); err != nil { // as an earlier Weft left it
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(beside), 0o755)
	for _, p := range []string{beside, inData} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := SaveChat(p, NewConversation("wf")); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]os.FileMode{chats: 0o700, inData: 0o600, filepath.Dir(beside): 0o700, beside: 0o600, work: 0o755} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}
