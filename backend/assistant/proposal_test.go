package assistant

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

func wipeResult() *Result {
	return &Result{Kind: KindPatch, Message: "Cleaned.", Valid: true, Validated: true,
		Patch: &WorkflowPatch{UpdatedNodes: []workflow.Node{{ID: "b", Key: "clean", Name: "Clean temp", Type: workflow.TypeTool,
			Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "rm -rf ~/ && echo <done>"}}}}}}
}

func TestProposalRoundTrip(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "w.weft.json")
	os.WriteFile(file, []byte(describeWF), 0o644)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := NewProposal(file, []byte(describeWF), "clean more", wipeResult(), now)
	if err != nil {
		t.Fatal(err)
	}
	path, err := SaveProposal(p, now)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("proposal file %s: %v %v", path, err, st)
	}
	got, err := LoadProposal(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Patch) != string(p.Patch) || got.PatchSHA256 != Sum(p.Patch) || got.WorkflowSHA256 != Sum([]byte(describeWF)) {
		t.Fatalf("loaded %+v", got)
	}
	before, after, _, err := got.Apply(file, []byte(describeWF))
	if err != nil {
		t.Fatal(err)
	}
	if before.NodeByID("b").Params.Arguments["command"] != "rm -rf /tmp/weft-cache" || after.NodeByID("b").Params.Arguments["command"] != "rm -rf ~/ && echo <done>" {
		t.Errorf("applied: %+v", after.NodeByID("b"))
	}
	// Another content, another file: refused as stale.
	if _, _, _, err := got.Apply(file, []byte(describeWF+" ")); !errors.Is(err, ErrStaleProposal) || !strings.Contains(err.Error(), "changed since the review") {
		t.Errorf("changed content: %v", err)
	}
	other := filepath.Join(t.TempDir(), "w.weft.json")
	if _, _, _, err := got.Apply(other, []byte(describeWF)); !errors.Is(err, ErrStaleProposal) || !strings.Contains(err.Error(), "made for") {
		t.Errorf("other file: %v", err)
	}
	if err := DeleteProposal(p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProposal(p.ID); !errors.Is(err, ErrNoProposal) {
		t.Errorf("after delete: %v", err)
	}
	if err := DeleteProposal(p.ID); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestProposalRejectsBadIDsAndFiles(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	for _, id := range []string{"", "..", "../../etc/passwd", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0", "0123456789abcdeg", "0123456789abcdef/", "0123456789abcdef\n"} {
		if _, err := LoadProposal(id); !errors.Is(err, ErrNoProposal) {
			t.Errorf("LoadProposal(%q) = %v", id, err)
		}
	}
	p, err := NewProposal("w.json", []byte("{}"), "x", wipeResult(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	path, err := SaveProposal(p, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content, want string
	}{
		{"not JSON", "{", "unexpected end"},
		{"another format", `{"format":"weft-chat/v1","id":"` + p.ID + `"}`, "format"},
		{"another id", `{"format":"weft-proposal/v1","id":"ffffffffffffffff"}`, "holds proposal"},
		{"patch edited", `{"format":"weft-proposal/v1","id":"` + p.ID + `","patch":{"added_nodes":[]},"patch_sha256":"` + p.PatchSHA256 + `"}`, "does not match its hash"},
	}
	for _, tc := range tests {
		os.WriteFile(path, []byte(tc.content), 0o600)
		if _, err := LoadProposal(p.ID); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := NewProposal("w.json", nil, "x", &Result{Kind: KindConversation}, time.Now()); err == nil {
		t.Error("a proposal without a change")
	}
}

func TestSaveProposalPrunesOldOnes(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	now := time.Now()
	old, _ := NewProposal("w.json", nil, "x", wipeResult(), now)
	oldPath, err := SaveProposal(old, now)
	if err != nil {
		t.Fatal(err)
	}
	past := now.Add(-ProposalMaxAge - time.Hour)
	os.Chtimes(oldPath, past, past)
	stranger := filepath.Join(filepath.Dir(oldPath), "notes.json")
	os.WriteFile(stranger, nil, 0o600)
	os.Chtimes(stranger, past, past)
	fresh, _ := NewProposal("w.json", nil, "x", wipeResult(), now)
	if _, err := SaveProposal(fresh, now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldPath); !os.IsNotExist(err) {
		t.Errorf("the old proposal was kept: %v", err)
	}
	if _, err := os.Stat(stranger); err != nil {
		t.Errorf("a file that is no proposal was deleted: %v", err)
	}
	if _, err := LoadProposal(fresh.ID); err != nil {
		t.Error(err)
	}
}
