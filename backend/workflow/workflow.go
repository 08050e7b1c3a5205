// Package workflow holds the weft/v1 workflow model: nodes, edges and their
// JSON form. It knows nothing about validation or execution.
package workflow

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Format is the file format tag every saved workflow carries.
const Format = "weft/v1"

// DefaultMaxIterations applies to a Loop whose max_iterations is absent.
const DefaultMaxIterations = 100

// NodeType names what a node does.
type NodeType string

const (
	TypeTool        NodeType = "Tool"
	TypeAiStep      NodeType = "AiStep"
	TypeAiTransform NodeType = "AiTransform"
	TypeIf          NodeType = "If"
	TypeSwitch      NodeType = "Switch"
	TypeLoop        NodeType = "Loop"
	TypeEndLoop     NodeType = "EndLoop"
	// TypeWorkflow runs another workflow file (params.path) with inputs
	// (params.inputs): a sub-workflow.
	TypeWorkflow NodeType = "Workflow"
)

// TypeGoalCheck is no node a file may hold (Valid says no): it is the
// type of the stand-in for a workflow's done_when where a run speaks of a
// node (flow.GoalCheckNode's events and escalations), named here so that
// the frontend's types list it among the values a node type has.
const TypeGoalCheck NodeType = "DoneWhen"

// NodeTypes lists every known node type in palette order.
var NodeTypes = []NodeType{TypeTool, TypeAiStep, TypeAiTransform, TypeWorkflow, TypeIf, TypeSwitch, TypeLoop, TypeEndLoop}

// IsStep reports a type that acts (Tool, AI, Workflow): the ones whose
// nodes run attempts, retry, and take on_error.
func (t NodeType) IsStep() bool {
	return t == TypeTool || t == TypeAiStep || t == TypeAiTransform || t == TypeWorkflow
}

// Valid reports whether t is a known node type.
func (t NodeType) Valid() bool {
	for _, k := range NodeTypes {
		if k == t {
			return true
		}
	}
	return false
}

// OutputType labels an edge leaving a control-flow node.
type OutputType string

const (
	OutIfTrue        OutputType = "IfTrue"
	OutIfFalse       OutputType = "IfFalse"
	OutLoopBody      OutputType = "LoopBody"
	OutLoopDone      OutputType = "LoopDone"
	OutSwitchCase    OutputType = "SwitchCase"
	OutSwitchDefault OutputType = "SwitchDefault"
	// OutError leaves a step node whose on_error is "branch": the path
	// taken when the step failed.
	OutError OutputType = "Error"
)

// OutputTypes lists every known output label.
var OutputTypes = []OutputType{OutIfTrue, OutIfFalse, OutLoopBody, OutLoopDone, OutSwitchCase, OutSwitchDefault, OutError}

// Valid reports whether o is a known output label.
func (o OutputType) Valid() bool {
	for _, k := range OutputTypes {
		if k == o {
			return true
		}
	}
	return false
}

// Position is a node's place on the canvas.
type Position struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Backoff shapes the wait between run-time retries.
type Backoff struct {
	InitialMs  int     `json:"initial_ms,omitempty"`
	Multiplier float64 `json:"multiplier,omitempty"`
	MaxMs      int     `json:"max_ms,omitempty"`
	Jitter     float64 `json:"jitter,omitempty"`
}

// Retry is a node's run-time retry policy.
type Retry struct {
	MaxAttempts int      `json:"max_attempts,omitempty"`
	Backoff     *Backoff `json:"backoff,omitempty"`
}

// SwitchCase is one named branch of a Switch.
type SwitchCase struct {
	Name      string `json:"name"`
	Condition string `json:"condition"`
}

// Params carries the type-specific settings of a node. Only the fields of the
// node's type are meaningful; the rest stay empty and are omitted on save.
type Params struct {
	// Tool
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	// AiStep
	Prompt       string   `json:"prompt,omitempty"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty"`
	// AiTransform
	Kind   string   `json:"kind,omitempty"`
	Input  string   `json:"input,omitempty"`
	Labels []string `json:"labels,omitempty"`
	// If
	Condition string `json:"condition,omitempty"`
	// Switch
	Cases []SwitchCase `json:"cases,omitempty"`
	// Loop
	ExitCondition string `json:"exit_condition,omitempty"`
	MaxIterations *int   `json:"max_iterations,omitempty"`
	// EndLoop
	LoopID string `json:"loop_id,omitempty"`
	// Workflow: the file to run, relative to this workflow's folder (a
	// literal, never a template), and the values of its declared inputs
	// (templates allowed, filled in as data).
	Path   string         `json:"path,omitempty"`
	Inputs map[string]any `json:"inputs,omitempty"`

	Extra Extra `json:"-"`
}

