package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z'
}

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

func TestCancelKillsCommandTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	e := newEnv(t)
	ctx := cancelOn(e, func(ev Event) bool { return ev.Type == EvAttempt && ev.NodeKey == "tree" }, 300*time.Millisecond)
	res := e.runCtx(ctx, parse(t, `"nodes":[
 {"id":"c","key":"tree","type":"Tool","params":{"tool":"run_command","arguments":{"command":"sleep 30 & echo $! > child.pid; wait"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeCanceled)
	pid, err := strconv.Atoi(strings.TrimSpace(e.read("child.pid")))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d outlived the cancel", pid)
		}
		time.Sleep(20 * time.Millisecond)
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
		big := e.read("big.txt")
		head, iter, ok := strings.Cut(big, "|")
		if !ok || len(head) != 900000 || strings.Trim(head, "A") != "" {
			t.Fatalf("trial %d: big.txt is half-written (%d bytes)", trial, len(big))
		}
		n, err := strconv.Atoi(iter)
		if err != nil || n < 1 {
			t.Fatalf("trial %d: big.txt ends with %q", trial, iter)
		}
		lines := strings.Split(strings.TrimSuffix(e.read("log.txt"), "\n"), "\n")
		for i, l := range lines {
			if l != strconv.Itoa(i+1) {
				t.Fatalf("trial %d: log.txt line %d is %q", trial, i+1, l)
			}
		}
		ents, _ := os.ReadDir(e.dir)
		for _, ent := range ents {
			if strings.Contains(ent.Name(), ".tmp-") {
				t.Fatalf("trial %d: temp file left: %s", trial, ent.Name())
			}
		}
		readEvents(t, res.Dir) // every line complete JSON
	}
}
