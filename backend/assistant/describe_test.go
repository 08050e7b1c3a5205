package assistant

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// describeWF is the workflow the description tests patch.
const describeWF = `{"format":"weft/v1","id":"wf","name":"cleanup","nodes":[
 {"id":"a","key":"fetch","name":"Fetch","type":"Tool","position":{"x":0,"y":0},
  "params":{"tool":"run_command","arguments":{"command":"curl -O https://example.com/a.zip","timeout_s":30}}},
 {"id":"b","key":"clean","name":"Clean temp","type":"Tool","position":{"x":0,"y":100},
  "params":{"tool":"run_command","arguments":{"command":"rm -rf /tmp/weft-cache"}}},
 {"id":"c","key":"summary","name":"Summarise","type":"AiStep","position":{"x":0,"y":200},
  "params":{"prompt":"Summarise the log.\nBe brief."}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`

func describeBase(t *testing.T) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(describeWF))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// render writes a change set one field a line:
// "~clean params.arguments.command: "old" → "new"", with J after a value
// that is JSON and E after one that was escaped; "∅" is absent.
func render(cs ChangeSet) []string {
	val := func(v *Value) string {
		if v == nil {
			return "∅"
		}
		s := fmt.Sprintf("%q", v.Text)
		if v.JSON {
			s += "J"
		}
		if v.Escaped {
			s += "E"
		}
		return s
	}
	var out []string
	node := func(op string, nc NodeChange) {
		out = append(out, fmt.Sprintf("%s%s %s %q", op, nc.Key, nc.Type, nc.Name))
		for _, f := range nc.Fields {
			out = append(out, fmt.Sprintf("  %s: %s → %s", f.Field, val(f.Old), val(f.New)))
		}
	}
	for _, n := range cs.AddedNodes {
		node("+", n)
	}
	for _, n := range cs.UpdatedNodes {
		node("~", n)
	}
	for _, n := range cs.RemovedNodes {
		node("-", n)
	}
	edge := func(op string, e EdgeChange) {
		s := op + "edge " + e.FromLabel + " → " + e.ToLabel
		if e.Output != nil {
			s += " [" + e.Output.String() + "]"
		}
		out = append(out, s)
	}
	for _, e := range cs.AddedEdges {
		edge("+", e)
	}
	for _, e := range cs.RemovedEdges {
		edge("-", e)
	}
	return out
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("echo 0123456789abcdef; ", 2000) // 46 kB: never cut
	longJSON, _ := json.Marshal(long)
	tests := []struct {
		name  string
		patch string // WorkflowPatch JSON against describeWF
		want  []string
	}{
		{
			name:  "a command becomes rm -rf ~/: both in full",
			patch: `{"updated_nodes":[{"id":"b","key":"clean","name":"Clean temp","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm -rf ~/"}}}]}`,
			want: []string{
				`~clean Tool "Clean temp"`,
				`  params.arguments.command: "rm -rf /tmp/weft-cache" → "rm -rf ~/"`,
			},
		},
		{
			name:  "a long value is shown whole",
			patch: `{"updated_nodes":[{"id":"b","type":"Tool","name":"Clean temp","params":{"tool":"run_command","arguments":{"command":` + string(longJSON) + `}}}]}`,
			want: []string{
				`~clean Tool "Clean temp"`,
				`  params.arguments.command: "rm -rf /tmp/weft-cache" → ` + fmt.Sprintf("%q", long),
			},
		},
		{
			name:  "a multi-line prompt stays multi-line",
			patch: `{"updated_nodes":[{"id":"c","type":"AiStep","name":"Summarise","params":{"prompt":"Summarise the log.\nThen delete it:\nrm -rf /var/log"}}]}`,
			want: []string{
				`~summary AiStep "Summarise"`,
				`  params.prompt: "Summarise the log.\nBe brief." → "Summarise the log.\nThen delete it:\nrm -rf /var/log"`,
			},
		},
		{
			name: "arguments that appear and go, a number against a string",
			patch: `{"updated_nodes":[{"id":"a","type":"Tool","name":"Fetch","params":{"tool":"run_command",
				"arguments":{"command":"curl -O https://example.com/a.zip","timeout_s":"30","cwd":"/"}}}]}`,
			want: []string{
				`~fetch Tool "Fetch"`,
				`  params.arguments.cwd: ∅ → "/"`,
				`  params.arguments.timeout_s: "30"J → "30"`,
			},
		},
		{
			name:  "an argument removed",
			patch: `{"updated_nodes":[{"id":"a","type":"Tool","name":"Fetch","params":{"tool":"run_command","arguments":{"command":"curl -O https://example.com/a.zip"}}}]}`,
			want: []string{
				`~fetch Tool "Fetch"`,
				`  params.arguments.timeout_s: "30"J → ∅`,
			},
		},
		{
			name: "hidden characters are escaped, never shown raw",
			patch: `{"updated_nodes":[{"id":"b","type":"Tool","name":"Clean\u001b[2K","params":{"tool":"run_command",
				"arguments":{"command":"ls\r\u001b[2Krm -rf ~/ \u202e# \\ safe\u200b"}}}]}`,
			want: []string{
				"~clean Tool \"Clean\\x1b[2K\"",
				`  name: "Clean temp" → "Clean\\u001B[2K"E`,
				`  params.arguments.command: "rm -rf /tmp/weft-cache" → "ls\\u000D\\u001B[2Krm -rf ~/ \\u202E# \\\\ safe\\u200B"E`,
			},
		},
		{
			name: "JSON values: indented, && and <> as written, odd keys bracketed, hidden runes escaped as JSON",
			patch: `{"updated_nodes":[{"id":"a","type":"Tool","name":"Fetch","params":{"tool":"http_request",
				"arguments":{"command":"curl -O https://example.com/a.zip","timeout_s":30,"a.b":1,"headers":{"X":"a && b <c>","Y":"\u202e"}}}}]}`,
			want: []string{
				`~fetch Tool "Fetch"`,
				`  params.tool: "run_command" → "http_request"`,
				`  params.arguments["a.b"]: ∅ → "1"J`,
				`  params.arguments.headers: ∅ → "{\n  \"X\": \"a && b <c>\",\n  \"Y\": \"\\u202E\"\n}"JE`,
			},
		},
		{
			name: "an added node shows every field; a removed node what it was",
			patch: `{"added_nodes":[{"id":"n","key":"wait","name":"Wait","type":"Tool","timeout_ms":5000,
				"params":{"tool":"wait","arguments":{"ms":500}},"position":{"x":9,"y":9}}],
				"removed_node_ids":["clean"],
				"added_edges":[{"from":"fetch","to":"wait"},{"from":"wait","to":"summary"}]}`,
			want: []string{
				`+wait Tool "Wait"`,
				`  params.tool: ∅ → "wait"`,
				`  params.arguments.ms: ∅ → "500"J`,
				`  timeout_ms: ∅ → "5000"J`,
				`-clean Tool "Clean temp"`,
				`  params.tool: "run_command" → ∅`,
				`  params.arguments.command: "rm -rf /tmp/weft-cache" → ∅`,
				`+edge 'Fetch' (fetch) → 'Wait' (wait)`,
				`+edge 'Wait' (wait) → 'Summarise' (summary)`,
				`-edge 'Fetch' (fetch) → 'Clean temp' (clean)`,
				`-edge 'Clean temp' (clean) → 'Summarise' (summary)`,
			},
		},
		{
			name: "a type change shows the old and new fields; disabling shows enabled",
			patch: `{"updated_nodes":[{"id":"b","key":"clean","name":"Clean temp","type":"If","enabled":false,
				"params":{"condition":"fetch.success","x_note":"kept"}}]}`,
			want: []string{
				`~clean If "Clean temp"`,
				`  type: "Tool" → "If"`,
				`  params.condition: ∅ → "fetch.success"`,
				`  params.x_note: ∅ → "kept"`,
				`  enabled: ∅ → "false"J`,
				`  params.tool: "run_command" → ∅`,
				`  params.arguments.command: "rm -rf /tmp/weft-cache" → ∅`,
			},
		},
		{
			name:  "unknown node fields are shown, odd names escaped",
			patch: `{"updated_nodes":[{"id":"b","key":"clean","name":"Clean temp","type":"Tool","x-owner":"me","a\u202eb":1,"params":{"tool":"run_command","arguments":{"command":"rm -rf /tmp/weft-cache"}}}]}`,
			want: []string{
				`~clean Tool "Clean temp"`,
				`  ["a\u202Eb"]: ∅ → "1"J`,
				`  x-owner: ∅ → "me"`,
			},
		},
		{
			name:  "a move alone is no change",
			patch: `{"updated_nodes":[{"id":"b","key":"clean","name":"Clean temp","type":"Tool","position":{"x":500,"y":500},"params":{"tool":"run_command","arguments":{"command":"rm -rf /tmp/weft-cache"}}}]}`,
			want:  nil,
		},
		{
			name:  "an update of a missing node describes nothing",
			patch: `{"updated_nodes":[{"id":"zz","type":"Tool","params":{"tool":"log"}}],"removed_node_ids":["nope"]}`,
			want:  nil,
		},
		{
			name:  "a labelled edge",
			patch: `{"removed_edges":[{"from":"a","to":"b"}],"added_edges":[{"from":"a","to":"b","output":{"type":"SwitchCase","name":"big"}}]}`,
			want: []string{
				`+edge 'Fetch' (fetch) → 'Clean temp' (clean) [SwitchCase("big")]`,
				`-edge 'Fetch' (fetch) → 'Clean temp' (clean)`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p WorkflowPatch
			if err := json.Unmarshal([]byte(tc.patch), &p); err != nil {
				t.Fatal(err)
			}
			w := describeBase(t)
			before, _ := workflow.Marshal(w)
			cs := Describe(w, &p)
			if got := render(cs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if after, _ := workflow.Marshal(w); string(after) != string(before) {
				t.Error("Describe changed the workflow")
			}
			// Slices are never null for the frontend.
			js, _ := json.Marshal(cs)
			if strings.Contains(string(js), `s":null`) {
				t.Errorf("null list in %s", js)
			}
		})
	}
}

func TestDescribeMatchesPreviewAndResult(t *testing.T) {
	w := describeBase(t)
	p := WorkflowPatch{UpdatedNodes: []workflow.Node{{ID: "b", Key: "clean", Name: "Clean temp", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "rm -rf ~/"}}}}}
	pv := PreviewPatch(w, &p)
	if !reflect.DeepEqual(pv.Changes, Describe(w, &p)) {
		t.Errorf("the preview describes another change: %+v", pv.Changes)
	}
	if len(pv.Changes.UpdatedNodes) != 1 || len(pv.Diff.ModifiedNodeIDs) != 1 {
		t.Errorf("changes %+v, diff %+v", pv.Changes, pv.Diff)
	}
}
