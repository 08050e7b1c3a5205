package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/settings"
)

// A run recorded from another engine reads like a local one: events,
// workflow copy and summary in its folder, secrets hidden.
func TestRecorder(t *testing.T) {
	dir := t.TempDir()
	w := parse(t, chainWF)
	s := settings.Defaults()
	s.LLM.APIKey = "sk-rec-0123456789abcdef"
	rec, err := NewRecorder(Options{Settings: s}, w, filepath.Join(dir, "flow.json"), "", "weft-w-1")
	if err != nil {
		t.Fatal(err)
	}
	rec.Event(Event{Seq: 7, Type: EvRunStarted, Message: "started"})
	if shown := rec.Event(Event{Seq: 9, Type: EvLog, NodeID: "b", Message: "key sk-rec-0123456789abcdef"}); strings.Contains(shown.Message, "sk-rec") {
		t.Errorf("the event returned for showing has the secret: %q", shown.Message)
	}
	res := &Result{RunID: "weft-w-1", Outcome: OutcomeSucceeded, Outputs: map[string]any{"b": map[string]any{"stdout": "sk-rec-0123456789abcdef"}}, Started: time.Now(), Finished: time.Now()}
	if err := rec.Finish(res); err != nil {
		t.Fatal(err)
	}
	if res.Outputs["b"].(map[string]any)["stdout"] != "sk-rec-0123456789abcdef" {
		t.Error("Finish changed the caller's result")
	}
	runDir := rec.Dir()
	if !runIDRe.MatchString(filepath.Base(runDir)) || filepath.Dir(runDir) != filepath.Join(dir, ".weft", "runs") {
		t.Fatalf("run folder %s", runDir)
	}
	evs := readEvents(t, runDir)
	if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || strings.Contains(evs[1].Message, "sk-rec") {
		t.Fatalf("events %+v", evs)
	}
	if b, _ := os.ReadFile(filepath.Join(runDir, "summary.json")); !strings.Contains(string(b), `"run_id": "weft-w-1"`) || strings.Contains(string(b), "sk-rec") {
		t.Errorf("summary.json: %s", b)
	}
	for _, f := range []string{"summary.json", "workflow.json"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Error(err)
		}
	}
}
