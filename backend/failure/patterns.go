package failure

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
)

// Pattern is a learned failure and what resolved it (seed 004's "learning
// from mistakes"): the planner puts the relevant ones in its prompt, and
// escalations show them as known fixes.
type Pattern struct {
	Time        time.Time `json:"time"`
	Tool        string    `json:"tool"` // tool name, or the node type for AI nodes (AiStep, AiTransform/extract)
	Category    Category  `json:"category"`
	FailureType Type      `json:"failure_type"`
	// Signature is the error with paths, numbers and quoted text replaced,
	// so that the same failure on another file matches.
	Signature string `json:"signature"`
	Error     string `json:"error"`
	// Resolution is what resolved it: "retry" (an automatic retry
	// succeeded), "user_retry", "fix", "skip" or "replan" (the planner
	// made a new version; Fix says what it changed).
	Resolution string `json:"resolution"`
	// Fix is the instruction or the JSON arguments of a fix.
	Fix      string `json:"fix,omitempty"`
	Attempts int    `json:"attempts"`
	// Count is how many records Relevant merged into this one.
	Count int `json:"count,omitempty"`
}

// PatternStore keeps patterns as JSON lines in one file.
type PatternStore struct {
	Path string
	// MaxBytes triggers compaction to the newest Keep records; zero means
	// the defaults (1 MiB, 2000).
	MaxBytes int64
	Keep     int

	mu sync.Mutex
}

// DefaultPatternStore is $XDG_DATA_HOME/weft/patterns.jsonl.
func DefaultPatternStore() (*PatternStore, error) {
	p, err := appdirs.DataFile("patterns.jsonl")
	if err != nil {
		return nil, err
	}
	return &PatternStore{Path: p}, nil
}

// RelevantPatterns returns up to limit learned patterns for a tool from
// the default store, most useful first (for the planner's prompt).
func RelevantPatterns(tool string, limit int) ([]Pattern, error) {
	s, err := DefaultPatternStore()
	if err != nil {
		return nil, err
	}
	return s.Relevant(tool, limit)
}

// Record appends a pattern.
func (s *PatternStore) Record(p Pattern) error {
	if s == nil || s.Path == "" {
		return nil
	}
	if p.Signature == "" {
		p.Signature = Signature(p.Error)
	}
	p.Error = Truncate(p.Error, 500)
	p.Fix = Truncate(p.Fix, 1000)
	p.Count = 0
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	// 0600: failure texts can quote private output. Chmod tightens a
	// store made before that.
	f, _, err := atomicfile.OpenFile(s.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	f.Chmod(0o600)
	_, werr := f.Write(line) // one write: appends from several processes do not interleave
	st, _ := f.Stat()
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	if cerr != nil {
		return cerr
	}
	max := s.MaxBytes
	if max <= 0 {
		max = 1 << 20
	}
	if st != nil && st.Size() > max {
		return s.compact()
	}
	return nil
}

func (s *PatternStore) compact() error {
	all, err := s.load()
	if err != nil {
		return err
	}
	keep := s.Keep
	if keep <= 0 {
		keep = 2000
	}
	if len(all) > keep {
		all = all[len(all)-keep:]
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, p := range all {
		enc.Encode(p)
	}
	return atomicfile.WriteFile(s.Path, b.Bytes(), 0o600)
}

func (s *PatternStore) load() ([]Pattern, error) {
	f, _, err := atomicfile.OpenFile(s.Path, os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Pattern
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var p Pattern
		if json.Unmarshal(sc.Bytes(), &p) == nil && p.Signature != "" {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

// Relevant returns the patterns recorded for tool, merged by signature and
// resolution, most frequent then most recent first; limit <= 0 means all.
func (s *PatternStore) Relevant(tool string, limit int) ([]Pattern, error) {
	if s == nil || s.Path == "" {
		return nil, nil
	}
	s.mu.Lock()
	all, err := s.load()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	type key struct{ sig, res, fix string }
	merged := map[key]*Pattern{}
	var order []key
	for _, p := range all {
		if p.Tool != tool {
			continue
		}
		k := key{p.Signature, p.Resolution, p.Fix}
		if m := merged[k]; m != nil {
			m.Count++
			if p.Time.After(m.Time) {
				c := m.Count
				*m = p
				m.Count = c
			}
			continue
		}
		p.Count = 1
		merged[k] = &p
		order = append(order, k)
	}
	out := make([]Pattern, 0, len(order))
	for _, k := range order {
		out = append(out, *merged[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Time.After(out[j].Time)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

var (
	sigQuoted = regexp.MustCompile(`"[^"]*"|'[^']*'|` + "`[^`]*`")
	sigPath   = regexp.MustCompile(`(?:[A-Za-z]:)?(?:[\w.~-]*/)+[\w.-]*`)
	sigHex    = regexp.MustCompile(`\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{8,}\b`)
	sigNum    = regexp.MustCompile(`\d+`)
	sigSpace  = regexp.MustCompile(`\s+`)
)

// Signature normalises an error message so that the same failure matches
// across files, ports, ids and counts.
func Signature(msg string) string {
	s := firstLine(strings.TrimSpace(msg))
	s = sigQuoted.ReplaceAllString(s, "<s>")
	s = sigPath.ReplaceAllString(s, "<path>")
	s = sigHex.ReplaceAllString(s, "<id>")
	s = sigNum.ReplaceAllString(s, "<n>")
	s = sigSpace.ReplaceAllString(s, " ")
	return Truncate(strings.ToLower(s), 200)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Truncate keeps the first n bytes of s (on a rune boundary) and marks
// the cut: how failure records, patterns and run events cut text.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d more bytes]", len(s)-cut)
}
