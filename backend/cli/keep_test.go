package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

// listVersions is `weft versions FILE --json`.
func listVersions(t *testing.T, env map[string]string, file string) (id string, reasons []string, names []string) {
	t.Helper()
	code, out, errOut := run(t, env, "versions", file, "--json")
	if code != exitOK {
		t.Fatalf("versions: exit %d: %s", code, errOut)
	}
	var got struct {
		WorkflowID string `json:"workflow_id"`
		Versions   []struct {
			Reason string `json:"reason"`
			Name   string `json:"name"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("versions JSON: %v\n%s", err, out)
	}
	for _, v := range got.Versions {
		reasons = append(reasons, v.Reason)
		names = append(names, v.Name)
	}
	return got.WorkflowID, reasons, names
}

func TestDraftPath(t *testing.T) {
	cases := map[string]string{
		"plan.json":           "plan.draft.json",
		"dir/notes.weft.json": "dir/notes.weft.draft.json",
		"plan":                "plan.draft.json",
		"PLAN.JSON":           "PLAN.draft.json",
		".json":               ".json.draft.json",
		"a.b/plan":            "a.b/plan.draft.json",
	}
	for in, want := range cases {
		if got := draftPath(filepath.FromSlash(in)); got != filepath.FromSlash(want) {
			t.Errorf("draftPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlanOutKeepsABetterFile(t *testing.T) {
	cases := []struct {
		name       string
		existing   string // "" no file; "wf" the chat workflow; else raw content
		reply      string
		force      bool
		wantCode   int
		wantOut    string // what --out holds afterwards: "old", "new", "raw"
		wantDraft  bool
		wantKept   bool
		wantReport string
	}{
		{"invalid draft over a workflow goes beside it", "wf", planIfOneBranch, false, exitInvalid, "old", true, false, "was NOT replaced"},
		{"invalid draft with --force replaces, old kept", "wf", planIfOneBranch, true, exitInvalid, "new", false, true, "wrote the INVALID best draft"},
		{"valid plan replaces, old kept", "wf", planValid, false, exitOK, "new", false, true, "kept the previous"},
		{"invalid draft to a new file is written there", "", planIfOneBranch, false, exitInvalid, "new", false, false, "wrote the INVALID best draft"},
		{"valid plan over a file that is not a workflow", "not json {", planValid, false, exitInvalid, "raw", true, false, "could not be kept"},
		{"valid plan over a file that is not a workflow, --force", "not json {", planValid, true, exitOK, "new", false, false, "wrote"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(tc.reply), llmtest.Reply(tc.reply)))
			env := planEnv(t, srv, "2")
			outFile := filepath.Join(t.TempDir(), "plan.json")
			switch tc.existing {
			case "":
			case "wf":
				os.WriteFile(outFile, []byte(chatWF), 0o600)
			default:
				os.WriteFile(outFile, []byte(tc.existing), 0o600)
			}
			args := []string{"plan", "--goal", "read my notes", "--out", outFile}
			if tc.force {
				args = append(args, "--force")
			}
			code, out, errOut := run(t, env, args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, errOut)
			}
			if !strings.Contains(out, tc.wantReport) {
				t.Errorf("report lacks %q:\n%s", tc.wantReport, out)
			}
			b, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.wantOut {
			case "old":
				if string(b) != chatWF {
					t.Fatalf("--out was changed:\n%s", b)
				}
			case "raw":
				if string(b) != tc.existing {
					t.Fatalf("--out was changed:\n%s", b)
				}
			case "new":
				w, _, err := workflow.Parse(b)
				if err != nil || w.NodeByKey("list") == nil && w.NodeByKey("check") == nil {
					t.Fatalf("--out does not hold the plan (%v):\n%s", err, b)
				}
			}
			if tc.existing != "" && tc.wantOut == "new" && tc.existing == "wf" {
				if st, _ := os.Stat(outFile); st.Mode().Perm() != 0o600 {
					t.Errorf("mode %o, want the old file's 0600", st.Mode().Perm())
				}
			}
			draft := draftPath(outFile)
			if _, err := os.Stat(draft); (err == nil) != tc.wantDraft {
				t.Fatalf("draft at %s: %v, want written=%v", draft, err, tc.wantDraft)
			}
			if tc.wantDraft {
				if !strings.Contains(out, draft) {
					t.Errorf("the report does not say where the draft is:\n%s", out)
				}
				if _, _, err := workflow.Load(draft); err != nil {
					t.Errorf("draft: %v", err)
				}
			}
			if tc.wantKept {
				id, reasons, names := listVersions(t, env, outFile)
				if len(reasons) != 1 || reasons[0] != string(reasonBeforePlanOut) || names[0] != "fetch" {
					t.Fatalf("versions of %s: %v %v", id, reasons, names)
				}
			}
		})
	}
}

func TestPlanOutJSONSaysWhereItWrote(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planIfOneBranch)))
	outFile := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(outFile, []byte(chatWF), 0o644)
	code, out, _ := run(t, planEnv(t, srv, "1"), "plan", "--json", "--goal", "x", "--out", outFile)
	var got struct {
		Wrote string `json:"wrote"`
	}
	json.Unmarshal([]byte(out), &got)
	if code != exitInvalid || got.Wrote != draftPath(outFile) {
		t.Fatalf("exit %d wrote %q\n%s", code, got.Wrote, out)
	}
}

func TestChatApplyKeepsThePreviousVersion(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatInsertWait)))
	env := planEnv(t, srv, "3")
	file := chatFile(t)
	code, out, errOut := run(t, env, "chat", file, "--message", "insert a wait", "--apply", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var got struct {
		Applied         bool `json:"applied"`
		PreviousVersion int  `json:"previous_version"`
	}
	json.Unmarshal([]byte(out), &got)
	if !got.Applied || got.PreviousVersion != 1 {
		t.Fatalf("applied %v previous_version %d", got.Applied, got.PreviousVersion)
	}
	_, reasons, _ := listVersions(t, env, file)
	if len(reasons) != 1 || reasons[0] != string(reasonBeforeChatApply) {
		t.Fatalf("reasons %v", reasons)
	}
	// The kept version is the file as it was, before the wait was added.
	code, out, _ = run(t, env, "versions", file, "--json")
	if code != exitOK || strings.Count(out, `"nodes": 2`) != 1 {
		t.Fatalf("the kept version should have the 2 original nodes:\n%s", out)
	}
}

func TestChatApplyRefusedWhenTheVersionCannotBeKept(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatInsertWait)))
	env := planEnv(t, srv, "3")
	// A file where the versions folder should be: nothing can be kept.
	os.MkdirAll(filepath.Join(env["XDG_DATA_HOME"], "weft"), 0o755)
	os.WriteFile(filepath.Join(env["XDG_DATA_HOME"], "weft", "versions"), []byte("x"), 0o644)
	file := chatFile(t)
	code, out, errOut := run(t, env, "chat", file, "--message", "insert a wait", "--apply")
	if code == exitOK {
		t.Fatalf("applied without keeping the old version\n%s", out)
	}
	if b, _ := os.ReadFile(file); string(b) != chatWF {
		t.Fatalf("the file changed:\n%s", b)
	}
	if !strings.Contains(out+errOut, "was not changed") {
		t.Errorf("output:\n%s\n%s", out, errOut)
	}
}
