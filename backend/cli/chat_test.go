package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

const chatWF = `{"format":"weft/v1","id":"wf-chat","name":"fetch","nodes":[
 {"id":"a","key":"download","name":"Download","type":"Tool","params":{"tool":"run_command","arguments":{"command":"curl -O https://example.com/a.zip"}}},
 {"id":"b","key":"unzip","name":"Unzip","type":"Tool","params":{"tool":"run_command","arguments":{"command":"unzip a.zip"}}}],
 "edges":[{"from":"a","to":"b"}]}`

const (
	chatInsertWait = `{"message": "Added a wait.", "add_nodes": [{"id": "pause", "step_type": "Tool", "name": "Wait", "tool_name": "wait", "arguments": {"ms": 500}}],
 "add_edges": [{"from": "download", "to": "pause"}, {"from": "pause", "to": "unzip"}]}`
	chatDangling = `{"add_nodes": [{"id": "x", "step_type": "If", "name": "Dangling", "condition": "download.success"}], "add_edges": [{"from": "unzip", "to": "x"}]}`
)

func chatFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fetch.weft.json")
	if err := os.WriteFile(p, []byte(chatWF), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type chatOut struct {
	Kind     string          `json:"kind"`
	Message  string          `json:"message"`
	Patch    json.RawMessage `json:"patch"`
	Warnings []struct {
		Stage, Message string
	} `json:"warnings"`
	Valid    bool `json:"valid"`
	Attempts int  `json:"attempts"`
	LLMCalls int  `json:"llm_calls"`
	Applied  bool `json:"applied"`
	Error    string
}

func decodeChat(t *testing.T, out string) chatOut {
	t.Helper()
	var got chatOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	return got
}

func TestChatCLIJSONPatch(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatInsertWait)))
	file := chatFile(t)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", file, "--message", "insert a wait between download and unzip", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	got := decodeChat(t, out)
	if got.Kind != "patch" || !got.Valid || got.Attempts != 1 || got.LLMCalls != 1 || got.Applied || got.Message != "Added a wait." {
		t.Fatalf("result = %+v", got)
	}
	for _, k := range []string{`"added_nodes"`, `"removed_node_ids"`, `"updated_nodes"`, `"added_edges"`, `"removed_edges"`, `"warnings"`} {
		if !strings.Contains(string(got.Patch), k) {
			t.Errorf("patch lacks %s: %s", k, got.Patch)
		}
	}
	// The forgotten removal of download → unzip was rewired.
	var patch struct {
		RemovedEdges []workflow.Edge `json:"removed_edges"`
	}
	json.Unmarshal(got.Patch, &patch)
	if len(patch.RemovedEdges) != 1 || patch.RemovedEdges[0].From != "a" || patch.RemovedEdges[0].To != "b" {
		t.Errorf("patch = %s", got.Patch)
	}
	// Without --apply the file is unchanged; the chat is saved in .weft beside it.
	if data, _ := os.ReadFile(file); string(data) != chatWF {
		t.Error("the workflow changed without --apply")
	}
	chatPath, _ := assistant.ChatPath(file, "")
	chat, err := os.ReadFile(chatPath)
	if err != nil || !strings.Contains(string(chat), "insert a wait") {
		t.Fatalf("chat file: %v\n%s", err, chat)
	}
}

func TestChatCLIApply(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatInsertWait)))
	file := chatFile(t)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", "--apply", file, "--message", "insert a wait")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "Added a wait.") || !strings.Contains(out, "+ node 'Wait' (pause)") || !strings.Contains(out, "applied to") {
		t.Errorf("stdout:\n%s", out)
	}
	w, _, err := workflow.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Nodes) != 3 || len(w.Edges) != 2 || w.NodeByKey("pause") == nil {
		t.Fatalf("applied workflow: %d nodes %d edges", len(w.Nodes), len(w.Edges))
	}
	// A second message continues the saved conversation.
	srv.Enqueue(llmtest.Reply("The wait gives the server time to finish writing."))
	code, out, _ = run(t, planEnv(t, srv, "3"), "chat", file, "--message", "why the wait?")
	if code != exitOK || !strings.Contains(out, "server time") {
		t.Fatalf("exit %d: %s", code, out)
	}
	req, _ := srv.LastRequest()
	if len(req.Messages) != 4 || req.Messages[1].Content != "insert a wait" {
		t.Errorf("the history was not sent: %+v", req.Messages)
	}
}

