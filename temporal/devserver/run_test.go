package devserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/weft-dev/weft/backend/failure"
	wproc "github.com/weft-dev/weft/backend/proc"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	wtemporal "github.com/weft-dev/weft/backend/temporal"
	wf "github.com/weft-dev/weft/backend/workflow"
)

func acts(dir string) *wtemporal.Activities {
	return &wtemporal.Activities{Options: func() runner.Options {
		return runner.Options{Settings: settings.Defaults(), Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}}
	}}
}

// startWorker runs an in-process worker of eng's runs for the test, its
// steps' relative paths starting in dir.
func startWorker(t *testing.T, eng *wtemporal.Engine, dir string) {
	t.Helper()
	w := wtemporal.NewWorker(eng, acts(dir))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

func parse(t *testing.T, doc string) *wf.Workflow {
	t.Helper()
	w, _, err := wf.Parse([]byte(`{"format":"weft/v1","id":"w","name":"real server",` + doc + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func read(dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

// A run on a real server, followed as the CLI and the app follow it:
// every event once, an escalation answered by signal, the result.
func TestRunOnARealServer(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	dir := t.TempDir()
	startWorker(t, &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: "weft-test"}}, dir)
	doc := parse(t, `"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hello"}}},
 {"id":"i","key":"ok","type":"If","params":{"condition":"a.stdout contains 'hello'"}},
 {"id":"f","key":"flaky","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f fixed"}},"retry":{"max_attempts":2,"backoff":{"initial_ms":10}}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo {{a.stdout}} world > out.txt"}}},
 {"id":"n","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"no"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"f","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"},{"from":"f","to":"b"}]`)
	eng := &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: "weft-test"}}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	var types []string
	escalations := 0
	res, err := eng.Follow(ctx, id, wtemporal.Handler{
		Event: func(e runner.Event) { seqs = append(seqs, e.Seq); types = append(types, string(e.Type)) },
		Escalation: func(_ context.Context, e runner.Escalation) (runner.Response, bool) {
			escalations++
			if e.NodeKey != "flaky" || e.Attempts != 2 {
				t.Errorf("escalation %+v", e)
			}
			return runner.Response{Action: runner.ActFix, Arguments: map[string]any{"command": "true"}}, true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != runner.OutcomeSucceeded || escalations != 1 {
		t.Fatalf("outcome %s (%s), escalations %d", res.Outcome, res.Error, escalations)
	}
	if got := read(dir, "out.txt"); got != "hello world\n" {
		t.Fatalf("out.txt = %q", got)
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d: each once, in order (%v)", i, s, types)
		}
	}
	if types[0] != "run_started" || types[len(types)-1] != "run_finished" {
		t.Errorf("events %v", types)
	}
	// The interpreter is deterministic: its real history replays.
	hist := history(t, ts, id)
	rp := worker.NewWorkflowReplayer()
	rp.RegisterWorkflowWithOptions(wtemporal.Run, workflow.RegisterOptions{Name: wtemporal.WorkflowType})
	if err := rp.ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("replay: %v", err)
	}
	// WEFT_RECORD_HISTORY=1 keeps it for backend/temporal's replay test,
	// which guards later changes of the worker's code (one file per
	// workflow type: the first one's stays as it was recorded).
	if os.Getenv("WEFT_RECORD_HISTORY") != "" {
		b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "backend", "temporal", "testdata", "history-"+wtemporal.WorkflowType+"-if-retry-fix.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// history reads a run's whole history.
func history(t *testing.T, ts *temporaltest.TestServer, id string) *historypb.History {
	t.Helper()
	it := ts.GetDefaultClient().GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

// weftBinary builds the weft CLI once for the tests that run workers as
// processes.
var weftBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "weft-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "weft")
	cmd := exec.Command("go", "build", "-o", bin, "./backend/cmd/weft")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// proc starts `weft args…` with private settings; lines of its stdout
// arrive on the returned channel.
func proc(t *testing.T, home string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	bin, err := weftBinary()
	if err != nil {
		t.Fatalf("build weft: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	lines := make(chan string, 1000)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, lines
}

// The whole path through the command line: `weft worker` in a process of
// its own, `weft run --engine temporal` submitting and following, an
// escalation answered on its terminal side (--on-escalate skip).
func TestCommandLine(t *testing.T) {
	// The worker and the client share a payload key: the run's data is
	// sealed in the history, and both read it.
	key := bytes.Repeat([]byte{7}, 32)
	t.Setenv(wtemporal.EnvKey, base64.StdEncoding.EncodeToString(key))
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	addr := ts.GetFrontendHostPort()
	home, dir := t.TempDir(), t.TempDir()
	_, said := proc(t, home, "worker", "--temporal-address", addr, "--namespace", ts.GetDefaultNamespace(), "--task-queue", "weft-cli")
	// It says which queue it polls: the sealed one of its key.
	for polls := false; !polls; {
		select {
		case l := <-said:
			polls = strings.Contains(l, "polling task queue "+wtemporal.TaskQueue("weft-cli", key)+" ")
		case <-time.After(30 * time.Second):
			t.Fatal("the worker did not say which queue it polls")
		}
	}
	file := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(file, []byte(`{"format":"weft/v1","id":"cli","name":"cli","nodes":[
 {"id":"a","key":"a","name":"Fails","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 4"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"b","name":"After","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo after > after.txt"}}}],
 "edges":[{"from":"a","to":"b"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	trust, trusted := proc(t, home, "trust", dir) // a checked-in workflow, as CI trusts it
	for range trusted {
	}
	if err := trust.Wait(); err != nil {
		t.Fatalf("weft trust: %v", err)
	}
	cmd, lines := proc(t, home, "run", file, "--engine", "temporal", "--temporal-address", addr, "--namespace", ts.GetDefaultNamespace(), "--task-queue", "weft-cli", "--on-escalate", "skip")
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	err := cmd.Wait()
	out := strings.Join(all, "\n")
	if code := cmd.ProcessState.ExitCode(); code != 1 { // partial: a skipped step is not a success
		t.Fatalf("exit %d (%v)\n%s", code, err, out)
	}
	for _, want := range []string{"submitted run weft-cli-", "▸ Fails (run_command)", "⤼ Fails skipped", "▸ After", "Run completed with 1 step skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if read(dir, "after.txt") != "after\n" {
		t.Error("the step after the skipped one did not run in the workflow's folder")
	}
	// The run is logged beside the workflow, as a local run is: weft stats
	// counts it.
	sums, _ := filepath.Glob(filepath.Join(dir, ".weft", "runs", "*", "summary.json"))
	if len(sums) != 1 || !strings.Contains(read(filepath.Dir(sums[0]), "summary.json"), `"outcome": "partial"`) {
		t.Fatalf("run folder: %v", sums)
	}
	cmd, lines = proc(t, home, "stats", "--runs", file)
	all = nil
	for l := range lines {
		all = append(all, l)
	}
	werr := cmd.Wait()
	if stats := strings.Join(all, "\n"); !strings.Contains(stats, "1 run") {
		t.Errorf("weft stats --runs (%v):\n%s", werr, stats)
	}
}

// Durability: the worker is killed (-9) while a step runs; another worker
// takes over: the step in flight runs again, the steps that completed do
// not (their results are in the workflow history), and the re-run does
// not use the step's retries (it has one attempt). The step's command
// tree dies with the worker, including a double-forked child and one in a
// session of its own (setsid), so the half-done step does not go on
// beside its re-run.
func TestKillNineWorker(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	addr := ts.GetFrontendHostPort()
	home, dir := t.TempDir(), t.TempDir()
	doc := parse(t, `"nodes":[
 {"id":"a","key":"first","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ran >> first.log"}}},
 {"id":"b","key":"slow","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo started >> slow.log; if [ ! -e kids ]; then touch kids; (sleep 120 & echo $! > orphan.pid); setsid sh -c 'echo $$ > session.pid; exec sleep 120' & fi; sleep 4; echo done >> slow.log"}},"retry":{"max_attempts":1}},
 {"id":"c","key":"last","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ran >> last.log"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`)
	first, _ := proc(t, home, "worker", "--temporal-address", addr, "--namespace", ts.GetDefaultNamespace(), "--task-queue", "weft-kill")
	eng := &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: "weft-kill"}}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	kids := []string{"orphan.pid", "session.pid"}
	for !strings.Contains(read(dir, "slow.log"), "started") || !strings.HasSuffix(read(dir, kids[0]), "\n") || !strings.HasSuffix(read(dir, kids[1]), "\n") {
		if ctx.Err() != nil {
			t.Fatal("the slow step never started its children")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, kid := range kids {
		if pid, _ := strconv.Atoi(strings.TrimSpace(read(dir, kid))); runtime.GOOS == "linux" && !wproc.Running(pid) {
			t.Fatalf("the step's child %d (%s) is not running", pid, kid)
		}
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no goodbye to the server
		t.Fatal(err)
	}
	first.Wait()
	for deadline := time.Now().Add(5 * time.Second); runtime.GOOS == "linux"; time.Sleep(20 * time.Millisecond) {
		var left []string
		for _, kid := range kids {
			if pid, _ := strconv.Atoi(strings.TrimSpace(read(dir, kid))); wproc.Running(pid) {
				left = append(left, kid)
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the step's children %v outlived its worker", left)
		}
	}
	proc(t, home, "worker", "--temporal-address", addr, "--namespace", ts.GetDefaultNamespace(), "--task-queue", "weft-kill")
	var events []runner.Event
	res, err := eng.Follow(ctx, id, wtemporal.Handler{Event: func(e runner.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	// The attempt lost with its worker ran again without using the step's
	// one attempt (no escalation), and the events say so.
	if res.Outcome != runner.OutcomeSucceeded || res.Summary.Escalations != 0 {
		t.Fatalf("outcome %s: %s (escalations %d)", res.Outcome, res.Error, res.Summary.Escalations)
	}
	said := false
	for _, e := range events {
		said = said || (e.Type == runner.EvWarning && e.NodeKey == "slow" && strings.Contains(e.Message, "ran again on another worker"))
	}
	for _, d := range res.Summary.Details {
		if d.Key == "slow" && (d.Attempts != 1 || d.Result != "ok") {
			t.Errorf("the slow step's statistics %+v: a lost attempt is not an attempt", d)
		}
	}
	if !said {
		t.Error("no event says the attempt ran again on another worker")
	}
	if got := read(dir, "first.log"); got != "ran\n" {
		t.Errorf("the completed step ran again: first.log = %q", got)
	}
	if got := read(dir, "slow.log"); got != "started\nstarted\ndone\n" {
		t.Errorf("slow.log = %q: the step in flight runs again on the other worker", got)
	}
	if got := read(dir, "last.log"); got != "ran\n" {
		t.Errorf("last.log = %q", got)
	}
}

// With a key, the service keeps only ciphertext: a secret a step prints is
// not in the history, and the run's result still reads.
func TestSealedHistory(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	eng := engine(ts, "weft-sealed", bytes.Repeat([]byte{42}, 32), "")
	dir := t.TempDir()
	startWorker(t, eng, dir)
	const marker = "tok-3f9c2e7a51"
	doc := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo `+marker+`"}}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo {{a.stdout}} > got.txt"}}}],"edges":[{"from":"a","to":"b"}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Result(ctx, id)
	if err != nil || res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("%v %+v", err, res)
	}
	if got := read(dir, "got.txt"); got != marker+"\n" {
		t.Fatalf("got.txt = %q", got)
	}
	if readable(t, history(t, ts, id), marker) {
		t.Fatal("the step's output is readable in the Temporal history")
	}
	// The check sees it when the payloads are not sealed.
	plain := &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: "weft-plain"}}
	startWorker(t, plain, dir)
	pid, err := plain.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Result(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if !readable(t, history(t, ts, pid), marker) {
		t.Fatal("the check does not see an unsealed output")
	}
}

// readable reports whether s appears in any payload of the history, as
// text or as the bytes behind its base64.
func readable(t *testing.T, h *historypb.History, s string) bool {
	t.Helper()
	b, err := protojson.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(s)) {
		return true
	}
	for _, m := range regexp.MustCompile(`"data":"([A-Za-z0-9+/=]+)"`).FindAllSubmatch(b, -1) {
		if d, err := base64.StdEncoding.DecodeString(string(m[1])); err == nil && bytes.Contains(d, []byte(s)) {
			return true
		}
	}
	return false
}

// weft schedule add --engine temporal: the workflow is checked and
// approved here and a Temporal Schedule runs it (triggered now rather
// than waiting for 7:00); pause and remove reach the service.
func TestTemporalSchedule(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	addr, ns := ts.GetFrontendHostPort(), ts.GetDefaultNamespace()
	home, dir := t.TempDir(), t.TempDir()
	proc(t, home, "worker", "--temporal-address", addr, "--namespace", ns, "--task-queue", "weft-sched")
	file := filepath.Join(dir, "daily.json")
	if err := os.WriteFile(file, []byte(`{"format":"weft/v1","id":"daily","name":"daily","nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ran >> daily.log"}}}],"edges":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	weft := func(args ...string) string {
		t.Helper()
		cmd, lines := proc(t, home, args...)
		var all []string
		for l := range lines {
			all = append(all, l)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("weft %v: %v\n%s", args, err, strings.Join(all, "\n"))
		}
		return strings.Join(all, "\n")
	}
	tflags := []string{"--engine", "temporal", "--temporal-address", addr, "--namespace", ns, "--task-queue", "weft-sched"}
	weft("trust", dir) // a checked-in workflow, as CI trusts it
	weft(append([]string{"schedule", "add", file, "--cron", "0 7 * * *"}, tflags...)...)
	var rows []struct {
		ID      string `json:"id"`
		Backend string `json:"backend"`
		State   string `json:"state"`
	}
	out := weft("schedule", "list", "--json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &rows); err != nil || len(rows) != 1 || rows[0].Backend != "temporal" {
		t.Fatalf("list: %v %s", err, out)
	}
	id := rows[0].ID
	eng := &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: "weft-sched"}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := eng.TriggerSchedule(ctx, id); err != nil {
		t.Fatal(err)
	}
	var runID string
	for runID == "" {
		if ctx.Err() != nil {
			t.Fatal("the schedule started no run")
		}
		if runs, err := eng.ScheduleRuns(ctx, id); err == nil && len(runs) > 0 {
			runID = runs[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	res, err := eng.Result(ctx, runID)
	if err != nil || res.Outcome != runner.OutcomeSucceeded || read(dir, "daily.log") != "ran\n" {
		t.Fatalf("scheduled run: %v %+v %q", err, res, read(dir, "daily.log"))
	}
	weft("schedule", "pause", id)
	if d, err := ts.GetDefaultClient().ScheduleClient().GetHandle(ctx, "weft-schedule-"+id).Describe(ctx); err != nil || !d.Schedule.State.Paused {
		t.Fatalf("paused: %v", err)
	}
	weft("schedule", "remove", id)
	if _, err := ts.GetDefaultClient().ScheduleClient().GetHandle(ctx, "weft-schedule-"+id).Describe(ctx); err == nil {
		t.Fatal("the schedule is still on the service")
	}
}
