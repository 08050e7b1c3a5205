package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/cli"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// The two doors, the desktop's bindings and the command line, given the
// same scripted model replies, make the same plans, patches and goal
// checks: both go through the same service calls (issue 23). Each door
// gets the script afresh; what the model was sent is compared too, so a
// door with another prompt, catalog, feature set or repair bound fails.

// doorsApp is an App and a command line sharing one settings file that
// points at srv (max_repair_attempts 3), with private XDG folders.
func doorsApp(t *testing.T, srv *llmtest.Server) (*App, *runEvents) {
	t.Helper()
	a, ev := runApp(t)
	t.Setenv("WEFT_KEYRING", "off")
	for _, k := range []string{settings.EnvBaseURL, settings.EnvModel, settings.EnvAPIKey, settings.EnvMaxRepairAttempts} {
		t.Setenv(k, "")
	}
	path, err := settings.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	a.newStore = func() (*settings.Store, error) {
		return &settings.Store{Path: path, Keyring: settings.NoKeyring{}}, nil
	}
	s := settings.Defaults()
	s.LLM.BaseURL, s.LLM.Model, s.LLM.TimeoutS = srv.URL, "fake-model", 10
	s.MaxRepairAttempts = 3
	none := ""
	if _, err := a.SaveSettings(s, &none); err != nil {
		t.Fatal(err)
	}
	return a, ev
}

// weft runs the command line in-process, as the same user.
func weft(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb, os.Getenv)
	return code, out.String(), errb.String()
}

// weftJSON runs a command that must succeed and decodes what it prints
// into v.
func weftJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errOut := weft(t, args...)
	if code != 0 || json.Unmarshal([]byte(out), v) != nil {
		t.Fatalf("weft %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
}

// sent is what the model was asked, door-independent: the messages and the
// reply format (the desktop streams, the command line does not).
type sent struct {
	Messages       []llmtest.Message
	ResponseFormat string
	SchemaName     string
}

// script enqueues steps afresh and returns what the model is asked while
// do runs.
func script(t *testing.T, srv *llmtest.Server, steps []llmtest.Step, do func()) []sent {
	t.Helper()
	srv.Reset()
	srv.Enqueue(steps...)
	do()
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d scripted replies were not asked for", n)
	}
	var out []sent
	for _, r := range srv.Requests() {
		out = append(out, sent{Messages: r.Messages, ResponseFormat: r.ResponseFormat, SchemaName: r.SchemaName})
	}
	return out
}

func sameRequests(t *testing.T, what string, desktop, cmd []sent) {
	t.Helper()
	if len(desktop) == 0 || !reflect.DeepEqual(desktop, cmd) {
		t.Errorf("%s: the model was asked differently\ndesktop: %+v\ncli:     %+v", what, desktop, cmd)
	}
}

// jsonOf is v as JSON, for comparing what each door would show, with the
// ids of nodes (new ones get random ids) replaced by their keys.
func jsonOf(t *testing.T, nodes []workflow.Node, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, n := range nodes {
		s = strings.ReplaceAll(s, `"`+n.ID+`"`, `"key:`+n.Key+`"`)
	}
	return s
}

// memoryRecords counts the repair memory's records (XDG_DATA_HOME).
func memoryRecords(t *testing.T) int {
	t.Helper()
	p, err := planner.MemoryPath()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	n := 0
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n
}

const (
	doorsGoal = "say hello, then list the text files"
	// planNoSuchTool is re-asked (a tool the catalog lacks); planHello is
	// the plan.
	planNoSuchTool = `{"steps": [{"id": "hello", "step_type": "Tool", "name": "Say hello", "tool_name": "shout", "arguments": {"message": "hello"}}]}`
	planHello      = `{"steps": [
  {"id": "hello", "step_type": "Tool", "name": "Say hello", "tool_name": "log", "arguments": {"message": "hello"}},
  {"id": "list", "step_type": "Tool", "name": "List text files", "tool_name": "list_files", "arguments": {"path": ".", "pattern": "*.txt"}}
]}`
)

