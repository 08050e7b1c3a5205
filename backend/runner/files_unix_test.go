//go:build unix

package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile/atomicfiletest"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

// fileStep is a run of one hand-written file tool step, after a step
// "src" whose stdout is src (for a templated path), with extra node
// fields (timeout_ms).
func fileStep(t *testing.T, tool string, args map[string]any, src, extra string) *workflow.Workflow {
	a, _ := json.Marshal(args)
	cmd, _ := json.Marshal("printf %s " + shellWord(src))
	return parse(t, fmt.Sprintf(`"nodes":[
 {"id":"s","key":"src","type":"Tool","params":{"tool":"run_command","arguments":{"command":%s}}},
 {"id":"f","key":"file","type":"Tool",%s"params":{"tool":%q,"arguments":%s}}],
 "edges":[{"from":"s","to":"f"}]`, cmd, extra, tool, a))
}

func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runPromptly runs w and fails the test if the run hangs.
func runPromptly(t *testing.T, e *env, ctx context.Context, w *workflow.Workflow) *Result {
	t.Helper()
	var res *Result
	atomicfiletest.Prompt(t, "the run", func() error {
		var err error
		res, err = New(e.opts).Run(ctx, w)
		return err
	})
	if res == nil {
		t.Fatal("the run did not start")
	}
	return res
}

func failureOf(t *testing.T, e *env, key string) *failure.Record {
	t.Helper()
	for _, ev := range e.rec.of(EvFailure) {
		if ev.NodeKey == key {
			return ev.Failure
		}
	}
	t.Fatalf("no failure of %s", key)
	return nil
}

