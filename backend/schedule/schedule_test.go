package schedule

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// script writes an executable shell script.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two contents' SHA-256 (what the schedules pin).
const (
	sumA = "3a6eb0790f39ac87c94f3856b2dd2c5d110e6811602261a9a923d3bb23adc8b7"
	sumB = "b5bb9d8014a0f9b1d61e21e796d78dccdf1352f23cd32812f4850b878ae4944c"
)

// fakeCrontab is a crontab command keeping the table in tab (none yet).
func fakeCrontab(t *testing.T, dir string) (fake, tab string) {
	t.Helper()
	tab = filepath.Join(dir, "tab")
	fake = script(t, dir, "crontab", `tab='`+tab+`'
if [ "$1" = "-l" ]; then [ -f "$tab" ] || { echo "no crontab for tester" >&2; exit 1; }; cat "$tab"; exit 0; fi
if [ "$1" = "-" ]; then cat > "$tab"; exit 0; fi
exit 2
`)
	return fake, tab
}

// A file whose name a shell or systemd could misread.
func awkwardFile(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "my flows $HOME")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, `it's "daily"; rm -rf x.json`)
	if err := os.WriteFile(f, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCrontab(t *testing.T) {
	dir := t.TempDir()
	fake, tab := fakeCrontab(t, dir)
	// The weft the schedule runs: records its arguments and folder.
	got := filepath.Join(dir, "got")
	weft := script(t, dir, "weft", `pwd > '`+got+`'; for a in "$@"; do echo "$a" >> '`+got+`'; done`)
	m := &Manager{Path: filepath.Join(dir, "schedules.json"), Backend: Crontab{Crontab: fake, LockDir: filepath.Join(dir, "locks")}, Weft: weft}
	ctx := context.Background()
	file := awkwardFile(t)
	s, err := m.Add(ctx, file, "0  7 * * 1-5", sumA, []string{"--pinned"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(tab)
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "0 7 * * 1-5 cd ") || !strings.HasSuffix(line, "# weft-schedule:"+s.ID) {
		t.Fatalf("crontab line %q", line)
	}
	// The line's command, run by a shell as cron does: the file reaches
	// weft as one argument, nothing else runs.
	cmd := strings.TrimSuffix(strings.TrimPrefix(line, "0 7 * * 1-5 "), " # weft-schedule:"+s.ID)
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", cmd, err, out)
	}
	args, _ := os.ReadFile(got)
	want := filepath.Dir(file) + "\nrun\n" + file + "\n--on-escalate\nabort\n--source\nschedule\n--require-sha256\n" + sumA + "\n--pinned\n"
	if string(args) != want {
		t.Fatalf("weft got %q, want %q", args, want)
	}
	if err := m.SetPaused(ctx, s.ID, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); !strings.HasPrefix(string(b), "#paused 0 7") {
		t.Fatalf("paused: %q", b)
	}
	list, _ := m.List()
	if len(list) != 1 || !list[0].Paused || list[0].Backend != "cron" || list[0].Cron != "0 7 * * 1-5" {
		t.Fatalf("list %+v", list)
	}
	// Re-pinned while paused: one line, the new content's, still paused.
	if _, err := m.Repin(ctx, s.ID, sumB); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); strings.Count(string(b), "\n") != 1 || !strings.HasPrefix(string(b), "#paused 0 7") || !strings.Contains(string(b), sumB) || strings.Contains(string(b), sumA) {
		t.Fatalf("re-pinned: %q", b)
	}
	if list, _ := m.List(); len(list) != 1 || list[0].SHA256 != sumB || !list[0].Paused {
		t.Fatalf("list after re-pin %+v", list)
	}
	if err := m.SetPaused(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); !strings.HasPrefix(string(b), "0 7") {
		t.Fatalf("resumed: %q", b)
	}
	if err := m.Remove(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); strings.TrimSpace(string(b)) != "" {
		t.Fatalf("removed: %q", b)
	}
	if err := m.Remove(ctx, s.ID); err == nil {
		t.Fatal("removed twice")
	}
}

