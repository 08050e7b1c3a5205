package validate

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/subflow"
)

// Sub-workflows (issue 26): a Workflow node runs the workflow file its
// params.path names, relative to this workflow's folder, with
// params.inputs. Its path must be a literal (bad_workflow_path); with
// Options.Dir the file must exist and be a workflow (unknown_workflow)
// whose declared inputs the literal values fit (bad_workflow_inputs).
// The rules themselves are package subflow's, which the runs apply too.
const (
	CodeBadWorkflowPath   = "bad_workflow_path"
	CodeUnknownWorkflow   = "unknown_workflow"
	CodeBadWorkflowInputs = "bad_workflow_inputs"
)

// checkSubflow checks the Workflow node i.
func (v *validator) checkSubflow(i int32) {
	nd := &v.nodes[i]
	p := strings.TrimSpace(nd.Params.Path)
	if p == "" || strings.Contains(p, "{{") {
		_, err := subflow.Path("/", nd) // the literal rules, whatever the folder
		v.add(CodeBadWorkflowPath, SeverityError, fmt.Sprintf("%s cannot run: %v", v.label(i), err), []int32{i})
		return
	}
	if v.opts.Dir == "" {
		return // unsaved, or the caller reads no files: the run checks it
	}
	path, err := subflow.Path(v.opts.Dir, nd)
	if err != nil {
		v.add(CodeBadWorkflowPath, SeverityError, fmt.Sprintf("%s cannot run: %v", v.label(i), err), []int32{i})
		return
	}
	child, _, err := subflow.Load(path)
	if err != nil {
		v.add(CodeUnknownWorkflow, SeverityError, fmt.Sprintf("%s runs %s: %v", v.label(i), q(nd.Params.Path), err), []int32{i})
		return
	}
	for _, pr := range subflow.CheckInputs(child, nd.Params.Inputs) {
		v.add(CodeBadWorkflowInputs, SeverityError, fmt.Sprintf("%s runs %s, whose inputs do not take what it gives: %s", v.label(i), q(nd.Params.Path), pr.Message), []int32{i})
	}
}