func TestChatCLIInvalidAfterAttempts(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatDangling), llmtest.Reply(chatDangling)))
	file := chatFile(t)
	code, out, errOut := run(t, planEnv(t, srv, "2"), "chat", file, "--message", "add a check", "--apply", "--json")
	if code != exitInvalid {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	got := decodeChat(t, out)
	if got.Valid || got.Applied || got.Attempts != 2 || srv.Calls() != 2 {
		t.Fatalf("result = %+v, calls %d", got, srv.Calls())
	}
	found := false
	for _, w := range got.Warnings {
		found = found || w.Stage == "validate" && strings.Contains(w.Message, "Dangling")
	}
	if !found {
		t.Errorf("the problems are not warnings: %+v", got.Warnings)
	}
	if data, _ := os.ReadFile(file); string(data) != chatWF {
		t.Error("an invalid patch was applied")
	}
}

func TestChatCLIConversation(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("It downloads an archive and unzips it.")))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", chatFile(t), "--message", "what does this do?")
	if code != exitOK || strings.TrimSpace(out) != "It downloads an archive and unzips it." {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestChatCLITransportErrorExit2(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithAPIKey("another-key"))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", chatFile(t), "--message", "hi", "--json")
	if code != exitUnusable {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if got := decodeChat(t, out); got.Error == "" {
		t.Errorf("no error in JSON: %s", out)
	}
}

func TestChatCLIUnusableInput(t *testing.T) {
	srv := llmtest.Start(t)
	env := planEnv(t, srv, "3")
	if code, _, _ := run(t, env, "chat", filepath.Join(t.TempDir(), "missing.json"), "--message", "hi"); code != exitUnusable {
		t.Errorf("missing file: exit %d", code)
	}
	if code, _, _ := run(t, env, "chat", chatFile(t)); code != exitUnusable {
		t.Errorf("no message: exit %d", code)
	}
	env["WEFT_LLM_MODEL"] = ""
	t.Setenv("WEFT_LLM_MODEL", "")
	if code, _, errOut := run(t, env, "chat", chatFile(t), "--message", "hi"); code != exitUnusable || !strings.Contains(errOut, "no model") {
		t.Errorf("no model: exit %d %s", code, errOut)
	}
	if srv.Calls() != 0 {
		t.Errorf("the model was called %d times", srv.Calls())
	}
}

func TestChatCLICorruptHistoryIsNotFatal(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("Hello.")))
	file := chatFile(t)
	chatPath, _ := assistant.ChatPath(file, "")
	os.MkdirAll(filepath.Dir(chatPath), 0o700)
	os.WriteFile(chatPath, []byte("{not json"), 0o600)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", file, "--message", "hi")
	if code != exitOK || !strings.Contains(errOut, "could not be read") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if m, _ := filepath.Glob(chatPath + ".corrupt-*"); len(m) != 1 {
		t.Errorf("moved aside: %v", m)
	}
}

// The review-fidelity tests: what `weft chat` shows is what `--apply ID`
// writes, and applying never asks the model.

const cleanWF = `{"format":"weft/v1","id":"wf-clean","name":"cleanup","nodes":[
 {"id":"a","key":"fetch","name":"Fetch","type":"Tool","params":{"tool":"run_command","arguments":{"command":"curl -O https://example.com/a.zip"}}},
 {"id":"b","key":"clean","name":"Clean temp","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf /tmp/weft-cache"}}}],
 "edges":[{"from":"a","to":"b"}]}`

const (
	chatWipeHome = `{"message": "Cleaned up more thoroughly.", "update": [{"node_id": "clean", "arguments": {"command": "rm -rf ~/"}}]}`
	chatOther    = `{"message": "Something else.", "update": [{"node_id": "clean", "arguments": {"command": "echo another answer"}}]}`
)

func cleanFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clean.weft.json")
	if err := os.WriteFile(p, []byte(cleanWF), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type reviewOut struct {
	Patch          json.RawMessage     `json:"patch"`
	Changes        assistant.ChangeSet `json:"changes"`
	ProposalID     string              `json:"proposal_id"`
	PatchSHA256    string              `json:"patch_sha256"`
	WorkflowSHA256 string              `json:"workflow_sha256"`
	ApplyCommand   string              `json:"apply_command"`
	Valid          bool                `json:"valid"`
	Applied        bool                `json:"applied"`
	LLMCalls       int                 `json:"llm_calls"`
	Error          string              `json:"error"`
}

func decodeReview(t *testing.T, out string) reviewOut {
	t.Helper()
	var r reviewOut
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	return r
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact %s: %v", b, err)
	}
	return buf.String()
}

// askWipe runs `weft chat FILE --message … --json` against a model that
// proposes rm -rf ~/ and then, if asked again, something else.
func askWipe(t *testing.T) (env map[string]string, srv *llmtest.Server, file string, r reviewOut) {
	t.Helper()
	srv = llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatWipeHome)), llmtest.WithDefault(llmtest.Reply(chatOther)))
	env = planEnv(t, srv, "3")
	file = cleanFile(t)
	code, out, errOut := run(t, env, "chat", file, "--message", "clean up more", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	r = decodeReview(t, out)
	if !r.Valid || r.ProposalID == "" || r.Applied || srv.Calls() != 1 {
		t.Fatalf("review = %+v, calls %d", r, srv.Calls())
	}
	return env, srv, file, r
}

func TestChatCLIReviewShowsEveryChangedArgument(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatWipeHome)))
	file := cleanFile(t)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", file, "--message", "clean up more")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{
		"~ node 'Clean temp' (clean) Tool\n",
		`      params.arguments.command: "rm -rf /tmp/weft-cache" → "rm -rf ~/"` + "\n",
		"valid; not applied\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`proposal ([0-9a-f]{16}) saved; to apply exactly this change:\n  weft chat (\S+) --apply ([0-9a-f]{16})\n`).FindStringSubmatch(out)
	if m == nil || m[1] != m[3] || m[2] != file {
		t.Fatalf("no apply command in:\n%s", out)
	}
	if data, _ := os.ReadFile(file); string(data) != cleanWF {
		t.Error("the workflow changed without --apply")
	}
}

func TestChatCLIAppliesTheReviewedPatchByteIdentically(t *testing.T) {
	env, srv, file, r := askWipe(t)

	// The changes in the JSON are the review: old and new in full.
	if cs := r.Changes; len(cs.UpdatedNodes) != 1 || len(cs.UpdatedNodes[0].Fields) != 1 ||
		cs.UpdatedNodes[0].Fields[0].Old.Text != "rm -rf /tmp/weft-cache" || cs.UpdatedNodes[0].Fields[0].New.Text != "rm -rf ~/" {
		t.Fatalf("changes = %+v", r.Changes)
	}
	if r.ApplyCommand != "weft chat "+file+" --apply "+r.ProposalID {
		t.Errorf("apply command = %q", r.ApplyCommand)
	}

	// The stored proposal: 0600 in a 0700 folder, its patch byte for byte
	// the printed one, hashed as printed, against the file's content.
	path := filepath.Join(env["XDG_DATA_HOME"], "weft", "proposals", r.ProposalID+".json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("proposal mode %v", st.Mode().Perm())
	}
	if dst, _ := os.Stat(filepath.Dir(path)); dst.Mode().Perm() != 0o700 {
		t.Errorf("proposals folder mode %v", dst.Mode().Perm())
	}
	raw, _ := os.ReadFile(path)
	var stored struct {
		Patch          json.RawMessage `json:"patch"`
		PatchSHA256    string          `json:"patch_sha256"`
		WorkflowSHA256 string          `json:"workflow_sha256"`
	}
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	if string(stored.Patch) != compact(t, r.Patch) {
		t.Fatalf("stored patch differs from the printed one:\n%s\n%s", stored.Patch, compact(t, r.Patch))
	}
	if stored.PatchSHA256 != r.PatchSHA256 || assistant.Sum(stored.Patch) != r.PatchSHA256 {
		t.Errorf("patch hashes: stored %s printed %s", stored.PatchSHA256, r.PatchSHA256)
	}
	if stored.WorkflowSHA256 != assistant.Sum([]byte(cleanWF)) || r.WorkflowSHA256 != stored.WorkflowSHA256 {
		t.Errorf("workflow hash %s", stored.WorkflowSHA256)
	}

	// Apply by id: no model call (the model would now answer otherwise).
	code, out, errOut := run(t, env, "chat", file, "--apply", r.ProposalID)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if srv.Calls() != 1 {
		t.Errorf("applying called the model: %d calls", srv.Calls())
	}
	if !strings.Contains(out, `"rm -rf /tmp/weft-cache" → "rm -rf ~/"`) || !strings.Contains(out, "applied to "+file) {
		t.Errorf("stdout:\n%s", out)
	}

	// The file written is the reviewed patch merged into the reviewed file.
	var patch assistant.WorkflowPatch
	if err := json.Unmarshal(r.Patch, &patch); err != nil {
		t.Fatal(err)
	}
	orig, _, err := workflow.Parse([]byte(cleanWF))
	if err != nil {
		t.Fatal(err)
	}
	merged, _ := assistant.MergePatchIntoWorkflow(orig, &patch)
	want, err := workflow.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if string(got) != string(want) {
		t.Fatalf("applied file differs from the reviewed merge:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(string(got), `"rm -rf ~/"`) || strings.Contains(string(got), "another answer") {
		t.Errorf("applied:\n%s", got)
	}

	// Applied once: the proposal is gone.
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the applied proposal is still there: %v", err)
	}
	code, _, errOut = run(t, env, "chat", file, "--apply", r.ProposalID)
	if code != exitUnusable || !strings.Contains(errOut, "no such proposal") || srv.Calls() != 1 {
		t.Errorf("second apply: exit %d %s, calls %d", code, errOut, srv.Calls())
	}
}

