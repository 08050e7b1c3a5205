package devserver

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// Sub-workflows through the same service call on both engines: the
// parent's events, outputs and end are the same (run ids aside), the
// child's run is logged beside its own file on both, linked both ways
// (the parent's event and SubRuns, the child's Parent), its input stays
// data, a child's escalation reaches whoever answers the parent's, and a
// child that cannot start (not approved, a cycle, no file) fails the step
// the same way on both, starting nothing.
func TestEngineContractSubflow(t *testing.T) {
	_, st, _ := temporalSetup(t, "weft-contract-subflow")
	st.Run.DefaultRetries = 0
	svc := newService(&st)
	shared := filepath.Join(t.TempDir(), "shared")
	trustTestFolders(t, shared)
	// Not beneath a trusted folder (the test's temp folders are): its
	// content waits for review.
	untrusted, err := os.MkdirTemp("", "weft-untrusted-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(untrusted) })
	for _, d := range []string{shared, untrusted} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(dir, name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"format":"weft/v1","id":"`+strings.TrimSuffix(name, ".weft.json")+`","name":"`+name+`",`+body+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	child := write(shared, "child.weft.json", `"inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
 "nodes":[{"id":"e","key":"echo","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}}"}}}],"edges":[]`)
	// The grandchild's step fails once: the escalation is the grandchild's,
	// answered with retry by whoever answers the outermost run.
	grand := write(shared, "grand.weft.json", `"nodes":[{"id":"g","key":"flaky","type":"Tool","retry":{"max_attempts":1},
 "params":{"tool":"run_command","arguments":{"command":"test -e seen || { touch seen; exit 3; }; echo grand"}}}],"edges":[]`)
	middle := write(shared, "middle.weft.json", `"nodes":[{"id":"m","key":"down","type":"Workflow","params":{"path":"grand.weft.json"}}],"edges":[]`)
	acts := write(untrusted, "acts.weft.json", `"nodes":[{"id":"a","key":"mark","type":"Tool","params":{"tool":"write_file","arguments":{"path":"MARK","content":"x"}}}],"edges":[]`)
	parent := func(params, extra string) string {
		msg := "{{sub.outcome}} {{sub.outputs}}"
		if extra != "" {
			msg = "{{sub.error}}"
		}
		return `{"format":"weft/v1","id":"parent","name":"parent","nodes":[
 {"id":"s","key":"sub","type":"Workflow","params":{` + params + `}` + extra + `},
 {"id":"l","key":"said","type":"Tool","params":{"tool":"log","arguments":{"message":"` + msg + `"}}}],
 "edges":[{"from":"s","to":"l"}]}`
	}
	retry := runner.Response{Action: runner.ActRetry}
	cases := []struct {
		tc       contractCase
		children []string // the files whose runs are linked, in order
		ok       bool
		fails    string // what the step's failure says, when it fails
	}{
		{tc: contractCase{name: "inputs-as-data", doc: parent(`"path":"`+child+`","inputs":{"name":"a; touch MARK"}`, "")}, children: []string{child}, ok: true},
		{tc: contractCase{name: "grandchild-escalates", doc: parent(`"path":"`+middle+`"`, ""), answers: []runner.Response{retry}}, children: []string{middle, grand}, ok: true},
		{tc: contractCase{name: "not-approved", doc: parent(`"path":"`+acts+`"`, `,"on_error":"continue"`)}, fails: "weft approve"},
		{tc: contractCase{name: "cycle", doc: parent(`"path":"flow.weft.json"`, `,"on_error":"continue"`)}, fails: "in a cycle"},
		{tc: contractCase{name: "no-file", doc: parent(`"path":"none.weft.json"`, `,"on_error":"continue"`)}, fails: "could not be read"},
	}
	norm := func(s string) string { return regexpRunIDs.ReplaceAllString(s, "${1}ID") }
	for _, c := range cases {
		t.Run(c.tc.name, func(t *testing.T) {
			var runs [2]engineRun
			for i, engine := range []string{"local", "temporal"} {
				os.Remove(filepath.Join(shared, "seen"))
				runs[i] = runOnEngine(t, svc, engine, c.tc)
				r := runs[i]
				if r.err != "" {
					t.Fatalf("%s refused: %s", engine, r.err)
				}
				want := `"Outcome":"partial"` // the failure handled by on_error
				if c.ok {
					want = `"Outcome":"succeeded"`
				}
				if !strings.Contains(r.finished, want) || !strings.Contains(r.outputs, c.fails) || c.ok == strings.Contains(r.outputs, `"success":false`) {
					t.Fatalf("%s: %s\n%s", engine, r.finished, r.outputs)
				}
				// The linked runs: one event each, in order, and each
				// child's run in its own file's history, naming its caller.
				var links []string
				for _, e := range r.events {
					if m := regexp.MustCompile(`"sub_run":\{"run_id":"([^"]*)","file":"([^"]*)"`).FindStringSubmatch(e); m != nil {
						links = append(links, m[2])
					}
				}
				if len(links) != min(len(c.children), 1) {
					t.Errorf("%s: links in the parent's events %v, want the first of %v", engine, links, c.children)
				}
				for _, f := range c.children {
					h, err := svc.RunHistory(f, strings.TrimSuffix(filepath.Base(f), ".weft.json"))
					if err != nil || len(h.Runs) == 0 {
						t.Fatalf("%s: no run of %s in its history: %v %+v", engine, filepath.Base(f), err, h)
					}
					newest := h.Runs[0]
					if newest.Parent == nil || newest.Parent.NodeKey == "" || newest.Outcome != runner.OutcomeSucceeded {
						t.Errorf("%s: the run of %s names no caller or failed: %+v", engine, filepath.Base(f), newest)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(shared, "MARK")); err == nil {
				t.Error("an input ran as code")
			}
			if _, err := os.Stat(filepath.Join(untrusted, "MARK")); err == nil {
				t.Error("a sub-workflow that was not approved acted")
			}
			local, remote := runs[0], runs[1]
			if a, b := norm(strings.Join(local.events, "\n")), norm(strings.Join(remote.events, "\n")); a != b {
				t.Errorf("the engines' events differ:\nlocal:\n%s\ntemporal:\n%s", a, b)
			}
			if norm(local.outputs) != norm(remote.outputs) || norm(local.finished) != norm(remote.finished) {
				t.Errorf("the engines' ends differ:\nlocal:    %s %s\ntemporal: %s %s", local.finished, local.outputs, remote.finished, remote.outputs)
			}
		})
	}
}

// regexpRunIDs finds the run ids in a run's events and outputs (a local
// run's and a Temporal run's differ), to compare the rest.
var regexpRunIDs = regexp.MustCompile(`(as run |\(run |"run_id\\*":\\*")[^ )"\\]+`)

// writeDoc writes a workflow file.
func writeDoc(t *testing.T, path, doc string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Stopping a run stops the sub-workflow its step waits for, on both
// engines: the parent ends canceled, and so does the child's own run (in
// its history here, on the service on Temporal).
func TestSubflowStopCancelsChild(t *testing.T) {
	_, st, _ := temporalSetup(t, "weft-subflow-stop")
	svc := newService(&st)
	dir := filepath.Join(t.TempDir(), "w")
	trustTestFolders(t, dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "child.weft.json"), []byte(`{"format":"weft/v1","id":"child","name":"child","nodes":[
 {"id":"c","key":"slow","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch started; sleep 30"}}}],"edges":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := wf.Parse([]byte(`{"format":"weft/v1","id":"stopper","name":"stopper","nodes":[
 {"id":"s","key":"sub","type":"Workflow","params":{"path":"child.weft.json"}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "stopper.weft.json")
	if err := wf.Save(path, w); err != nil {
		t.Fatal(err)
	}
	eng, _, err := svc.TemporalEngine(st.Engine.Temporal)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Client.Close()
	for _, engine := range []string{"local", "temporal"} {
		os.Remove(filepath.Join(dir, "started"))
		fin := make(chan *service.Finished, 1)
		res, err := svc.Start(context.Background(), service.StartRequest{Workflow: w, Path: path, Engine: engine,
			Sink: service.SinkFunc(func(e service.Event) {
				if e.Kind == service.KindFinished {
					fin <- e.Finished
				}
			})})
		if err != nil || !res.Started {
			t.Fatalf("%s: %+v %v", engine, res, err)
		}
		waitUntil(t, engine+": the child's step started", func() bool {
			_, err := os.Stat(filepath.Join(dir, "started"))
			return err == nil
		})
		if !svc.Stop(res.RunID) {
			t.Fatalf("%s: Stop found no run %s", engine, res.RunID)
		}
		select {
		case f := <-fin:
			if f.Outcome != runner.OutcomeCanceled {
				t.Errorf("%s: the parent ended %s: %s", engine, f.Outcome, f.Error)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: the stopped run did not finish", engine)
		}
		svc.Wait(time.Minute)
		if engine == "local" {
			h, err := svc.RunHistory(filepath.Join(dir, "child.weft.json"), "child")
			if err != nil || len(h.Runs) == 0 || h.Runs[0].Outcome != runner.OutcomeCanceled {
				t.Errorf("local: the child's run did not end canceled: %+v %v", h.Runs, err)
			}
		}
		if engine == "temporal" {
			var child string
			waitUntil(t, "the child's Temporal run is listed", func() bool {
				runs, err := eng.List(context.Background(), 50)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range runs {
					if strings.HasPrefix(r.RunID, res.RunID+".sub.") {
						child = r.RunID
					}
				}
				return child != ""
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			end, err := eng.Result(ctx, child)
			cancel()
			if err != nil || end.Outcome != runner.OutcomeCanceled {
				t.Errorf("the child's Temporal run %s: %+v %v", child, end, err)
			}
		}
	}
}

// waitUntil waits up to 30 s for ok, failing with what.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("%s: not within 30 s", what)
}
