package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit statuses: 0 success; 1 failed, aborted, or completed with skipped
// steps or handled failures (partial) or a goal not met; 2 unusable input.
func TestRunOutcomesAndExitCodes(t *testing.T) {
	const failing = `{"format":"weft/v1","id":"w","name":"fails","nodes":[
 {"id":"a","key":"build","name":"Build","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo broken >&2; exit 2"}}%s},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"after {{build.success}}"}}}],
 "edges":[{"from":"a","to":"b"}]}`
	for _, tc := range []struct {
		name, extra string
		args        []string
		code        int
		want        []string
	}{
		{"non-zero exit fails the step and is retried", "", nil, exitInvalid,
			[]string{"✗ attempt 1/3 failed: run_command: the command failed with exit status 2: broken", "↻ retrying 2/3", "Run aborted", "failed                1"}},
		{"skipped after escalation is partial", "", []string{"--on-escalate", "skip"}, exitInvalid,
			[]string{"Run completed with 1 step skipped", "│ after false", "skipped               1"}},
		{"aborted counts the failed step", "", []string{"--on-escalate", "abort"}, exitInvalid,
			[]string{"Run aborted", "failed                1"}},
		{"on_error continue is partial", `,"on_error":"continue"`, nil, exitInvalid,
			[]string{"Run completed with 1 failure handled by on_error", "handled by on_error   1"}},
		{"accepted codes succeed", `,"verify":"build.exit_code == 2"`, nil, exitOK,
			[]string{"Run succeeded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wf := writeFile(t, strings.Replace(failing, "%s", tc.extra, 1))
			code, out, errOut := run(t, runEnv(t), append([]string{"run", wf}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestRunGoalCheckAndStats(t *testing.T) {
	const wf = `{"format":"weft/v1","id":"w","name":"coverage","goal":"coverage at least 80%%","done_when":{"condition":"int(trim(cov.stdout)) >= %s"},"nodes":[
 {"id":"c","key":"cov","name":"Coverage","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 62"}}}],"edges":[]}`
	env := runEnv(t)
	met := writeFile(t, strings.Replace(strings.Replace(wf, "%s", "60", 1), "%%", "%", 1))
	code, out, errOut := run(t, env, "run", met)
	if code != exitOK || !strings.Contains(out, "◎ goal check met (condition)") || !strings.Contains(out, "goal check            met (condition)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, env, "run", met, "--on-escalate", "abort")
	if code != exitOK {
		t.Fatalf("second run: exit %d\n%s\n%s", code, out, errOut)
	}

	notMet := writeFile(t, strings.Replace(strings.Replace(wf, "%s", "80", 1), "%%", "%", 1))
	code, out, errOut = run(t, env, "run", notMet, "--on-escalate", "skip")
	if code != exitInvalid || !strings.Contains(out, "Run completed with the done_when check not met (accepted)") || !strings.Contains(out, "not met, accepted") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = run(t, env, "stats", "--runs", met)
	if code != exitOK || !strings.Contains(out, "2 run(s)") || !strings.Contains(out, "succeeded 2") || !strings.Contains(out, "2 checked: 2 met, 0 not met") {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, env, "stats", "--runs", notMet, "--json")
	var st struct {
		Runs       int            `json:"runs"`
		Outcomes   map[string]int `json:"outcomes"`
		GoalChecks struct {
			NotMet   int `json:"not_met"`
			Accepted int `json:"accepted"`
		} `json:"goal_checks"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitOK {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	if st.Runs != 1 || st.Outcomes["partial"] != 1 || st.GoalChecks.NotMet != 1 || st.GoalChecks.Accepted != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A slip in one settings key is reported on stderr; read-only commands
// still work with every other key.
func TestSettingsSlipReported(t *testing.T) {
	env := runEnv(t)
	dir := filepath.Join(env["XDG_CONFIG_HOME"], "weft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "settings.json")
	content := `{"max_repair_attempts": "abc", "llm": {"base_url": "http://gpu:8000/v1", "model": "qwen3"}}`
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, env, "settings", "get", "llm.model")
	if code != exitOK || strings.TrimSpace(out) != "qwen3" {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `max_repair_attempts: "abc" is not a whole number; using 3 (in `+file+")") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if b, _ := os.ReadFile(file); string(b) != content {
		t.Error("a read-only command rewrote the settings file")
	}
}
