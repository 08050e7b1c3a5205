//go:build unix

package atomicfile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crashChildEnv makes the test binary, re-executed, act as a writer that
// saves a large file in a loop until it is killed.
const crashChildEnv = "WEFT_ATOMICFILE_CRASH_CHILD"

const crashSize = 8 << 20

// fill is the content of save number i: one repeated byte, so a torn file
// (two generations mixed, or cut short) is easy to see.
func fill(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, crashSize) }

func TestMain(m *testing.M) {
	if p := os.Getenv(crashChildEnv); p != "" {
		for i := 0; ; i++ {
			if err := WriteFile(p, fill(i), 0o600); err != nil {
				os.Exit(3)
			}
		}
	}
	os.Exit(m.Run())
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestKilledWriterLeavesNoLitterAfterNextWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process writing 8 MB files")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "big.json")
	if err := WriteFile(p, fill(0), 0o600); err != nil {
		t.Fatal(err)
	}
	// Someone else's files that look alike must survive.
	foreign := []string{".big.json.tmp-notours", "big.json.tmp-123", ".other.json.tmp-1-2", ".big.json.tmp-1-2-3"}
	for _, f := range foreign {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(dir, f), old, old)
	}

	litter := 0
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+p)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it while a temp file of its own exists and is being filled.
		deadline := time.Now().Add(20 * time.Second)
		for {
			var mid bool
			for _, name := range temps(t, dir) {
				if _, ours := parseTempName(name, ".big.json.tmp-"); !ours {
					continue
				}
				if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Size() > 0 && st.Size() < crashSize {
					mid = true
				}
			}
			if mid || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Kill() // SIGKILL: no chance to clean up
		cmd.Wait()         // reap it, so its pid is gone
		ours := 0
		for _, name := range temps(t, dir) {
			if _, ok := parseTempName(name, ".big.json.tmp-"); ok {
				ours++
			}
		}
		if ours == 0 {
			t.Logf("round %d: the child was killed between writes", round)
		}
		litter += ours

		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != crashSize || !bytes.Equal(got, bytes.Repeat(got[:1], crashSize)) {
			t.Fatalf("round %d: torn target: %d bytes", round, len(got))
		}
	}

	if litter == 0 {
		t.Fatal("no kill landed mid-write; the test proved nothing")
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	left := temps(t, dir)
	if len(left) != len(foreign) {
		t.Fatalf("temp files after the next write: %v (want only %v)", left, foreign)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("content %q", b)
	}
}

func TestRemoveStale(t *testing.T) {
	now := time.Now()
	self := os.Getpid()
	cases := []struct {
		name   string
		file   string
		age    time.Duration
		remove bool
	}{
		{"own pid, fresh: a write under way", ".f.json.tmp-" + itoa(self) + "-123", 0, false},
		{"own pid, old", ".f.json.tmp-" + itoa(self) + "-123", StaleAge + time.Second, true},
		{"legacy name, fresh", ".f.json.tmp-4567", 0, false},
		{"legacy name, old", ".f.json.tmp-4567", StaleAge, true},
		{"dead pid, fresh", ".f.json.tmp-" + itoa(deadPid(t)) + "-1", 0, true},
		{"other name", ".g.json.tmp-4567", time.Hour, false},
		{"no leading dot", "f.json.tmp-4567", time.Hour, false},
		{"letters", ".f.json.tmp-abc", time.Hour, false},
		{"trailing text", ".f.json.tmp-1-2.bak", time.Hour, false},
		{"empty random", ".f.json.tmp-", time.Hour, false},
		{"empty random after pid", ".f.json.tmp-1-", time.Hour, false},
		{"overlong digits", ".f.json.tmp-" + strings.Repeat("9", 30), time.Hour, false},
		{"the file itself", "f.json", time.Hour, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fp := filepath.Join(dir, tc.file)
			if err := os.WriteFile(fp, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			mt := now.Add(-tc.age)
			os.Chtimes(fp, mt, mt)
			n, err := RemoveStale(filepath.Join(dir, "f.json"), now)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(fp)
			if gone := os.IsNotExist(statErr); gone != tc.remove || (n == 1) != tc.remove {
				t.Fatalf("removed=%v (n=%d), want %v", gone, n, tc.remove)
			}
		})
	}
	// A temp directory with our name is not ours to remove.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".f.json.tmp-1"), 0o755)
	old := now.Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, ".f.json.tmp-1"), old, old)
	if n, _ := RemoveStale(filepath.Join(dir, "f.json"), now); n != 0 {
		t.Fatal("removed a directory")
	}
	if n, err := RemoveStale(filepath.Join(t.TempDir(), "missing", "f.json"), now); n != 0 || err != nil {
		t.Fatalf("missing folder: %d %v", n, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// deadPid is the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
