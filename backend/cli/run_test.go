package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runEnv isolates settings and the XDG data dir (learned patterns).
// runEnvHook gives withTerminal its environment (a test may keep one XDG
// data dir across calls).
var runEnvHook = runEnv

func runEnv(t *testing.T) map[string]string {
	return map[string]string{"XDG_DATA_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir()}
}

// flakyWF fails verification unless ok.txt exists beside it.
const flakyWF = `{"format":"weft/v1","id":"w","name":"needs ok.txt","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f ok.txt"}},"verify":"check.exit_code == 0"},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"done {{check.success}}"}}}],
 "edges":[{"from":"a","to":"b"}]}`

func TestRunSucceeds(t *testing.T) {
	code, out, errOut := run(t, runEnv(t), "run", writeFile(t, validWF))
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"▸ Check (run_command)", "│ code 0", "Run succeeded", "first-attempt success 2 (100%)", "log: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONStreamsEvents(t *testing.T) {
	wf := writeFile(t, validWF)
	code, out, errOut := run(t, runEnv(t), "run", wf, "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var typesSeen []string
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		typesSeen = append(typesSeen, m["type"].(string))
		last = m
	}
	if typesSeen[0] != "run_started" || typesSeen[len(typesSeen)-2] != "run_finished" || typesSeen[len(typesSeen)-1] != "result" {
		t.Fatalf("types %v", typesSeen)
	}
	for _, want := range []string{"node_started", "attempt", "variable_set", "node_finished", "log"} {
		if !strings.Contains(strings.Join(typesSeen, " "), want) {
			t.Errorf("no %s event in %v", want, typesSeen)
		}
	}
	if last["outcome"] != "succeeded" || last["summary"].(map[string]any)["nodes"] != float64(2) {
		t.Errorf("result %v", last)
	}
	// The run is logged beside the workflow.
	dir, _ := last["dir"].(string)
	if !strings.HasPrefix(dir, filepath.Join(filepath.Dir(wf), ".weft", "runs")) {
		t.Errorf("run folder %q", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "events.jsonl")); err != nil {
		t.Error(err)
	}
}

func TestRunEscalationModes(t *testing.T) {
	t.Run("default without a terminal aborts", func(t *testing.T) {
		code, out, errOut := run(t, runEnv(t), "run", writeFile(t, flakyWF))
		if code != exitInvalid {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "Check needs you") || !strings.Contains(errOut, "answer: abort") || !strings.Contains(out, "Run aborted") {
			t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
	})
	t.Run("skip", func(t *testing.T) {
		code, out, errOut := run(t, runEnv(t), "run", "--on-escalate", "skip", writeFile(t, flakyWF))
		if code != exitInvalid { // completed with a skipped step: not a success
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if !strings.Contains(out, "│ done false") || !strings.Contains(out, "skipped               1") {
			t.Errorf("stdout:\n%s", out)
		}
	})
	t.Run("prompt needs a terminal", func(t *testing.T) {
		code, _, errOut := run(t, runEnv(t), "run", writeFile(t, flakyWF), "--on-escalate", "prompt")
		if code != exitUnusable || !strings.Contains(errOut, "needs a terminal") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("bad mode", func(t *testing.T) {
		if code, _, _ := run(t, runEnv(t), "run", writeFile(t, flakyWF), "--on-escalate", "later"); code != exitUnusable {
			t.Fatalf("exit %d", code)
		}
	})
}

// withTerminal runs the CLI as if stdin were a terminal typing input.
func withTerminal(t *testing.T, ctx context.Context, input string, args ...string) (int, string, string) {
	t.Helper()
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = old })
	for k, v := range runEnvHook(t) {
		t.Setenv(k, v)
	}
	t.Setenv("WEFT_KEYRING", "off")
	trustTestFiles(t, args)
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(input), stdout: &out, stderr: &errb, getenv: os.Getenv,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	code := c.main(ctx, args)
	return code, out.String(), errb.String()
}

func TestRunPromptFix(t *testing.T) {
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"read","nodes":[
 {"id":"r","key":"read","name":"Read notes","type":"Tool","params":{"tool":"read_file","arguments":{"path":"wrong.txt"}}},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"read: {{read.content}}"}}}],
 "edges":[{"from":"r","to":"l"}]}`)
	os.WriteFile(filepath.Join(filepath.Dir(wf), "right.txt"), []byte("the notes"), 0o644)
	code, out, errOut := withTerminal(t, context.Background(), "maybe\nfix {\"path\": \"right.txt\"}\n", "run", wf)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Read notes needs you: retrying cannot fix this", "not_found", "unknown response \"maybe\"", `fix {"argument": "new value"}`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "│ read: the notes") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestRunPromptEOFAborts(t *testing.T) {
	code, _, errOut := withTerminal(t, context.Background(), "", "run", writeFile(t, flakyWF))
	if code != exitInvalid || !strings.Contains(errOut, "no answer: aborting") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestRunUnusableInput(t *testing.T) {
	cases := map[string][]string{
		"invalid workflow": {"run", writeFile(t, invalidWF)},
		"missing file":     {"run", filepath.Join(t.TempDir(), "nope.json")},
		"no file":          {"run"},
		"bad flag":         {"run", "--nope", writeFile(t, validWF)},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := run(t, runEnv(t), args...)
			if code != exitUnusable {
				t.Fatalf("exit %d: %s", code, errOut)
			}
		})
	}
	code, out, _ := run(t, runEnv(t), "run", "--json", writeFile(t, invalidWF))
	var m map[string]any
	if code != exitUnusable || json.Unmarshal([]byte(out), &m) != nil || m["type"] != "error" || len(m["problems"].([]any)) == 0 {
		t.Fatalf("exit %d, --json output %q", code, out)
	}
}

func TestRunCtrlC(t *testing.T) {
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"slow","nodes":[
 {"id":"w","key":"pause","type":"Tool","params":{"tool":"wait","arguments":{"ms":30000}}}],"edges":[]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	code, out, errOut := withTerminal(t, ctx, "", "run", wf)
	if code != exitCanceled || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %d after %v\n%s\n%s", code, time.Since(start), out, errOut)
	}
	if !strings.Contains(out, "Run canceled") || !strings.Contains(out, "stopped at pause") {
		t.Errorf("stdout:\n%s", out)
	}
}

// Pinned data is used only with --pinned; without it the step runs and a
// warning says its pin was not used.
func TestRunPinned(t *testing.T) {
	const pinnedWF = `{"format":"weft/v1","id":"w","name":"pinned","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo real"}}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"said {{check.stdout}}"}}}],
 "edges":[{"from":"a","to":"b"}],
 "pinned":{"a":{"stdout":"from the pin","stderr":"","exit_code":0}}}`
	wf := writeFile(t, pinnedWF)
	code, out, errOut := run(t, runEnv(t), "run", wf)
	if code != exitOK || !strings.Contains(out, "said real") || !strings.Contains(out, `"Check" run for real`) {
		t.Fatalf("without --pinned: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, runEnv(t), "run", "--pinned", wf)
	for _, want := range []string{"said from the pin", "📌 Check: pinned data used, not run", "pinned data used      1"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("with --pinned: exit %d, output lacks %q:\n%s\n%s", code, want, out, errOut)
		}
	}
}

// The Temporal engine needs a service to talk to: without one it says how
// to name it, and runs nothing.
func TestTemporalNeedsAnAddress(t *testing.T) {
	wf := writeFile(t, validWF)
	// (runs list without one lists the scheduled workflows' runs here.)
	for _, args := range [][]string{{"run", "--engine", "temporal", wf}, {"worker"}, {"runs", "show", "weft-w-1"}} {
		code, _, errOut := run(t, runEnv(t), args...)
		if code != exitUnusable || !strings.Contains(errOut, "--temporal-address") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	if code, _, errOut := run(t, runEnv(t), "run", "--engine", "elsewhere", wf); code != exitUnusable || !strings.Contains(errOut, "use local or temporal") {
		t.Errorf("unknown engine: exit %d, %s", code, errOut)
	}
	if code, _, _ := run(t, runEnv(t), "runs", "dance", "--temporal-address", "127.0.0.1:1"); code != exitUnusable {
		t.Errorf("unknown runs command: exit %d", code)
	}
}