// strip leaves out the warnings a patch carries (the review shows them
// beside it; a proposal saved by the command line keeps the patch alone).
func strip(p assistant.WorkflowPatch) assistant.WorkflowPatch {
	p.Warnings = nil
	return p
}

func TestDoorsPlanTheSame(t *testing.T) {
	srv := llmtest.Start(t)
	a, _ := doorsApp(t, srv)
	steps := []llmtest.Step{llmtest.Reply(planNoSuchTool), llmtest.Reply(planHello)}

	// The desktop: a message on an empty canvas.
	empty := workflow.New("Empty")
	empty.ID = "wf-empty"
	var desk *assistant.Result
	deskSent := script(t, srv, steps, func() {
		var err error
		if desk, err = a.AssistantSend(AssistantRequest{Workflow: *empty, Message: doorsGoal}); err != nil {
			t.Fatal(err)
		}
	})
	if desk.Kind != assistant.KindPlan || !desk.Valid || desk.Patch == nil || len(desk.Patch.AddedNodes) != 2 || desk.Attempts != 2 {
		t.Fatalf("desktop plan: kind %s valid %v attempts %d patch %+v warnings %v", desk.Kind, desk.Valid, desk.Attempts, desk.Patch, desk.Warnings)
	}
	if memoryRecords(t) != 1 {
		t.Errorf("the desktop's plan is not in the repair memory (%d records)", memoryRecords(t))
	}

	// `weft plan`, with a repair memory of its own as fresh as the
	// desktop's was (what it holds goes into the prompt).
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	var plan struct {
		Valid    bool               `json:"valid"`
		Workflow *workflow.Workflow `json:"workflow"`
		Attempts []planner.Attempt  `json:"attempts"`
	}
	cliSent := script(t, srv, steps, func() {
		weftJSON(t, &plan, "plan", "--goal", doorsGoal, "--json")
	})
	sameRequests(t, "plan", deskSent, cliSent)
	if !plan.Valid || plan.Workflow == nil || len(plan.Attempts) != desk.Attempts {
		t.Fatalf("weft plan: %+v", plan)
	}
	if g, w := jsonOf(t, plan.Workflow.Nodes, plan.Workflow.Nodes), jsonOf(t, desk.Patch.AddedNodes, desk.Patch.AddedNodes); g != w {
		t.Errorf("nodes differ\nweft plan: %s\ndesktop:   %s", g, w)
	}
	if g, w := jsonOf(t, plan.Workflow.Nodes, nonNil(plan.Workflow.Edges)), jsonOf(t, desk.Patch.AddedNodes, desk.Patch.AddedEdges); g != w {
		t.Errorf("edges differ\nweft plan: %s\ndesktop:   %s", g, w)
	}
	if memoryRecords(t) != 1 {
		t.Errorf("weft plan's plan is not in the repair memory (%d records)", memoryRecords(t))
	}

	// `weft chat` on an empty workflow file plans the same way and
	// proposes the same patch.
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "empty.json")
	if err := workflow.Save(file, empty); err != nil {
		t.Fatal(err)
	}
	var chat struct {
		Kind  assistant.Kind          `json:"kind"`
		Valid bool                    `json:"valid"`
		Patch assistant.WorkflowPatch `json:"patch"`
	}
	chatSent := script(t, srv, steps, func() {
		weftJSON(t, &chat, "chat", file, "--message", doorsGoal, "--json")
	})
	sameRequests(t, "chat on an empty workflow", deskSent, chatSent)
	if chat.Kind != assistant.KindPlan || !chat.Valid {
		t.Fatalf("weft chat: %+v", chat)
	}
	if g, w := jsonOf(t, chat.Patch.AddedNodes, strip(chat.Patch)), jsonOf(t, desk.Patch.AddedNodes, strip(*desk.Patch)); g != w {
		t.Errorf("patches differ\nweft chat: %s\ndesktop:   %s", g, w)
	}
}

