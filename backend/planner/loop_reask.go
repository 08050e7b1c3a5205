package planner

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// maxFeedbackWarnings bounds the local-repair lines of one re-ask; the
// validation problems are never cut, since the model must fix them all.
const maxFeedbackWarnings = 12

// reaskMessage is the user turn that follows a failed reply. It quotes the
// exact failure: the stage with line and column or item path, or every
// validation problem with its code and steps; lists what the local stages
// repaired or dropped so the model can restore its intent; adds, from the
// second re-ask on, a short correct example of each construct that failed;
// and on the last call asks for the simplest linear plan.
func reaskMessage(o *outcome, attempt int, final bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your reply to attempt %d could not be used.\n\n", attempt)
	switch {
	case o.truncated:
		b.WriteString("Your reply was cut off at the length limit, so none of it was used. " +
			"Send a shorter plan: fewer steps, no prose, short names and arguments. Start the JSON again from the beginning; do not continue the cut-off text.\n")
	case o.stageErr != nil:
		writeStageError(&b, o.stageErr)
	default:
		writeProblems(&b, o)
	}
	writeLocalFixes(&b, o)

	if attempt >= 2 {
		for _, c := range constructsOf(o) {
			ex := examples[c]
			fmt.Fprintf(&b, "\nA correct example of %s:\n%s\n", ex.what, ex.text)
		}
	}
	if final {
		b.WriteString("\nThis is the last attempt. Send the simplest linear plan that does the job: " +
			`a flat {"steps": [...]} list of Tool steps that run one after the other, ` +
			"with an If, Switch or Loop only where the goal cannot be reached without one.\n")
	}
	b.WriteString("\nReply with the complete corrected plan as one JSON object and nothing else.")
	return b.String()
}

func writeStageError(b *strings.Builder, e *StageError) {
	fmt.Fprintf(b, "It failed at the %s stage: %s\n", e.Stage, e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(b, "Position in the JSON: line %d, column %d.\n", e.Line, e.Column)
	}
	if e.Path != "" {
		fmt.Fprintf(b, "Item: %s\n", e.Path)
	}
}

func writeProblems(b *strings.Builder, o *outcome) {
	fmt.Fprintf(b, "The plan was read, but it is not a valid workflow: %s. Fix every problem:\n",
		plural(len(o.errors), "error", "errors"))
	WriteProblemList(b, o.problems, func(p validate.Problem) string { return problemRefs(o.wf, p) })
}

// WriteProblemList writes every problem for a re-ask, errors first,
// numbered, with its code and, from refs, the names the model must edit. The
// planner and the assistant both send it; it returns how many it wrote.
func WriteProblemList(b *strings.Builder, problems []validate.Problem, refs func(validate.Problem) string) int {
	n := 0
	for _, sev := range []validate.Severity{validate.SeverityError, validate.SeverityWarning} {
		for _, p := range problems {
			if p.Severity != sev {
				continue
			}
			n++
			fmt.Fprintf(b, "%d. %s [%s]", n, p.Message, p.Code)
			if sev == validate.SeverityWarning {
				b.WriteString(" (warning)")
			}
			if r := refs(p); r != "" {
				b.WriteString(" — " + r)
			}
			b.WriteByte('\n')
		}
	}
	return n
}

