package testcase

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A dry run shows the walk as it went: a loop's step once per iteration
// with the branch the loop took each time, a retried step's attempts, a
// write kept in memory, a step nothing answers given empty outputs and
// named; the case's mocks are not checked as a test would (an unused one
// is no failure).
func TestDryRunWalk(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"flaky","key":"flaky","type":"Tool","retry":{"max_attempts":2,"backoff_initial_ms":1},"params":{"tool":"run_command","arguments":{"command":"fetch"}}},
	 {"id":"prune","key":"prune","type":"Loop","params":{"exit_condition":"trim(rm.stdout) == \"\"","max_iterations":10}},
	 {"id":"rm","key":"rm","type":"Tool","params":{"tool":"run_command","arguments":{"command":"rm-oldest"}}},
	 {"id":"prune_end","key":"prune_end","type":"EndLoop","params":{"loop_id":"prune"}},
	 {"id":"save","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{flaky.stdout}}"}}},
	 {"id":"tell","key":"tell","type":"Tool","params":{"tool":"run_command","arguments":{"command":"notify {{flaky.stdout}}"}}}],
	 "edges":[{"from":"flaky","to":"prune"},{"from":"prune","to":"rm","output":"LoopBody"},{"from":"rm","to":"prune_end"},{"from":"prune_end","to":"prune"},
	  {"from":"prune","to":"save","output":"LoopDone"},{"from":"save","to":"tell"}]`)
	cf, err := Decode([]byte(`{"cases":[{"name":"c","mocks":{"commands":[
	  {"command":"fetch","answers":[{"exit_code":7},{"exit_code":0,"stdout":"data"}]},
	  {"command":"rm-oldest","answers":[{"exit_code":0,"stdout":"a"},{"exit_code":0}]},
	  {"command":"never called","answer":{"exit_code":0}}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := DryRun(context.Background(), w, f.path("flow.json"), DryOptions{Case: &cf.Cases[0]})
	if err != nil {
		t.Fatal(err)
	}
	var walk []string
	for _, s := range rep.Steps {
		walk = append(walk, s.Step+":"+s.Answer+s.Branch)
	}
	want := "flaky:mock prune:LoopBody rm:mock prune:LoopBody rm:mock prune:LoopDone save:stand-in tell:would run"
	if got := strings.Join(walk, " "); got != want {
		t.Errorf("walk\n got  %s\n want %s", got, want)
	}
	if s := rep.Steps[0]; s.Attempts != 2 || s.Outputs["stdout"] != "data" {
		t.Errorf("the retried step: %+v", s)
	}
	if last := rep.Steps[len(rep.Steps)-1]; last.Arguments["command"] != "notify 'data'" || rep.Outcome != "succeeded" {
		t.Errorf("the unanswered step: %+v, outcome %s", last, rep.Outcome)
	}
	if strings.Join(rep.WouldRun, ",") != "tell" || strings.Join(rep.Writes, ",") != "out.txt" {
		t.Errorf("would run %v, writes %v", rep.WouldRun, rep.Writes)
	}
	if _, err := os.Stat(f.path("out.txt")); err == nil {
		t.Error("the dry run wrote out.txt")
	}
}