func TestDoorsPatchTheSame(t *testing.T) {
	srv := llmtest.Start(t)
	a, _ := doorsApp(t, srv)
	// The first reply leaves one branch of the If unconnected: re-asked.
	steps := []llmtest.Step{llmtest.Reply(oneBranch), llmtest.Reply(bothBranches)}
	msg := "only unzip when the download worked"

	w, deskFile := pipelineFile(t)
	var desk *assistant.Result
	deskSent := script(t, srv, steps, func() {
		var err error
		if desk, err = a.AssistantSend(AssistantRequest{Workflow: w, Path: deskFile, Message: msg}); err != nil {
			t.Fatal(err)
		}
	})
	if desk.Kind != assistant.KindPatch || !desk.Valid || desk.Attempts != 2 {
		t.Fatalf("desktop patch: kind %s valid %v attempts %d warnings %v", desk.Kind, desk.Valid, desk.Attempts, desk.Warnings)
	}

	_, cliFile := pipelineFile(t)
	var chat struct {
		Kind     assistant.Kind          `json:"kind"`
		Valid    bool                    `json:"valid"`
		Attempts int                     `json:"attempts"`
		Patch    assistant.WorkflowPatch `json:"patch"`
		Changes  assistant.ChangeSet     `json:"changes"`
	}
	cliSent := script(t, srv, steps, func() {
		weftJSON(t, &chat, "chat", cliFile, "--message", msg, "--json")
	})
	sameRequests(t, "patch", deskSent, cliSent)
	if chat.Kind != desk.Kind || chat.Valid != desk.Valid || chat.Attempts != desk.Attempts {
		t.Errorf("weft chat: kind %s valid %v attempts %d; desktop: %s %v %d", chat.Kind, chat.Valid, chat.Attempts, desk.Kind, desk.Valid, desk.Attempts)
	}
	if g, want := jsonOf(t, chat.Patch.AddedNodes, strip(chat.Patch)), jsonOf(t, desk.Patch.AddedNodes, strip(*desk.Patch)); g != want {
		t.Errorf("patches differ\nweft chat: %s\ndesktop:   %s", g, want)
	}
	if g, want := jsonOf(t, chat.Patch.AddedNodes, chat.Changes), jsonOf(t, desk.Patch.AddedNodes, desk.Changes); g != want {
		t.Errorf("reviews differ\nweft chat: %s\ndesktop:   %s", g, want)
	}
}

func TestDoorsCheckGoalsTheSame(t *testing.T) {
	srv := llmtest.Start(t)
	a, ev := doorsApp(t, srv)
	// The first verdict cannot be read: asked again within the bound.
	steps := []llmtest.Step{llmtest.Reply("It went fine, I think."),
		llmtest.Reply(`{"approved": true, "confidence": 0.8, "feedback": "the step printed hello", "suggestions": ["log it too"]}`)}

	w, path := runFile(t, "wf-goal", [2]string{"hello", "echo hello"})
	w.DoneWhen = &workflow.DoneWhen{Criteria: "the run said hello"}
	svc := service.New(service.Deps{Settings: func() (settings.Settings, []string, error) { return settings.Defaults(), nil, nil }})
	if err := svc.SaveWorkflow(context.Background(), path, &w, path); err != nil {
		t.Fatal(err)
	}

	var desk *runner.Verdict
	deskSent := script(t, srv, steps, func() {
		if st, err := a.StartRun(w, path); err != nil || !st.Started {
			t.Fatalf("StartRun = %+v, %v", st, err)
		}
		fin := ev.next(t, EventRunFinished).(service.Finished)
		desk = fin.Verdict
	})
	if desk == nil || desk.CheckedBy != "model" || !desk.Approved || desk.Confidence != 0.8 {
		t.Fatalf("desktop verdict = %+v", desk)
	}

	var cliVerdict *runner.Verdict
	cliSent := script(t, srv, steps, func() {
		_, out, errOut := weft(t, "run", path, "--json", "--on-escalate", "abort")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var res struct {
			Type    string          `json:"type"`
			Verdict *runner.Verdict `json:"verdict"`
		}
		if json.Unmarshal([]byte(lines[len(lines)-1]), &res) != nil || res.Type != "result" {
			t.Fatalf("weft run:\n%s\n%s", out, errOut)
		}
		cliVerdict = res.Verdict
	})
	sameRequests(t, "goal check", deskSent, cliSent)
	if !reflect.DeepEqual(cliVerdict, desk) {
		t.Errorf("verdicts differ\nweft run: %+v\ndesktop:  %+v", cliVerdict, desk)
	}
}

