package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCutTornTail(t *testing.T) {
	long := strings.Repeat("x", 3*tornChunk+17)
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"complete", "{\"a\":1}\n{\"b\":2}\n", "{\"a\":1}\n{\"b\":2}\n"},
		{"torn last line", "{\"a\":1}\n{\"b\":", "{\"a\":1}\n"},
		{"only a torn line", "{\"b\":", ""},
		{"a newline alone", "\n", "\n"},
		{"torn line longer than a chunk", "{\"a\":1}\n" + long, "{\"a\":1}\n"},
		{"complete line longer than a chunk", long + "\n" + "{\"b", long + "\n"},
		{"torn line of exactly one chunk", "ok\n" + strings.Repeat("y", tornChunk), "ok\n"},
		{"no newline anywhere, long", long, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "events.jsonl")
			os.WriteFile(p, []byte(tc.in), 0o600)
			n, err := RepairLog(p)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want || n != int64(len(tc.in)-len(tc.want)) {
				t.Fatalf("got %d bytes (cut %d), want %d", len(got), n, len(tc.want))
			}
		})
	}
	if _, err := RepairLog(filepath.Join(t.TempDir(), "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}

// A run folder whose events.jsonl ends in a cut line (a writer killed
// mid-write) is repaired when it is opened again for appending: every line
// parses afterwards.
func TestRunLogRepairsATornEventsFileOnReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261123-000000.000-abcdef")
	os.MkdirAll(dir, 0o700)
	whole := `{"seq":1,"type":"run_started","run_id":"r"}` + "\n"
	os.WriteFile(filepath.Join(dir, eventsFile), []byte(whole+`{"seq":2,"type":"node_sta`), 0o600)
	os.WriteFile(filepath.Join(dir, retryLogFile), []byte("[t] [RETRY] [a] attempt=1\n[t] [RETRY] [a] err"), 0o600)

	l, err := openRunLog(dir, "r", nil, time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.emit(Event{Type: EvRunFinished})
	l.retryf("a", "attempt=%d", 2)
	l.mu.Lock()
	l.flushLocked()
	l.mu.Unlock()
	l.events.Close()
	l.retry.Close()

	f, _ := os.Open(filepath.Join(dir, eventsFile))
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines int
	for sc.Scan() {
		lines++
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d does not parse: %v: %s", lines, err, sc.Bytes())
		}
	}
	if lines != 2 {
		t.Fatalf("%d lines, want the complete one and the new one", lines)
	}
	rl, _ := os.ReadFile(filepath.Join(dir, retryLogFile))
	if got := strings.Count(string(rl), "\n"); got != 2 || strings.Contains(string(rl), "err") {
		t.Fatalf("retry.log:\n%s", rl)
	}
}
