package schedule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The weft serve unit of every folder a unit can carry loads in
// systemd-analyze verify, and systemd reads back the folder and the
// command as given; a folder it cannot carry is refused with the reason.
func TestServeUnitLoads(t *testing.T) {
	analyze := systemdAnalyze(t)
	root := t.TempDir()
	env := analyzeEnv(t, root)
	weft := filepath.Join(root, "bin", "weft")
	os.MkdirAll(filepath.Dir(weft), 0o755)
	if err := os.WriteFile(weft, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, n := range neighbours {
		dir := filepath.Join(root, "flows", n)
		t.Run(fmt.Sprintf("%d %q", i, n), func(t *testing.T) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Skipf("the file system refuses %q: %v", dir, err)
			}
			command := []string{weft, "serve", dir, "--listen", "127.0.0.1:8787"}
			text, err := ServeUnit(dir, command)
			if want := refusedBySystemd(dir, false); want != "" {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("want refused (%s), got %v", want, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			p := filepath.Join(root, "units", fmt.Sprint(i), ServeUnitName(dir))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			verify(t, analyze, env, text, p)
			got := readUnit(t, text)
			if wd := strings.ReplaceAll(got["WorkingDirectory"], "%%", "%"); wd != dir {
				t.Errorf("systemd reads the folder as %q, want %q", wd, dir)
			}
			argv, err := readExec(got["ExecStart"])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", argv) != fmt.Sprintf("%q", command) {
				t.Errorf("systemd reads ExecStart as\n%q\nwant\n%q", argv, command)
			}
		})
	}
}

// InstallServe writes exactly the unit shown and starts it through
// systemctl --user (a fake here: never this machine's systemd); a unit
// other than the one shown installs nothing.
func TestInstallServe(t *testing.T) {
	root := t.TempDir()
	calls := filepath.Join(root, "calls")
	fake := filepath.Join(root, "systemctl")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := Systemd{Dir: filepath.Join(root, "units"), Systemctl: fake}
	dir := filepath.Join(root, "flows")
	command := []string{"/usr/bin/weft", "serve", dir}
	shown, err := d.ServeEntry(dir, command)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.InstallServe(context.Background(), dir, command, shown+" "); err == nil {
		t.Fatal("a unit other than the one shown was installed")
	}
	if _, err := os.Stat(d.Dir); !os.IsNotExist(err) {
		t.Fatalf("something was written: %v", err)
	}
	if err := d.InstallServe(context.Background(), dir, command, shown); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Dir, ServeUnitName(dir)))
	if err != nil || "# "+filepath.Join(d.Dir, ServeUnitName(dir))+"\n"+string(b) != shown {
		t.Fatalf("written %q, %v", b, err)
	}
	c, _ := os.ReadFile(calls)
	if want := "--user daemon-reload\n--user enable --now " + ServeUnitName(dir) + "\n"; string(c) != want {
		t.Fatalf("systemctl calls %q, want %q", c, want)
	}
}