// Both doors read a workflow's chat by one rule (service.Chat): a history
// that cannot be read is said and left as it is, never overwritten by a
// conversation that forgot it; a file without a chat of its own continues
// the one its workflow had while unsaved.
func TestDoorsKeepOneHistoryRule(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply("Nothing to change.")))
	a, _ := doorsApp(t, srv)

	t.Run("unreadable", func(t *testing.T) {
		for door, ask := range map[string]func(w workflow.Workflow, file string) []assistant.Warning{
			"desktop": func(w workflow.Workflow, file string) []assistant.Warning {
				res, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: file, Message: "anything to fix?"})
				if err != nil {
					t.Fatalf("desktop: %v", err)
				}
				return res.Warnings
			},
			"cli": func(w workflow.Workflow, file string) []assistant.Warning {
				code, out, errOut := weft(t, "chat", file, "--message", "anything to fix?", "--json")
				var j struct {
					Warnings []assistant.Warning `json:"warnings"`
				}
				if code != 0 || json.Unmarshal([]byte(out), &j) != nil || !strings.Contains(errOut, "not saved this time") {
					t.Fatalf("cli: exit %d\n%s\n%s", code, out, errOut)
				}
				return j.Warnings
			},
		} {
			w, file := pipelineFile(t)
			chat, err := assistant.ChatPath(file, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(chat), 0o700); err != nil {
				t.Fatal(err)
			}
			// A FIFO: not a file Weft can read, and one a save would replace.
			if err := mkfifo(chat); err != nil {
				t.Skip("no FIFO here:", err)
			}
			ws := ask(w, file)
			said := false
			for _, wn := range ws {
				said = said || (wn.Stage == assistant.StageHistory && strings.Contains(wn.Message, "not saved this time"))
			}
			if !said {
				t.Errorf("%s: the unreadable history is not said: %+v", door, ws)
			}
			if st, err := os.Lstat(chat); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("%s: the unreadable history was replaced (%v, %v)", door, st, err)
			}
			h, err := a.AssistantHistory(w.ID, file)
			if err != nil || len(h.Warnings) == 0 || len(h.Messages) != 0 {
				t.Errorf("%s: history shown = %+v, %v", door, h, err)
			}
		}
	})

	t.Run("unsaved chat carries over", func(t *testing.T) {
		for _, door := range []string{"desktop", "cli"} {
			w, file := pipelineFile(t)
			w.ID = "wf-carry-" + door
			if err := workflow.Save(file, &w); err != nil {
				t.Fatal(err)
			}
			byID, err := assistant.ChatPath("", w.ID)
			if err != nil {
				t.Fatal(err)
			}
			earlier := assistant.NewConversation(w.ID)
			earlier.Messages = append(earlier.Messages, assistant.ChatMessage{Role: assistant.RoleUser, Content: "remember: the archive is on example.com"},
				assistant.ChatMessage{Role: assistant.RoleAssistant, Content: "Noted."})
			if err := assistant.SaveChat(byID, earlier); err != nil {
				t.Fatal(err)
			}
			srv.Reset()
			if door == "desktop" {
				if _, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: file, Message: "where is the archive?"}); err != nil {
					t.Fatal(err)
				}
			} else if code, out, errOut := weft(t, "chat", file, "--message", "where is the archive?"); code != 0 {
				t.Fatalf("cli: exit %d\n%s\n%s", code, out, errOut)
			}
			req, ok := srv.LastRequest()
			if !ok || !strings.Contains(jsonOfMessages(req.Messages), "the archive is on example.com") {
				t.Errorf("%s: the unsaved workflow's chat was not continued: %+v", door, req.Messages)
			}
			h, err := a.AssistantHistory(w.ID, file)
			if err != nil || len(h.Messages) != 4 || h.Path == byID {
				t.Errorf("%s: the chat beside the file = %+v, %v", door, h, err)
			}
		}
	})
}

func jsonOfMessages(ms []llmtest.Message) string {
	b, _ := json.Marshal(ms)
	return string(b)
}
