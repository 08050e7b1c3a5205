package approval

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// KindTrigger: a trigger starts the workflow without a person (a signed
// webhook, a watched folder), with inputs taken from what arrives.
const KindTrigger Kind = "trigger"

// TriggersProvenanceKey is the workflow field that records that a model
// wrote or changed the workflow's triggers: they are then reviewed like a
// step that acts.
const TriggersProvenanceKey = "triggers_provenance"

// TriggerKeyPrefix starts the key of a trigger's review item
// ("trigger:/hooks/x", "trigger:inbox/*.csv").
const TriggerKeyPrefix = "trigger:"

func markTriggers(w *workflow.Workflow, p Provenance) {
	setMark(&w.Extra, TriggersProvenanceKey, p)
}

func triggersOf(w *workflow.Workflow) (Provenance, bool) {
	return readMark(w.Extra, TriggersProvenanceKey)
}

// sameTriggers reports whether two lists of triggers say the same.
func sameTriggers(a, b []workflow.Trigger) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if TriggerFingerprint(&a[i]) != TriggerFingerprint(&b[i]) {
			return false
		}
	}
	return true
}

// markTriggersChanged carries the triggers' mark from old when nw's
// triggers are old's, and marks them p when a model changed them.
func markTriggersChanged(old, nw *workflow.Workflow, p Provenance) {
	switch {
	case old != nil && sameTriggers(old.Triggers, nw.Triggers):
		if pv, ok := triggersOf(old); ok {
			markTriggers(nw, pv)
		} else {
			delete(nw.Extra, TriggersProvenanceKey)
		}
	case len(nw.Triggers) > 0:
		markTriggers(nw, p)
	default:
		delete(nw.Extra, TriggersProvenanceKey)
	}
}

// TriggerContent is what approval covers of a trigger: all of it (type,
// path, secret reference, scheme, glob, the inputs it fills and any field
// a later version adds), as an object with sorted keys.
func TriggerContent(t *workflow.Trigger) map[string]any {
	b, err := json.Marshal(t)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil {
		return map[string]any{"trigger": map[string]any{"type": string(t.Type)}}
	}
	return map[string]any{"trigger": m}
}

// TriggerFingerprint identifies a trigger's content.
func TriggerFingerprint(t *workflow.Trigger) string {
	b, err := json.Marshal(TriggerContent(t))
	if err != nil {
		b = []byte(t.Type)
	}
	return Sum(b)
}

// triggerReviews lists w's triggers for review when a model wrote or
// changed them, or the file is to be reviewed: a trigger decides who may
// start the workflow, with what inputs, and weft serve runs only the
// triggers of workflows with nothing waiting.
func triggerReviews(w *workflow.Workflow, sc Scope) []Step {
	if len(w.Triggers) == 0 {
		return nil
	}
	pv, model := triggersOf(w)
	origin, ok := originOf(model, sc)
	if !ok {
		return nil
	}
	out := make([]Step, 0, len(w.Triggers))
	for i := range w.Triggers {
		t := &w.Triggers[i]
		content := TriggerContent(t)
		out = append(out, Step{Key: TriggerKeyPrefix + triggerWhere(t), Name: t.Label(), Kind: KindTrigger,
			Reason: TriggerReason(t), Content: indented(content), Fingerprint: TriggerFingerprint(t), Provenance: pv, Origin: origin})
	}
	return out
}

func triggerWhere(t *workflow.Trigger) string {
	if t.Type == workflow.TriggerFile {
		return t.Glob
	}
	return t.Path
}

// TriggerReason says in words what a trigger does, for the list.
func TriggerReason(t *workflow.Trigger) string {
	var b strings.Builder
	switch t.Type {
	case workflow.TriggerWebhook:
		fmt.Fprintf(&b, "starts the workflow when weft serve receives a request at %s signed (%s) with %s", t.Path, t.Scheme, t.Secret)
	case workflow.TriggerFile:
		fmt.Fprintf(&b, "starts the workflow for each new or changed file matching %s while weft serve runs", t.Glob)
	default:
		fmt.Fprintf(&b, "starts the workflow (a trigger of type %q)", t.Type)
	}
	if len(t.Inputs) > 0 {
		names := make([]string, 0, len(t.Inputs))
		for n := range t.Inputs {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + " from " + t.Inputs[n]
		}
		b.WriteString("; inputs: " + strings.Join(parts, ", "))
	}
	if len(t.Extra) > 0 {
		b.WriteString("; with fields this version of Weft does not know")
	}
	return b.String()
}
