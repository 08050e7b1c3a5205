package planner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
)

// tempMemory is a memory in a private XDG data dir.
func tempMemory(t *testing.T) *Memory {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	m, err := DefaultMemory()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMemoryPathIsXDGData(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	p, err := MemoryPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "weft", "repair-memory.jsonl"); p != want {
		t.Fatalf("path %s, want %s", p, want)
	}
}

func TestPlanRecordsMemoryAndNextPromptAvoidsMistakes(t *testing.T) {
	mem := tempMemory(t)
	mem.Now = func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
	cfg := Config{MaxRepairAttempts: 3, Model: "model-a", Memory: mem}

	fake, res, err := planWith(t, cfg, answer(replyIfOneBranch), answer(replyTrailingComma))
	if err != nil || !res.Valid {
		t.Fatalf("plan 1: valid=%v err=%v", res.Valid, err)
	}
	if strings.Contains(fake.calls[0][0].Content, "Mistakes to avoid") {
		t.Fatal("an empty memory gives no mistakes list")
	}
	data, err := os.ReadFile(mem.Path)
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &rec); err != nil {
		t.Fatalf("memory line %q: %v", data, err)
	}
	want := Record{Time: mem.Now(), Model: "model-a", Attempts: 2, LLMCalls: 2, Valid: true,
		Failures: []string{"problem:if_missing_branch"}, Repairs: []string{StageRepair}}
	if !rec.Time.Equal(want.Time) || rec.Model != want.Model || rec.Attempts != 2 || rec.LLMCalls != 2 || !rec.Valid ||
		strings.Join(rec.Failures, ",") != strings.Join(want.Failures, ",") || !hasString(rec.Repairs, StageRepair) {
		t.Fatalf("record %+v, want %+v", rec, want)
	}

	// The next plan of the same model is told what to avoid…
	fake, _, err = planWith(t, cfg, answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	sys := fake.calls[0][0].Content
	if !strings.Contains(sys, "# Mistakes to avoid") || !strings.Contains(sys, instrIf) || !strings.Contains(sys, instrStrictJSON) {
		t.Errorf("plan 2's system prompt lacks the mistakes list:\n%s", sys[strings.Index(sys, "# Rules"):])
	}
	// …another model's is not.
	cfg.Model = "model-b"
	fake, _, err = planWith(t, cfg, answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fake.calls[0][0].Content, "Mistakes to avoid") {
		t.Error("model-b has no history; no mistakes list")
	}
}

func TestPlanErrorsAreNotRecorded(t *testing.T) {
	mem := tempMemory(t)
	_, _, err := planWith(t, Config{MaxRepairAttempts: 3, Memory: mem},
		scriptedReply{err: &llm.Error{Kind: llm.ErrUnreachable, Reason: "down"}})
	if err == nil {
		t.Fatal("want the transport error")
	}
	if _, err := os.Stat(mem.Path); !os.IsNotExist(err) {
		t.Errorf("a failed call is no plan outcome; memory should be untouched (%v)", err)
	}
}

