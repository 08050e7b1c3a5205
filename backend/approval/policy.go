package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Kind says why a step can act on the world.
type Kind string

const (
	KindCommand     Kind = "command"      // run_command
	KindFileWrite   Kind = "file_write"   // write_file
	KindRequest     Kind = "request"      // http_request, any method: a GET carries data out too
	KindReadOutside Kind = "read_outside" // read_file / list_files outside the workflow's folder
	KindTool        Kind = "tool"         // an MCP tool not annotated read-only and closed-world
	KindUnknownTool Kind = "unknown_tool" // a tool the catalog does not describe
	KindAgent       Kind = "agent"        // an AiStep that may call any of the above
	// KindWorkflow: a Workflow node runs another workflow file with the
	// inputs it chooses. The file's own steps are approved in that file,
	// wherever it is called from; this approves calling it so.
	KindWorkflow Kind = "workflow"
	// KindControl: a condition, on_error, verify or done_when decides
	// where the run goes (which steps run next, or at all).
	KindControl Kind = "control"
	// KindFlow: where the node leads was changed by a model, or is part
	// of a file to review.
	KindFlow Kind = "flow"
)

// Step is a step that needs approval, with everything the person approves:
// the full content, never shortened.
type Step struct {
	NodeID string            `json:"node_id"`
	Key    string            `json:"key"`
	Name   string            `json:"name"`
	Type   workflow.NodeType `json:"type"`
	Tool   string            `json:"tool,omitempty"`
	Kind   Kind              `json:"kind"`
	// Reason says in words what the step can do, for the list.
	Reason string `json:"reason"`
	// Arguments are a Tool step's arguments as written (templates
	// unresolved: data inserted at run time is quoted, see docs/trust.md).
	Arguments map[string]any `json:"arguments,omitempty"`
	// Prompt and Tools are an AiStep's prompt and the tools it may call
	// that need approval.
	Prompt string   `json:"prompt,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	// Next is where the step leads, when that is part of what is
	// reviewed (control flow, rewired edges, a file to review).
	Next []Next `json:"next,omitempty"`
	// Content is the whole content approval covers (indented JSON).
	Content string `json:"content"`
	// Previous is Content as last reviewed, when the step is in a file to
	// review that changed since ("" for a step that is new there).
	Previous string `json:"previous,omitempty"`
	// Fingerprint identifies Content; approving records it.
	Fingerprint string     `json:"fingerprint"`
	Provenance  Provenance `json:"provenance"`
	// Said is who wrote it, in words (Said), for a model's step: the
	// desktop and the CLI say the same.
	Said string `json:"said,omitempty"`
	// Origin says why it is asked about: OriginModel or OriginFile.
	Origin string `json:"origin"`
}

// Scope is what the rule needs to know besides the workflow.
type Scope struct {
	// Catalog describes the tools (MCP tools with their annotations); nil
	// means the built-ins, so every MCP tool counts as unknown.
	Catalog *tools.Catalog
	// Dir is the workflow's folder; "" for an unsaved workflow, where
	// every read counts as outside.
	Dir string
	// File is set when the workflow's file is not trusted (its bytes are
	// not ones Weft wrote for the person or the person reviewed): every
	// enabled step that acts or routes is reviewed, whoever wrote it.
	File bool
}

// Needs says whether n's kind of step needs approval when a model wrote
// it, and why; "" when it does not (control flow, AI transforms, reads
// inside the folder, read-only closed-world MCP tools, wait, log).
func Needs(n *workflow.Node, sc Scope) (Kind, string, []string) {
	if sc.Catalog == nil {
		sc.Catalog = tools.Builtin()
	}
	switch n.Type {
	case workflow.TypeTool:
		k, why := toolNeeds(n.Params.Tool, n.Params.Arguments, sc)
		return k, why, nil
	case workflow.TypeAiStep:
		var risky []string
		for _, t := range n.Params.AllowedTools {
			// The model chooses the arguments: judge the tool alone.
			if k, _ := toolNeeds(t, nil, sc); k != "" {
				risky = append(risky, t)
			}
		}
		if len(risky) > 0 {
			return KindAgent, "an AI agent may call " + strings.Join(risky, ", "), risky
		}
	case workflow.TypeWorkflow:
		return KindWorkflow, "runs the workflow " + n.Params.Path + " with the inputs it gives (that file's steps are approved in it)", nil
	}
	return "", "", nil
}

// toolNeeds judges one tool call; args nil means any arguments.
func toolNeeds(name string, args map[string]any, sc Scope) (Kind, string) {
	switch name {
	case "run_command":
		return KindCommand, "runs a shell command"
	case "write_file":
		return KindFileWrite, "writes a file"
	case "http_request":
		if to, _ := args["save_to"].(string); to != "" {
			return KindRequest, "sends an HTTP request (any request can carry data out) and writes its body to " + to
		}
		return KindRequest, "sends an HTTP request (any request can carry data out)"
	case "read_file", "list_files":
		verb := map[string]string{"read_file": "reads a file", "list_files": "lists a folder"}[name]
		if args == nil {
			return KindReadOutside, verb + " anywhere"
		}
		if where, outside := outsideFolder(args, sc.Dir); outside {
			return KindReadOutside, verb + " " + where
		}
		return "", ""
	case "wait", "log":
		return "", ""
	}
	t, ok := sc.Catalog.Lookup(name)
	switch {
	case !ok:
		return KindUnknownTool, fmt.Sprintf("calls %s, which the tool catalog does not describe, so what it does is unknown", name)
	case t.Server == "" && !t.SideEffects:
		return "", ""
	case t.SideEffects || t.OpenWorld:
		what := "may change things"
		if !t.SideEffects {
			what = "reaches outside systems (not annotated openWorldHint: false)"
		}
		if t.Server != "" {
			return KindTool, fmt.Sprintf("calls %s (MCP server %s), which %s", name, t.Server, what)
		}
		return KindTool, fmt.Sprintf("calls %s, which %s", name, what)
	}
	return "", ""
}

// outsideFolder says whether a read's path (and list pattern) may leave
// dir: a templated path, an absolute path elsewhere, `..` out of it, or a
// symbolic link that leads out. where describes the place for the list.
func outsideFolder(args map[string]any, dir string) (where string, outside bool) {
	p, _ := args["path"].(string)
	pat, _ := args["pattern"].(string)
	if strings.Contains(p, "{{") || strings.Contains(pat, "{{") {
		return "at a path taken from data at run time", true
	}
	if strings.ContainsAny(pat, `/\`) || strings.Contains(pat, "..") {
		return "with a pattern that reaches into other folders", true
	}
	if dir == "" {
		return "outside a saved workflow's folder", true
	}
	if strings.HasPrefix(p, "~") {
		return "in the home folder (" + p + ")", true
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, p)
	}
	abs = filepath.Clean(abs)
	base := filepath.Clean(dir)
	lexical, lerr := filepath.Rel(base, abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || escapes(rel) {
		return "outside the workflow's folder (" + p + ")", true
	}
	// The read opens through os.Root at run time (the effect gate), which
	// refuses links it cannot follow inside the folder (an absolute link
	// back in): judged by the same rule, such a path is outside.
	if lerr == nil && !escapes(lexical) {
		if root, err := os.OpenRoot(base); err == nil {
			_, err = root.Stat(lexical)
			root.Close()
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "outside the workflow's folder (" + p + ": through a link the folder cannot follow)", true
			}
		}
	}
	return "", false
}

// escapes reports whether a relative path leaves its folder.
func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator))
}

// Pending lists the enabled steps of w a model wrote that need approval
// and whose exact content is not approved, in node order.
func Pending(w *workflow.Workflow, sc Scope, approved func(fingerprint string) bool) []Step {
	var out []Step
	for _, s := range Required(w, sc) {
		if approved == nil || !approved(s.Fingerprint) {
			out = append(out, s)
		}
	}
	return out
}

// Required lists the enabled steps of w to review, approved or not: the
// ones a model wrote or changed that act or route, and, in a file to
// review (sc.File), every one that acts or routes. (A legacy replanned
// file's steps are marked when it is parsed: workflow.Parse.)
func Required(w *workflow.Workflow, sc Scope) []Step {
	if w == nil {
		return nil
	}
	var out []Step
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if !n.IsEnabled() {
			continue
		}
		if s, ok := review(w, n, sc); ok {
			out = append(out, s)
		}
	}
	if s, ok := goalReview(w, sc); ok {
		out = append(out, s)
	}
	out = append(out, triggerReviews(w, sc)...)
	for i := range out {
		if out[i].Origin == OriginModel {
			out[i].Said = Said(out[i].Provenance)
		}
	}
	return out
}

// GoalKey is the key of the review item for the workflow's done_when.
const GoalKey = "done_when"

// goalReview describes the workflow's done_when for approval when a model
// wrote or changed it (or the file is to be reviewed): loosened, it makes
// a failed run count as a success.
func goalReview(w *workflow.Workflow, sc Scope) (Step, bool) {
	if w.DoneWhen.IsZero() {
		return Step{}, false
	}
	pv, model := goalOf(w)
	origin, ok := originOf(model, sc)
	if !ok {
		return Step{}, false
	}
	content := map[string]any{GoalKey: w.DoneWhen}
	b, _ := json.Marshal(content)
	return Step{Key: GoalKey, Name: "Goal check", Kind: KindControl, Reason: "decides whether the run reached its goal (done_when)",
		Content: indented(content), Fingerprint: Sum(b), Provenance: pv, Origin: origin}, true
}

// originOf says why something is reviewed: its file is to be reviewed,
// or a model wrote it; ok false when neither.
func originOf(model bool, sc Scope) (string, bool) {
	switch {
	case sc.File:
		return OriginFile, true
	case model:
		return OriginModel, true
	}
	return "", false
}

// review describes n for approval when it is to be reviewed.
func review(w *workflow.Workflow, n *workflow.Node, sc Scope) (Step, bool) {
	pv, model := Of(n)
	origin, ok := originOf(model, sc)
	if !ok {
		return Step{}, false
	}
	kind, why, risky := Needs(n, sc)
	flow := routes(w, n, pv, sc.File)
	switch {
	case kind == "" && flow == "":
		return Step{}, false
	case kind == "" && (n.Type == workflow.TypeIf || n.Type == workflow.TypeSwitch || n.Type == workflow.TypeLoop || !pv.Flow && !sc.File):
		kind, why = KindControl, flow
	case kind == "":
		kind, why = KindFlow, flow
	case flow != "":
		why += "; " + flow
	}
	content, fp := Content(n), Fingerprint(n)
	var next []Next
	if flow != "" || sc.File {
		content, fp, next = FlowContent(w, n), FlowFingerprint(w, n), NextOf(w, n)
	}
	s := Step{NodeID: n.ID, Key: n.Key, Name: n.Name, Type: n.Type, Kind: kind, Reason: why,
		Content: indented(content), Fingerprint: fp, Tools: risky, Next: next, Provenance: pv, Origin: origin}
	switch n.Type {
	case workflow.TypeTool:
		s.Tool, s.Arguments = n.Params.Tool, n.Params.Arguments
		if s.Arguments == nil {
			s.Arguments = map[string]any{}
		}
	case workflow.TypeAiStep:
		s.Prompt = n.Params.Prompt
	}
	return s, true
}

// indented is v as a person reads it: indented, `&&` and `>` as written
// (not \u0026 and \u003e).
func indented(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
