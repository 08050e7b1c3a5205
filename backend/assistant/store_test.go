package assistant

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChatPath(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	tests := []struct {
		file, id, want string
		wantErr        bool
	}{
		{file: "/w/notes.weft.json", id: "x", want: "/w/.weft/chats/notes.weft.chat.json"},
		{file: "/w/flow", id: "x", want: "/w/.weft/chats/flow.chat.json"},
		{id: "wf-1", want: filepath.Join(data, "weft", "chats", "wf-1.chat.json")},
		{id: "", wantErr: true},
		{id: "../escape", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ChatPath(tt.file, tt.id)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ChatPath(%q, %q) = %q, %v; want %q", tt.file, tt.id, got, err, tt.want)
		}
	}
}

func TestChatPersistsBesideTheWorkflowAndInXDG(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	dir := t.TempDir()
	for _, file := range []string{filepath.Join(dir, "flow.weft.json"), ""} {
		path, err := ChatPath(file, "wf-1")
		if err != nil {
			t.Fatal(err)
		}
		conv, ws, err := LoadChat(path, "wf-1")
		if err != nil || len(ws) != 0 || len(conv.Messages) != 0 {
			t.Fatalf("fresh load: %v %v %+v", err, ws, conv)
		}
		c := script(validUpdate)
		conf, _ := cfg(3)
		res, err := Chat(context.Background(), c, Request{Workflow: pipeline(), Message: "louder", Conversation: conv}, conf)
		if err != nil {
			t.Fatal(err)
		}
		if err := SaveChat(path, res.Conversation); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("saved chat: %v %v", st, err)
		}
		back, ws, err := LoadChat(path, "wf-1")
		if err != nil || len(ws) != 0 {
			t.Fatalf("reload: %v %v", err, ws)
		}
		if len(back.Messages) != 2 || back.Messages[0].Content != "louder" || back.Messages[1].Kind != KindPatch ||
			back.Messages[1].Patch == nil || len(back.Messages[1].Patch.UpdatedNodes) != 1 || back.WorkflowID != "wf-1" {
			t.Fatalf("reloaded = %+v", back)
		}
	}
}

func TestCorruptChatMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.chat.json")
	for _, bad := range []string{`{"format": "weft-chat/v1", "messages": [`, `{"format": "other"}`, `[]`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		conv, ws, err := LoadChat(path, "wf-1")
		if err != nil || conv == nil || len(conv.Messages) != 0 {
			t.Fatalf("%s: load = %+v, %v", bad, conv, err)
		}
		if len(ws) != 1 || ws[0].Stage != StageHistory || !strings.Contains(ws[0].Message, ".corrupt-") {
			t.Fatalf("%s: warnings = %v", bad, ws)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("%s: the corrupt file is still in place", bad)
		}
		matches, _ := filepath.Glob(path + ".corrupt-*")
		if len(matches) == 0 {
			t.Fatalf("%s: nothing moved aside", bad)
		}
		for _, m := range matches {
			os.Remove(m)
		}
	}
}

func TestChatSummaryCoversOutOfRangeIsReset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.chat.json")
	os.WriteFile(path, []byte(`{"format":"weft-chat/v1","workflow_id":"w","messages":[],"summary":"x","summary_covers":5}`), 0o600)
	conv, ws, err := LoadChat(path, "w")
	if err != nil || len(ws) != 0 || conv.Summary != "" || conv.SummaryCovers != 0 {
		t.Fatalf("conv = %+v %v %v", conv, ws, err)
	}
}