func TestSystemd(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := script(t, dir, "systemctl", `echo "$@" >> '`+calls+`'`)
	units := filepath.Join(dir, "units")
	m := &Manager{Path: filepath.Join(dir, "schedules.json"), Backend: Systemd{Dir: units, Systemctl: fake}, Weft: "/opt/weft/bin/weft"}
	ctx := context.Background()
	file := awkwardFile(t)
	s, err := m.Add(ctx, file, "30 6 1 * 0", sumA, nil)
	if err != nil {
		t.Fatal(err)
	}
	timer, _ := os.ReadFile(filepath.Join(units, "weft-"+s.ID+".timer"))
	for _, want := range []string{"OnCalendar=*-*-01 06:30:00\n", "OnCalendar=Sun *-*-* 06:30:00\n", "Persistent=true", "WantedBy=timers.target"} {
		if !strings.Contains(string(timer), want) {
			t.Errorf("timer lacks %q:\n%s", want, timer)
		}
	}
	service, _ := os.ReadFile(filepath.Join(units, "weft-"+s.ID+".service"))
	argv, err := readExec(readUnit(t, string(service))["ExecStart"])
	if err != nil || fmt.Sprintf("%q", argv) != fmt.Sprintf("%q", m.Command(s)) || !strings.Contains(string(service), "Type=oneshot") {
		t.Errorf("service:\n%s\nreads as %q (%v), want %q", service, argv, err, m.Command(s))
	}
	if err := m.SetPaused(ctx, s.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	want := "--user daemon-reload\n--user enable --now weft-" + s.ID + ".timer\n--user disable --now weft-" + s.ID + ".timer\n--user disable --now weft-" + s.ID + ".timer\n--user daemon-reload\n"
	if string(b) != want {
		t.Errorf("systemctl calls:\n%s\nwant\n%s", b, want)
	}
	if _, err := os.Stat(filepath.Join(units, "weft-"+s.ID+".timer")); err == nil {
		t.Error("the timer was left behind")
	}
}

func TestAddRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	m := &Manager{Path: filepath.Join(dir, "s.json"), Backend: Crontab{Crontab: "false", LockDir: dir}, Weft: "weft"}
	if _, err := m.Add(context.Background(), filepath.Join(dir, "none.json"), "0 7 * * *", sumA, nil); err == nil {
		t.Error("a missing file was scheduled")
	}
	f := filepath.Join(dir, "w.json")
	os.WriteFile(f, []byte("{}"), 0o644)
	if _, err := m.Add(context.Background(), f, "0 25 * * *", sumA, nil); err == nil || !strings.Contains(err.Error(), "hour") {
		t.Errorf("bad cron: %v", err)
	}
	// A scheduler that fails leaves no schedule behind.
	if _, err := m.Add(context.Background(), f, "0 7 * * *", sumA, nil); err == nil {
		t.Error("a failing crontab was not reported")
	}
	if l, _ := m.List(); len(l) != 0 {
		t.Errorf("list %+v", l)
	}
}

// A schedule made with a scheduler this machine no longer offers is
// reported, not acted on blindly.
func TestNoBackend(t *testing.T) {
	dir := t.TempDir()
	m := &Manager{Path: filepath.Join(dir, "s.json"), Weft: "weft"}
	if err := m.Put(Schedule{ID: "x-1", Backend: "systemd", Cron: "0 7 * * *"}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetPaused(context.Background(), "x-1", true); err == nil || !strings.Contains(err.Error(), "does not offer") {
		t.Errorf("pause: %v", err)
	}
	if err := m.Remove(context.Background(), "x-1"); err == nil {
		t.Error("removed without its scheduler")
	}
	if _, err := m.Add(context.Background(), filepath.Join(dir, "s.json"), "0 7 * * *", sumA, nil); err == nil {
		t.Error("added without a scheduler")
	}
}

// A machine without a scheduler says why, and Add refuses with that.
func TestUnavailable(t *testing.T) {
	why := errors.New("no systemd user instance and no crontab")
	m := &Manager{Path: filepath.Join(t.TempDir(), "s.json"), NoBackend: why}
	if m.Unavailable() != why {
		t.Fatalf("Unavailable = %v", m.Unavailable())
	}
	wf := filepath.Join(t.TempDir(), "w.json")
	os.WriteFile(wf, []byte("{}"), 0o644)
	if _, err := m.Add(context.Background(), wf, "0 7 * * *", sumA, nil); err != why {
		t.Fatalf("Add = %v", err)
	}
	if (&Manager{}).Unavailable() == nil {
		t.Fatal("no backend and no reason: still unavailable")
	}
}
