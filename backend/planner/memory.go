package planner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/appdirs"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/validate"
)

// Bounds of the repair memory.
const (
	// DefaultMemoryRecords is how many of the latest records are read.
	DefaultMemoryRecords = 2000
	// memoryRotateBytes: past this size the file is renamed to .1 (the
	// previous .1 is dropped) and a new one started.
	memoryRotateBytes = 4 << 20
	// memoryReadBytes bounds how much of each file's tail a read looks at;
	// a record is a few hundred bytes, so this holds well over
	// DefaultMemoryRecords of them.
	memoryReadBytes = 2 << 20
	// maxMistakes is how many "Mistakes to avoid" lines a prompt gets.
	maxMistakes = 5
)

// Record is one plan in the repair memory: a JSON line.
type Record struct {
	Time     time.Time `json:"time"`
	Model    string    `json:"model"`
	Attempts int       `json:"attempts"`
	LLMCalls int       `json:"llm_calls"`
	Valid    bool      `json:"valid"`
	// Failures are the failure classes of the plan's attempts, each once:
	// "stage:<stage>" (a reply that could not be used at all, including
	// "stage:truncation") and "problem:<code>" (validation errors).
	Failures []string `json:"failures,omitempty"`
	// Repairs are the stages whose local fixes the plan needed, each once
	// ("repair", "infer", "map", …).
	Repairs []string `json:"repairs,omitempty"`
}

// Memory is the append-only JSON-lines log of plans, per model. It is safe
// for concurrent use within a process; appends from several processes
// are single O_APPEND writes.
type Memory struct {
	Path string
	// MaxRecords bounds how many of the latest records reads return; 0
	// means DefaultMemoryRecords.
	MaxRecords int
	Now        func() time.Time
	Log        *slog.Logger

	mu sync.Mutex
}

// MemoryPath is $XDG_DATA_HOME/weft/repair-memory.jsonl.
func MemoryPath() (string, error) {
	p, err := appdirs.DataFile("repair-memory.jsonl")
	if err != nil {
		return "", fmt.Errorf("locate repair memory: %w", err)
	}
	return p, nil
}

// DefaultMemory opens the memory at MemoryPath.
func DefaultMemory() (*Memory, error) {
	p, err := MemoryPath()
	if err != nil {
		return nil, err
	}
	return &Memory{Path: p}, nil
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Memory) log() *slog.Logger {
	if m.Log != nil {
		return m.Log
	}
	return slog.Default()
}

// Append adds one record, stamping its time, and rotates a file grown past
// its bound.
func (m *Memory) Append(r Record) error {
	if r.Time.IsZero() {
		r.Time = m.now().UTC()
	}
	if strings.TrimSpace(r.Model) == "" {
		r.Model = "unknown"
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode repair memory record: %w", err)
	}
	line = append(line, '\n')

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(m.Path), 0o700); err != nil {
		return fmt.Errorf("repair memory: %w", err)
	}
	if st, err := os.Stat(m.Path); err == nil && st.Size() >= memoryRotateBytes {
		if err := os.Rename(m.Path, m.Path+".1"); err != nil {
			return fmt.Errorf("rotate repair memory: %w", err)
		}
	}
	f, _, err := atomicfile.OpenFile(m.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open repair memory: %w", err)
	}
	defer f.Close()
	// A crash mid-write can leave a partial last line; start on a fresh
	// line so this record does not get glued onto it.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("write repair memory: %w", err)
	}
	return nil
}

// Load returns the latest records, oldest first, and a warning for each
// line it had to skip (corrupt or cut off). A missing file is empty.
func (m *Memory) Load() ([]Record, []string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := m.MaxRecords
	if limit <= 0 {
		limit = DefaultMemoryRecords
	}
	var recs []Record
	var warnings []string
	for _, p := range []string{m.Path + ".1", m.Path} {
		rs, ws, err := readRecords(p)
		if err != nil {
			return nil, warnings, err
		}
		recs = append(recs, rs...)
		warnings = append(warnings, ws...)
	}
	if len(recs) > limit {
		recs = recs[len(recs)-limit:]
	}
	return recs, warnings, nil
}

