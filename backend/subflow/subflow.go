// Package subflow holds the rules of a Workflow node (a sub-workflow):
// which file it runs (a literal path, relative to the calling workflow's
// folder), how deep and in which chain workflows may call one another,
// and whether the literal inputs it passes fit the callee's declared
// inputs. The runner, validation and the Temporal engine all ask here,
// so a sub-workflow refused by one is refused by all.
package subflow

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/canonpath"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// MaxDepth bounds how many workflows a run may nest, the outermost
// counted: a chain deeper than this is refused before the deepest starts.
const MaxDepth = 8

// Path is the canonical name of the file the Workflow node n runs, its
// params.path taken relative to dir, the calling workflow's folder ("" for
// one not saved yet). The path is a literal: a template in it is refused,
// so what runs is what the file says and the approvals were given for.
func Path(dir string, n *workflow.Node) (string, error) {
	p := strings.TrimSpace(n.Params.Path)
	switch {
	case p == "":
		return "", errors.New("it names no workflow file (params.path)")
	case strings.Contains(p, "{{"):
		return "", fmt.Errorf("its path %q holds a template: a sub-workflow's path is a literal file name, relative to this workflow's folder", p)
	}
	if !filepath.IsAbs(p) {
		if dir == "" {
			return "", fmt.Errorf("this workflow is not saved, so there is no folder to find %q in: save it first", p)
		}
		p = filepath.Join(dir, p)
	}
	return canonpath.Of(p), nil
}

// Load reads and parses the workflow file at path (Path's), bounded as
// every workflow file is (workflow.MaxFileSize).
func Load(path string) (*workflow.Workflow, []byte, error) {
	data, err := atomicfile.ReadBounded(path, workflow.MaxFileSize)
	if err != nil {
		return nil, nil, fmt.Errorf("the workflow file %s could not be read: %w", path, err)
	}
	w, _, err := workflow.ParseFile(path, data)
	if err != nil {
		return nil, nil, fmt.Errorf("the workflow file %s is not a workflow: %w", path, err)
	}
	return w, data, nil
}

// Chain is the canonical paths of the workflows a run is inside,
// outermost first (the run's own file last; "" for one not saved).
type Chain []string

// Enter is the chain inside the workflow at path, or an error naming the
// chain when path is already in it (a cycle: a → b → a) or the chain
// would be deeper than MaxDepth.
func (c Chain) Enter(path string) (Chain, error) {
	next := append(slices.Clip(c), path)
	if slices.Contains(c, path) {
		return nil, fmt.Errorf("the sub-workflows call one another in a cycle: %s", next.String())
	}
	if len(next) > MaxDepth {
		return nil, fmt.Errorf("the sub-workflows nest deeper than %d: %s", MaxDepth, next.String())
	}
	return next, nil
}

// String is the chain as a person reads it: a.weft.json → b.weft.json.
func (c Chain) String() string {
	names := make([]string, len(c))
	for i, p := range c {
		names[i] = filepath.Base(p)
		if p == "" {
			names[i] = "(unsaved)"
		}
	}
	return strings.Join(names, " → ")
}

// IsTemplate reports a value a run fills in ({{…}} in a string at its top):
// its type and value are known only then.
func IsTemplate(v any) bool {
	s, ok := v.(string)
	return ok && strings.Contains(s, "{{")
}

// CheckInputs says what of given (a Workflow node's params.inputs) does
// not fit child's declared inputs (inputs.Resolve, the check every run of
// child goes through): an input it does not declare, a required one left
// out, a literal value of the wrong type or out of bounds. A value with
// a template is checked by the run, once filled in.
func CheckInputs(child *workflow.Workflow, given map[string]any) []inputs.Problem {
	s, probs := inputs.Parse(child.Inputs)
	if len(probs) > 0 {
		return probs
	}
	literal := make(map[string]any, len(given))
	later := map[string]bool{} // declared, given by a template
	for k, v := range given {
		if _, declared := s.Field(k); declared && IsTemplate(v) {
			later[k] = true
			continue
		}
		literal[k] = v
	}
	_, err := s.Resolve(literal, nil)
	var ie *inputs.Error
	if !errors.As(err, &ie) {
		return nil
	}
	var out []inputs.Problem
	for _, p := range ie.Problems {
		if !later[p.Input] { // a template's input can only be said missing here
			out = append(out, p)
		}
	}
	return out
}
