package validate

import (
	"fmt"
	"slices"
	"sort"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Pinned data (issue 12): outputs a person pinned to a step, used by
// development runs instead of running it. A pin must be a JSON object on
// a step node (Tool, AiStep, AiTransform): anything else is an error, so a
// run never runs for real a step its person believes pinned. A pin left
// behind by a deleted node is a warning (it is ignored); fields the step's
// tool does not output, and declared outputs the pin lacks, are warnings:
// the steps after read what is there.
const (
	CodePinnedInvalid = "pinned_invalid"
	CodePinnedOrphan  = "pinned_orphan"
	CodePinnedFields  = "pinned_fields"
)

func (v *validator) checkPinned() {
	if v.w == nil || len(v.w.Pinned) == 0 {
		return
	}
	ids := make([]string, 0, len(v.w.Pinned))
	for id := range v.w.Pinned {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		i, ok := v.idx.lookup(id)
		if !ok {
			v.add(CodePinnedOrphan, SeverityWarning, fmt.Sprintf("Pinned data for the node %s, which the workflow no longer has, is ignored; unpin it to remove it", q(id)), nil)
			continue
		}
		n := &v.nodes[i]
		switch n.Type {
		case workflow.TypeTool, workflow.TypeAiStep, workflow.TypeAiTransform:
		default:
			v.add(CodePinnedInvalid, SeverityError, fmt.Sprintf("%s has pinned data, but only steps (Tool, AiStep, AiTransform) can be pinned; unpin it", v.typed(i)), []int32{i})
			continue
		}
		out, ok := v.w.PinnedOutputs(id)
		if !ok {
			v.add(CodePinnedInvalid, SeverityError, fmt.Sprintf("The pinned data of %s must be a JSON object of its outputs (like {\"stdout\": \"…\"}); fix or unpin it", v.label(i)), []int32{i})
			continue
		}
		known, ok := v.knownFields(n)
		if !ok {
			continue
		}
		var extra, missing []string
		for k := range out {
			if !slices.Contains(known, k) {
				extra = append(extra, q(k))
			}
		}
		if fs, ok := v.declaredOutputs(n); ok {
			for _, f := range fs {
				if _, has := out[f]; !has {
					missing = append(missing, q(f))
				}
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			v.add(CodePinnedFields, SeverityWarning, fmt.Sprintf("The pinned data of %s has %s, which the step does not output (it outputs %s); the steps after can still read it", v.label(i), joinAnd(extra), joinAnd(quoteAll(known))), []int32{i})
		}
		if len(missing) > 0 {
			v.add(CodePinnedFields, SeverityWarning, fmt.Sprintf("The pinned data of %s lacks %s; the steps after read it as empty", v.label(i), joinAnd(missing)), []int32{i})
		}
	}
}

// declaredOutputs are the outputs of the node's own kind (without the
// common success/error fields, which a pin may leave out).
func (v *validator) declaredOutputs(n *workflow.Node) ([]string, bool) {
	all, ok := v.knownFields(n)
	if !ok {
		return nil, false
	}
	common := map[string]bool{}
	for _, f := range tools.CommonOutputs {
		common[f.Name] = true
	}
	var out []string
	for _, f := range all {
		if !common[f] {
			out = append(out, f)
		}
	}
	return out, true
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = q(s)
	}
	return out
}
