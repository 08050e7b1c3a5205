package planner

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/reask"

	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// reaskFeedback is the re-ask after a failed reply, in the words every
// re-ask uses (reask.Feedback): the exact failure (the stage with line and
// column or item path, or every validation problem with its code and
// steps), what the local stages repaired or dropped so the model can
// restore its intent, from the second re-ask on a short correct example of
// each construct that failed, and on the last call the simplest linear
// plan to ask for.
func reaskFeedback(o *outcome, attempt int, final bool) *reask.Feedback {
	f := &reask.Feedback{Truncated: o.truncated, Fixes: localFixes(o),
		Answer: "Reply with the complete corrected plan as one JSON object and nothing else."}
	var hint strings.Builder
	switch {
	case o.truncated:
		hint.WriteString("A shorter plan has fewer steps: merge what can be one command.\n")
	case o.stageErr != nil:
		f.Failure = o.stageErr.Describe()
	default:
		var b strings.Builder
		if len(o.errors) > 0 {
			writeProblems(&b, o)
		}
		WriteDropped(&b, o.unused, `the one "steps" list (or "nodes" with "edges"), in one JSON object`)
		f.Problems = b.String()
	}
	if attempt >= 2 {
		for _, c := range constructsOf(o) {
			ex := examples[c]
			fmt.Fprintf(&hint, "A correct example of %s:\n%s\n\n", ex.what, ex.text)
		}
	}
	if final {
		hint.WriteString("This is the last attempt. Send the simplest linear plan that does the job: " +
			`a flat {"steps": [...]} list of Tool steps that run one after the other, ` +
			"with an If, Switch or Loop only where the goal cannot be reached without one.\n")
	}
	f.Hint = hint.String()
	return f
}

// WriteDropped tells the model which steps of its reply the plan left
// out, so that it sends them in place, where they count (a plan's steps
// list, a patch's add_nodes). The planner and the assistant both send it.
func WriteDropped(b *strings.Builder, u Unused, place string) {
	if !u.Dropped() {
		return
	}
	verb := "were"
	if len(u.Steps) == 1 {
		verb = "was"
	}
	fmt.Fprintf(b, "Your reply was read, but %s of it %s left out, outside %s:\n",
		plural(len(u.Steps), "step", "steps"), verb, place)
	for _, s := range u.Steps {
		b.WriteString("- " + s + "\n")
	}
	b.WriteString("Put every step in " + place + ".\n")
}

// Describe is the stage error as a re-ask quotes it: the stage, and where
// in the JSON.
func (e *StageError) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "It failed at the %s stage: %s\n", e.Stage, e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, "Position in the JSON: line %d, column %d.\n", e.Line, e.Column)
	}
	if e.Near != "" {
		fmt.Fprintf(&b, "That line of your reply: %s\n", e.Near)
	}
	if e.Path != "" {
		fmt.Fprintf(&b, "Item: %s\n", e.Path)
	}
	return b.String()
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
	start := b.Len()
	// Past maxProblemText, the rest are named by code and step only: a
	// reply with hundreds of the same mistake gets one line for them, not
	// a re-ask larger than the reply.
	type rest struct {
		code string
		refs []string
	}
	var more []*rest
	byCode := map[string]*rest{}
	for _, sev := range []validate.Severity{validate.SeverityError, validate.SeverityWarning} {
		for _, p := range problems {
			if p.Severity != sev {
				continue
			}
			n++
			if b.Len()-start > maxProblemText {
				r := byCode[p.Code]
				if r == nil {
					r = &rest{code: p.Code}
					byCode[p.Code] = r
					more = append(more, r)
				}
				r.refs = append(r.refs, refs(p))
				continue
			}
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
	for _, r := range more {
		shown := r.refs
		if len(shown) > 40 {
			shown = shown[:40]
		}
		fmt.Fprintf(b, "And %d more [%s], the same kind of problem: %s", len(r.refs), r.code, strings.Join(shown, "; "))
		if len(r.refs) > len(shown) {
			fmt.Fprintf(b, "; and %d more", len(r.refs)-len(shown))
		}
		b.WriteByte('\n')
	}
	return n
}

// maxProblemText is how much of a re-ask's problem list is written out
// in full.
const maxProblemText = 4 << 10

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

// localFixes are what the local stages changed, so a step dropped for a
// bad field can come back right rather than vanish silently.
func localFixes(o *outcome) []string {
	var lines []string
	for _, w := range o.warnings {
		if w.Stage == StageLayout || w.Stage == StageUnused && o.unused.Dropped() {
			continue // the layout is Weft's; what was left out is listed above
		}
		s := fmt.Sprintf("[%s] %s", w.Stage, w.Message)
		if w.NodeID != "" && o.wf != nil {
			if ref := stepRef(o.wf, w.NodeID); !strings.Contains(w.Message, ref) {
				s += fmt.Sprintf(" (step %q)", ref)
			}
		}
		lines = append(lines, s)
	}
	return lines
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
	StageAlign:   exJSON,
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
	case StageRepair, StageDecode, StageAlign:
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
