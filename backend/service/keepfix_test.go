package service

import (
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestKeepFix(t *testing.T) {
	w := workflow.New("w")
	w.Nodes = []workflow.Node{
		{ID: "a", Key: "fetch", Type: workflow.TypeTool, Params: workflow.Params{Tool: "http_request", Arguments: map[string]any{"method": "GET", "url": "https://old", "headers": map[string]any{"A": "1", "B": "2"}}}},
		{ID: "b", Key: "ok", Type: workflow.TypeIf, Params: workflow.Params{Condition: "fetch.success"}},
	}
	got, err := KeepFix(w, "a", map[string]any{"url": "https://new", "headers": map[string]any{"B": nil}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"method": "GET", "url": "https://new", "headers": map[string]any{"A": "1"}}
	if !reflect.DeepEqual(got.NodeByID("a").Params.Arguments, want) {
		t.Fatalf("arguments %v", got.NodeByID("a").Params.Arguments)
	}
	if w.NodeByID("a").Params.Arguments["url"] != "https://old" {
		t.Error("the input workflow was changed")
	}
	for _, tc := range []struct {
		id   string
		args map[string]any
		want string
	}{
		{"zz", map[string]any{"x": 1}, "no node"},
		{"b", map[string]any{"x": 1}, "only a Tool node"},
		{"a", nil, "no arguments"},
	} {
		if _, err := KeepFix(w, tc.id, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.id, err)
		}
	}
}

// A fix the person typed into a model's step is reviewed again and said
// to be the person's change, whatever feature brought the step in; a
// step the person wrote stays unmarked (no review).
func TestKeepFixSaysWhoChanged(t *testing.T) {
	for _, via := range []string{approval.ViaPlan, approval.ViaPatch, approval.ViaReplan, approval.ViaFix, approval.ViaEdit, ""} {
		w := workflow.New("w")
		w.Nodes = []workflow.Node{{ID: "a", Key: "run", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "false"}}}}
		approval.Mark(&w.Nodes[0], approval.Provenance{Source: approval.SourceModel, Via: via, Model: "m", Flow: true})
		got, err := KeepFix(w, "a", map[string]any{"command": "true"})
		if err != nil {
			t.Fatal(err)
		}
		steps := approval.Required(got, approval.Scope{})
		if len(steps) != 1 || steps[0].Said != "written by a model, changed by you" || !steps[0].Provenance.Flow || steps[0].Provenance.Model != "m" {
			t.Fatalf("via %q: %+v", via, steps)
		}
	}
	w := workflow.New("w")
	w.Nodes = []workflow.Node{{ID: "a", Key: "run", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "false"}}}}
	got, err := KeepFix(w, "a", map[string]any{"command": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if _, marked := approval.Of(got.NodeByID("a")); marked || len(approval.Required(got, approval.Scope{})) != 0 {
		t.Fatal("the person's own step was marked as a model's")
	}
}
