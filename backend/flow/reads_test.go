package flow

import (
	"slices"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestReads(t *testing.T) {
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"r","name":"r","nodes":[
 {"id":"1","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"a"}}},
 {"id":"2","key":"ab","type":"Tool","params":{"tool":"log","arguments":{"message":"ab"}}},
 {"id":"3","key":"b","type":"Tool","params":{"tool":"log","arguments":{"message":"{{ab.x}} and {{a.success}}"}}},
 {"id":"4","key":"c","type":"If","params":{"condition":"b.success && x.ab == 1"}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3"},{"from":"3","to":"4","output":"IfTrue"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]string{"a": nil, "b": {"a", "ab"}, "c": {"b"}} {
		if got := Reads(w, w.NodeByKey(key)); !slices.Equal(got, want) {
			t.Errorf("Reads(%s) = %v, want %v", key, got, want)
		}
	}
	// node_started says what the step reads, each time it starts.
	evs, _ := drive(t, w, &byteSource{}, false)
	started := 0
	for _, e := range evs {
		if e.Type == EvNodeStarted && e.NodeKey == "b" {
			started++
			if !slices.Equal(e.Reads, []string{"a", "ab"}) {
				t.Errorf("node_started of b reads %v", e.Reads)
			}
		}
	}
	if started != 1 {
		t.Errorf("b started %d times, want 1", started)
	}
}
