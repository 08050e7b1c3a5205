package runner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loopWF(n int, body string) string {
	return fmt.Sprintf(`"nodes":[
 {"id":"l","key":"loop","type":"Loop","params":{"max_iterations":%d}},
 {"id":"a","key":"step","type":"Tool","params":%s},
 {"id":"e","key":"end","type":"EndLoop","params":{"loop_id":"l"}},
 {"id":"z","key":"after","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
 "edges":[{"from":"l","to":"a","output":{"type":"LoopBody"}},{"from":"a","to":"e"},{"from":"e","to":"l"},{"from":"l","to":"z","output":{"type":"LoopDone"}}]`, n, body)
}

func logBytes(t *testing.T, dir string) int64 {
	var total int64
	for _, f := range []string{eventsFile, retryLogFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			total += st.Size()
		}
	}
	return total
}

// A long loop's log stays small: ≤ 200 bytes an iteration on average,
// with a log line in every iteration (1,271 before issue 10).
func TestLoopLogSizePerIteration(t *testing.T) {
	for _, body := range []string{
		`{"tool":"log","arguments":{"message":"item {{loop.iteration}}"}}`,
		`{"tool":"wait","arguments":{"ms":0}}`,
	} {
		e := newEnv(t)
		const n = 1000
		res := e.run(parse(t, loopWF(n, body)))
		wantOutcome(t, res, OutcomeSucceeded)
		per := float64(logBytes(t, res.Dir)) / n
		if per > 200 {
			t.Errorf("%s: %.0f bytes a loop iteration, want ≤ 200", body, per)
		}
		evs := readEvents(t, res.Dir)
		// The first iterations are in full; every log line is kept; the
		// loop's end and what follows are written.
		var started, logs int
		for _, ev := range evs {
			switch ev.Type {
			case EvNodeStarted:
				started++
			case EvLog:
				logs++
			}
		}
		if started != loopDetailIterations+1 { // 3 iterations of step, then after
			t.Errorf("%d node_started lines, want %d", started, loopDetailIterations+1)
		}
		if strings.Contains(body, "log") && logs != n+1 {
			t.Errorf("%d log lines, want %d", logs, n+1)
		}
		last := types(evs[len(evs)-9:])
		if !contains(last, "branch_evaluated") || evs[len(evs)-1].Type != EvRunFinished {
			t.Errorf("end of the log: %v", last)
		}
		// The live stream has every event.
		if got := len(e.rec.of(EvNodeStarted)); got != n+1 {
			t.Errorf("live node_started %d, want %d", got, n+1)
		}
		if len(res.Completed) != 2 {
			t.Errorf("completed %v: one entry per node", res.Completed)
		}
	}
}

// A run log has a size bound: past it only what matters is written.
func TestLogSizeBound(t *testing.T) {
	e := newEnv(t)
	e.opts.MaxLogBytes = 4000
	res := e.run(parse(t, `"nodes":[{"id":"a","key":"big","type":"Tool","params":{"tool":"run_command","arguments":{"command":"for i in $(seq 200); do echo line $i; done"}}},
 {"id":"b","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{big.stdout}}"}}},
 {"id":"c","key":"again","type":"Tool","params":{"tool":"log","arguments":{"message":"{{big.stdout}}"}}},
 {"id":"d","key":"fail","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 3"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"},{"from":"c","to":"d"}]`))
	wantOutcome(t, res, OutcomeFailed)
	size := logBytes(t, res.Dir)
	if size > 4000+6000 {
		t.Errorf("log is %d bytes with a 4000-byte bound", size)
	}
	f, _ := os.Open(filepath.Join(res.Dir, eventsFile))
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var notes, failures, finished int
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch {
		case ev.Type == EvWarning && strings.Contains(ev.Message, "events.jsonl reached"):
			notes++
		case ev.Type == EvFailure:
			failures++
		case ev.Type == EvRunFinished:
			finished++
		}
	}
	if notes != 1 || failures == 0 || finished != 1 {
		t.Errorf("notes %d failures %d finished %d", notes, failures, finished)
	}
}