// TestSpecialFilesRefusedUnlessNamed: devices, FIFOs and sockets are
// refused for file tools unless the step names that path itself as
// written; a templated path, a link to one, a socket never.
func TestSpecialFilesRefusedUnlessNamed(t *testing.T) {
	for _, c := range []struct {
		name string
		// make prepares dir and returns the path to read and the src
		// output a template can use.
		make      func(t *testing.T, dir string) (path, src string)
		templated bool
		want      string
	}{
		{"/dev/zero templated", func(*testing.T, string) (string, string) { return "{{src.stdout}}", "/dev/zero" }, true, "is a device"},
		{"/dev/zero partly templated", func(*testing.T, string) (string, string) { return "/dev/{{src.stdout}}", "zero" }, true, "is a device"},
		{"/dev/urandom templated", func(*testing.T, string) (string, string) { return "{{src.stdout}}", "/dev/urandom" }, true, "is a device"},
		{"FIFO templated", func(t *testing.T, dir string) (string, string) {
			mkfifo(t, filepath.Join(dir, "fifo"))
			return "{{src.stdout}}", "fifo"
		}, true, "is a FIFO"},
		{"link to /dev/zero named", func(t *testing.T, dir string) (string, string) {
			os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
			return "zero", ""
		}, false, "leads to a device through a symbolic link"},
		{"link to a FIFO named", func(t *testing.T, dir string) (string, string) {
			mkfifo(t, filepath.Join(dir, "fifo"))
			os.Symlink("fifo", filepath.Join(dir, "pipe"))
			return "pipe", ""
		}, false, "leads to a FIFO (named pipe) through a symbolic link"},
		{"socket named", func(t *testing.T, dir string) (string, string) {
			l, err := net.Listen("unix", filepath.Join(dir, "sock"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return "sock", ""
		}, false, "is a socket"},
	} {
		for _, tool := range []string{"read_file", "write_file"} {
			t.Run(c.name+"/"+tool, func(t *testing.T) {
				e := newEnv(t)
				path, src := c.make(t, e.dir)
				args := map[string]any{"path": path}
				if tool == "write_file" {
					args["content"] = "x"
				}
				res := runPromptly(t, e, context.Background(), fileStep(t, tool, args, src, ""))
				wantOutcome(t, res, OutcomeFailed)
				if fr := failureOf(t, e, "file"); !strings.Contains(fr.Error, c.want) || fr.Retryable {
					t.Fatalf("failure %+v, want %q", fr, c.want)
				}
			})
		}
	}
}

// TestSpecialFilesNamedAreBounded: a device or FIFO a step names as
// written is read, bounded by MaxReadFile and by the step's timeout and
// the run's cancel.
func TestSpecialFilesNamedAreBounded(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		t.Run(dev, func(t *testing.T) {
			e := newEnv(t)
			res := runPromptly(t, e, context.Background(), fileStep(t, "read_file", map[string]any{"path": dev}, "", ""))
			wantOutcome(t, res, OutcomeFailed)
			if fr := failureOf(t, e, "file"); !strings.Contains(fr.Error, "gave more than the 16 MiB limit") {
				t.Fatalf("failure %+v", fr)
			}
		})
	}
	t.Run("/dev/null", func(t *testing.T) {
		e := newEnv(t)
		res := runPromptly(t, e, context.Background(), fileStep(t, "read_file", map[string]any{"path": "/dev/null"}, "", ""))
		wantOutcome(t, res, OutcomeSucceeded)
		res = runPromptly(t, e, context.Background(), fileStep(t, "write_file", map[string]any{"path": "/dev/null", "content": "gone"}, "", ""))
		wantOutcome(t, res, OutcomeSucceeded)
		if st, err := os.Lstat("/dev/null"); err != nil || st.Mode()&os.ModeDevice == 0 {
			t.Fatalf("/dev/null was replaced: %v %v", st, err)
		}
	})
	t.Run("FIFO without a writer stops at the step's timeout", func(t *testing.T) {
		e := newEnv(t)
		mkfifo(t, filepath.Join(e.dir, "fifo"))
		res := runPromptly(t, e, context.Background(), fileStep(t, "read_file", map[string]any{"path": "fifo"}, "", `"timeout_ms":200,`))
		wantOutcome(t, res, OutcomeFailed)
		if fr := failureOf(t, e, "file"); fr.FailureType != failure.FailTimeout {
			t.Fatalf("failure %+v", fr)
		}
	})
	t.Run("FIFO without a writer stops at cancel", func(t *testing.T) {
		e := newEnv(t)
		mkfifo(t, filepath.Join(e.dir, "fifo"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		e.opts.OnEvent = func(ev Event) {
			if ev.Type == EvAttempt && ev.NodeKey == "file" {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
		}
		res := runPromptly(t, e, ctx, fileStep(t, "read_file", map[string]any{"path": "fifo"}, "", ""))
		wantOutcome(t, res, OutcomeCanceled)
	})
	t.Run("FIFO with a writer is read to its end", func(t *testing.T) {
		e := newEnv(t)
		fifo := filepath.Join(e.dir, "fifo")
		mkfifo(t, fifo)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.WriteString("hello ")
				time.Sleep(50 * time.Millisecond)
				f.WriteString("fifo")
				f.Close()
			}
		}()
		res := runPromptly(t, e, context.Background(), fileStep(t, "read_file", map[string]any{"path": "fifo"}, "", ""))
		wantOutcome(t, res, OutcomeSucceeded)
		if got := res.Outputs["file"].(map[string]any)["content"]; got != "hello fifo" {
			t.Fatalf("content %q", got)
		}
	})
	t.Run("FIFO without a reader is not written", func(t *testing.T) {
		e := newEnv(t)
		mkfifo(t, filepath.Join(e.dir, "fifo"))
		res := runPromptly(t, e, context.Background(), fileStep(t, "write_file", map[string]any{"path": "fifo", "content": "x"}, "", ""))
		wantOutcome(t, res, OutcomeFailed)
	})
	t.Run("FIFO with a reader is written in place", func(t *testing.T) {
		e := newEnv(t)
		fifo := filepath.Join(e.dir, "fifo")
		mkfifo(t, fifo)
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		res := runPromptly(t, e, context.Background(), fileStep(t, "write_file", map[string]any{"path": "fifo", "content": "to the reader"}, "", ""))
		wantOutcome(t, res, OutcomeSucceeded)
		buf := make([]byte, 100)
		if n, _ := r.Read(buf); string(buf[:n]) != "to the reader" {
			t.Fatalf("read %q", buf[:n])
		}
		if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatal("the FIFO was replaced")
		}
	})
}

// TestListingSpecialFiles: a FIFO is listed, not opened; listing a path
// that is one says so at once.
func TestListingSpecialFiles(t *testing.T) {
	e := newEnv(t)
	mkfifo(t, filepath.Join(e.dir, "fifo"))
	e.write("a.txt", "a")
	res := runPromptly(t, e, context.Background(), fileStep(t, "list_files", map[string]any{"path": "."}, "", ""))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := fmt.Sprint(res.Outputs["file"].(map[string]any)["files"]); !strings.HasPrefix(got, "[a.txt fifo") {
		t.Fatalf("files %s", got)
	}
	res = runPromptly(t, e, context.Background(), fileStep(t, "list_files", map[string]any{"path": "fifo"}, "", ""))
	wantOutcome(t, res, OutcomeFailed)
	if fr := failureOf(t, e, "file"); !strings.Contains(fr.Error, "is a FIFO (named pipe), not a folder") {
		t.Fatalf("failure %+v", fr)
	}
}

// TestConfinedReadRefusesSpecialFiles: a model-written read inside the
// folder (no approval) never opens a FIFO or device, even named as written.
func TestConfinedReadRefusesSpecialFiles(t *testing.T) {
	for _, setup := range []string{"mkfifo readme.txt", "ln -s /dev/zero readme.txt"} {
		t.Run(setup, func(t *testing.T) {
			e := newEnv(t)
			res := runPromptly(t, e, context.Background(), setupThenRead(t, setup, "read_file", "readme.txt", true))
			wantOutcome(t, res, OutcomeFailed)
			if fr := failureOf(t, e, "readme"); !strings.Contains(fr.Error, "readme.txt") || fr.Retryable {
				t.Fatalf("failure %+v", fr)
			}
		})
	}
}

// TestAiStepCallsGoThroughTheGate: a path an AI step's model chose is
// never literal: a device is refused.
func TestAiStepCallsGoThroughTheGate(t *testing.T) {
	e := newEnv(t)
	srv := withModel(t, e,
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"/dev/zero"}`}),
		llmtest.Reply("done"),
	)
	res := runPromptly(t, e, context.Background(), parse(t, `"nodes":[
 {"id":"a","key":"ask","type":"AiStep","params":{"prompt":"read it","allowed_tools":["read_file"],"max_tool_calls":2}}],"edges":[]`))
	wantOutcome(t, res, OutcomeSucceeded)
	msgs := srv.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, "/dev/zero is a device") {
		t.Fatalf("tool result %+v", last)
	}
}

// TestAppendWritesInPlace: append is one O_APPEND write: the file is not
// read (a write-only file takes it) nor replaced (the same inode).
func TestAppendWritesInPlace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	os.WriteFile(p, []byte("one\n"), 0o200)
	before, _ := os.Stat(p)
	if _, err := call(t, dir, "write_file", map[string]any{"path": "log.txt", "content": "two\n", "append": true}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) || after.Mode().Perm() != 0o200 {
		t.Fatalf("replaced: %v → %v", before.Mode(), after.Mode())
	}
	os.Chmod(p, 0o600)
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Fatalf("%q", b)
	}
	// A new file, in a new folder.
	if _, err := call(t, dir, "write_file", map[string]any{"path": "sub/new.txt", "content": "x", "append": true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "new.txt")); string(b) != "x" {
		t.Fatalf("%q", b)
	}
}
