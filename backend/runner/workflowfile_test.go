package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Every writer of summary.json (Run, Refuse, Recorder) records the name
// of the workflow's file in its folder, and none for an unsaved workflow:
// the run history tells two files with one id apart by it.
func TestSummaryRecordsTheWorkflowFile(t *testing.T) {
	const nodes = `"nodes":[{"id":"a","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]`
	for _, file := range []string{"flow.json", ""} {
		e := newEnv(t)
		if file != "" {
			e.opts.WorkflowPath = filepath.Join(e.dir, file)
		}
		w := parse(t, nodes)
		var dirs []string
		dirs = append(dirs, e.run(w).Dir)
		res, err := New(e.opts).Refuse(w, OutcomeNeedsReview, "changed")
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, res.Dir)
		rec, err := NewRecorder(e.opts, w, e.opts.WorkflowPath, e.opts.RunsDir, "weft-w-1")
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Finish(&Result{RunID: "weft-w-1", Outcome: OutcomeSucceeded, Started: time.Now(), Finished: time.Now()}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, rec.Dir())
		for i, dir := range dirs {
			b, err := os.ReadFile(filepath.Join(dir, summaryFile))
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			got, has := doc["workflow_file"]
			if file == "" && has || file != "" && got != file {
				t.Errorf("writer %d, file %q: summary.json's workflow_file is %v (present %v)", i, file, got, has)
			}
		}
	}
}
