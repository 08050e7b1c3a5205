package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every run records who started it in summary.json: manual unless the
// caller says otherwise.
func TestRunRecordsItsSource(t *testing.T) {
	for _, tc := range []struct {
		given, want RunSource
	}{{"", RunByPerson}, {RunByPerson, RunByPerson}, {RunBySchedule, RunBySchedule}} {
		e := newEnv(t)
		e.opts.Source = tc.given
		res := e.run(parse(t, `"nodes":[{"id":"a","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]`))
		if res.Source != tc.want {
			t.Errorf("Source %q given: result says %q, want %q", tc.given, res.Source, tc.want)
		}
		b, err := os.ReadFile(filepath.Join(res.Dir, summaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Source RunSource `json:"source"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || doc.Source != tc.want {
			t.Errorf("Source %q given: summary.json says %q (%v), want %q", tc.given, doc.Source, err, tc.want)
		}
	}
}

// A refused run is logged like any run (events, workflow copy, summary
// with its outcome and source) and runs nothing.
func TestRefuseLogsARunThatRanNothing(t *testing.T) {
	e := newEnv(t)
	e.opts.Source = RunBySchedule
	marker := filepath.Join(e.dir, "ran")
	w := parse(t, `"nodes":[{"id":"a","key":"touch","type":"Tool","params":{"tool":"write_file","arguments":{"path":"`+marker+`","content":"x"}}}],"edges":[]`)
	res, err := New(e.opts).Refuse(w, OutcomeNeedsReview, "the file changed since its schedule was made")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a step ran")
	}
	if res.Outcome != OutcomeNeedsReview || res.Source != RunBySchedule || filepath.Base(res.Dir) != res.RunID {
		t.Fatalf("result %+v", res)
	}
	var doc struct {
		RunID   string    `json:"run_id"`
		Outcome Outcome   `json:"outcome"`
		Error   string    `json:"error"`
		Source  RunSource `json:"source"`
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, summaryFile))
	if err := json.Unmarshal(b, &doc); err != nil || doc.Outcome != OutcomeNeedsReview || doc.Source != RunBySchedule || doc.RunID != res.RunID || doc.Error == "" {
		t.Fatalf("summary.json %s (%v)", b, err)
	}
	evs := readEvents(t, res.Dir)
	if len(evs) != 2 || evs[0].Type != EvRunStarted || evs[1].Type != EvRunFinished || evs[1].Outcome != OutcomeNeedsReview {
		t.Fatalf("events %+v", evs)
	}
	if got := e.rec.of(EvRunFinished); len(got) != 1 {
		t.Fatalf("OnEvent heard %+v", e.rec.all())
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "workflow.json")); err != nil {
		t.Fatal(err)
	}
}
