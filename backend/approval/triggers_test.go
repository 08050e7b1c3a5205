package approval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func triggerWF(ts ...workflow.Trigger) *workflow.Workflow {
	w := workflow.New("t")
	w.Nodes = []workflow.Node{{ID: "a", Key: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}}}
	w.Triggers = ts
	return w
}

var hook = workflow.Trigger{Type: workflow.TriggerWebhook, Path: "/hooks/a", Secret: "{{secrets.A}}", Scheme: workflow.SchemeGitHub, Inputs: map[string]string{"x": "{{body.x}}"}}

// A trigger is reviewed in a file to review and when a model wrote it; a
// hand-written one in a trusted file is the person's.
func TestTriggersAreReviewed(t *testing.T) {
	w := triggerWF(hook, workflow.Trigger{Type: workflow.TriggerFile, Glob: "inbox/*.csv"})
	if got := Required(w, Scope{}); len(got) != 0 {
		t.Fatalf("hand-written triggers in a trusted file asked about: %+v", got)
	}
	got := Required(w, Scope{File: true})
	if len(got) != 2 || got[0].Kind != KindTrigger || got[0].Key != "trigger:/hooks/a" || got[1].Key != "trigger:inbox/*.csv" || got[0].Origin != OriginFile {
		t.Fatalf("file review: %+v", got)
	}
	if !strings.Contains(got[0].Content, `"{{secrets.A}}"`) || !strings.Contains(got[0].Reason, "/hooks/a") {
		t.Fatalf("content %s reason %s", got[0].Content, got[0].Reason)
	}
	approved := map[string]bool{got[0].Fingerprint: true}
	if p := Pending(w, Scope{File: true}, func(fp string) bool { return approved[fp] }); len(p) != 1 || p[0].Key != "trigger:inbox/*.csv" {
		t.Fatalf("pending %+v", p)
	}

	// A model's change to the triggers marks them; an unchanged list
	// keeps what the old one had.
	nw := w.Clone()
	nw.Triggers[0].Path = "/hooks/b"
	MarkChanged(w, nw, Provenance{Via: ViaPatch})
	if got := Required(nw, Scope{}); len(got) != 2 || got[0].Origin != OriginModel {
		t.Fatalf("model-changed triggers: %+v", got)
	}
	same := nw.Clone()
	MarkChanged(nw, same, Provenance{Via: ViaPatch})
	if _, ok := triggersOf(same); !ok {
		t.Fatal("an unchanged list lost its mark")
	}
	plain := w.Clone()
	MarkChanged(w, plain, Provenance{Via: ViaPatch})
	if _, ok := triggersOf(plain); ok {
		t.Fatal("triggers a model did not change were marked")
	}
}

// Every field of a trigger is content: changing any one, a field a later
// version adds included, changes its fingerprint.
func TestTriggerFingerprintCoversEveryField(t *testing.T) {
	full := hook
	full.Glob = "x"
	base := TriggerFingerprint(&full)
	var m map[string]any
	b, _ := json.Marshal(full)
	_ = json.Unmarshal(b, &m)
	for k := range m {
		mut := map[string]any{}
		for k2, v := range m {
			mut[k2] = v
		}
		switch v := mut[k].(type) {
		case string:
			mut[k] = v + "x"
		case map[string]any:
			mut[k] = map[string]any{"y": "{{body.y}}"}
		}
		var tr workflow.Trigger
		b, _ := json.Marshal(mut)
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatal(err)
		}
		if TriggerFingerprint(&tr) == base {
			t.Errorf("changing %s keeps the fingerprint", k)
		}
	}
	var later workflow.Trigger
	_ = json.Unmarshal([]byte(`{"type":"webhook","path":"/hooks/a","secret":"{{secrets.A}}","scheme":"github","inputs":{"x":"{{body.x}}"},"allow":"anyone"}`), &later)
	if TriggerFingerprint(&later) == TriggerFingerprint(&hook) {
		t.Error("a field a later version adds is not content")
	}
}