// OnError says what a step node's failure does once its retries are spent
// (n8n's onError, Dify's fail branch).
type OnError string

const (
	// OnErrorStop (the default, also when absent) escalates to the user,
	// or ends the run when nobody can answer.
	OnErrorStop OnError = "stop"
	// OnErrorContinue records the failure and goes on along the normal
	// path with key.success false and key.error set.
	OnErrorContinue OnError = "continue"
	// OnErrorBranch goes on along the node's Error edge, with the failure
	// record in key.error_record.
	OnErrorBranch OnError = "branch"
)

// OnErrorModes lists the valid on_error values.
var OnErrorModes = []OnError{OnErrorStop, OnErrorContinue, OnErrorBranch}

// DoneWhen states when a run (or a step) has reached its goal, beyond its
// steps succeeding (seed 002's critic). Condition is an expression over
// node outputs, checked without a model; Criteria is a sentence the model
// judges against the goal, the plan and the step results. When both are
// set both must hold.
type DoneWhen struct {
	Condition string `json:"condition,omitempty"`
	Criteria  string `json:"criteria,omitempty"`
}

// IsZero reports whether nothing is stated.
func (d *DoneWhen) IsZero() bool {
	return d == nil || (strings.TrimSpace(d.Condition) == "" && strings.TrimSpace(d.Criteria) == "")
}

// Node is one step of a workflow.
type Node struct {
	ID        string    `json:"id"`
	Key       string    `json:"key"`
	Name      string    `json:"name"`
	Type      NodeType  `json:"type"`
	Params    Params    `json:"params"`
	Position  *Position `json:"position,omitempty"`
	Enabled   *bool     `json:"enabled,omitempty"`
	TimeoutMs int       `json:"timeout_ms,omitempty"`
	Retry     *Retry    `json:"retry,omitempty"`
	Verify    string    `json:"verify,omitempty"`
	// OnError applies to step nodes (NodeType.IsStep); "" is stop.
	OnError OnError `json:"on_error,omitempty"`
	// DoneWhen is checked after the step succeeded (and after verify); a
	// step whose goal does not hold fails with type rejected.
	DoneWhen *DoneWhen `json:"done_when,omitempty"`

	Extra Extra `json:"-"`
}

// ErrorMode returns the node's on_error, with the default applied.
func (n *Node) ErrorMode() OnError {
	if n.OnError == "" {
		return OnErrorStop
	}
	return n.OnError
}

// IsEnabled reports whether the node runs; absent means enabled.
func (n *Node) IsEnabled() bool { return n.Enabled == nil || *n.Enabled }

// SetEnabled records the enabled flag, dropping it when it is the default.
func (n *Node) SetEnabled(v bool) {
	if v {
		n.Enabled = nil
		return
	}
	f := false
	n.Enabled = &f
}

// LoopMax returns the Loop's iteration cap, applying the default.
func (n *Node) LoopMax() int {
	if n.Params.MaxIterations == nil {
		return DefaultMaxIterations
	}
	return *n.Params.MaxIterations
}

// Label returns the name used in user-facing messages.
func (n *Node) Label() string {
	if n.Name != "" {
		return n.Name
	}
	if n.Key != "" {
		return n.Key
	}
	return n.ID
}

// EdgeOutput is the label of an edge leaving a control-flow node.
type EdgeOutput struct {
	Type OutputType `json:"type"`
	Name string     `json:"name,omitempty"`
}

// String renders the label the way messages show it.
func (o *EdgeOutput) String() string {
	if o == nil {
		return ""
	}
	if o.Type == OutSwitchCase {
		return string(o.Type) + "(" + strconv.Quote(o.Name) + ")"
	}
	return string(o.Type)
}

// Edge connects two nodes by id.
type Edge struct {
	From   string      `json:"from"`
	To     string      `json:"to"`
	Output *EdgeOutput `json:"output,omitempty"`

	Extra Extra `json:"-"`
}

// SameAs reports whether two edges connect the same nodes with the same label.
func (e Edge) SameAs(o Edge) bool {
	if e.From != o.From || e.To != o.To {
		return false
	}
	if (e.Output == nil) != (o.Output == nil) {
		return false
	}
	if e.Output == nil {
		return true
	}
	return e.Output.Type == o.Output.Type && e.Output.Name == o.Output.Name
}

