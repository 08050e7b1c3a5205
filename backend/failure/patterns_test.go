package failure

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSignature(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"paths and numbers", "open /home/a/notes-2.txt: no such file or directory", "open <path>: no such file or directory"},
		{"same failure, other file", "open /tmp/x/y.txt: no such file or directory", "open <path>: no such file or directory"},
		{"quoted text", `exit 127: sh: "frob": command not found`, "exit <n>: sh: <s>: command not found"},
		{"ids", "request 0xdeadbeef failed: id 3f2a9c1b7e", "request <id> failed: id <id>"},
		{"only the first line", "boom\nstack trace line 1\nline 2", "boom"},
		{"spaces and case", "  Connection   REFUSED\t", "connection refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Signature(c.in); got != c.want {
				t.Fatalf("Signature(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	// A huge message yields a bounded signature.
	if got := Signature(strings.Repeat("x", 1<<20)); len(got) > 300 {
		t.Fatalf("signature of 1 MiB is %d bytes", len(got))
	}
}

func TestPatternStore(t *testing.T) {
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &PatternStore{Path: filepath.Join(t.TempDir(), "sub", "patterns.jsonl")}
	if ps, err := s.Relevant("run_command", 0); err != nil || len(ps) != 0 {
		t.Fatalf("a missing file: %v, %v", ps, err)
	}
	rec := func(p Pattern) {
		t.Helper()
		if err := s.Record(p); err != nil {
			t.Fatal(err)
		}
	}
	rec(Pattern{Time: at, Tool: "run_command", Error: "exit 126: ./a.sh: Permission denied", Resolution: "fix", Fix: "chmod"})
	rec(Pattern{Time: at.Add(time.Hour), Tool: "run_command", Error: "exit 126: ./b.sh: Permission denied", Resolution: "fix", Fix: "chmod"})
	rec(Pattern{Time: at.Add(2 * time.Hour), Tool: "run_command", Error: "connection refused", Resolution: "retry"})
	rec(Pattern{Time: at, Tool: "read_file", Error: "x", Resolution: "skip"})
	rec(Pattern{Time: at, Tool: "run_command", Error: strings.Repeat("e", 5000), Fix: strings.Repeat("f", 5000), Resolution: "fix", Count: 99})

	// Lines that are not patterns are skipped, not fatal.
	f, err := os.OpenFile(s.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n{\"tool\":\"run_command\"}\n\n")
	f.Close()

	ps, err := s.Relevant("run_command", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("want 3 merged patterns, got %+v", ps)
	}
	// The two permission failures are one pattern, seen twice, newest kept.
	if ps[0].Count != 2 || ps[0].Error != "exit 126: ./b.sh: Permission denied" || !ps[0].Time.Equal(at.Add(time.Hour)) {
		t.Fatalf("first: %+v", ps[0])
	}
	// Then the most recent of those seen once.
	if ps[1].Resolution != "retry" || ps[1].Count != 1 {
		t.Fatalf("second: %+v", ps[1])
	}
	if len(ps[2].Error) > 600 || len(ps[2].Fix) > 1100 || ps[2].Count != 1 {
		t.Fatalf("long error and fix are cut, the stored count ignored: %d %d %d", len(ps[2].Error), len(ps[2].Fix), ps[2].Count)
	}
	if ps, _ := s.Relevant("run_command", 1); len(ps) != 1 {
		t.Fatalf("limit 1: %d", len(ps))
	}

	var nilStore *PatternStore
	if err := nilStore.Record(Pattern{Error: "x"}); err != nil {
		t.Fatal(err)
	}
	if ps, err := nilStore.Relevant("x", 0); ps != nil || err != nil {
		t.Fatal(ps, err)
	}
}

func TestPatternStoreCompacts(t *testing.T) {
	s := &PatternStore{Path: filepath.Join(t.TempDir(), "p.jsonl"), MaxBytes: 2000, Keep: 3}
	for i := 0; i < 40; i++ {
		if err := s.Record(Pattern{Tool: "t", Error: strings.Repeat("e", i+1) + " x", Resolution: "retry"}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 2000+400 {
		t.Fatalf("the file grew to %d bytes past MaxBytes", st.Size())
	}
	all, err := s.load()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || len(all) > 3+5 {
		t.Fatalf("%d records kept", len(all))
	}
	if last := all[len(all)-1]; last.Error != strings.Repeat("e", 40)+" x" {
		t.Fatalf("the newest record is not kept: %q", last.Error)
	}
}
