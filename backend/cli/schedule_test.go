package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
)

// sha256File is the hex SHA-256 of a file's bytes.
func sha256File(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// weft schedule with the cron backend (a fake crontab keeping a file):
// add, list with the last run, pause, resume, remove; model-written steps
// are approved at add or the schedule is refused.
func TestScheduleCommand(t *testing.T) {
	env, tab := fakeCron(t)
	wf := writeFile(t, validWF)

	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * *"); code != exitUnusable || !strings.Contains(errOut, "want 5") {
		t.Fatalf("bad cron: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--engine", "temporal"); code != exitUnusable || !strings.Contains(errOut, "--temporal-address") {
		t.Fatalf("temporal without a service: %d %s", code, errOut)
	}
	// (--approve: approval is given once, when the schedule is made.)
	code, out, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve")
	if code != exitOK || !strings.Contains(out, "with cron") {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(tab)
	if !strings.HasPrefix(string(b), "0 7 * * * cd ") || !strings.Contains(string(b), "'run' '"+wf+"' '--on-escalate' 'abort' '--source' 'schedule' '--require-sha256' '"+sha256File(t, wf)+"'") {
		t.Fatalf("crontab: %s", b)
	}
	if !strings.Contains(out, "the cron entry:\n"+string(b)) {
		t.Fatalf("the crontab line installed is not said: %s", out)
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
	if rows[0].Changed || rows[0].SHA256 != sha256File(t, wf) {
		t.Fatalf("pinned: %+v", rows[0])
	}
	// A run the person starts is never the schedule's.
	if code, _, errOut := run(t, env, "run", wf, "--approve"); code != exitOK {
		t.Fatalf("run: %s", errOut)
	}
	if rows := list(); rows[0].Outcome != "" || rows[0].State != "not run yet" {
		t.Fatalf("a manual run is listed as the schedule's: %+v", rows[0])
	}
	// The scheduled command, as the scheduler runs it, shows in the list.
	scheduled := func() (int, string, string) {
		t.Helper()
		return run(t, env, (&schedule.Manager{Weft: "weft"}).Command(rows[0].Schedule)[1:]...)
	}
	if code, _, errOut := scheduled(); code != exitOK {
		t.Fatalf("scheduled run: %s", errOut)
	}
	if rows := list(); rows[0].Outcome != "succeeded" || !strings.Contains(rows[0].State, "last run") || rows[0].Attention {
		t.Fatalf("after a run: %+v", rows[0])
	}
	// weft runs list without a Temporal service: the schedules' runs.
	if code, out, errOut := run(t, env, "runs", "list"); code != exitOK || strings.Count(out, "succeeded") != 1 || !strings.Contains(out, wf+" (schedule "+id+")") {
		t.Fatalf("runs list: %d %s %s", code, out, errOut)
	}

	// The file edited by hand: the schedule's runs are refused, logged and
	// listed as needs_review, and nothing of it runs.
	marker := filepath.Join(filepath.Dir(wf), "edited-ran")
	if err := os.WriteFile(wf, []byte(strings.Replace(validWF, `"command":"true"`, `"command":"touch edited-ran"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if rows := list(); !rows[0].Changed || !rows[0].Attention || !strings.Contains(rows[0].State, "changed since it was scheduled") {
		t.Fatalf("edited: %+v", rows[0])
	}
	code, out, errOut = scheduled()
	if code != exitInvalid || !strings.Contains(out, "Run needs_review") || !strings.Contains(errOut, "weft schedule update") {
		t.Fatalf("scheduled run of edited content: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited command ran")
	}
	// A run the person starts now does not hide the refused one.
	if code, _, errOut := run(t, env, "run", wf, "--approve"); code != exitOK {
		t.Fatalf("manual run: %s", errOut)
	}
	os.Remove(marker)
	if rows := list(); rows[0].Outcome != "needs_review" || !rows[0].Attention {
		t.Fatalf("after a refused run: %+v", rows[0])
	}
	if code, out, _ := run(t, env, "runs", "list"); code != exitOK || !strings.Contains(out, "needs_review") {
		t.Fatalf("runs list: %s", out)
	}
	if code, out, _ := run(t, env, "stats", "--runs", wf); code != exitOK || !strings.Contains(out, "needs_review 1") {
		t.Fatalf("stats: %s", out)
	}
	// Updated: the new content is pinned, and runs.
	if code, out, errOut := run(t, env, "schedule", "update", wf, "--approve"); code != exitOK || !strings.Contains(out, "updated "+id) {
		t.Fatalf("update: %d %s %s", code, out, errOut)
	}
	rows = list()
	if rows[0].Changed || rows[0].SHA256 != sha256File(t, wf) {
		t.Fatalf("updated: %+v", rows[0])
	}
	if b, _ := os.ReadFile(tab); strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), sha256File(t, wf)) {
		t.Fatalf("crontab after update: %s", b)
	}
	if code, _, errOut := scheduled(); code != exitOK {
		t.Fatalf("scheduled run after the update: %s", errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the reviewed edit did not run")
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
	if code, _, errOut := run(t, env, "schedule", "add", mf, "--cron", "0 7 * * *"); code != exitInvalid || !strings.Contains(errOut, "approval") && !strings.Contains(errOut, "review") {
		t.Fatalf("unapproved: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, env, "schedule", "add", mf, "--cron", "0 7 * * *", "--approve"); code != exitOK || !strings.Contains(errOut, "command: true") || !strings.Contains(out, "scheduled") {
		t.Fatalf("approved (the steps listed in full): %d %s %s", code, out, errOut)
	}
	rows = list()
	mrow := rows[len(rows)-1]
	if code, _, errOut := run(t, env, (&schedule.Manager{Weft: "weft"}).Command(mrow.Schedule)[1:]...); code != exitOK {
		t.Fatalf("the scheduled run would stop at the gate: %s", errOut)
	}
	// A model-written step changed: updating asks for its approval again.
	if err := os.WriteFile(mf, []byte(strings.Replace(model, `"command":"true"`, `"command":"echo other"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, env, "schedule", "update", mf); code != exitInvalid || !strings.Contains(errOut, "echo other") && !strings.Contains(errOut, "approval") {
		t.Fatalf("update without approval: %d %s", code, errOut)
	}
	if rows := list(); !rows[len(rows)-1].Changed {
		t.Fatal("an unapproved update re-pinned the schedule")
	}
	if code, _, errOut := run(t, env, "schedule", "update", mf, "--approve"); code != exitOK || !strings.Contains(errOut, "echo other") {
		t.Fatalf("update with --approve: %d %s", code, errOut)
	}

	// An invalid workflow is not scheduled (its runs would all fail).
	bad := writeFile(t, strings.Replace(validWF, `"to":"b"`, `"to":"nowhere"`, 1))
	if code, _, errOut := run(t, env, "schedule", "add", bad, "--cron", "0 7 * * *"); code != exitInvalid || !strings.Contains(errOut, "nowhere") {
		t.Fatalf("invalid: %d %s", code, errOut)
	}
}
