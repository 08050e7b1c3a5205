package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// ApprovalError is returned by Run when steps a model wrote or changed
// need approval and are not approved. The run did not start.
type ApprovalError struct {
	Steps []approval.Step
}

func (e *ApprovalError) Error() string {
	var names []string
	for i, s := range e.Steps {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(e.Steps)-5))
			break
		}
		names = append(names, fmt.Sprintf("%q (%s)", s.Key, s.Reason))
	}
	n := "1 step"
	if len(e.Steps) != 1 {
		n = fmt.Sprintf("%d steps", len(e.Steps))
	}
	return fmt.Sprintf("%s written or changed by a model need approval before the workflow runs: %s", n, strings.Join(names, ", "))
}

// checkApproval refuses a workflow with model-written steps that need
// approval and are not approved. Called by Run before anything runs. A
// run whose effects a stand-in answers (Options.Effects) acts on nothing,
// so it needs none.
func (rn *Runner) checkApproval(w *workflow.Workflow) error {
	if rn.opts.Effects != nil {
		return nil
	}
	if steps := approval.Pending(w, rn.approvalScope(), rn.approvals().Approved); len(steps) > 0 {
		return &ApprovalError{Steps: steps}
	}
	return nil
}

// approvalScope is what the approval rule knows of a run besides the
// workflow (checkApproval; the effect gate's confinedReads).
func (rn *Runner) approvalScope() approval.Scope {
	cat := rn.opts.ApprovalCatalog
	if cat == nil {
		cat = tools.Builtin() // once, not once a step
	}
	return approval.Scope{Catalog: cat, Dir: rn.workflowDir(), File: rn.opts.ReviewFile}
}

// approvals says what a person approved; nil approves nothing.
func (rn *Runner) approvals() approval.Checker {
	if rn.opts.Approvals == nil {
		return approval.Set(nil)
	}
	return rn.opts.Approvals
}

// runDir is the folder a run's relative paths start in: workflowDir, else
// the working folder of the process.
func (rn *Runner) runDir() (string, error) {
	if d := rn.workflowDir(); d != "" {
		return d, nil
	}
	return os.Getwd()
}

// workflowDir is the folder relative paths start from (Options.Dir, else
// the workflow file's), "" when unsaved.
func (rn *Runner) workflowDir() string {
	if rn.opts.Dir != "" {
		return rn.opts.Dir
	}
	if rn.opts.WorkflowPath == "" {
		return ""
	}
	abs, err := filepath.Abs(rn.opts.WorkflowPath)
	if err != nil {
		return ""
	}
	return filepath.Dir(abs)
}
