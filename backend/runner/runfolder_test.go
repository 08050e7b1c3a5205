//go:build unix

package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A run folder is cheap by construction: a run that retries nothing holds
// exactly its events, the workflow copy, the attempts record and the
// summary (no empty retry.log, no temp file left), each whole, and the
// workflow copy made at the start is the one the run ends with: written
// once, not replaced again when the run did not change the workflow.
func TestRunFolderWritesEachFileOnce(t *testing.T) {
	for _, keep := range []bool{false, true} {
		e := newEnv(t)
		e.opts.KeepAttempts = keep
		var ino uint64
		rec := e.opts.OnEvent
		e.opts.OnEvent = func(ev Event) {
			rec(ev)
			if ev.Type == EvRunStarted {
				runs, _ := os.ReadDir(e.opts.RunsDir)
				if len(runs) == 1 {
					ino = inode(t, filepath.Join(e.opts.RunsDir, runs[0].Name(), workflowFile))
				}
			}
		}
		w := parse(t, `"nodes":[
 {"id":"a","key":"one","type":"Tool","params":{"tool":"log","arguments":{"message":"one"}}},
 {"id":"b","key":"two","type":"Tool","params":{"tool":"log","arguments":{"message":"two"}}},
 {"id":"c","key":"three","type":"Tool","params":{"tool":"log","arguments":{"message":"three"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`)
		res := e.run(w)
		wantOutcome(t, res, OutcomeSucceeded)
		ents, err := os.ReadDir(res.Dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, en := range ents {
			names = append(names, en.Name())
		}
		want := []string{eventsFile, summaryFile, workflowFile}
		if keep {
			want = append(want, AttemptsFile)
		}
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Fatalf("keep attempts %v: the run folder holds %v, want %v", keep, names, want)
		}
		if ino == 0 || inode(t, filepath.Join(res.Dir, workflowFile)) != ino {
			t.Errorf("keep attempts %v: workflow.json was written again at the end (inode %d at the start)", keep, ino)
		}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(res.Dir, n))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if strings.HasSuffix(n, ".jsonl") && !json.Valid([]byte(line)) {
					t.Errorf("%s line %d is not JSON: %s", n, i+1, line)
				}
			}
			if strings.HasSuffix(n, ".json") && !json.Valid(b) {
				t.Errorf("%s is not JSON", n)
			}
		}
		if keep {
			b, _ := os.ReadFile(filepath.Join(res.Dir, AttemptsFile))
			if got := strings.Count(string(b), "\n"); got != 3 {
				t.Errorf("attempts.jsonl has %d lines, want one per step:\n%s", got, b)
			}
		}
	}
}

// A run that changes its workflow (a fix applied) replaces the copy: the
// copy is written again only when it differs.
func TestWorkflowCopyRewrittenWhenChanged(t *testing.T) {
	e := newEnv(t)
	w := parse(t, `"nodes":[{"id":"a","key":"one","type":"Tool","params":{"tool":"log","arguments":{"message":"one"}}}],"edges":[]`)
	dir := filepath.Join(e.opts.RunsDir, NewRunID(time.Now()))
	l, err := openRunLog(dir, "r", nil, time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if err := l.writeWorkflow(w); err != nil {
		t.Fatal(err)
	}
	before := inode(t, filepath.Join(dir, workflowFile))
	if err := l.writeWorkflow(w); err != nil || inode(t, filepath.Join(dir, workflowFile)) != before {
		t.Fatalf("unchanged copy written again: %v", err)
	}
	w.Name = "changed by a fix"
	if err := l.writeWorkflow(w); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, workflowFile))
	if !strings.Contains(string(b), "changed by a fix") {
		t.Fatalf("the changed workflow was not written:\n%s", b)
	}
}

// The link count pruning reads instead of listing the runs folder counts
// its folders exactly, where the file system keeps it.
func TestSubdirCount(t *testing.T) {
	dir := t.TempDir()
	for i := range 7 {
		os.Mkdir(filepath.Join(dir, string(rune('a'+i))), 0o700)
		os.WriteFile(filepath.Join(dir, string(rune('A'+i))), nil, 0o600)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := subdirCount(st); ok && n != 7 {
		t.Fatalf("subdirCount = %d, want 7", n)
	} else if !ok {
		t.Skip("this file system does not count subfolders in the link count")
	}
}

// inode is the file's inode number: a file replaced by a rename has a new
// one.
func inode(t *testing.T, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers here")
	}
	return uint64(s.Ino)
}
