package service

import (
	"reflect"
	"strings"
	"testing"

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