func TestChatCLIApplyRefusesAChangedWorkflow(t *testing.T) {
	env, srv, file, r := askWipe(t)
	edited := strings.Replace(cleanWF, "curl -O", "curl -fO", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, env, "chat", file, "--apply", r.ProposalID, "--json")
	if code != exitInvalid {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if got := decodeReview(t, out); got.Applied || !strings.Contains(got.Error, "changed since the review") {
		t.Errorf("result = %+v", got)
	}
	if !strings.Contains(errOut, file+" changed since the review") || !strings.Contains(errOut, "ask again") {
		t.Errorf("stderr: %s", errOut)
	}
	if data, _ := os.ReadFile(file); string(data) != edited {
		t.Error("a stale proposal was applied")
	}
	if srv.Calls() != 1 {
		t.Errorf("the model was called: %d", srv.Calls())
	}
	// Restored, the proposal applies (it was kept).
	os.WriteFile(file, []byte(cleanWF), 0o644)
	if code, out, errOut := run(t, env, "chat", file, "--apply="+r.ProposalID); code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestChatCLIApplyRefusesAnotherFile(t *testing.T) {
	env, _, file, r := askWipe(t)
	other := filepath.Join(t.TempDir(), "copy.weft.json")
	os.WriteFile(other, []byte(cleanWF), 0o644)
	code, _, errOut := run(t, env, "chat", other, "--apply", r.ProposalID)
	if code != exitInvalid || !strings.Contains(errOut, "it was made for") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(other); string(data) != cleanWF {
		t.Error("applied to another file")
	}
	_ = file
}

func TestChatCLIApplyNeedsNoModel(t *testing.T) {
	env, srv, file, r := askWipe(t)
	env["WEFT_LLM_MODEL"] = ""
	env["WEFT_LLM_BASE_URL"] = "http://127.0.0.1:1"
	code, out, errOut := run(t, env, "chat", file, "--apply", r.ProposalID, "--json")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	got := decodeReview(t, out)
	if !got.Applied || got.LLMCalls != 0 || compact(t, got.Patch) != compact(t, r.Patch) || got.ProposalID != r.ProposalID {
		t.Errorf("result = %+v", got)
	}
	if srv.Calls() != 1 {
		t.Errorf("calls %d", srv.Calls())
	}
}

func TestChatCLIApplyRefusesATamperedProposal(t *testing.T) {
	env, _, file, r := askWipe(t)
	path := filepath.Join(env["XDG_DATA_HOME"], "weft", "proposals", r.ProposalID+".json")
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(raw, []byte("rm -rf ~/"), []byte("rm -rf //"), 1), 0o600)
	code, _, errOut := run(t, env, "chat", file, "--apply", r.ProposalID)
	if code != exitUnusable || !strings.Contains(errOut, "does not match its hash") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(file); string(data) != cleanWF {
		t.Error("a tampered proposal was applied")
	}
}

func TestChatCLIAskAndApplyWritesThePrintedPatch(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(chatWipeHome)))
	file := cleanFile(t)
	env := planEnv(t, srv, "3")
	code, out, errOut := run(t, env, "chat", file, "--message", "clean up more", "--apply", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	r := decodeReview(t, out)
	if !r.Applied || r.ApplyCommand != "" {
		t.Fatalf("result = %+v", r)
	}
	var patch assistant.WorkflowPatch
	json.Unmarshal(r.Patch, &patch)
	orig, _, _ := workflow.Parse([]byte(cleanWF))
	merged, _ := assistant.MergePatchIntoWorkflow(orig, &patch)
	want, _ := workflow.Marshal(merged)
	if got, _ := os.ReadFile(file); string(got) != string(want) {
		t.Fatalf("applied file:\n%s\nwant\n%s", got, want)
	}
	// Applied at once, the proposal is not left to apply twice.
	if m, _ := filepath.Glob(filepath.Join(env["XDG_DATA_HOME"], "weft", "proposals", "*.json")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

func TestChatCLIAskAndApplyRefusesAFileChangedDuringTheCall(t *testing.T) {
	var file string
	srv := llmtest.Start(t, llmtest.WithHandler(func(llmtest.Request) llmtest.Step {
		// The user saves the file in the editor while the model thinks.
		os.WriteFile(file, []byte(strings.Replace(cleanWF, "Fetch", "Fetch!", 1)), 0o644)
		return llmtest.Reply(chatWipeHome)
	}))
	file = cleanFile(t)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", file, "--message", "clean up more", "--apply")
	if code != exitInvalid || !strings.Contains(errOut, "changed since the review") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), "Fetch!") || strings.Contains(string(data), "rm -rf ~/") {
		t.Errorf("the edit was overwritten:\n%s", data)
	}
	// The review and the proposal to apply later are still printed.
	if !strings.Contains(out, `"rm -rf /tmp/weft-cache" → "rm -rf ~/"`) || !strings.Contains(out, "--apply ") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestChatCLIHiddenCharactersAreEscaped(t *testing.T) {
	// A command that, printed raw, would erase its own line on a terminal.
	reply := `{"message": "Done.\u001b[2K", "update": [{"node_id": "clean", "arguments": {"command": "rm -rf ~/\r\u001b[2Kls /tmp\u202e"}}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(reply)))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", cleanFile(t), "--message", "x")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\r\u202e") {
		t.Errorf("raw control characters on stdout: %q", out)
	}
	if !strings.Contains(out, `→ "rm -rf ~/\u000D\u001B[2Kls /tmp\u202E"  (invisible characters are shown as \u escapes)`) {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestChatCLIMultiLineValues(t *testing.T) {
	reply := `{"update": [{"node_id": "clean", "arguments": {"command": "set -e\n  rm -rf ~/\necho done"}}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(reply)))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", cleanFile(t), "--message", "x")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	want := "      params.arguments.command:\n" +
		"        old:\n" +
		"          │ rm -rf /tmp/weft-cache\n" +
		"        new:\n" +
		"          │ set -e\n" +
		"          │   rm -rf ~/\n" +
		"          │ echo done\n"
	if !strings.Contains(out, want) {
		t.Errorf("stdout:\n%s\nwant\n%s", out, want)
	}
}

func TestChatCLIApplyUsage(t *testing.T) {
	srv := llmtest.Start(t)
	env := planEnv(t, srv, "3")
	file := cleanFile(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", file, "--apply", "0123456789abcdef", "--message", "hi"}, "cannot take a --message"},
		{[]string{"chat", file, "--apply", "../../../etc/passwd"}, "16 hex digits"},
		{[]string{"chat", file, "--apply=ZZ"}, "16 hex digits"},
		{[]string{"chat", file, "0123456789abcdef"}, "usage:"},
		{[]string{"chat", file, "--apply"}, "usage:"},
		{[]string{"chat", file, "--apply", "0123456789abcdef"}, "no such proposal"},
	} {
		code, _, errOut := run(t, env, tc.args...)
		if code != exitUnusable || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %s", tc.args[1:], code, errOut)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("the model was called %d times", srv.Calls())
	}
}
