// Package subflow holds the rules of a Workflow node (a sub-workflow):
// which file it runs (a literal path, relative to the calling workflow's
// folder), how deep and in which chain workflows may call one another,
// and whether the literal inputs it passes fit the callee's declared
// inputs. The runner, validation and the Temporal engine all ask here,
// so a sub-workflow refused by one is refused by all.
package subflow

import (
	"encoding/json"
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

// Call is where one Workflow step goes, as found when its run was
// submitted: the canonical path of the file it runs, or why it has none.
type Call struct {
	Path  string `json:"path,omitempty"`
	Error string `json:"error,omitempty"`
}

// File is a workflow file a run may call, as read and judged when the run
// was submitted (an engine whose workers cannot read this machine's files
// runs what is here, as it runs its own workflow's content).
type File struct {
	Workflow json.RawMessage `json:"workflow,omitempty"`
	// Approved are the fingerprints of its steps that do not wait for
	// approval (the gate checks the content against them); ReviewFile
	// says its file was not trusted as it was, so every step is judged.
	Approved   []string `json:"approved,omitempty"`
	ReviewFile bool     `json:"review_file,omitempty"`
	// Error is why it cannot run (unreadable, not a workflow, its
	// approvals unreadable).
	Error string `json:"error,omitempty"`
	// Calls are where its own Workflow steps go, by node id.
	Calls map[string]Call `json:"calls,omitempty"`
}

// Bundle is every workflow file a run may reach through Workflow steps.
type Bundle struct {
	// Calls are where the run's own Workflow steps go, by node id.
	Calls map[string]Call `json:"calls,omitempty"`
	// Files are the files they reach, each once, by canonical path.
	Files map[string]File `json:"files,omitempty"`
}

// Of is the bundle seen from inside the file at path: its own calls.
func (b *Bundle) Of(path string) *Bundle {
	if b == nil {
		return nil
	}
	return &Bundle{Calls: b.Files[path].Calls, Files: b.Files}
}

// MaxFiles bounds the files one bundle holds: a workflow reaching more
// than this many others is refused at the call past the bound.
const MaxFiles = 64

// Judge says what the approvals are for the workflow w read from path
// (data its bytes): the fingerprints that do not wait, and whether its
// file is reviewed as a whole.
type Judge func(w *workflow.Workflow, path string, data []byte) (approved []string, reviewFile bool, err error)

// Gather reads every workflow file w (saved in dir; "" for one not saved)
// reaches through Workflow steps, each once (a cycle ends where it meets a
// file read already: the run refuses it with Chain), and judges each.
// What cannot be read is recorded with why, for the step that calls it to
// fail with, as the local engine's step would when it reads the file.
func Gather(dir string, w *workflow.Workflow, judge Judge) *Bundle {
	b := &Bundle{Files: map[string]File{}}
	type visit struct {
		path string
		w    *workflow.Workflow
	}
	var queue []visit
	calls := func(dir string, w *workflow.Workflow) map[string]Call {
		var out map[string]Call
		for i := range w.Nodes {
			n := &w.Nodes[i]
			if n.Type != workflow.TypeWorkflow {
				continue
			}
			if out == nil {
				out = map[string]Call{}
			}
			p, err := Path(dir, n)
			if err != nil {
				out[n.ID] = Call{Error: err.Error()}
				continue
			}
			out[n.ID] = Call{Path: p}
			if _, seen := b.Files[p]; seen {
				continue
			}
			f := File{}
			child, data, err := Load(p)
			switch {
			case len(b.Files) >= MaxFiles:
				f.Error = fmt.Sprintf("the sub-workflows reach more than %d workflow files", MaxFiles)
			case err != nil:
				f.Error = err.Error()
			default:
				f.Workflow = data
				if f.Approved, f.ReviewFile, err = judge(child, p, data); err != nil {
					f.Error = fmt.Sprintf("the approvals of %s could not be read: %v", filepath.Base(p), err)
				} else {
					queue = append(queue, visit{p, child})
				}
			}
			b.Files[p] = f
		}
		return out
	}
	b.Calls = calls(dir, w)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		f := b.Files[v.path]
		f.Calls = calls(filepath.Dir(v.path), v.w)
		b.Files[v.path] = f
	}
	if len(b.Files) == 0 {
		return nil
	}
	return b
}
