package runner

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/proc"
)

// cancelOn returns a context canceled delay after the first event that
// matches.
func cancelOn(e *env, match func(Event) bool, delay time.Duration) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	e.t.Cleanup(cancel)
	prev := e.opts.OnEvent
	fired := false
	e.opts.OnEvent = func(ev Event) {
		prev(ev)
		if !fired && match(ev) {
			fired = true
			time.AfterFunc(delay, cancel)
		}
	}
	return ctx
}

func TestCancelDuringWait(t *testing.T) {
	e := newEnv(t)
	ctx := cancelOn(e, func(ev Event) bool { return ev.Type == EvNodeStarted && ev.NodeKey == "pause" }, 50*time.Millisecond)
	start := time.Now()
	res := e.runCtx(ctx, parse(t, `"nodes":[
 {"id":"a","key":"first","type":"Tool","params":{"tool":"log","arguments":{"message":"one"}}},
 {"id":"w","key":"pause","type":"Tool","params":{"tool":"wait","arguments":{"ms":20000}}},
 {"id":"z","key":"never","type":"Tool","params":{"tool":"log","arguments":{"message":"two"}}}],
 "edges":[{"from":"a","to":"w"},{"from":"w","to":"z"}]`))
	wantOutcome(t, res, OutcomeCanceled)
	if time.Since(start) > 5*time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
	if res.StoppedAt == nil || res.StoppedAt.Key != "pause" {
		t.Fatalf("stopped at %+v", res.StoppedAt)
	}
	evs := readEvents(t, res.Dir)
	last := evs[len(evs)-1]
	if last.Type != EvRunFinished || last.Outcome != OutcomeCanceled || last.NodeKey != "pause" {
		t.Fatalf("last event %+v", last)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, summaryFile)); err != nil {
		t.Fatal("no summary.json after cancel")
	}
	if len(e.rec.of(EvRetry)) != 0 {
		t.Error("a cancelled node was retried")
	}
}

// A canceled or timed-out step kills its command's whole tree: a background
// child, an orphan of a double fork and a child in a session of its own
// (setsid), which a process group kill does not reach.
func TestCancelKillsCommandTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	const tree = `sleep 30 & echo $! > child.pid; (sleep 30 & echo $! > orphan.pid); setsid sh -c 'echo $$ > session.pid; exec sleep 30' & wait`
	for _, how := range []string{"cancel", "timeout"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			ctx, want, timeout := context.Background(), OutcomeCanceled, ""
			if how == "cancel" {
				ctx = cancelOn(e, func(ev Event) bool { return ev.Type == EvAttempt && ev.NodeKey == "tree" }, 300*time.Millisecond)
			} else {
				want, timeout = OutcomeFailed, `,"timeout_ms":300`
			}
			res := e.runCtx(ctx, parse(t, `"nodes":[
 {"id":"c","key":"tree","type":"Tool","retry":{"max_attempts":1},"params":{"tool":"run_command","arguments":{"command":`+strconv.Quote(tree)+timeout+`}}}],"edges":[]`))
			wantOutcome(t, res, want)
			var pids []int
			for _, f := range []string{"child.pid", "orphan.pid", "session.pid"} {
				pid, err := strconv.Atoi(strings.TrimSpace(e.read(f)))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				pids = append(pids, pid)
			}
			deadline := time.Now().Add(3 * time.Second)
			for _, pid := range pids {
				for proc.Running(pid) {
					if time.Now().After(deadline) {
						syscall.Kill(pid, syscall.SIGKILL)
						t.Errorf("process %d (of child, orphan, session %v) outlived the %s", pid, pids, how)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

func TestCancelWhileEscalated(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.opts.Escalation = HandlerFunc(func(hctx context.Context, esc Escalation) (Response, error) {
		cancel() // the user closes the window instead of answering
		<-hctx.Done()
		return Response{}, hctx.Err()
	})
	res := e.runCtx(ctx, parse(t, `"nodes":[{"id":"r","key":"read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"nope"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeCanceled)
	if res.StoppedAt.Key != "read" || len(e.rec.of(EvEscalated)) != 1 {
		t.Fatalf("result %+v", res)
	}
}

// Cancelling at random moments of a loop that keeps rewriting a large file
// never leaves the file half-written, nor temp files behind.
func TestCancelNeverLeavesHalfWrittenFile(t *testing.T) {
	const wf = `"nodes":[
 {"id":"g","key":"gen","type":"Tool","params":{"tool":"run_command","arguments":{"command":"head -c 900000 /dev/zero | tr '\\0' A"}}},
 {"id":"l","key":"loop","type":"Loop","params":{"max_iterations":100000}},
 {"id":"w","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"big.txt","content":"{{gen.stdout}}|{{loop.iteration}}"}}},
 {"id":"a","key":"more","type":"Tool","params":{"tool":"write_file","arguments":{"path":"log.txt","content":"{{loop.iteration}}\n","append":true}}},
 {"id":"le","key":"loop_end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"g","to":"l"},{"from":"l","to":"w","output":"LoopBody"},{"from":"w","to":"a"},{"from":"a","to":"le"},{"from":"le","to":"l"}]`
	for trial := 0; trial < 4; trial++ {
		e := newEnv(t)
		delay := time.Duration(20+rand.IntN(60)) * time.Millisecond
		ctx := cancelOn(e, func(ev Event) bool { return ev.Type == EvNodeStarted && ev.NodeKey == "save" }, delay)
		res := e.runCtx(ctx, parse(t, wf))
		wantOutcome(t, res, OutcomeCanceled)
		if _, err := os.Stat(filepath.Join(e.dir, "big.txt")); errors.Is(err, fs.ErrNotExist) {
			// Canceled before the first write ended (a loaded machine):
			// no file is not half a file. The temp files are checked below.
			if _, err := os.Stat(filepath.Join(e.dir, "log.txt")); err == nil {
				t.Fatalf("trial %d: log.txt was written after a save that never happened", trial)
			}
			noTemps(t, trial, e.dir)
			continue
		}
		big := e.read("big.txt")
		head, iter, ok := strings.Cut(big, "|")
		if !ok || len(head) != 900000 || strings.Trim(head, "A") != "" {
			t.Fatalf("trial %d: big.txt is half-written (%d bytes)", trial, len(big))
		}
		n, err := strconv.Atoi(iter)
		if err != nil || n < 1 {
			t.Fatalf("trial %d: big.txt ends with %q", trial, iter)
		}
		// The append after the last save may not have run: log.txt has
		// n or n-1 lines, each whole (none when canceled right after the
		// first save).
		if _, err := os.Stat(filepath.Join(e.dir, "log.txt")); errors.Is(err, fs.ErrNotExist) {
			if n != 1 {
				t.Fatalf("trial %d: big.txt was saved %d times but log.txt is absent", trial, n)
			}
			noTemps(t, trial, e.dir)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(e.read("log.txt"), "\n"), "\n")
		if len(lines) != n && len(lines) != n-1 {
			t.Fatalf("trial %d: big.txt was saved %d times, log.txt has %d lines", trial, n, len(lines))
		}
		for i, l := range lines {
			if l != strconv.Itoa(i+1) {
				t.Fatalf("trial %d: log.txt line %d is %q", trial, i+1, l)
			}
		}
		noTemps(t, trial, e.dir)
		readEvents(t, res.Dir) // every line complete JSON
	}
}

// noTemps fails if an atomic write left its temp file in dir.
func noTemps(t *testing.T, trial int, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, ent := range ents {
		if strings.Contains(ent.Name(), ".tmp-") {
			t.Fatalf("trial %d: temp file left: %s", trial, ent.Name())
		}
	}
}
