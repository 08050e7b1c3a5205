package trigger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// ErrSeen is a delivery handled already (409).
var ErrSeen = errors.New("repeated delivery")

// Bounds of a Seen: a key's length, and how many it holds (past that the
// oldest are forgotten first; a sender that replays one of those after
// so many newer deliveries is refused by its signature's window no more).
const (
	maxKeyLen  = 512
	maxKeys    = 200_000
	maxLogSize = 64 << 20
)

// Seen remembers which deliveries (or files) a trigger handled, for a
// window, across restarts: an append-only log in Weft's state folder,
// one line per key claimed ("+ UNIX KEY") or given back ("- KEY"),
// compacted when it is opened and when it grows. Appending before the run
// starts means a delivery accepted is remembered even if Weft dies the
// next moment.
type Seen struct {
	mu     sync.Mutex
	path   string
	window time.Duration
	keys   map[string]int64 // key → unix seconds claimed
	f      *os.File
	lines  int
}

// OpenSeen reads the log at path (a missing one is empty), forgets what is
// older than window (0: never), and opens it for appending.
func OpenSeen(path string, window time.Duration, now time.Time) (*Seen, error) {
	s := &Seen{path: path, window: window, keys: map[string]int64{}}
	data, err := atomicfile.ReadBounded(path, maxLogSize)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read what the trigger handled (%s): %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1024), 2*maxKeyLen)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+ "):
			ts, key, ok := strings.Cut(line[2:], " ")
			n, err := strconv.ParseInt(ts, 10, 64)
			if ok && err == nil && key != "" {
				s.keys[key] = n
			}
		case strings.HasPrefix(line, "- "):
			delete(s.keys, line[2:])
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("trigger state: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.compact(now); err != nil {
		return nil, err
	}
	return s, nil
}

// compact rewrites the log with what is still remembered and reopens it.
func (s *Seen) compact(now time.Time) error {
	if s.window > 0 {
		cutoff := now.Add(-s.window).Unix()
		for k, t := range s.keys {
			if t < cutoff {
				delete(s.keys, k)
			}
		}
	}
	if len(s.keys) > maxKeys {
		type kt struct {
			k string
			t int64
		}
		all := make([]kt, 0, len(s.keys))
		for k, t := range s.keys {
			all = append(all, kt{k, t})
		}
		sort.Slice(all, func(i, j int) bool { return all[i].t > all[j].t })
		for _, x := range all[maxKeys:] {
			delete(s.keys, x.k)
		}
	}
	var b bytes.Buffer
	for k, t := range s.keys {
		fmt.Fprintf(&b, "+ %d %s\n", t, k)
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if err := atomicfile.WriteFile(s.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("trigger state: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("trigger state: %w", err)
	}
	s.f, s.lines = f, len(s.keys)
	return nil
}

// Has reports whether key is remembered (within the window).
func (s *Seen) Has(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.has(key, now)
}

func (s *Seen) has(key string, now time.Time) bool {
	t, ok := s.keys[clean(key)]
	return ok && (s.window == 0 || t >= now.Add(-s.window).Unix())
}

// Claim remembers keys, or fails with ErrSeen when one of them is
// remembered already: one delivery is handled once.
func (s *Seen) Claim(keys []string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if s.has(k, now) {
			return ErrSeen
		}
	}
	var b bytes.Buffer
	for _, k := range keys {
		k = clean(k)
		s.keys[k] = now.Unix()
		fmt.Fprintf(&b, "+ %d %s\n", now.Unix(), k)
	}
	return s.append(b.Bytes(), len(keys), now)
}

// Release forgets keys claimed for a delivery that did not start a run
// (refused for its inputs, or Weft could not start it): a retry may go.
func (s *Seen) Release(keys []string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	for _, k := range keys {
		k = clean(k)
		delete(s.keys, k)
		fmt.Fprintf(&b, "- %s\n", k)
	}
	return s.append(b.Bytes(), len(keys), now)
}

func (s *Seen) append(b []byte, n int, now time.Time) error {
	if s.f == nil {
		return errors.New("trigger state is closed")
	}
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("trigger state: %w", err)
	}
	s.lines += n
	if s.lines > 2*len(s.keys)+10_000 {
		return s.compact(now)
	}
	return nil
}

// Close closes the log.
func (s *Seen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// clean keeps a key on one line and bounded.
func clean(k string) string {
	k = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, k)
	if len(k) > maxKeyLen {
		k = k[:maxKeyLen]
	}
	return k
}