func TestMemoryToleratesCorruptLines(t *testing.T) {
	mem := tempMemory(t)
	if err := os.MkdirAll(filepath.Dir(mem.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	good := `{"time":"2025-01-01T00:00:00Z","model":"m","attempts":2,"llm_calls":2,"valid":true,"failures":["problem:cycle"]}`
	content := good + "\n" + "not json at all\n" + `{"time":"2025-01-01T00:00:00Z"}` + "\n" + `{"model":"m","attempts":1,"llm_` // cut off mid-write
	if err := os.WriteFile(mem.Path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, warnings, err := mem.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || len(warnings) != 3 {
		t.Fatalf("records %d warnings %q, want 1 and 3", len(recs), warnings)
	}
	// An append after a cut-off line starts on a line of its own.
	if err := mem.Append(Record{Model: "m", Attempts: 1, LLMCalls: 1, Valid: true}); err != nil {
		t.Fatal(err)
	}
	recs, _, err = mem.Load()
	if err != nil || len(recs) != 2 {
		t.Fatalf("after append: %d records (%v)", len(recs), err)
	}
	// And a plan still runs, with the mistakes of the good lines.
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 1, Model: "m", Memory: mem}, answer(replyValidFlat))
	if err != nil || !res.Valid {
		t.Fatalf("plan with a corrupt memory: %v", err)
	}
	if !strings.Contains(fake.calls[0][0].Content, mistakeInstructions["problem:cycle"]) {
		t.Error("the good line's failure should inform the prompt")
	}
}

func TestMemoryUnwritableDoesNotFailThePlan(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	mem := &Memory{Path: filepath.Join(blocker, "weft", "repair-memory.jsonl")} // parent is a file
	_, res, err := planWith(t, Config{MaxRepairAttempts: 1, Memory: mem}, answer(replyValidFlat))
	if err != nil || !res.Valid {
		t.Fatalf("valid=%v err=%v", res.Valid, err)
	}
}

func TestMemoryBoundedRead(t *testing.T) {
	mem := tempMemory(t)
	mem.MaxRecords = 5
	for i := 0; i < 12; i++ {
		if err := mem.Append(Record{Model: "m", Attempts: i + 1, LLMCalls: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	recs, _, err := mem.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || recs[0].Attempts != 8 || recs[4].Attempts != 12 {
		t.Fatalf("want the last 5 records, oldest first; got %d from %d", len(recs), recs[0].Attempts)
	}
}

func TestMemoryRotates(t *testing.T) {
	mem := tempMemory(t)
	if err := os.MkdirAll(filepath.Dir(mem.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	// A file past the rotation size: a big tail of valid records.
	line, _ := json.Marshal(Record{Time: time.Unix(0, 0).UTC(), Model: "old", Attempts: 1, LLMCalls: 1, Valid: true,
		Failures: []string{strings.Repeat("x", 200)}})
	big := bytes.Repeat(append(line, '\n'), memoryRotateBytes/len(line)+1)
	if err := os.WriteFile(mem.Path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mem.Append(Record{Model: "new", Attempts: 1, LLMCalls: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(mem.Path)
	if err != nil || st.Size() > 1024 {
		t.Fatalf("the log should have started afresh: %v %v", st.Size(), err)
	}
	if _, err := os.Stat(mem.Path + ".1"); err != nil {
		t.Fatalf("the old log should be kept as .1: %v", err)
	}
	recs, warnings, err := mem.Load()
	if err != nil || len(warnings) != 0 {
		t.Fatalf("load: %v %q", err, warnings)
	}
	if len(recs) != DefaultMemoryRecords || recs[len(recs)-1].Model != "new" || recs[0].Model != "old" {
		t.Fatalf("want the newest %d records across both files, got %d", DefaultMemoryRecords, len(recs))
	}
}

func TestMistakesFrom(t *testing.T) {
	recs := []Record{
		{Model: "m", Failures: []string{"problem:if_missing_branch", "problem:if_extra_edges"}}, // one instruction, counted once
		{Model: "m", Failures: []string{"problem:if_missing_branch", "stage:decode"}},
		{Model: "m", Failures: []string{"problem:cycle"}, Repairs: []string{StageRepair}}, // repair shares decode's instruction
		{Model: "m", Failures: []string{"problem:made_up_code"}},                          // no instruction: ignored
		{Model: "other", Failures: []string{"problem:unknown_tool"}},
	}
	got := MistakesFrom(recs, "m", 5)
	var lines []string
	for _, m := range got {
		lines = append(lines, m.Instruction)
	}
	want := []string{instrIf, instrStrictJSON, mistakeInstructions["problem:cycle"]}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got[0].Count != 2 || got[1].Count != 2 || got[2].Count != 1 {
		t.Errorf("counts %+v", got)
	}
	if n := len(MistakesFrom(recs, "m", 1)); n != 1 {
		t.Errorf("limit: %d", n)
	}
}

func TestEveryProblemCodeHasAnInstruction(t *testing.T) {
	for code := range codeConstruct {
		if _, ok := mistakeInstructions["problem:"+code]; !ok {
			t.Errorf("no mistake instruction for problem code %s", code)
		}
	}
}

func TestPlanRecordsDistinctClasses(t *testing.T) {
	mem := tempMemory(t)
	_, res, err := planWith(t, Config{MaxRepairAttempts: 3, Model: "m", Memory: mem},
		scriptedReply{text: "{", finish: "length"}, answer(replyProse), answer(replyIfOneBranch))
	if err != nil || res.Valid {
		t.Fatalf("valid=%v err=%v", res.Valid, err)
	}
	recs, _, err := mem.Load()
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v)", len(recs), err)
	}
	got := strings.Join(recs[0].Failures, ",")
	if got != "stage:truncation,stage:extract,problem:if_missing_branch" || recs[0].Valid || recs[0].LLMCalls != 3 {
		t.Fatalf("record %+v", recs[0])
	}
}

func hasString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
