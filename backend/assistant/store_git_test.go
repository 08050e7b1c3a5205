package assistant

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChatStaysOutOfGit: a chat of a saved workflow lives in .weft, which
// gets its own .gitignore, so `git add -A` in the workflow's repository
// stages the workflow alone; a chat an earlier Weft saved beside the
// workflow is moved there, and one already there is never overwritten.
func TestChatStaysOutOfGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	wf := filepath.Join(repo, "notes.weft.json")
	other := filepath.Join(repo, "other.weft.json")
	for _, f := range []string{wf, other} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An earlier Weft's chat beside other.weft.json.
	oldChat := filepath.Join(repo, "other.weft.chat.json")
	if err := os.WriteFile(oldChat, []byte(`{"format":"weft-chat/v1","workflow_id":"wf-2","messages":[{"role":"user","content":"hello"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}

	path, err := ChatPath(wf, "wf-1")
	if err != nil {
		t.Fatal(err)
	}
	conv := NewConversation("wf-1")
	conv.Messages = append(conv.Messages, ChatMessage{Role: "user", Content: "my token is in here"})
	if err := SaveChat(path, conv); err != nil {
		t.Fatal(err)
	}
	moved, err := ChatPath(other, "wf-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldChat); err == nil {
		t.Error("the old chat is still beside the workflow")
	}
	back, ws, err := LoadChat(moved, "wf-2")
	if err != nil || len(ws) != 0 || len(back.Messages) != 1 || back.Messages[0].Content != "hello" {
		t.Fatalf("moved chat: %+v %v %v", back, ws, err)
	}
	git("add", "-A")
	if st := git("status", "--porcelain"); strings.TrimSpace(st) != "A  notes.weft.json\nA  other.weft.json" {
		t.Errorf("git status after add -A:\n%s", st)
	}

	// A chat already in .weft is kept; the old one stays where it is.
	if err := os.WriteFile(oldChat, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ChatPath(other, "wf-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldChat); err != nil {
		t.Errorf("the second old chat was not kept: %v", err)
	}
	if back, _, _ := LoadChat(moved, "wf-2"); len(back.Messages) != 1 {
		t.Errorf("the chat in .weft was replaced: %+v", back)
	}
}
