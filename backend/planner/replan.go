package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Bounds of the replanning prompt.
const (
	replanMaxFailures    = 5    // latest failure records shown
	replanMaxError       = 600  // characters of one error
	replanMaxOutput      = 800  // characters of one failure's output summary
	replanMaxNodeOutputs = 600  // characters of one completed step's outputs
	replanMaxOutputs     = 6000 // characters of all outputs so far
	replanMaxPatterns    = 5    // known failure patterns of the failed tool
)

// Replanner makes a new version of a workflow after a failed run (seed
// 004): it implements runner.Replanner. The proposal goes through the same
// loop as PlanWorkflow (parse, local repair, validation, re-asks with
// feedback, budget), so what it returns is a valid workflow; it keeps the
// original's id and name, and the node ids of the steps whose key it kept,
// so the versions compare step by step.
type Replanner struct {
	Client llm.Client
	Config Config
	// Catalog, when set, is asked for the tools when a replan starts (for
	// example runner.Catalog with the MCP servers, started only then);
	// else Config.Catalog.
	Catalog func(ctx context.Context) *tools.Catalog
	// OnResult, when set, receives the whole result of each replan:
	// attempts, warnings, usage.
	OnResult func(Result)
}

// Replan asks the model for a new version of req.Workflow. It fails when
// the model gave no valid workflow within the loop's attempts.
func (p *Replanner) Replan(ctx context.Context, req failure.ReplanRequest) (*workflow.Workflow, error) {
	cfg := p.Config
	if p.Catalog != nil {
		if c := p.Catalog(ctx); c != nil {
			cfg.Catalog = c
		}
	}
	res, err := ReplanWorkflow(ctx, p.Client, req, cfg)
	if p.OnResult != nil {
		p.OnResult(res)
	}
	if err != nil {
		return nil, err
	}
	if !res.Valid || res.Workflow == nil {
		return nil, fmt.Errorf("the planner found no valid new plan: %s", res.Summary)
	}
	if !res.Usable(false) {
		// A run never goes on with a fragment nobody has seen.
		return nil, fmt.Errorf("the new plan leaves steps of the model's reply out: %s", res.Summary)
	}
	return res.Workflow, nil
}

// ReplanWorkflow is PlanWorkflow for a workflow whose run failed: the first
// prompt is ReplanPrompt instead of the goal. Result.Workflow (valid or
// the best draft) is the new version: same workflow id and name, node
// ids kept for the steps whose key and type it kept, with their retry
// policy, enabled flag and timeout carried over.
func ReplanWorkflow(ctx context.Context, client llm.Client, req failure.ReplanRequest, cfg Config) (Result, error) {
	if client == nil {
		return Result{}, errors.Join(ErrConfig, errors.New("no LLM client"))
	}
	if req.Workflow == nil {
		return Result{}, errors.Join(ErrConfig, errors.New("no workflow to replan"))
	}
	l := newLoop(client, replanName(req.Workflow.Name, "Replanned workflow"), cfg)
	patterns := req.Patterns
	if len(patterns) == 0 && cfg.Patterns != nil {
		patterns, _ = cfg.Patterns.Relevant(flow.ToolName(&req.FailedNode), replanMaxPatterns)
	}
	l.first = ReplanPrompt(req, patterns)
	l.adopt = func(wf *workflow.Workflow) *workflow.Workflow {
		c := wf.Clone()
		adoptVersion(req.Workflow, c)
		workflow.KeepRedacted(req.Workflow, c)
		return c
	}
	res, err := l.run(ctx)
	if res.Workflow != nil {
		ids := adoptVersion(req.Workflow, res.Workflow)
		workflow.KeepRedacted(req.Workflow, res.Workflow) // the model saw its secrets redacted
		for i := range res.Warnings {
			if id, ok := ids[res.Warnings[i].NodeID]; ok {
				res.Warnings[i].NodeID = id
			}
		}
		for i := range res.Problems {
			for j, nid := range res.Problems[i].NodeIDs {
				if id, ok := ids[nid]; ok {
					res.Problems[i].NodeIDs[j] = id
				}
			}
			for j := range res.Problems[i].Edges {
				e := &res.Problems[i].Edges[j]
				if id, ok := ids[e.From]; ok {
					e.From = id
				}
				if id, ok := ids[e.To]; ok {
					e.To = id
				}
			}
		}
	}
	return res, err
}

