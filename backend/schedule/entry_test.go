package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The entry a draft shows is exactly what Install gives the scheduler
// (the crontab line, the two unit files), for each backend; an entry that
// is not the one shown (other content pinned, another name, another time)
// installs nothing and records nothing.
func TestEntryIsWhatIsInstalled(t *testing.T) {
	dir := t.TempDir()
	fake, tab := fakeCrontab(t, dir)
	units := filepath.Join(dir, "units")
	systemctl := script(t, dir, "systemctl", "exit 0\n")
	installed := map[string]func() string{
		"cron": func() string { b, _ := os.ReadFile(tab); return strings.TrimSuffix(string(b), "\n") },
		"systemd": func() string {
			var out []string
			for _, ext := range []string{".service", ".timer"} {
				matches, _ := filepath.Glob(filepath.Join(units, "*"+ext))
				for _, f := range matches {
					b, _ := os.ReadFile(f)
					out = append(out, "# "+f+"\n"+string(b))
				}
			}
			return strings.Join(out, "\n")
		},
	}
	for _, b := range []Backend{Crontab{Crontab: fake, LockDir: filepath.Join(dir, "locks")}, Systemd{Dir: units, Systemctl: systemctl}} {
		t.Run(b.Name(), func(t *testing.T) {
			m := &Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: b, Weft: "/opt/weft/bin/weft"}
			ctx := context.Background()
			file := awkwardFile(t)
			d, err := m.Draft("", file, "30 2 * * *", sumA, []string{"--pinned"})
			if err != nil {
				t.Fatal(err)
			}
			shown, err := m.Entry(d)
			if err != nil {
				t.Fatal(err)
			}
			for name, other := range map[string]func(Schedule) Schedule{
				"other content": func(s Schedule) Schedule { s.SHA256 = sumB; return s },
				"another name":  func(s Schedule) Schedule { s.ID += "x"; return s },
				"another time":  func(s Schedule) Schedule { s.Cron = "31 2 * * *"; return s },
				"no flags":      func(s Schedule) Schedule { s.Args = nil; return s },
			} {
				if _, err := m.Install(ctx, other(d), &shown); err == nil || !strings.Contains(err.Error(), "not the one shown") {
					t.Fatalf("%s: installed an entry not shown (%v)", name, err)
				}
				if list, _ := m.List(); len(list) != 0 || installed[b.Name()]() != "" {
					t.Fatalf("%s: %v recorded, %q installed", name, list, installed[b.Name()]())
				}
			}
			s, err := m.Install(ctx, d, &shown)
			if err != nil {
				t.Fatal(err)
			}
			if got := installed[b.Name()](); got != shown {
				t.Fatalf("installed\n%s\nshown\n%s", got, shown)
			}
			if !strings.Contains(shown, sumA) || !strings.Contains(shown, s.ID) {
				t.Fatalf("the entry does not carry the pin and name: %s", shown)
			}
			if _, err := m.Install(ctx, d, &shown); err == nil || !strings.Contains(err.Error(), "exists already") {
				t.Fatalf("the same name installed twice: %v", err)
			}
		})
	}
}

// A draft's name lands in file names and a crontab comment: only the
// names newID makes are taken.
func TestDraftID(t *testing.T) {
	dir := t.TempDir()
	fake, _ := fakeCrontab(t, dir)
	m := &Manager{Path: filepath.Join(dir, "schedules.json"), Backend: Crontab{Crontab: fake, LockDir: dir}, Weft: "/opt/weft/bin/weft"}
	file := filepath.Join(dir, "日本.json")
	if err := os.WriteFile(file, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ok-1", newID(file), newID(filepath.Join(dir, "Daily Backup!.json"))} {
		if _, err := m.Draft(id, file, "0 7 * * *", sumA, nil); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"A", "a b", "../x", "a/b", "x\n", "a.timer", strings.Repeat("a", 41), "ü"} {
		if _, err := m.Draft(id, file, "0 7 * * *", sumA, nil); err == nil {
			t.Errorf("%q taken", id)
		}
	}
}