// readRecords decodes the tail of one memory file.
func readRecords(path string) ([]Record, []string, error) {
	f, st, err := atomicfile.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read repair memory: %w", err)
	}
	defer f.Close()
	skipFirst := false
	if st.Size() > memoryReadBytes {
		if _, err := f.Seek(st.Size()-memoryReadBytes, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("read repair memory: %w", err)
		}
		skipFirst = true // it starts mid-line
	}
	var recs []Record
	var warnings []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), memoryReadBytes)
	n := 0
	for sc.Scan() {
		n++
		if skipFirst {
			skipFirst = false
			continue
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.Model == "" {
			reason := "no model"
			if err != nil {
				reason = err.Error()
			}
			where := fmt.Sprintf("line %d", n)
			if st.Size() > memoryReadBytes {
				where += " of the last " + strconv.Itoa(memoryReadBytes>>20) + " MiB"
			}
			warnings = append(warnings, fmt.Sprintf("%s: %s is not a plan record (%s); skipped", path, where, reason))
			continue
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return recs, warnings, fmt.Errorf("read repair memory %s: %w", path, err)
	}
	return recs, warnings, nil
}

// Mistake is one line of the "Mistakes to avoid" list.
type Mistake struct {
	Class       string // the most frequent failure class behind the instruction
	Count       int    // plans of this model that had it
	Instruction string
}

// Mistakes returns up to limit instructions built from the model's most
// frequent failure classes and local repairs, most frequent first.
func (m *Memory) Mistakes(model string, limit int) ([]Mistake, error) {
	recs, warnings, err := m.Load()
	if err != nil {
		return nil, err
	}
	if len(warnings) > 0 {
		m.log().Warn("repair memory: skipped unreadable lines", "count", len(warnings), "first", warnings[0])
	}
	return MistakesFrom(recs, model, limit), nil
}

// MistakesFrom builds the list from records. Classes that share an
// instruction add up; classes without one are left out.
func MistakesFrom(recs []Record, model string, limit int) []Mistake {
	if strings.TrimSpace(model) == "" {
		model = "unknown"
	}
	byInstr := map[string]*Mistake{}
	bump := func(class string) {
		instr, ok := mistakeInstructions[class]
		if !ok {
			return
		}
		if mk := byInstr[instr]; mk != nil {
			mk.Count++
			return
		}
		byInstr[instr] = &Mistake{Class: class, Count: 1, Instruction: instr}
	}
	for _, r := range recs {
		if r.Model != model {
			continue
		}
		seen := map[string]bool{} // one count per plan per instruction
		classes := append([]string(nil), r.Failures...)
		for _, s := range r.Repairs {
			classes = append(classes, "local:"+s)
		}
		for _, c := range classes {
			if i, ok := mistakeInstructions[c]; ok && !seen[i] {
				seen[i] = true
				bump(c)
			}
		}
	}
	out := make([]Mistake, 0, len(byInstr))
	for _, mk := range byInstr {
		out = append(out, *mk)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Class < out[j].Class
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Instructions shared by several classes.
const (
	instrStrictJSON = "Write strict JSON: double quotes, no trailing commas, no comments, every bracket closed."
	instrIf         = "Give every If exactly two outgoing edges, one labelled IfTrue and one labelled IfFalse."
	instrSwitch     = "Give every Switch case exactly one SwitchCase edge with that case's name, and at most one SwitchDefault edge."
	instrLoop       = "Pair every Loop with exactly one EndLoop (loop_id = the Loop's id) whose only edge goes back to the Loop; the Loop needs a LoopBody edge."
	instrGraph      = "Connect every step: one entry step without incoming edges, every other step reachable from it."
	instrTools      = "Use only tools from the catalog, with their argument names."
	instrIDs        = "Give every step a unique id of lowercase letters, digits and _."
	instrLabels     = "Label edges leaving If, Switch and Loop steps explicitly (IfTrue/IfFalse, SwitchCase/SwitchDefault, LoopBody/LoopDone) and no others."
	instrRefs       = "Refer in conditions and {{templates}} only to ids of steps that run earlier."
)

// mistakeInstructions maps failure classes ("stage:", "problem:") and
// local repairs ("local:<stage>") to one-line instructions.
var mistakeInstructions = map[string]string{
	"stage:" + StageTruncation: "Keep the reply short (only the steps the goal needs, no prose): long replies were cut off at the length limit.",
	"stage:" + StageExtract:    "Reply with the JSON object only: no prose or Markdown around it.",
	"stage:" + StageRepair:     instrStrictJSON,
	"stage:" + StageDecode:     instrStrictJSON,
	"stage:" + StageFeatures:   "Use only the step types that are switched on.",
	"stage:" + StageMap:        instrTools,
	"stage:" + StageEdges:      "Make every edge's from and to the id of a step in the plan.",
	"local:" + StageExtract:    "Reply with the JSON object only: no prose or Markdown around it.",
	"local:" + StageRepair:     instrStrictJSON,
	"local:" + StageInfer:      instrLabels,
	"local:" + StageFeatures:   "Use only the step types that are switched on.",
	"local:" + StageMap:        instrTools,

	"problem:" + validate.CodeNoNodes:              "Always include at least one step.",
	"problem:" + validate.CodeDuplicateNodeID:      instrIDs,
	"problem:" + validate.CodeBadKey:               instrIDs,
	"problem:" + validate.CodeDuplicateKey:         instrIDs,
	"problem:" + validate.CodeDanglingEdge:         "Make every edge's from and to the id of a step in the plan.",
	"problem:" + validate.CodeDuplicateEdge:        "Write each edge once.",
	"problem:" + validate.CodeSelfLoop:             "Never connect a step to itself; repeat work with a Loop.",
	"problem:" + validate.CodeNoEntry:              instrGraph,
	"problem:" + validate.CodeMultipleEntries:      instrGraph,
	"problem:" + validate.CodeUnreachable:          instrGraph,
	"problem:" + validate.CodeMultipleOutgoing:     "Give a Tool step at most one outgoing edge; branch with an If or a Switch.",
	"problem:" + validate.CodeBadOutputLabel:       instrLabels,
	"problem:" + validate.CodeIfMissingBranch:      instrIf,
	"problem:" + validate.CodeIfExtraEdges:         instrIf,
	"problem:" + validate.CodeSwitchDuplicateCase:  instrSwitch,
	"problem:" + validate.CodeSwitchMissingCase:    instrSwitch,
	"problem:" + validate.CodeSwitchDuplicateEdge:  instrSwitch,
	"problem:" + validate.CodeSwitchUnknownOutput:  instrSwitch,
	"problem:" + validate.CodeLoopMissingBody:      instrLoop,
	"problem:" + validate.CodeLoopExtraEdges:       instrLoop,
	"problem:" + validate.CodeLoopUnpaired:         instrLoop,
	"problem:" + validate.CodeLoopMultipleEndloops: instrLoop,
	"problem:" + validate.CodeEndloopBadTarget:     instrLoop,
	"problem:" + validate.CodeEndloopEdgeMismatch:  instrLoop,
	"problem:" + validate.CodeEdgeLeavesLoop:       "Leave a loop body only through its EndLoop; go on after the loop from the Loop's LoopDone edge.",
	"problem:" + validate.CodeCycle:                "Make no cycles other than EndLoop → Loop.",
	"problem:" + validate.CodeBadMaxIterations:     "Give every Loop a max_iterations of at least 1.",
	"problem:" + validate.CodeBadCondition:         "Write conditions as expr-lang expressions over step outputs, such as check.exit_code == 0.",
	"problem:" + validate.CodeUnknownVariable:      instrRefs,
	"problem:" + validate.CodeUnknownTool:          instrTools,
	"problem:" + validate.CodeUnknownOutput:        "Read only the outputs a step has: each tool's outputs are listed in the catalog; every step also has success and error.",
	"problem:" + validate.CodeErrorBranchMissing:   "Give a step with on_error \"branch\" an edge with output {\"type\": \"Error\"}, or use on_error \"continue\".",
	"problem:" + validate.CodeBadOnError:           "Use on_error only on Tool, AiTransform and AiStep steps, with \"continue\" or \"branch\".",
	"problem:" + validate.CodeBadDoneWhen:          "Write done_when as {\"condition\": \"<expression>\"} and/or {\"criteria\": \"<sentence>\"}, at the top level or on a step.",
}
