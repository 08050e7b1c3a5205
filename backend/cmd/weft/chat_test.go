package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	// Without --apply the file is unchanged; the chat is saved beside it.
	if data, _ := os.ReadFile(file); string(data) != chatWF {
		t.Error("the workflow changed without --apply")
	}
	chat, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".chat.json")
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
	chatPath := strings.TrimSuffix(file, ".json") + ".chat.json"
	os.WriteFile(chatPath, []byte("{not json"), 0o600)
	code, out, errOut := run(t, planEnv(t, srv, "3"), "chat", file, "--message", "hi")
	if code != exitOK || !strings.Contains(errOut, "could not be read") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if m, _ := filepath.Glob(chatPath + ".corrupt-*"); len(m) != 1 {
		t.Errorf("moved aside: %v", m)
	}
}
