package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/service"
)

// weft schedule with the cron backend (a fake crontab keeping a file):
// add, list with the last run, pause, resume, remove; model-written steps
// are approved at add or the schedule is refused.
func TestScheduleCommand(t *testing.T) {
	dir := t.TempDir()
	tab := filepath.Join(dir, "tab")
	fake := filepath.Join(dir, "crontab")
	if err := os.WriteFile(fake, []byte(`#!/bin/sh
tab='`+tab+`'
if [ "$1" = "-l" ]; then [ -f "$tab" ] || { echo "no crontab for tester" >&2; exit 1; }; cat "$tab"; exit 0; fi
cat > "$tab"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	env := runEnv(t)
	env["WEFT_SCHEDULER"] = "cron:" + fake
	wf := writeFile(t, validWF)

	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * *"); code != exitUnusable || !strings.Contains(errOut, "want 5") {
		t.Fatalf("bad cron: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--engine", "temporal"); code != exitUnusable || !strings.Contains(errOut, "--temporal-address") {
		t.Fatalf("temporal without a service: %d %s", code, errOut)
	}
	code, out, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *")
	if code != exitOK || !strings.Contains(out, "with cron") {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(tab)
	if !strings.HasPrefix(string(b), "0 7 * * * cd ") || !strings.Contains(string(b), "'run' '"+wf+"' '--on-escalate' 'abort'") {
		t.Fatalf("crontab: %s", b)
	}
	list := func() []service.ScheduleState {
		t.Helper()
		code, out, errOut := run(t, env, "schedule", "list", "--json")
		if code != exitOK {
			t.Fatalf("list: %d %s", code, errOut)
		}
		var rows []service.ScheduleState
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatal(err, out)
		}
		return rows
	}
	rows := list()
	if len(rows) != 1 || rows[0].Cron != "0 7 * * *" || rows[0].Backend != "cron" {
		t.Fatalf("rows %+v", rows)
	}
	id := rows[0].ID
	// A run (as the scheduled one would be) shows in the list.
	if code, _, errOut := run(t, env, "run", wf); code != exitOK {
		t.Fatalf("run: %s", errOut)
	}
	if rows := list(); rows[0].Outcome != "succeeded" || !strings.Contains(rows[0].State, "last run") {
		t.Fatalf("after a run: %+v", rows[0])
	}
	// weft runs list without a Temporal service: the scheduled workflows' runs.
	if code, out, errOut := run(t, env, "runs", "list"); code != exitOK || !strings.Contains(out, "succeeded") || !strings.Contains(out, wf+" (schedule "+id+")") {
		t.Fatalf("runs list: %d %s %s", code, out, errOut)
	}
	if code, _, _ := run(t, env, "schedule", "pause", id); code != exitOK {
		t.Fatal("pause")
	}
	if rows := list(); !rows[0].Paused || rows[0].State != "paused" {
		t.Fatalf("paused: %+v", rows[0])
	}
	if code, _, _ := run(t, env, "schedule", "resume", id); code != exitOK {
		t.Fatal("resume")
	}
	if code, _, _ := run(t, env, "schedule", "remove", id); code != exitOK {
		t.Fatal("remove")
	}
	if rows := list(); len(rows) != 0 {
		t.Fatalf("after remove: %+v", rows)
	}
	if b, _ := os.ReadFile(tab); strings.TrimSpace(string(b)) != "" {
		t.Fatalf("crontab after remove: %q", b)
	}

	// A step a model wrote: refused without --approve, approved with it.
	model := strings.Replace(validWF, `"name":"Check",`, `"name":"Check","provenance":{"source":"model","via":"plan"},`, 1)
	mf := writeFile(t, model)
	if code, _, errOut := run(t, env, "schedule", "add", mf, "--cron", "0 7 * * *"); code != exitInvalid || !strings.Contains(errOut, "approval") {
		t.Fatalf("unapproved: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, env, "schedule", "add", mf, "--cron", "0 7 * * *", "--approve"); code != exitOK || !strings.Contains(errOut, "command: true") || !strings.Contains(out, "scheduled") {
		t.Fatalf("approved (the steps listed in full): %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, env, "run", mf); code != exitOK {
		t.Fatalf("the scheduled run would stop at the gate: %s", errOut)
	}

	// An invalid workflow is not scheduled (its runs would all fail).
	bad := writeFile(t, strings.Replace(validWF, `"to":"b"`, `"to":"nowhere"`, 1))
	if code, _, errOut := run(t, env, "schedule", "add", bad, "--cron", "0 7 * * *"); code != exitInvalid || !strings.Contains(errOut, "nowhere") {
		t.Fatalf("invalid: %d %s", code, errOut)
	}
}