// Workflow is a whole weft/v1 document.
type Workflow struct {
	Format string `json:"format"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	// Goal is what the workflow is for, in the user's words; the planner
	// sets it and the done_when critic judges against it.
	Goal string `json:"goal,omitempty"`
	// DoneWhen is checked after every step ran: a run whose goal does not
	// hold is not a success.
	DoneWhen *DoneWhen `json:"done_when,omitempty"`
	Nodes    []Node    `json:"nodes"`
	Edges    []Edge    `json:"edges"`
	// Pinned holds outputs a person pinned, by node id (n8n's pinned
	// data): a development run in the editor uses them instead of running
	// the step; a headless run ignores them unless asked. Each value
	// should be a JSON object (validate reports any other); it is data for
	// the steps after, never run.
	Pinned map[string]any `json:"pinned,omitempty"`
	// Inputs declares what a run is given (package inputs): a JSON
	// Schema object whose properties are the inputs, read by steps as
	// {{inputs.NAME}}. Kept as written (property order is the form's).
	Inputs json.RawMessage `json:"inputs,omitempty"`
	// Triggers start runs without a person (weft serve): a signed
	// webhook, a watched folder. Content that acts: reviewed like a step.
	Triggers []Trigger `json:"triggers,omitempty"`
	// Notes and Groups annotate the canvas (sticky notes, frames around
	// nodes): never run, never reviewed (annotations.go).
	Notes  []Note  `json:"notes,omitempty"`
	Groups []Group `json:"groups,omitempty"`

	Extra Extra `json:"-"`
}

// PinnedOutputs returns the pinned outputs of the node, and whether it has
// any usable ones (a JSON object).
func (w *Workflow) PinnedOutputs(id string) (map[string]any, bool) {
	m, ok := w.Pinned[id].(map[string]any)
	return m, ok
}

// New returns an empty workflow with a fresh id.
func New(name string) *Workflow {
	return &Workflow{Format: Format, ID: NewID(), Name: name, Nodes: []Node{}, Edges: []Edge{}}
}

// NodeByID returns the node with the id, or nil.
func (w *Workflow) NodeByID(id string) *Node {
	for i := range w.Nodes {
		if w.Nodes[i].ID == id {
			return &w.Nodes[i]
		}
	}
	return nil
}

// NodeByKey returns the node with the key, or nil.
func (w *Workflow) NodeByKey(key string) *Node {
	for i := range w.Nodes {
		if w.Nodes[i].Key == key {
			return &w.Nodes[i]
		}
	}
	return nil
}

// Clone returns a deep copy, so patches and previews never alias the original.
func (w *Workflow) Clone() *Workflow {
	b, err := Marshal(w)
	if err != nil {
		panic("workflow: clone marshal: " + err.Error()) // only unmarshalable argument values (e.g. NaN) get here
	}
	c, _, err := Parse(b)
	if err != nil {
		panic("workflow: clone parse: " + err.Error())
	}
	return c
}

var keyRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ReservedKeys are the words the condition language reads as operators or
// literals: a node keyed "if" or "in" could never be referred to.
// frontend/src/graph/ids.ts keeps the same list (a test compares them).
var ReservedKeys = []string{"true", "false", "nil", "not", "in", "and", "or", "matches", "contains", "let", "if", "else"}

// ReservedKey reports whether k is one of ReservedKeys.
func ReservedKey(k string) bool {
	for _, r := range ReservedKeys {
		if k == r {
			return true
		}
	}
	return false
}

// ValidKey reports whether k can name a node's outputs in expressions.
func ValidKey(k string) bool { return len(k) <= 64 && keyRe.MatchString(k) }

// KeyFromName derives an identifier from a display name: "Check file" →
// check_file, "If" → if_step (never a reserved word).
func KeyFromName(name string) string {
	var b strings.Builder
	lastUnderscore := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			lastUnderscore = false
		default:
			if !lastUnderscore && b.Len() > 0 {
				b.WriteByte('_')
				lastUnderscore = true
			}
		}
		if b.Len() >= 48 {
			break
		}
	}
	k := strings.TrimRight(b.String(), "_")
	if k == "" {
		return "node"
	}
	if k[0] >= '0' && k[0] <= '9' {
		k = "n_" + k
	}
	if ReservedKey(k) || ReferenceRoot(k) {
		k += "_step" // "If" → if_step: conditions could not name "if"
	}
	return k
}

// UniqueKey returns base, or base_2, base_3… so that it is not in taken.
func UniqueKey(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for i := 2; ; i++ {
		k := base + "_" + strconv.Itoa(i)
		if !taken[k] {
			return k
		}
	}
}

// FillKeys gives every node without a key one derived from its name (or
// type), unique within the workflow. It returns the ids of the nodes changed.
func (w *Workflow) FillKeys() []string {
	taken := map[string]bool{}
	for _, n := range w.Nodes {
		if n.Key != "" {
			taken[n.Key] = true
		}
	}
	var changed []string
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.Key != "" {
			continue
		}
		base := n.Name
		if base == "" {
			base = string(n.Type)
		}
		n.Key = UniqueKey(KeyFromName(base), taken)
		taken[n.Key] = true
		changed = append(changed, n.ID)
	}
	return changed
}
