package workflow

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// ProvenanceKey is the node field that records that a model wrote or
// changed the node (package approval reads and writes the mark).
const ProvenanceKey = "provenance"

// ReplanKey is the top-level field that marks a workflow the planner made
// after a failed run (package failure reads and writes it).
const ReplanKey = "weft_replan"

// legacyReplanMark is the per-step mark a legacy replanned file's steps
// get: versions of Weft before per-step provenance marked only the
// workflow, and gated every step of it.
var legacyReplanMark = json.RawMessage(`{"source":"model","via":"replan"}`)

// markLegacyReplan converts a file with the workflow-level replan mark and
// no step marked (saved by a version of Weft before per-step provenance)
// to per-step marks, so its steps stay gated whatever is added to it
// later: one harmless node added by the assistant used to end the legacy
// rule and with it every step's gate.
func (w *Workflow) markLegacyReplan() []string {
	raw, ok := w.Extra[ReplanKey]
	if !ok || len(w.Nodes) == 0 || gjson.GetBytes(raw, "per_step").Bool() {
		return nil // not replanned, or marked per step by this version
	}
	for i := range w.Nodes {
		if _, ok := w.Nodes[i].Extra[ProvenanceKey]; ok {
			return nil
		}
	}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.Extra == nil {
			n.Extra = Extra{}
		}
		n.Extra[ProvenanceKey] = legacyReplanMark
	}
	return []string{"a replanned workflow saved by an earlier Weft: every step is marked as written by a model (provenance), as that version counted them"}
}
