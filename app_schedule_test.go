package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// A schedule whose last run failed, and one whose due run is missing, are
// told when the app opens; a healthy one is not.
func TestScheduleNotices(t *testing.T) {
	a, _ := runApp(t)
	dir := t.TempDir()
	write := func(name, cmd string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"format":"weft/v1","id":"`+name+`","name":"n","nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"`+cmd+`"}},"on_error":"continue"}],"edges":[]}`), 0o644)
		return p
	}
	bad, good, never := write("bad.json", "exit 3"), write("good.json", "true"), write("never.json", "true")
	for _, f := range []string{bad, good} {
		w, _, err := workflow.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := a.StartRun(*w, f); err != nil || !st.Started {
			t.Fatal(st, err)
		}
		a.waitRun(10 * time.Second)
	}
	path, _ := appdirs.ConfigFile("schedules.json")
	m := &schedule.Manager{Path: path}
	now := time.Now()
	for _, s := range []schedule.Schedule{
		{ID: "bad-1", File: bad, Cron: "* * * * *", Backend: "cron", Created: now.Add(-time.Hour)},
		{ID: "good-1", File: good, Cron: "0 0 1 1 *", Backend: "cron", Created: now.Add(-time.Hour)},
		{ID: "never-1", File: never, Cron: "* * * * *", Backend: "cron", Created: now.Add(-time.Hour)},
	} {
		if err := m.Put(s); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(a.ScheduleNotices(), "\n")
	if !strings.Contains(got, "bad.json") || !strings.Contains(got, "never.json (* * * * *, weft schedule list): missed the run due at") || strings.Contains(got, "good.json") {
		t.Fatalf("notices:\n%s", got)
	}
}
