// Package validate checks a workflow's structure and returns every problem
// it finds, each with a stable code, a severity and the nodes and edges it
// concerns, so the UI can badge them and the planner can feed them back to
// the model.
package validate

import "github.com/weft-dev/weft/backend/workflow"

// Severity of a problem: errors make a workflow invalid, warnings and
// infos do not. An info tells of something that works as written but
// perhaps not as meant.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Problem codes: a fixed contract shared with the CLI, the UI and the
// planner's feedback to the model.
const (
	CodeNoNodes              = "no_nodes"
	CodeDuplicateNodeID      = "duplicate_node_id"
	CodeDanglingEdge         = "dangling_edge"
	CodeDuplicateEdge        = "duplicate_edge"
	CodeSelfLoop             = "self_loop"
	CodeNoEntry              = "no_entry"
	CodeMultipleEntries      = "multiple_entries"
	CodeUnreachable          = "unreachable"
	CodeMultipleOutgoing     = "multiple_outgoing"
	CodeBadOutputLabel       = "bad_output_label"
	CodeIfMissingBranch      = "if_missing_branch"
	CodeIfExtraEdges         = "if_extra_edges"
	CodeSwitchDuplicateCase  = "switch_duplicate_case"
	CodeSwitchMissingCase    = "switch_missing_case"
	CodeSwitchDuplicateEdge  = "switch_duplicate_edge"
	CodeSwitchUnknownOutput  = "switch_unknown_output"
	CodeLoopMissingBody      = "loop_missing_body"
	CodeLoopExtraEdges       = "loop_extra_edges"
	CodeLoopUnpaired         = "loop_unpaired"
	CodeLoopMultipleEndloops = "loop_multiple_endloops"
	CodeEndloopBadTarget     = "endloop_bad_target"
	CodeEndloopEdgeMismatch  = "endloop_edge_mismatch"
	CodeEdgeLeavesLoop       = "edge_leaves_loop"
	CodeCycle                = "cycle"
	CodeBadMaxIterations     = "bad_max_iterations"
	CodeBadKey               = "bad_key"
	CodeDuplicateKey         = "duplicate_key"
	CodeBadCondition         = "bad_condition"
	CodeUnknownVariable      = "unknown_variable"
	CodeUnknownTool          = "unknown_tool"

	// Added with the validator: a node type Weft does not know, and an edge
	// that jumps into a loop body from outside without passing its Loop.
	CodeUnknownNodeType = "unknown_node_type"
	CodeEdgeEntersLoop  = "edge_enters_loop"

	// Added with template safety (issue 9, "data never becomes code"):
	// a {{raw …}} placeholder that inserts a step's output as code, and a
	// placeholder the run would refuse because no quoting is safe where
	// it sits. Both are warnings.
	CodeRawExternalValue  = "raw_external_value"
	CodeUnsafePlaceholder = "unsafe_placeholder"

	// Added with issue 10 ("nothing the user had is lost"): a duration
	// (timeout_ms, the wait tool's ms, retry backoff initial_ms/max_ms)
	// or backoff multiplier that is negative, not a whole number or past
	// its maximum (see MaxTimeoutMs), which would otherwise overflow at
	// run time.
	CodeBadDuration = "bad_duration"

	// Added with error branches and done criteria (issue 10): an unknown
	// on_error, on_error on a node that cannot fail (If, Switch, Loop,
	// EndLoop), a step whose on_error is "branch" without its Error edge
	// (errors), and a done_when on a control node or with nothing in it.
	CodeBadOnError         = "bad_on_error"
	CodeErrorBranchMissing = "error_branch_missing"
	CodeBadDoneWhen        = "bad_done_when"

	// Added with issue 20 ("bounded wherever a file drives a parser"): a
	// template placeholder whose expression is over the bounds every
	// expression has (expression.CheckBounds), which the run would refuse.
	CodeBadTemplate = "bad_template"

	// Added with issue 21 (secrets as references): a {{secrets.…}} that
	// is not exactly {{secrets.NAME}}, sits where no value can go safely,
	// or is outside a Tool step's arguments (error); a secret the
	// credentials store does not hold (warning, when its names are given).
	CodeBadSecretRef  = "bad_secret_ref"
	CodeUnknownSecret = "unknown_secret"

	// Added with issue 21: a credential written as a literal in a Tool
	// step's arguments (a warning; Problem.Path says where, the message
	// shows it masked): move it to the credentials store.
	CodeLiteralSecret = "literal_secret"

	// Added with issue 28: a condition branches on the exit_code of a
	// run_command step that fails on any status but 0 (no other status
	// in its ok_exit_codes, on_error stop), so the branch for another
	// status is never taken (an info).
	CodeExitCodeFails = "exit_code_fails"
)

// Problem is one thing wrong with a workflow.
type Problem struct {
	Code     string          `json:"code"`
	Severity Severity        `json:"severity"`
	Message  string          `json:"message"`
	NodeIDs  []string        `json:"node_ids"`
	Edges    []workflow.Edge `json:"edges"`
	// Path is, for literal_secret, the JSON pointer of the argument that
	// holds the literal ("/headers/Authorization"); for bad_argument,
	// unknown_argument and a nested missing_argument, of the argument
	// its tool's schema does not allow ("/options/depth"); for bad_note,
	// bad_group and unknown_group_member, of the note, group or member in
	// the workflow ("/groups/0/nodes/2").
	Path string `json:"path,omitempty"`
	// Key is, for literal_secret, the name the literal is written under
	// (a header, query parameter or JSON member), if any.
	Key string `json:"key,omitempty"`
	// Secret is, for literal_secret, a name suggested for the secret.
	Secret string `json:"secret,omitempty"`
}

// Result is the outcome of Validate.
type Result struct {
	Valid    bool      `json:"valid"`
	Problems []Problem `json:"problems"`
}

// Errors returns only the error-severity problems.
func (r Result) Errors() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Severity == SeverityError {
			out = append(out, p)
		}
	}
	return out
}