// problemRefs names the steps and edges of a problem by the ids the model
// wrote, which is what it must edit.
func problemRefs(w *workflow.Workflow, p validate.Problem) string {
	var parts []string
	if len(p.NodeIDs) > 0 {
		ids := make([]string, len(p.NodeIDs))
		for i, id := range p.NodeIDs {
			ids[i] = fmt.Sprintf("%q", stepRef(w, id))
		}
		parts = append(parts, "step "+strings.Join(ids, ", "))
	}
	for _, e := range p.Edges {
		s := fmt.Sprintf("edge %q → %q", stepRef(w, e.From), stepRef(w, e.To))
		if e.Output != nil {
			s += " (" + e.Output.String() + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// stepRef returns the step id the model used for a node: its key, which
// the mapping takes from the step's "id".
func stepRef(w *workflow.Workflow, nodeID string) string {
	if w != nil {
		if n := w.NodeByID(nodeID); n != nil && n.Key != "" {
			return n.Key
		}
	}
	return nodeID
}

// writeLocalFixes lists what the local stages changed, so a step dropped
// for a bad field can come back right rather than vanish silently.
func writeLocalFixes(b *strings.Builder, o *outcome) {
	var lines []string
	for _, w := range o.warnings {
		if w.Stage == StageLayout {
			continue
		}
		s := fmt.Sprintf("- [%s] %s", w.Stage, w.Message)
		if w.NodeID != "" && o.wf != nil {
			if ref := stepRef(o.wf, w.NodeID); !strings.Contains(w.Message, ref) {
				s += fmt.Sprintf(" (step %q)", ref)
			}
		}
		lines = append(lines, s)
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nBefore that, I repaired or dropped these parts of your reply myself. If something you meant was dropped, put it back in a correct form:\n")
	for i, s := range lines {
		if i == maxFeedbackWarnings {
			fmt.Fprintf(b, "- … and %d more\n", len(lines)-i)
			break
		}
		b.WriteString(s + "\n")
	}
}

// Constructs with a correct example, in the order examples are shown.
const (
	exJSON      = "json"
	exGraph     = "graph"
	exIf        = "if"
	exSwitch    = "switch"
	exLoop      = "loop"
	exCondition = "condition"
	exTool      = "tool"
)

var constructOrder = []string{exJSON, exIf, exSwitch, exLoop, exGraph, exCondition, exTool}

// maxExamples keeps a re-ask short: two examples are enough to show the
// pattern; the rest is in the system prompt.
const maxExamples = 2

// stageConstruct and codeConstruct key the examples by what failed.
var stageConstruct = map[string]string{
	StageExtract: exJSON,
	StageRepair:  exJSON,
	StageDecode:  exJSON,
	StageMap:     exTool,
	StageEdges:   exGraph,
}

var codeConstruct = map[string]string{
	validate.CodeIfMissingBranch:      exIf,
	validate.CodeIfExtraEdges:         exIf,
	validate.CodeBadOutputLabel:       exGraph,
	validate.CodeSwitchDuplicateCase:  exSwitch,
	validate.CodeSwitchMissingCase:    exSwitch,
	validate.CodeSwitchDuplicateEdge:  exSwitch,
	validate.CodeSwitchUnknownOutput:  exSwitch,
	validate.CodeLoopMissingBody:      exLoop,
	validate.CodeLoopExtraEdges:       exLoop,
	validate.CodeLoopUnpaired:         exLoop,
	validate.CodeLoopMultipleEndloops: exLoop,
	validate.CodeEndloopBadTarget:     exLoop,
	validate.CodeEndloopEdgeMismatch:  exLoop,
	validate.CodeEdgeLeavesLoop:       exLoop,
	validate.CodeCycle:                exLoop,
	validate.CodeBadMaxIterations:     exLoop,
	validate.CodeNoEntry:              exGraph,
	validate.CodeMultipleEntries:      exGraph,
	validate.CodeUnreachable:          exGraph,
	validate.CodeMultipleOutgoing:     exGraph,
	validate.CodeDanglingEdge:         exGraph,
	validate.CodeDuplicateEdge:        exGraph,
	validate.CodeSelfLoop:             exGraph,
	validate.CodeNoNodes:              exJSON,
	validate.CodeBadCondition:         exCondition,
	validate.CodeUnknownVariable:      exCondition,
	validate.CodeUnknownTool:          exTool,
}

// constructsOf lists the constructs whose example fits what failed.
func constructsOf(o *outcome) []string {
	want := map[string]bool{}
	if o.stageErr != nil {
		if c, ok := stageConstruct[o.stageErr.Stage]; ok {
			want[c] = true
		}
	}
	for _, p := range o.errors {
		if c, ok := codeConstruct[p.Code]; ok {
			want[c] = true
		}
	}
	var out []string
	for _, c := range constructOrder {
		if want[c] && len(out) < maxExamples {
			out = append(out, c)
		}
	}
	return out
}

type example struct{ what, text string }

// examples are short, correct plans (TestExamplesAreValidPlans checks that each one
// parses and validates).
var examples = map[string]example{
	exJSON: {"strict JSON (double quotes, no trailing commas, no comments, every bracket closed)", exampleFlat},
	exIf:   {"an If (exactly one IfTrue and one IfFalse edge)", exampleIf},
	exSwitch: {"a Switch (one SwitchCase edge per case name, at most one SwitchDefault)", `{"nodes": [
  {"id": "fetch", "step_type": "Tool", "name": "Fetch page", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://example.com"}},
  {"id": "by_status", "step_type": "Switch", "name": "By status", "cases": [{"name": "ok", "condition": "fetch.status == 200"}, {"name": "missing", "condition": "fetch.status == 404"}]},
  {"id": "save", "step_type": "Tool", "name": "Save page", "tool_name": "write_file", "arguments": {"path": "page.html", "content": "{{fetch.body}}"}},
  {"id": "gone", "step_type": "Tool", "name": "Note missing page", "tool_name": "log", "arguments": {"message": "the page is gone"}},
  {"id": "odd", "step_type": "Tool", "name": "Log other status", "tool_name": "log", "arguments": {"message": "unexpected status {{fetch.status}}"}}
],
"edges": [
  {"from": "fetch", "to": "by_status"},
  {"from": "by_status", "to": "save", "output": {"type": "SwitchCase", "name": "ok"}},
  {"from": "by_status", "to": "gone", "output": {"type": "SwitchCase", "name": "missing"}},
  {"from": "by_status", "to": "odd", "output": {"type": "SwitchDefault"}}
]}`},
	exLoop: {"a Loop (LoopBody edge into the body, the body ends at its EndLoop, whose only edge goes back to the Loop; LoopDone leaves)", `{"nodes": [
  {"id": "poll", "step_type": "Loop", "name": "Wait for file", "exit_condition": "probe.exit_code == 0", "max_iterations": 10},
  {"id": "probe", "step_type": "Tool", "name": "Look for file", "tool_name": "run_command", "arguments": {"command": "test -f done.txt", "ok_exit_codes": [0, 1]}},
  {"id": "pause", "step_type": "Tool", "name": "Pause", "tool_name": "wait", "arguments": {"ms": 1000}},
  {"id": "poll_end", "step_type": "EndLoop", "name": "End wait", "loop_id": "poll"},
  {"id": "report", "step_type": "Tool", "name": "Report", "tool_name": "log", "arguments": {"message": "done.txt is there"}}
],
"edges": [
  {"from": "poll", "to": "probe", "output": {"type": "LoopBody"}},
  {"from": "probe", "to": "pause"},
  {"from": "pause", "to": "poll_end"},
  {"from": "poll_end", "to": "poll"},
  {"from": "poll", "to": "report", "output": {"type": "LoopDone"}}
]}`},
	exGraph: {"graph edges (one entry step, every step reachable, a Tool step has at most one outgoing edge and it has no output label)", `{"nodes": [
  {"id": "list", "step_type": "Tool", "name": "List notes", "tool_name": "list_files", "arguments": {"path": ".", "pattern": "*.txt"}},
  {"id": "report", "step_type": "Tool", "name": "Report count", "tool_name": "log", "arguments": {"message": "{{list.count}} notes"}}
],
"edges": [
  {"from": "list", "to": "report"}
]}`},
	exCondition: {"conditions and templates (expr-lang over the outputs of earlier steps, by step id)", `{"nodes": [
  {"id": "fetch", "step_type": "Tool", "name": "Fetch status", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://example.com/health"}},
  {"id": "healthy", "step_type": "If", "name": "Healthy?", "condition": "fetch.status == 200 && fetch.body contains \"ok\""},
  {"id": "fine", "step_type": "Tool", "name": "Log fine", "tool_name": "log", "arguments": {"message": "healthy: {{fetch.body}}"}},
  {"id": "alert", "step_type": "Tool", "name": "Log alert", "tool_name": "log", "arguments": {"message": "status {{fetch.status}}"}}
],
"edges": [
  {"from": "fetch", "to": "healthy"},
  {"from": "healthy", "to": "fine", "output": {"type": "IfTrue"}},
  {"from": "healthy", "to": "alert", "output": {"type": "IfFalse"}}
]}`},
	exTool: {"Tool steps (tool_name from the catalog, arguments named as in its schema)", `{"steps": [
  {"id": "read", "step_type": "Tool", "name": "Read notes", "tool_name": "read_file", "arguments": {"path": "notes.txt"}},
  {"id": "save", "step_type": "Tool", "name": "Save copy", "tool_name": "write_file", "arguments": {"path": "notes.bak", "content": "{{read.content}}"}}
]}`},
}

// stageLabel names a stage for progress messages.
func stageLabel(stage string) string {
	switch stage {
	case StageExtract:
		return "finding the JSON"
	case StageRepair, StageDecode:
		return "reading the JSON"
	case StageFeatures:
		return "checking the allowed step types"
	case StageMap:
		return "mapping steps to nodes"
	case StageEdges, StageInfer:
		return "building the edges"
	}
	return stage
}
