package service

import (
	"errors"

	"github.com/weft-dev/weft/backend/workflow"
)

// TrustedWorkflow reads the workflow file at path once and judges those
// bytes: w is the workflow they hold when the file is trusted (Weft wrote
// it, the person reviewed it, or a folder they trust covers it), nil when
// not. What is shown of a file (weft mcp serve's tool list: its text
// reaches an agent's model) is then the very content that was judged.
// err says why the file cannot be read or parsed.
func (s *Service) TrustedWorkflow(path string) (w *workflow.Workflow, ft FileTrust, err error) {
	fc := s.checkFile(path)
	ft = fc.view()
	if fc.data == nil {
		return nil, ft, errors.New(ft.Why)
	}
	if !ft.Trusted {
		return nil, ft, nil
	}
	w, _, err = workflow.ParseFile(path, fc.data)
	if err != nil {
		return nil, ft, err
	}
	return w, ft, nil
}
