package cli

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
)

// weft schedule add --input/--inputs: a workflow with a required input is
// refused without it (exit 2, the input named); with it, the schedule's
// command, run as the scheduler runs it, gives the run exactly the value.
func TestScheduleAddInputs(t *testing.T) {
	env, _ := fakeCron(t)
	wf := writeFile(t, `{"format":"weft/v1","id":"w-in","name":"greet","inputs":{"type":"object","properties":{
  "name":{"type":"string"},"times":{"type":"integer","default":1}},"required":["name"]},
 "nodes":[{"id":"a","key":"save","name":"Save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{inputs.name}}|{{inputs.times}}"}}}],
 "edges":[]}`)

	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve"); code != exitUnusable || !strings.Contains(errOut, "input name is required") {
		t.Fatalf("without the input: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve", "--inputs", `{"name":"Ada","times":"x"}`); code != exitUnusable || !strings.Contains(errOut, "input times") {
		t.Fatalf("a value that does not fit: %d %s", code, errOut)
	}
	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--inputs", `[1]`); code != exitUnusable || !strings.Contains(errOut, "--inputs: give one JSON object") {
		t.Fatalf("--inputs not an object: %d %s", code, errOut)
	}
	hostile := `Ada' "$HOME" 50% \n`
	code, out, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve", "--inputs", `{"times":2}`, "--input", "name="+hostile)
	if code != exitOK {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	code, out, errOut = run(t, env, "schedule", "list", "--json")
	var rows []service.ScheduleState
	if err := json.Unmarshal([]byte(out), &rows); code != exitOK || err != nil || len(rows) != 1 {
		t.Fatalf("list: %d %v %s %s", code, err, out, errOut)
	}
	// The scheduled command, as the scheduler runs it.
	if code, _, errOut := run(t, env, (&schedule.Manager{Weft: "weft"}).Command(rows[0].Schedule)[1:]...); code != exitOK {
		t.Fatalf("scheduled run: %d %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(wf), "out.txt"))
	if err != nil || string(b) != hostile+"|2" {
		t.Fatalf("the scheduled run wrote %q (%v), want %q", b, err, hostile+"|2")
	}
}

// fakeCron is the environment of a weft whose scheduler is cron with a
// fake crontab (a script keeping the table in the file tab).
func fakeCron(t *testing.T) (env map[string]string, tab string) {
	t.Helper()
	dir := t.TempDir()
	tab = filepath.Join(dir, "tab")
	fake := filepath.Join(dir, "crontab")
	if err := os.WriteFile(fake, []byte(`#!/bin/sh
tab='`+tab+`'
if [ "$1" = "-l" ]; then [ -f "$tab" ] || { echo "no crontab for tester" >&2; exit 1; }; cat "$tab"; exit 0; fi
cat > "$tab"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	env = runEnv(t)
	env["WEFT_SCHEDULER"] = "cron:" + fake
	return env, tab
}

// A secret input is scheduled by a stored secret's name (--input-secret),
// never a value: the entry names the secret, the scheduled run sends the
// value only to the host it is bound to, and a value for it is refused.
func TestScheduleAddSecretInput(t *testing.T) {
	const token = "tok-schedRef_1a2b3c4d5e6f"
	env, tab := fakeCron(t)
	srv, seen := authServer(t)
	u, _ := url.Parse(srv.URL)
	if code, _, errb := secretsCmd(t, env["XDG_DATA_HOME"], token+"\n", "set", "API_TOKEN", "--host", u.Host); code != exitOK {
		t.Fatalf("set: %s", errb)
	}
	env["XDG_CONFIG_HOME"] = filepath.Join(env["XDG_DATA_HOME"], "config") // where secretsCmd kept its settings
	wf := writeFile(t, `{"format":"weft/v1","id":"w-sec","name":"api","inputs":{"type":"object","properties":{
  "token":{"type":"string","writeOnly":true}},"required":["token"]},
 "nodes":[{"id":"a","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`/v1","headers":{"Authorization":"Bearer {{inputs.token}}"}}}}],"edges":[]}`)
	if code, _, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve", "--input", "token="+token); code != exitUnusable || !strings.Contains(errOut, "--input-secret token=SECRET_NAME") {
		t.Fatalf("a value for a secret input: %d %s", code, errOut)
	}
	if code, out, errOut := run(t, env, "schedule", "add", wf, "--cron", "0 7 * * *", "--approve", "--input-secret", "token=API_TOKEN"); code != exitOK {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	entry, err := os.ReadFile(tab)
	if err != nil || !strings.Contains(string(entry), "token=API_TOKEN") || strings.Contains(string(entry), token) {
		t.Fatalf("the crontab entry: %s %v", entry, err)
	}
	_, out, _ := run(t, env, "schedule", "list", "--json")
	var rows []service.ScheduleState
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("list: %v %s", err, out)
	}
	if code, _, errOut := run(t, env, (&schedule.Manager{Weft: "weft"}).Command(rows[0].Schedule)[1:]...); code != exitOK {
		t.Fatalf("scheduled run: %d %s", code, errOut)
	}
	if got := seen(); len(got) != 1 || got[0] != "Bearer "+token {
		t.Fatalf("the server saw %q", got)
	}
}
