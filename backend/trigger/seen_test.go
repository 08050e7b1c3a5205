package trigger

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A delivery claimed is refused again, also after a restart (a new Seen
// on the same log); one given back may go again; one older than the
// window is forgotten; compaction keeps what is remembered.
func TestSeenAcrossRestart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "t.log")
	now := time.Unix(1_800_000_000, 0)
	s, err := OpenSeen(p, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Claim([]string{"id:a", "sig:1"}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim([]string{"id:b", "sig:2"}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.Release([]string{"id:b", "sig:2"}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim([]string{"id:c", "sig:1"}, now); !errors.Is(err, ErrSeen) {
		t.Fatalf("the same signature under a new id: %v", err)
	}
	s.Close()

	s, err = OpenSeen(p, time.Hour, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Claim([]string{"id:a"}, now.Add(time.Minute)); !errors.Is(err, ErrSeen) {
		t.Fatalf("a delivery handled before the restart: %v", err)
	}
	if err := s.Claim([]string{"id:b", "sig:2"}, now.Add(time.Minute)); err != nil {
		t.Fatalf("a delivery given back before the restart: %v", err)
	}
	s.Close()

	s, err = OpenSeen(p, time.Hour, now.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Has("id:a", now.Add(2*time.Hour)) {
		t.Fatal("a delivery older than the window is still remembered")
	}
}

// Compaction while appending keeps every key.
func TestSeenCompacts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.log")
	now := time.Unix(1_800_000_000, 0)
	s, err := OpenSeen(p, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25_000 {
		k := []string{"k" + string(rune('a'+i%26)) + time.Duration(i).String()}
		if err := s.Claim(k, now); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(k, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Claim([]string{"kept"}, now); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenSeen(p, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Has("kept", now) || len(s.keys) != 1 {
		t.Fatalf("after compaction: %d keys", len(s.keys))
	}
}

// Limits: a burst of PerSecond, then 429 until the bucket refills; the
// minute's bound; runs at once until Done.
func TestLimiter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := NewLimiter(Limits{PerSecond: 3, PerMinute: 5})
	for i := range 3 {
		if err := l.Take(now); err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
	}
	if err := l.Take(now); err == nil {
		t.Fatal("a fourth in one second was taken")
	}
	if err := l.Take(now.Add(time.Second)); err != nil {
		t.Fatalf("after a second: %v", err)
	}
	if err := l.Take(now.Add(2 * time.Second)); err != nil {
		t.Fatalf("after two seconds: %v", err)
	}
	if err := l.Take(now.Add(3 * time.Second)); err == nil {
		t.Fatal("a sixth in one minute was taken")
	}
	r := NewLimiter(Limits{Runs: 1})
	if err := r.Take(now); err != nil {
		t.Fatal(err)
	}
	if err := r.Take(now); err == nil {
		t.Fatal("a second run at once was taken")
	}
	r.Done()
	if err := r.Take(now); err != nil {
		t.Fatalf("after Done: %v", err)
	}
}

// A key that cannot stay on one line of the log as it is (a file name
// with a line break) is remembered all the same, before and after a
// restart.
func TestSeenOddKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.log")
	now := time.Unix(1_800_000_000, 0)
	odd := []string{"file:a\nb.csv@1@2", "file:c\r\n+ 1 forged@1@2", string(make([]byte, 2*maxKeyLen))}
	s, err := OpenSeen(p, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range odd {
		if err := s.Claim([]string{k}, now); err != nil {
			t.Fatal(err)
		}
		if !s.Has(k, now) {
			t.Fatalf("%q is not remembered", k)
		}
	}
	s.Close()
	s, err = OpenSeen(p, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range odd {
		if !s.Has(k, now) {
			t.Fatalf("%q is not remembered after a restart", k)
		}
	}
	if s.Has("forged@1@2", now) || len(s.keys) != len(odd) {
		t.Fatalf("a key forged a line: %d keys", len(s.keys))
	}
}
