// Package planner turns a model's reply into a workflow. This file holds the
// local stages, which call no model: extract the JSON from the reply, repair
// it, decode it leniently, apply feature flags, map steps to nodes, build and
// infer control-flow edges, and lay the graph out. Each stage reports what it
// changed as warnings tagged with the stage (and node, where there is one);
// a stage that cannot go on returns a *StageError, which the re-ask loop
// quotes back to the model.
package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Stage names, as they appear in Warning.Stage and StageError.Stage.
const (
	StageTruncation = "truncation"
	StageExtract    = "extract"
	StageRepair     = "repair"
	StageDecode     = "decode"
	StageAlign      = "align"
	StageFeatures   = "features"
	StageMap        = "map"
	StageEdges      = "edges"
	StageInfer      = "infer"
	StageLayout     = "layout"
	StageValidate   = "validate"
	StageReask      = "reask"
)

// Warning is something a stage fixed, guessed or dropped.
type Warning struct {
	Stage   string `json:"stage"` // "truncation","extract","repair","decode","align","features","map","edges","infer","layout","validate","reask"
	Message string `json:"message"`
	NodeID  string `json:"node_id,omitempty"`
	// lost is, for a truncation warning, what the reply lost there:
	// lostEdges (its wiring) or steps (anything else); ReadReply counts
	// it by this, never by the message's words.
	lost string
}

// lostEdges marks a truncation warning about the reply's edges list.
const lostEdges = "edges"

// truncated is a truncation warning about the list named list.
func truncated(list, msg string) Warning {
	w := Warning{Stage: StageTruncation, Message: msg}
	if list == lostEdges {
		w.lost = lostEdges
	}
	return w
}

// String renders the warning as "stage: message".
func (w Warning) String() string { return w.Stage + ": " + w.Message }

// StageError is a fatal failure of one stage; it is what the re-ask feedback quotes.
type StageError struct {
	Stage        string
	Msg          string
	Line, Column int    // for JSON errors, 1-based, in the extracted JSON text
	Path         string // item path for item errors, e.g. "steps[3]" or "edges[2].output"
	// Near is the reply's text where the error is (the line, cut), for a
	// re-ask, which does not send the reply back.
	Near string
}

func (e *StageError) Error() string {
	var b strings.Builder
	b.WriteString(e.Stage)
	b.WriteString(": ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Features says which optional step types the planner may use.
type Features struct{ AllowAITransforms, AllowAgentSteps bool }

// ParseOptions configures ParseOutput.
type ParseOptions struct {
	Features Features
	// Catalog lists the tools Tool steps may call; nil skips the tool check.
	Catalog *tools.Catalog
}

// ParseOutput runs every local stage on a model reply. On a fatal stage
// failure it returns a *StageError (and the warnings so far); otherwise a
// workflow (format weft/v1, fresh id, nodes with ids/keys/names/positions)
// plus all warnings.
func ParseOutput(text string, opts ParseOptions) (*workflow.Workflow, []Warning, error) {
	return ParseOutputContext(context.Background(), text, opts)
}

// ParseOutputContext is ParseOutput whose alignment stage, which runs
// only when the reply cannot be read as written, also stops at ctx's
// deadline (it has a time budget of its own besides).
func ParseOutputContext(ctx context.Context, text string, opts ParseOptions) (*workflow.Workflow, []Warning, error) {
	plan, warnings, decoded, err := readPlan(text)
	if err != nil {
		// The reply cannot be read as written: search it for the best
		// reading as a plan (align.go).
		best, aws, aerr := alignReply(ctx, text, opts.Catalog)
		switch {
		case aerr != nil:
			return nil, append(warnings, aws...), aerr
		case best == nil:
			return nil, append(warnings, aws...), err
		}
		// The first reading's warnings were about a reading that failed,
		// but for the reasoning it removed, which the alignment removed
		// too.
		var kept []Warning
		for _, w := range warnings {
			if w.Stage == StageExtract && strings.Contains(w.Message, "reasoning") {
				kept = append(kept, w)
			}
		}
		warnings = append(append(kept, Warning{Stage: StageAlign, Message: "the reply could not be read as written (" + err.Error() + ")"}), aws...)
		plan, decoded = best.plan, span{len(warnings), len(best.ws)}
		warnings = append(warnings, best.ws...)
	}

	warnings = append(warnings, ApplyFeatures(plan, opts.Features)...)
	if len(plan.Steps) == 0 {
		return nil, warnings, &StageError{Stage: StageFeatures,
			Msg: "no steps are left after removing the step types that are disabled (AiStep/AiTransform)"}
	}

	w, ws := MapPlan(plan, opts.Catalog)
	warnings = append(warnings, ws...)
	// Decode warnings about a step now know its node.
	plan.attachNodeIDs(warnings[decoded.start : decoded.start+decoded.n])

	warnings = append(warnings, BuildEdges(plan, w)...)
	warnings = append(warnings, InferControlFlowEdges(w)...)
	Layout(w)
	return w, warnings, nil
}

// readPlan is the reading of the reply as written: extract the JSON,
// repair it, decode it. It returns the plan, all warnings, and where the
// decoder's warnings are among them.
func readPlan(text string) (*Plan, []Warning, span, error) {
	var decoded span
	var warnings []Warning

	js, ws, err := ExtractJSON(text)
	warnings = append(warnings, ws...)
	if err != nil {
		return nil, warnings, decoded, err
	}
	if slices.ContainsFunc(ws, func(w Warning) bool { return strings.HasPrefix(w.Message, "the reply holds ") }) {
		// Several blocks, one taken: when each is a step, that one is a
		// fragment; the alignment stage reads them all.
		if n := separateSteps(text); n > 1 {
			return nil, warnings, decoded, &StageError{Stage: StageExtract,
				Msg: fmt.Sprintf("the reply holds %d separate JSON values that each look like a step, not one plan", n)}
		}
	}

	fixed, ws, cutOff, err := repairJSON(js)
	warnings = append(warnings, ws...)
	if err != nil {
		return nil, warnings, decoded, err
	}
	// A reply cut off mid-item: the repair closed the brackets, but the
	// last item may hold half a value. Remember which, to drop it.
	var cut truncation
	if cutOff {
		cut = findTruncation(js)
	}
	// "..." among the items of a list stands for items the reply left
	// out: a fragment, like a cut (counted as left out by ReadReply).
	if fixed != js && strings.Contains(js, "...") {
		if list := lexJSONish(js).elided; list != "" {
			warnings = append(warnings, truncated(list, fmt.Sprintf(
				`the reply writes "..." among the items of its %s list: what it stands for is not in the reply`, list)))
		}
	}

	decoded.start = len(warnings)
	plan, ws, err := decodePlan(fixed) // RepairJSON returns valid JSON
	warnings = append(warnings, ws...)
	decoded.n = len(ws)
	if err != nil {
		return nil, warnings, decoded, err
	}
	if cut.container != "" {
		warnings = append(warnings, plan.dropTruncated(cut)...)
		if len(plan.Steps) == 0 {
			return nil, warnings, decoded, &StageError{Stage: StageDecode, Path: cut.container,
				Msg: "the reply was cut off inside the only step; no complete step is left"}
		}
	}
	return plan, warnings, decoded, nil
}

// span is a run of warnings: from start, n of them.
type span struct{ start, n int }

// WarningsOf returns the messages of the warnings of one stage.
func WarningsOf(ws []Warning, stage string) []string {
	var out []string
	for _, w := range ws {
		if w.Stage == stage {
			out = append(out, w.Message)
		}
	}
	return out
}
