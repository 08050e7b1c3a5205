package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/trigger"
)

// fileWF is a workflow whose file trigger watches *.csv and whose one
// step writes out.csv beside them (its own file: it never triggers it).
const fileWF = `{"format":"weft/v1","id":"wf-serve","name":"files","inputs":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},
 "triggers":[{"type":"file","glob":"*.csv"},{"type":"file","glob":"*/in.csv"}],"nodes":[
 {"id":"a","key":"a","name":"A","type":"Tool","params":{"tool":"log","arguments":{"message":"got {{inputs.path}}"}}},
 {"id":"b","key":"b","name":"B","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.csv","content":"done"}}}],
 "edges":[{"from":"a","to":"b"}]}`

// scan looks twice (a file starts a run once it stayed the same for one
// look) and lets the runs end.
func scan(t *testing.T, srv *Server) {
	t.Helper()
	srv.Scan(context.Background())
	srv.Scan(context.Background())
	waitRuns(t, srv)
}

func waitRuns(t *testing.T, srv *Server) {
	done := make(chan struct{})
	go func() { srv.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("runs did not end")
	}
}

// A file dropped in a watched folder starts one run, with its path as
// the input; looking again, or after a restart, starts none; a changed
// file starts one more; the file the workflow writes, and files in
// .weft/, start none.
func TestFileTrigger(t *testing.T) {
	e := newEnv(t, false)
	p := e.write("flow.json", fileWF)
	count := func() int { return e.runs(p)[runner.RunByTrigger] }

	srv := e.mustLoad(trigger.Limits{})
	scan(t, srv)
	if n := count(); n != 0 {
		t.Fatalf("%d runs before any file", n)
	}
	e.write("a.csv", "1,2")
	e.write(".weft/in.csv", "x") // matches */in.csv, inside Weft's own folder
	scan(t, srv)
	if n := count(); n != 1 {
		t.Fatalf("%d runs after one file", n)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "out.csv")); err != nil {
		t.Fatalf("the run did not write out.csv: %v", err)
	}
	scan(t, srv)
	scan(t, srv)
	if n := count(); n != 1 {
		t.Fatalf("%d runs: the workflow's own out.csv, or a file handled, started one", n)
	}
	srv.CloseWithin(10 * time.Second)

	srv = e.mustLoad(trigger.Limits{})
	scan(t, srv)
	if n := count(); n != 1 {
		t.Fatalf("%d runs after a restart", n)
	}
	e.write("b.csv", "3")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(e.dir, "a.csv"), later, later); err != nil {
		t.Fatal(err)
	}
	scan(t, srv)
	if n := count(); n != 3 {
		t.Fatalf("%d runs after a new and a changed file, want 3", n)
	}
	srv.CloseWithin(10 * time.Second)
}