func replanName(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// ReplanPrompt is the first user turn of a replan: the current workflow in
// the planner's own JSON form (step ids are the node keys), the failed
// step and its failure records with their classification, the completed
// steps, the outputs so far (bounded), the known failure patterns of the
// failed step's tool, and what to do.
func ReplanPrompt(req failure.ReplanRequest, patterns []failure.Pattern) string {
	w := req.Workflow
	var b strings.Builder
	fmt.Fprintf(&b, "A run of the workflow %q failed. Make a new version of the workflow that reaches the same goal without this failure.\n", w.Name)

	b.WriteString("\n# Current workflow\n\nStep ids are the ids conditions and templates use.\n")
	b.WriteString(WorkflowPrompt(w))
	var disabled []string
	for i := range w.Nodes {
		if !w.Nodes[i].IsEnabled() {
			disabled = append(disabled, replanKey(&w.Nodes[i]))
		}
	}
	if len(disabled) > 0 {
		fmt.Fprintf(&b, "Disabled steps (they are passed through and stay disabled if you keep them): %s\n", strings.Join(disabled, ", "))
	}

	n := &req.FailedNode
	if c := req.Critique; c != nil {
		writeCritique(&b, c)
	} else {
		fmt.Fprintf(&b, "\n# Failed step\n\n%q (%s", replanKey(n), n.Type)
		if n.Type == workflow.TypeTool {
			fmt.Fprintf(&b, ", tool %s", n.Params.Tool)
		}
		b.WriteString(")")
		if n.Name != "" {
			fmt.Fprintf(&b, ": %s", n.Name)
		}
		b.WriteString("\n")
		fs := req.Failures
		if len(fs) > replanMaxFailures {
			fmt.Fprintf(&b, "It failed %d times; the last %d attempts:\n", len(fs), replanMaxFailures)
			fs = fs[len(fs)-replanMaxFailures:]
		}
		for _, f := range fs {
			retry := "retrying cannot fix it"
			if f.Retryable {
				retry = "retryable"
			}
			fmt.Fprintf(&b, "- attempt %d: %s, severity %s, category %s, %s\n  error: %s\n",
				f.Attempt, f.FailureType, f.Severity, f.Category, retry, replanClip(f.Error, replanMaxError))
			if s := strings.TrimSpace(f.OutputSummary); s != "" {
				fmt.Fprintf(&b, "  output: %s\n", replanClip(s, replanMaxOutput))
			}
			if f.SuggestedFix != "" {
				fmt.Fprintf(&b, "  suggested fix: %s\n", f.SuggestedFix)
			}
		}
	}

	byID := map[string]*workflow.Node{}
	for i := range w.Nodes {
		byID[w.Nodes[i].ID] = &w.Nodes[i]
	}
	var done []string
	seen := map[string]bool{}
	for _, id := range req.Completed {
		if m := byID[id]; m != nil && !seen[id] {
			seen[id] = true
			done = append(done, replanKey(m))
		}
	}
	b.WriteString("\n# Completed steps\n\n")
	if len(done) == 0 {
		b.WriteString("None: the run failed at its first step.\n")
	} else {
		fmt.Fprintf(&b, "These steps finished before the failure: %s.\n", strings.Join(done, ", "))
	}
	if outs := outputsSoFar(w, req); outs != "" {
		b.WriteString("\n# Outputs so far\n\n" + outs)
	}

	if len(patterns) > 0 {
		fmt.Fprintf(&b, "\n# Known failure patterns of %s\n\n", flow.ToolName(n))
		for i, p := range patterns {
			if i == replanMaxPatterns {
				break
			}
			b.WriteString("- " + PatternLine(p) + "\n")
		}
	}

	if req.Critique != nil {
		b.WriteString(`
# What to do

- Every step ran, but the result does not meet the goal: try a different approach. Use the feedback and the suggested fixes; do not resubmit the same plan.
- Keep the workflow's done_when unless the goal itself asks otherwise.
- Keep the ids of the steps you keep; give new steps new ids. Refer only to ids of steps in the new version.
- Use only tools from the catalog, with their argument names.

Reply with the complete new workflow as one JSON object (the graph form above, or the flat "steps" form) and nothing else.`)
		return b.String()
	}
	fmt.Fprintf(&b, `
# What to do

- Change, replace or remove the failed step %q so that it cannot fail the same way; use the failure records, the suggested fix and the known patterns.
- Keep the completed steps as they are, with the same ids: the new version runs from the start, and later steps, conditions and templates refer to their outputs by id. Do not add steps that redo their work unless the new plan needs it.
- Keep the id of every other step you keep; give new steps new ids. Refer only to ids of steps in the new version.
- Use only tools from the catalog, with their argument names.

Reply with the complete new workflow as one JSON object (the graph form above, or the flat "steps" form) and nothing else.`, replanKey(n))
	return b.String()
}

func replanKey(n *workflow.Node) string {
	if n.Key != "" {
		return n.Key
	}
	return n.ID
}

// clip shortens s to n bytes (on a rune boundary), marking the cut.
func replanClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// outputsSoFar renders the outputs of the steps that ran, one line each,
// completed steps first, within replanMaxOutputs.
func outputsSoFar(w *workflow.Workflow, req failure.ReplanRequest) string {
	if len(req.Outputs) == 0 {
		return ""
	}
	var order []string
	seen := map[string]bool{}
	for _, id := range req.Completed {
		if m := w.NodeByID(id); m != nil && !seen[m.Key] {
			seen[m.Key] = true
			order = append(order, m.Key)
		}
	}
	for i := range w.Nodes {
		if k := w.Nodes[i].Key; !seen[k] {
			if _, ok := req.Outputs[k]; ok {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	var b strings.Builder
	for i, k := range order {
		v, ok := req.Outputs[k]
		if !ok {
			continue
		}
		line := k + ": " + replanClip(replanJSON(v), replanMaxNodeOutputs) + "\n"
		if b.Len()+len(line) > replanMaxOutputs {
			fmt.Fprintf(&b, "(the outputs of %d more step(s) are left out)\n", len(order)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func replanJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

// promptNode is a node in the planner's own reply format.
type promptNode struct {
	ID            string                `json:"id"`
	StepType      workflow.NodeType     `json:"step_type"`
	Name          string                `json:"name,omitempty"`
	ToolName      string                `json:"tool_name,omitempty"`
	Arguments     map[string]any        `json:"arguments,omitempty"`
	Prompt        string                `json:"prompt,omitempty"`
	AllowedTools  []string              `json:"allowed_tools,omitempty"`
	MaxToolCalls  int                   `json:"max_tool_calls,omitempty"`
	Kind          string                `json:"kind,omitempty"`
	Input         string                `json:"input,omitempty"`
	Labels        []string              `json:"labels,omitempty"`
	Condition     string                `json:"condition,omitempty"`
	Cases         []workflow.SwitchCase `json:"cases,omitempty"`
	ExitCondition string                `json:"exit_condition,omitempty"`
	MaxIterations *int                  `json:"max_iterations,omitempty"`
	LoopID        string                `json:"loop_id,omitempty"`
	TimeoutMs     int                   `json:"timeout_ms,omitempty"`
	Verify        string                `json:"verify,omitempty"`
	OnError       workflow.OnError      `json:"on_error,omitempty"`
	DoneWhen      *workflow.DoneWhen    `json:"done_when,omitempty"`
}

type promptEdge struct {
	From   string               `json:"from"`
	To     string               `json:"to"`
	Output *workflow.EdgeOutput `json:"output,omitempty"`
}

// WorkflowPrompt renders a workflow in the graph form the planner replies
// with (node keys as step ids, edges by key with their output labels), one
// node or edge a line, so the model can send it back changed.
func WorkflowPrompt(w *workflow.Workflow) string {
	keys := map[string]string{}
	for i := range w.Nodes {
		keys[w.Nodes[i].ID] = replanKey(&w.Nodes[i])
	}
	line := replanJSON
	var b strings.Builder
	fmt.Fprintf(&b, "{\"name\": %s,\n", line(w.Name))
	if w.DoneWhen != nil {
		fmt.Fprintf(&b, "\"done_when\": %s,\n", line(w.DoneWhen))
	}
	b.WriteString("\"nodes\": [\n")
	for i := range w.Nodes {
		n := &w.Nodes[i]
		p := n.Params
		pn := promptNode{ID: replanKey(n), StepType: n.Type, Name: n.Name, TimeoutMs: n.TimeoutMs, Verify: n.Verify, OnError: n.OnError, DoneWhen: n.DoneWhen}
		switch n.Type {
		case workflow.TypeTool:
			pn.ToolName, pn.Arguments = p.Tool, p.Arguments
		case workflow.TypeAiStep:
			pn.Prompt, pn.AllowedTools, pn.MaxToolCalls = p.Prompt, p.AllowedTools, p.MaxToolCalls
		case workflow.TypeAiTransform:
			pn.Kind, pn.Input, pn.Labels = p.Kind, p.Input, p.Labels
		case workflow.TypeIf:
			pn.Condition = p.Condition
		case workflow.TypeSwitch:
			pn.Cases = p.Cases
		case workflow.TypeLoop:
			pn.ExitCondition, pn.MaxIterations = p.ExitCondition, p.MaxIterations
		case workflow.TypeEndLoop:
			pn.LoopID = keys[p.LoopID]
			if pn.LoopID == "" {
				pn.LoopID = p.LoopID
			}
		}
		sep := ","
		if i == len(w.Nodes)-1 {
			sep = ""
		}
		b.WriteString("  " + line(pn) + sep + "\n")
	}
	b.WriteString("],\n\"edges\": [\n")
	for i, e := range w.Edges {
		pe := promptEdge{From: keys[e.From], To: keys[e.To], Output: e.Output}
		if pe.From == "" {
			pe.From = e.From
		}
		if pe.To == "" {
			pe.To = e.To
		}
		sep := ","
		if i == len(w.Edges)-1 {
			sep = ""
		}
		b.WriteString("  " + line(pe) + sep + "\n")
	}
	b.WriteString("]}\n")
	return b.String()
}

// adoptVersion makes the planner's workflow a version of old: old's id,
// name and top-level extra fields (without the replan mark, which the
// runner sets); for each new node whose key and type match an old node,
// the old node's id (edges and loop_id follow), and the settings the reply
// format cannot carry: retry policy, enabled flag, extra fields, and the
// timeout when the reply dropped it. It returns the ids it changed, new
// → old.
func adoptVersion(old, nw *workflow.Workflow) map[string]string {
	// The canvas's notes and groups are the person's and no step (the
	// model never saw them): kept, a group with the nodes still there,
	// once the old ids are adopted.
	defer keepAnnotations(old, nw)
	nw.ID = old.ID
	if strings.TrimSpace(old.Name) != "" {
		nw.Name = old.Name
	}
	if old.Format != "" {
		nw.Format = old.Format
	}
	// The goal and its check stay the person's: a replan that dropped or
	// loosened done_when would pass the check by changing it.
	nw.Goal = old.Goal
	if old.DoneWhen != nil {
		dw := *old.DoneWhen
		nw.DoneWhen = &dw
	}
	if len(old.Extra) > 0 {
		nw.Extra = workflow.Extra{}
		for k, v := range old.Extra {
			if k != failure.ReplanExtraKey {
				nw.Extra[k] = append(json.RawMessage(nil), v...)
			}
		}
		if len(nw.Extra) == 0 {
			nw.Extra = nil
		}
	}
	oldByKey := map[string]*workflow.Node{}
	for i := range old.Nodes {
		if k := old.Nodes[i].Key; k != "" {
			oldByKey[k] = &old.Nodes[i]
		}
	}
	// Node ids are fresh uuids, so an old id cannot collide with a new
	// node's; still, never give one id to two nodes.
	taken := map[string]bool{}
	for i := range nw.Nodes {
		taken[nw.Nodes[i].ID] = true
	}
	ids := map[string]string{}
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		o := oldByKey[n.Key]
		if o == nil || o.Type != n.Type || (taken[o.ID] && o.ID != n.ID) {
			continue
		}
		ids[n.ID] = o.ID
		delete(taken, n.ID)
		taken[o.ID] = true
		n.ID = o.ID
		if n.Retry == nil && o.Retry != nil {
			r := *o.Retry
			if o.Retry.Backoff != nil {
				bo := *o.Retry.Backoff
				r.Backoff = &bo
			}
			n.Retry = &r
		}
		if !o.IsEnabled() {
			n.SetEnabled(false)
		}
		if n.TimeoutMs == 0 {
			n.TimeoutMs = o.TimeoutMs
		}
		if n.Extra == nil && len(o.Extra) > 0 {
			n.Extra = replanCloneExtra(o.Extra)
		}
		if n.Params.Extra == nil && len(o.Params.Extra) > 0 {
			n.Params.Extra = replanCloneExtra(o.Params.Extra)
		}
	}
	if len(ids) == 0 {
		return ids
	}
	for i := range nw.Nodes {
		if id, ok := ids[nw.Nodes[i].Params.LoopID]; ok {
			nw.Nodes[i].Params.LoopID = id
		}
	}
	for i := range nw.Edges {
		if id, ok := ids[nw.Edges[i].From]; ok {
			nw.Edges[i].From = id
		}
		if id, ok := ids[nw.Edges[i].To]; ok {
			nw.Edges[i].To = id
		}
	}
	return ids
}

// keepAnnotations copies old's notes and groups into nw, each group with
// only the members nw has.
func keepAnnotations(old, nw *workflow.Workflow) {
	c := old.Clone()
	nw.Notes, nw.Groups = c.Notes, nil
	for _, g := range c.Groups {
		members := g.Nodes[:0]
		for _, id := range g.Nodes {
			if nw.NodeByID(id) != nil {
				members = append(members, id)
			}
		}
		g.Nodes = members
		nw.Groups = append(nw.Groups, g)
	}
}

func replanCloneExtra(e workflow.Extra) workflow.Extra {
	out := make(workflow.Extra, len(e))
	for k, v := range e {
		out[k] = append(json.RawMessage(nil), v...)
	}
	return out
}

// writeCritique is the replan's account of a rejected result: what was
// asked, what the critic said, what it suggests.
func writeCritique(b *strings.Builder, c *failure.Critique) {
	b.WriteString("\n# Goal check (done_when)\n\nEvery step ran, but the result does not meet the workflow's done_when.\n")
	if c.Condition != "" {
		fmt.Fprintf(b, "Condition: %s\n", replanClip(c.Condition, replanMaxError))
	}
	if c.Criteria != "" {
		fmt.Fprintf(b, "Criteria: %s\n", replanClip(c.Criteria, replanMaxError))
	}
	fmt.Fprintf(b, "Critic's feedback (confidence %.0f%%): %s\n", c.Confidence*100, replanClip(c.Feedback, replanMaxOutput))
	if len(c.Suggestions) > 0 {
		b.WriteString("Suggested fixes:\n")
		for _, s := range c.Suggestions {
			fmt.Fprintf(b, "- %s\n", replanClip(s, replanMaxError))
		}
	}
}
