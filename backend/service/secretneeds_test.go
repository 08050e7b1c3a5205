package service

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

func toolNode(id, tool string, args map[string]any) workflow.Node {
	return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: workflow.Params{Tool: tool, Arguments: args}}
}

// SecretNeeds suggests, for each secret, the hosts of the http_request
// steps that send it (with the port the URL names) and the tools of the
// others; a host a placeholder chooses, a disabled step, a malformed
// reference and a step of another type suggest nothing.
func TestSecretNeedsSuggestsWhereEachIsUsed(t *testing.T) {
	w := workflow.New("shared")
	off := toolNode("off", "http_request", map[string]any{"url": "https://off.example.com/", "headers": map[string]any{"X": "{{secrets.OFF}}"}})
	off.SetEnabled(false)
	w.Nodes = []workflow.Node{
		toolNode("a", "http_request", map[string]any{"method": "GET", "url": "https://API.example.com/v1?k={{secrets.KEY}}", "headers": map[string]any{"Authorization": "Bearer {{secrets.TOKEN}}"}}),
		toolNode("b", "http_request", map[string]any{"url": "http://127.0.0.1:8443/x", "headers": map[string]any{"Authorization": "{{secrets.TOKEN}}"}}),
		toolNode("c", "run_command", map[string]any{"command": "curl -H \"X: {{secrets.TOKEN}}\" https://x.example.com"}),
		toolNode("d", "http_request", map[string]any{"url": "{{a.url}}/y", "body": "{{secrets.KEY}}"}),
		toolNode("e", "log", map[string]any{"message": "{{secrets.BAD.x}}"}),
		off,
		{ID: "f", Key: "f", Type: workflow.TypeAiStep, Params: workflow.Params{Prompt: "say {{secrets.AI}}"}},
	}
	got := SecretNeeds(w, []string{"KEY"})
	want := []NeededSecret{
		{Name: "KEY", Hosts: []string{"api.example.com"}, Tools: []string{}, Nodes: []string{"a", "d"}},
		{Name: "TOKEN", Hosts: []string{"api.example.com", "127.0.0.1:8443"}, Tools: []string{"run_command"}, Nodes: []string{"a", "b", "c"}, Missing: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if m := MissingSecrets(w, nil); len(m) != 2 {
		t.Fatalf("a store that cannot be listed holds nothing: %+v", m)
	}
	if c := want[1].SetCommand(); c != "weft secrets set TOKEN --host api.example.com --host 127.0.0.1:8443 --tool run_command" {
		t.Fatalf("command %q", c)
	}
	// Every suggestion is a binding the store accepts.
	for _, n := range got {
		if err := credentials.Open(t.TempDir(), settings.NoKeyring{}).Set(credentials.Secret{Name: n.Name, Value: "v", Hosts: n.Hosts, Tools: n.Tools}); err != nil {
			t.Errorf("%s: %v", n.Name, err)
		}
	}
}

// A local run that refers to a secret the store lacks does not start: it
// says which and how to add it, and nothing runs; once stored it runs.
func TestStartAsksForMissingSecretsFirst(t *testing.T) {
	store := credentials.Open(t.TempDir(), settings.NoKeyring{})
	svc := testService(t, func(d *Deps) { d.Secrets = store })
	marker := filepath.Join(t.TempDir(), "ran")
	w, path := runFile(t, "needs", [2]string{"touch", "touch " + marker}, [2]string{"use", "echo {{secrets.TOKEN}}"})
	st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: newEvents()})
	if err != nil || st.Started {
		t.Fatalf("started %v err %v", st.Started, err)
	}
	if len(st.MissingSecrets) != 1 || st.MissingSecrets[0].Name != "TOKEN" || !strings.Contains(st.Error, "weft secrets set TOKEN --tool run_command") {
		t.Fatalf("result %+v", st)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a step ran: %v", err)
	}
	if err := store.Set(credentials.Secret{Name: "TOKEN", Value: "v", Tools: []string{"run_command"}}); err != nil {
		t.Fatal(err)
	}
	if got := svc.SecretNeeds(w); len(got) != 1 || got[0].Missing {
		t.Fatalf("after storing it: %+v", got)
	}
	ev := newEvents()
	if st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev}); err != nil || !st.Started {
		t.Fatalf("started %v err %v: %s", st.Started, err, st.Error)
	}
	ev.next(t, KindFinished)
}
